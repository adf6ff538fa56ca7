# SPDX-License-Identifier: Apache-2.0
# plot_advise_pareto.gp - the trade-offs of `gpusim advise --report`: the
# objective of every candidate still in against the GPU share it allocates
# (left; fewer is better) and against the useful work it gets done (right;
# more is better), one colour per load, each load's Pareto front drawn as a
# line; the ideal reference lines (sharing at no cost) as crosses.
#
# Driven by `gpusim advise --report`, which sets: scriptdir (with a
# trailing slash), datadir, trace, loads (words), out and ylabel (the
# objective). Data, per load L: datadir/<trace>.L.points.dat (allocated %,
# useful %, objective, candidate), .refs.dat (the same for the references)
# and .front_alloc.dat, .front_useful.dat (x, objective).
set datafile separator "\t"
n = words(loads)
pts(i) = sprintf('%s/%s.%s.points.dat', datadir, trace, word(loads, i))
refs(i) = sprintf('%s/%s.%s.refs.dat', datadir, trace, word(loads, i))
front(i, x) = sprintf('%s/%s.%s.front_%s.dat', datadir, trace, word(loads, i), x)
lname(i) = word(loads, i) eq 'times' ? 'trace times' : 'load '.word(loads, i).'%'
do for [fmt in 'png svg pdf'] {
	call scriptdir.'plot_common.gp' fmt
	set output out.'.'.fmt
	set multiplot layout 1,2 title sprintf("%s: %s against the GPUs used", trace, ylabel) noenhanced
	set grid
	set key outside below horizontal noenhanced
	set ylabel ylabel noenhanced
	set xlabel 'Allocated GPU share (%)'
	plot for [i=1:n] pts(i) using 1:3 with points lt i pt 7 title lname(i), \
	     for [i=1:n] front(i, 'alloc') using 1:2 with lines lt i notitle, \
	     for [i=1:n] refs(i) using 1:3 with points lt i pt 2 notitle
	set xlabel 'Useful GPU work (% of capacity)'
	plot for [i=1:n] pts(i) using 2:3 with points lt i pt 7 title lname(i), \
	     for [i=1:n] front(i, 'useful') using 1:2 with lines lt i notitle, \
	     for [i=1:n] refs(i) using 2:3 with points lt i pt 2 notitle
	unset multiplot
	unset output
}
