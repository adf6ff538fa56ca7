# SPDX-License-Identifier: Apache-2.0
# plot_bench_shares.gp - compute isolation: the share of the GPU each client
# achieved against the share it asked for, one point per client, scenario
# and mode, with the ideal diagonal and the hook's target band of 5 points
# around it (the `compute` scenarios of `make bench`: 30/70 and 10/90).
#
# Driven by `gpusim plot` or plot-bench.gp, which set: scriptdir (with a
# trailing slash), datafile, out (the output path without extension) and
# the word lists kernels, modes and devices (names in double quotes). Data:
# the shares.csv of `gpusim bench-import --csv-dir`, a header line, then
# scenario, mode, client, requested share, achieved share (fractions of a
# GPU), samples, device. Colour and marker are the mode (open markers,
# smaller for later modes, so that coincident points stay visible); with
# more than one device the later devices' markers are filled.
reset
nm = words(modes)
nd = words(devices)
ns = nm * nd
mode_i(s) = (s - 1) % nm + 1
dev_i(s) = (s - 1) / nm + 1
is(s) = strcol(2) eq word(modes, mode_i(s)) && strcol(7) eq word(devices, dev_i(s))
title_of(s) = word(modes, mode_i(s)).(nd > 1 ? ', '.word(devices, dev_i(s)) : '')
load scriptdir.'plot_bench_common.gp'
lt_of(s) = mode_lt(word(modes, mode_i(s)))

set title 'Requested against achieved compute share (mean over repetitions)' noenhanced
set xlabel 'Requested compute share (% of the GPU)'
set ylabel 'Achieved compute share (% of the GPU)'
set xrange [0:100]
set yrange [0:100]
set xtics 10
set ytics 10
set size ratio -1
set grid
set key top left noenhanced box opaque
set style fill transparent solid 0.15 noborder
set samples 2
do for [fmt in 'png svg pdf'] {
	call scriptdir.'plot_common.gp' fmt
	set output out.'.'.fmt
	plot '+' using 1:($1 - 5):($1 + 5) with filledcurves lc rgb '#2ca02c' \
		title 'target: within 5 points', \
	     x with lines dt 2 lw 1.5 lc 'black' title 'ideal: achieved = requested', \
	     for [s=1:ns] datafile skip 1 using (is(s) ? 100 * $4 : NaN):(100 * $5) \
		with points lc lt_of(s) pt (2 * lt_of(s) + (dev_i(s) > 1)) ps (3.7 - 0.5 * lt_of(s)) lw 2 \
		title (has[s] ? title_of(s) : '')
	unset output
}
