# SPDX-License-Identifier: Apache-2.0
# plot_alloc.gp - unallocated GPU % against arrived workload, 80-130 %,
# one line per policy: the median over seeds and the band between the 25th
# and 75th percentiles (Weng et al., ATC 2023, Fig. 9a).
#
# Driven by `gpusim plot`, which sets: scriptdir (with a trailing slash),
# datadir, trace, policies (a space-separated word list), out (the
# output path without extension), seeds (e.g. '10 seeds'), maxseeds and
# scoring ('compat', 'exact', ...). With one seed there is no band. Data: datadir/<trace>.<policy>.alloc.dat,
# tab-separated columns arrived%, median, q25, q75. With bound=1, also
# datadir/<trace>.bound.dat (arrived%, median, min, max over seeds): the
# floor no placement goes below (gpusim bound), a black dashed line.
set datafile separator "\t"
set xlabel 'Arrived workload (% of cluster GPU capacity)'
set ylabel 'Unallocated GPU (%)'
if (maxseeds > 1) {
	set title sprintf("Unallocated GPU, trace %s\n%s scoring, median of %s, 25-75%% band", trace, scoring, seeds) noenhanced
} else {
	set title sprintf("Unallocated GPU, trace %s\n%s scoring, %s", trace, scoring, seeds) noenhanced
}
set xrange [80:130]
set yrange [0:*]
set key top left noenhanced opaque
set grid
set style fill transparent solid 0.20 noborder
n = words(policies)
file(i) = sprintf('%s/%s.%s.alloc.dat', datadir, trace, word(policies, i))
boundfile = sprintf('%s/%s.bound.dat', datadir, trace)
band = maxseeds > 1
# The bound's curve as a macro, empty without one: gnuplot opens the file of
# even an empty `for` and warns that it is missing.
boundcurve = bound ? sprintf(", '%s' using 1:2 with lines lc rgb 'black' dt 2 lw 2 title 'bound: any placement'", boundfile) : ''
do for [fmt in 'png svg pdf'] {
	call scriptdir.'plot_common.gp' fmt
	set output out.'.'.fmt
	plot for [i=1:n] file(i) using 1:(band ? $3 : NaN):4 with filledcurves lc i notitle, \
	     for [i=1:n] file(i) using 1:2 with linespoints lt i pi 5 ps 0.8 title word(policies, i) \
	     @boundcurve
	unset output
}
