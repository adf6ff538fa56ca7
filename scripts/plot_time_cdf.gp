# SPDX-License-Identifier: Apache-2.0
# plot_time_cdf.gp - the distribution of the waits (left) and of the
# completion times (right) of a time-mode setting, per policy: the share of
# pods that waited (took) at most x seconds, x on a log axis from 1 s, so
# each wait curve starts at the share of pods that did not wait.
#
# Driven by `gpusim plot`, which sets: scriptdir (with a trailing slash),
# datadir, trace, policies, lts, out and setting, as plot_time_series.gp.
# Data: datadir/<trace>.<policy>.cdfw.dat and .cdfc.dat, tab-separated
# columns seconds, fraction.
set datafile separator "\t"
n = words(policies)
wfile(i) = sprintf('%s/%s.%s.cdfw.dat', datadir, trace, word(policies, i))
cfile(i) = sprintf('%s/%s.%s.cdfc.dat', datadir, trace, word(policies, i))
lt(i) = int(word(lts, i))
do for [fmt in 'png svg pdf'] {
	call scriptdir.'plot_common.gp' fmt
	set output out.'.'.fmt
	set multiplot layout 1,2 title sprintf("Time mode, trace %s, %s: all pods of all seeds", trace, setting) noenhanced
	set grid
	set logscale x
	set format x '10^{%T}'
	# No pod waited in any run: every wait sits at 1 s, the axis 1-10 s.
	call scriptdir.'plot_range0.gp' 'x' '1' 'wfile' '1' '10'
	if (r0_hi > 0) { set label 1 'no pod waited' at graph 0.5, 0.5 center } else { unset label 1 }
	set yrange [0:1]
	set key bottom right noenhanced
	set xlabel 'Wait (s)'
	set ylabel 'Share of placed pods with at most this wait'
	plot for [i=1:n] wfile(i) using 1:2 with steps lt lt(i) title word(policies, i)
	set autoscale x
	unset label 1
	set xlabel 'Completion time, departure - arrival (s)'
	set ylabel 'Share of departed pods'
	plot for [i=1:n] cfile(i) using 1:2 with steps lt lt(i) title word(policies, i)
	unset multiplot
	unset output
}
