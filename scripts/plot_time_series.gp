# SPDX-License-Identifier: Apache-2.0
# plot_time_series.gp - a time-mode run per policy against time: the
# allocated GPU share (top) and the pending pods (bottom), over the arrival
# window and a quarter of it after.
#
# Driven by `gpusim plot`, which sets: scriptdir (with a trailing slash),
# datadir, trace, policies (a space-separated word list), lts (each
# policy's line type, the same in every figure), out (the output path
# without extension) and setting (e.g. 'load 110%, 3 runs'). Data:
# datadir/<trace>.<policy>.series.dat, tab-separated columns hours,
# allocated GPU %, pending pods.
set datafile separator "\t"
n = words(policies)
file(i) = sprintf('%s/%s.%s.series.dat', datadir, trace, word(policies, i))
lt(i) = int(word(lts, i))
do for [fmt in 'png svg pdf'] {
	call scriptdir.'plot_common.gp' fmt
	set output out.'.'.fmt
	set multiplot layout 2,1 title sprintf("Time mode, trace %s, %s: the lowest seed of each policy", trace, setting) noenhanced
	set grid
	set lmargin 10
	set rmargin 3
	# The key above the first panel: four policies a row, the panel below them.
	set tmargin 3 + (n + 3) / 4
	set key at screen 0.5, 0.94 center top horizontal maxcols 4 noenhanced
	set xlabel 'Hours since the first arrival'
	set ylabel 'GPU allocated (% of capacity)'
	set yrange [0:*]
	plot for [i=1:n] file(i) using 1:2 with lines lt lt(i) dt 1 title word(policies, i)
	set ylabel 'Pending pods'
	call scriptdir.'plot_range0.gp' 'y' '3' 'file' '0' '1'
	set tmargin 2
	unset key
	plot for [i=1:n] file(i) using 1:3 with lines lt lt(i) dt 1 title word(policies, i)
	unset multiplot
	unset output
}
