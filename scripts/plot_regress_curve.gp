# SPDX-License-Identifier: Apache-2.0
# plot_regress_curve.gp - `gpusim regress --out`: unallocated GPU % against
# arrived workload, 80-130 % (Weng et al., ATC 2023, Fig. 9a), the new runs
# against the baseline: per policy the median over seeds now (solid, the
# policy's dash and marker), the baseline's median (thin, dotted, same
# colour) and its 25-75 % band.
#
# Driven by gpusim regress, which sets: scriptdir (with a trailing slash),
# datadir, family, policies (a space-separated word list), lts (the
# linetype of each policy, so that a policy has one colour in every figure
# of a report), out (the output path without extension) and sub (the
# second title line). Data: datadir/<family>.<policy>.{base,now}.unalloc.dat,
# tab-separated arrived%, median, q25, q75 (either may be empty).
set datafile separator "\t"
set xlabel 'Arrived workload (% of cluster GPU capacity)'
set ylabel 'Unallocated GPU (%)'
set title sprintf("Unallocated GPU, %s: now (solid) against the baseline (dotted, 25-75%% band)\n%s", family, sub) noenhanced
set xrange [80:130]
set yrange [0:*]
set key top left noenhanced opaque
set grid
set style fill transparent solid 0.12 noborder
n = words(policies)
fb(i) = sprintf('%s/%s.%s.base.unalloc.dat', datadir, family, word(policies, i))
fn(i) = sprintf('%s/%s.%s.now.unalloc.dat', datadir, family, word(policies, i))
lt(i) = int(word(lts, i))
do for [fmt in 'png svg pdf'] {
	call scriptdir.'plot_common.gp' fmt
	set output out.'.'.fmt
	plot for [i=1:n] fb(i) using 1:3:4 with filledcurves lc lt(i) notitle, \
	     for [i=1:n] fb(i) using 1:2 with lines lc lt(i) lw 1 dt 3 notitle, \
	     for [i=1:n] fn(i) using 1:2 with linespoints lt lt(i) pi 5 ps 0.8 title word(policies, i), \
	     NaN with lines lc rgb '#404040' lw 1 dt 3 title 'baseline'
	unset output
}
