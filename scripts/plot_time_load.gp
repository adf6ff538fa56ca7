# SPDX-License-Identifier: Apache-2.0
# plot_time_load.gp - waits against the offered load (--load), per policy:
# the mean wait (left) and the 99th-percentile wait (right) of each run,
# averaged over the seeds, the bars spanning the lowest to the highest seed.
#
# Driven by `gpusim plot`, which sets: scriptdir (with a trailing slash),
# datadir, trace, policies, lts and out, as plot_time_series.gp. Data:
# datadir/<trace>.<policy>.load.dat, tab-separated columns load %, p99 wait
# mean, min, max, mean wait mean, min, max, runs.
set datafile separator "\t"
n = words(policies)
file(i) = sprintf('%s/%s.%s.load.dat', datadir, trace, word(policies, i))
lt(i) = int(word(lts, i))
do for [fmt in 'png svg pdf'] {
	call scriptdir.'plot_common.gp' fmt
	set output out.'.'.fmt
	set multiplot layout 1,2 title sprintf("Time mode, trace %s: waits against the offered load\nmean over seeds, bars from the lowest to the highest seed", trace) noenhanced
	set grid
	# The key above the panels: two policies a row (an entry with error bars
	# is wide), the panels below them.
	set tmargin 4 + (n + 1) / 2
	set key at screen 0.5, 0.9 center top horizontal maxcols 2 noenhanced
	set offsets 3, 3, 0, 0
	set xlabel 'Offered load (% of GPU capacity)'
	set ylabel 'Mean wait (s)'
	set yrange [0:*]
	plot for [i=1:n] file(i) using 1:5:6:7 with yerrorlines lt lt(i) title word(policies, i)
	unset key
	set ylabel '99th-percentile wait (s)'
	plot for [i=1:n] file(i) using 1:2:3:4 with yerrorlines lt lt(i) title word(policies, i)
	unset multiplot
	unset output
}
