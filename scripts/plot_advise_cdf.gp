# SPDX-License-Identifier: Apache-2.0
# plot_advise_cdf.gp - completion-time CDFs of `gpusim advise --report`:
# one line per sharing mechanism (its best-ranked candidate, every seed),
# the share taken of all pods, so that a mechanism that failed pods or
# never started them ends below 1 by as many (the key says how many), x on
# a log axis from 1 s.
#
# Driven by `gpusim advise --report`, which sets: scriptdir (with a
# trailing slash), datadir, files (the data files, one per line), titles
# (their keys, quoted words), out and figtitle. Data: tab-separated
# columns seconds, share of all pods.
set datafile separator "\t"
n = words(files)
do for [fmt in 'png svg pdf'] {
	call scriptdir.'plot_common.gp' fmt
	set output out.'.'.fmt
	set title figtitle noenhanced
	set grid
	set logscale x
	set format x '10^{%T}'
	set yrange [0:1]
	set key top left noenhanced
	set xlabel 'Completion time, departure - arrival (s)'
	set ylabel 'Share of all pods completed'
	plot for [i=1:n] datadir.'/'.word(files, i) using 1:2 with steps lt i title word(titles, i)
	unset output
}
