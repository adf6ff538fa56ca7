# SPDX-License-Identifier: Apache-2.0
# plot_bench_slowdown.gp - interference: the throughput of a client against
# its throughput alone, by the number of clients sharing its GPU (itself
# included), one line per kernel and mode, with the fair share 1/n (the
# `interference` and `colocate` scenarios of `make bench`; the table the
# simulator can use for interference).
#
# Driven by `gpusim plot` or plot-bench.gp, which set: scriptdir (with a
# trailing slash), datafile, out (the output path without extension) and
# the word lists kernels, modes and devices (names in double quotes). Data:
# the slowdown.csv of `gpusim bench-import --csv-dir`, a header line, then
# kernel, co-located clients, mode, factor, samples, device, each line's
# rows together and in order of clients. Colour is the mode, the point
# the kernel, the dash pattern the device.
reset
nk = words(kernels)
nm = words(modes)
nd = words(devices)
ns = nk * nm * nd
kernel_of(s) = word(kernels, (s - 1) % nk + 1)
mode_i(s) = (s - 1) / nk % nm + 1
dev_i(s) = (s - 1) / (nk * nm) + 1
is(s) = strcol(1) eq kernel_of(s) && strcol(3) eq word(modes, mode_i(s)) && \
	strcol(6) eq word(devices, dev_i(s))
title_of(s) = kernel_of(s).', '.word(modes, mode_i(s)).(nd > 1 ? ', '.word(devices, dev_i(s)) : '')
load scriptdir.'plot_bench_common.gp'
# One column at a time: two would fit a line, and warn on a single row.
stats datafile skip 1 using 2 nooutput
most = STATS_max
stats datafile skip 1 using 4 nooutput
top = STATS_max > 1.05 ? 1.05 * STATS_max : 1.1

set title 'Interference: throughput against alone, by clients per GPU' noenhanced
set xlabel 'Clients on the GPU (itself included)'
set ylabel 'Throughput / throughput alone (mean over clients and runs)'
set xrange [0.8:most + 0.2]
set xtics 1
set yrange [0:top]
set grid
set key outside top center horizontal noenhanced
set samples 200
do for [fmt in 'png svg pdf'] {
	call scriptdir.'plot_common.gp' fmt
	set output out.'.'.fmt
	plot 1 / x with lines dt 2 lw 1.5 lc 'black' title 'fair share 1/n', \
	     for [s=1:ns] datafile skip 1 using (is(s) ? $2 : NaN):4 with linespoints \
		lc mode_lt(word(modes, mode_i(s))) pt ((s - 1) % nk + 5) ps 1.3 dt dev_i(s) \
		title (has[s] ? title_of(s) : '')
	unset output
}
