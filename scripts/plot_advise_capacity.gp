# SPDX-License-Identifier: Apache-2.0
# plot_advise_capacity.gp - the capacity search of `gpusim advise --target`:
# every run it made, the target's metric against the GPUs of the cluster it
# ran on, one colour per candidate, filled points where the run met every
# target (no pod failed or stayed unstarted, every bound held), the first
# target's bound drawn as a line.
#
# Driven by `gpusim advise --report`, which sets: scriptdir (with a
# trailing slash), datadir, files, titles (quoted words), out, bound,
# ylabel and figtitle. Data: tab-separated columns GPUs, value, meets (0/1).
set datafile separator "\t"
n = words(files)
do for [fmt in 'png svg pdf'] {
	call scriptdir.'plot_common.gp' fmt
	set output out.'.'.fmt
	set title figtitle noenhanced
	set grid
	set key top right noenhanced
	set xlabel 'GPUs in the cluster'
	set ylabel ylabel noenhanced
	set yrange [0:*]
	set offsets 0.5, 0.5, 0, 0
	plot for [i=1:n] datadir.'/'.word(files, i) using 1:($3 > 0 ? $2 : 1/0) with points lt i pt 7 ps 1.2 title word(titles, i), \
	     for [i=1:n] datadir.'/'.word(files, i) using 1:($3 > 0 ? 1/0 : $2) with points lt i pt 6 ps 1.2 notitle, \
	     bound with lines lc rgb 'black' dt 2 lw 1.5 title 'target'
	unset output
}
