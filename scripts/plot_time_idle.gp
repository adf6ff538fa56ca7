# SPDX-License-Identifier: Apache-2.0
# plot_time_idle.gp - a time-mode run per policy against time: the idle
# GPU capacity a reference job cannot use, by reason (core/idle.h; the
# breakdown of Alibaba's cluster-trace-gpu-v2026 analysis), one panel each:
# on partly used GPUs (fractional), whole GPUs on nodes short of CPU or
# memory, whole GPUs too few on their node (stranded); and, when the runs
# tracked it (--frag), the FGD fragmentation measure beside them. All in
# percent of the cluster's GPU capacity.
#
# Driven by `gpusim plot`, which sets: scriptdir (with a trailing slash),
# datadir, trace, policies (a space-separated word list), lts (each
# policy's line type), out (the output path without extension), setting
# and frag (1: draw the fragmentation panel). Data: the series files of
# plot_time_series.gp, datadir/<trace>.<policy>.series.dat, columns hours,
# allocated GPU %, pending pods, idle fractional %, idle short of CPU %,
# idle stranded %, fragmentation % (NaN where not recorded).
set datafile separator "\t"
set datafile missing "NaN"
n = words(policies)
file(i) = sprintf('%s/%s.%s.series.dat', datadir, trace, word(policies, i))
lt(i) = int(word(lts, i))
panels = frag ? 4 : 3
do for [fmt in 'png svg pdf'] {
	# Each row of the key past the first takes a little height, not the first panel's.
	call scriptdir.'plot_common.gp' fmt sprintf('%g', 1 + 0.08 * ((n + 3) / 4 - 1))
	set output out.'.'.fmt
	set multiplot layout panels,1 title sprintf("Idle GPUs a job cannot use, trace %s, %s: the lowest seed of each policy", trace, setting) noenhanced
	set grid
	set lmargin 10
	set rmargin 3
	# The key above the first panel: four policies a row, the panel below them.
	set tmargin 2 + (n + 3) / 4
	set key at screen 0.5, 0.95 center top horizontal maxcols 4 noenhanced
	set ylabel 'Fractional (%)'
	call scriptdir.'plot_range0.gp' 'y' '4' 'file' '0' '1'
	plot for [i=1:n] file(i) using 1:4 with lines lt lt(i) dt 1 title word(policies, i)
	unset key
	set tmargin 1
	set ylabel 'Short of CPU (%)'
	call scriptdir.'plot_range0.gp' 'y' '5' 'file' '0' '1'
	plot for [i=1:n] file(i) using 1:5 with lines lt lt(i) dt 1 notitle
	set ylabel 'Stranded (%)'
	call scriptdir.'plot_range0.gp' 'y' '6' 'file' '0' '1'
	if (!frag) { set xlabel 'Hours since the first arrival' }
	plot for [i=1:n] file(i) using 1:6 with lines lt lt(i) dt 1 notitle
	if (frag) {
		set ylabel 'FGD frag. (%)'
		call scriptdir.'plot_range0.gp' 'y' '7' 'file' '0' '1'
		set xlabel 'Hours since the first arrival'
		plot for [i=1:n] file(i) using 1:7 with lines lt lt(i) dt 1 notitle
	}
	unset xlabel
	unset multiplot
	unset output
}
