# SPDX-License-Identifier: Apache-2.0
# plot_frag.gp - cluster fragmentation against arrived workload, 0-100 %,
# one line per policy (median over seeds, 25-75 % band): the ratio
# fragmentation / idle GPU and the amount fragmentation / GPU capacity
# (Weng et al., ATC 2023, Fig. 7).
#
# Driven by `gpusim plot`, which sets: scriptdir (with a trailing slash),
# datadir, trace, policies, out_ratio and out_amount (output paths without
# extension), seeds, maxseeds and scoring (as plot_alloc.gp). Data: datadir/<trace>.<policy>.frag.dat, tab-separated
# columns arrived%, ratio median, q25, q75, amount median, q25, q75.
set datafile separator "\t"
set xlabel 'Arrived workload (% of cluster GPU capacity)'
set xrange [0:100]
set yrange [0:*]
set grid
set style fill transparent solid 0.20 noborder
n = words(policies)
band = maxseeds > 1
what = maxseeds > 1 ? sprintf('%s scoring, median of %s, 25-75%% band', scoring, seeds) : sprintf('%s scoring, %s', scoring, seeds)
file(i) = sprintf('%s/%s.%s.frag.dat', datadir, trace, word(policies, i))
do for [fmt in 'png svg pdf'] {
	call scriptdir.'plot_common.gp' fmt
	set output out_ratio.'.'.fmt
	set key top left noenhanced opaque
	set ylabel 'Fragmentation / idle GPU (%)'
	set title sprintf("GPU fragmentation ratio, trace %s\n%s", trace, what) noenhanced
	plot for [i=1:n] file(i) using 1:(band ? $3 : NaN):4 with filledcurves lc i notitle, \
	     for [i=1:n] file(i) using 1:2 with linespoints lt i pi 8 ps 0.8 title word(policies, i)
	unset output
	set output out_amount.'.'.fmt
	set key bottom right noenhanced opaque
	set ylabel 'Fragmentation / GPU capacity (%)'
	set title sprintf("GPU fragmentation amount, trace %s\n%s", trace, what) noenhanced
	plot for [i=1:n] file(i) using 1:(band ? $6 : NaN):7 with filledcurves lc i notitle, \
	     for [i=1:n] file(i) using 1:5 with linespoints lt i pi 8 ps 0.8 title word(policies, i)
	unset output
}
