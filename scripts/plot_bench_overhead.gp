# SPDX-License-Identifier: Apache-2.0
# plot_bench_overhead.gp - what a sharing mode costs a kernel that has a GPU
# to itself: the throughput it loses against the exclusive mode, one group
# of bars per kernel and one bar per mode (the `overhead` scenario of
# `make bench`; the hook's targets: at most 1 % on mnist and
# 5 % on launch, drawn as dashed lines).
#
# Driven by `gpusim plot` or plot-bench.gp, which set: scriptdir (with a
# trailing slash), datafile, out (the output path without extension) and
# the word lists kernels, modes and devices (names in double quotes). Data:
# the overhead.csv of `gpusim bench-import --csv-dir`, a header line, then
# kernel, mode, overhead %, samples, device. With more than one device a
# bar is a mode on a device, and the lighter bars are the later devices.
# Each bar carries its value, so that a mode that costs nothing shows.
reset
nk = words(kernels)
nm = words(modes)
nd = words(devices)
ns = nm * nd
mode_of(s) = word(modes, (s - 1) % nm + 1)
dev_of(s) = word(devices, (s - 1) / nm + 1)
is(s) = strcol(2) eq mode_of(s) && strcol(5) eq dev_of(s)
title_of(s) = nd > 1 ? mode_of(s).', '.dev_of(s) : mode_of(s)
kernel_at(name) = sum [i=1:nk] (word(kernels, i) eq name ? i : 0)
load scriptdir.'plot_bench_common.gp'
# Only the series with rows get a place in a group.
array slot[ns]
used = 0
do for [s=1:ns] {
	if (has[s]) { used = used + 1; slot[s] = used } else { slot[s] = 0 }
}
bw = 0.8 / (used > 0 ? used : 1)
xpos(s) = kernel_at(strcol(1)) - 0.4 + bw * (slot[s] - 0.5)

set title 'Overhead of each sharing mode, each kernel alone on a GPU (mean over repetitions)' noenhanced
set xlabel 'Kernel'
set ylabel 'Throughput lost against exclusive (%)'
set xrange [0.5:nk + 0.5]
set xtics () noenhanced
do for [i=1:nk] { set xtics add (word(kernels, i) i) }
# Bars start at 0 (or below, when a mode measured faster than exclusive),
# so the 1 % and 5 % target lines are always in view.
set yrange [*<0:6<*]
set offsets 0, 0, graph 0.1, 0
set xzeroaxis lt -1
set grid ytics
set key outside top center horizontal noenhanced
set boxwidth bw absolute
do for [fmt in 'png svg pdf'] {
	call scriptdir.'plot_common.gp' fmt
	set output out.'.'.fmt
	plot for [s=1:ns] datafile skip 1 using (is(s) ? xpos(s) : NaN):3 with boxes \
		lc mode_lt(mode_of(s)) dt 1 fs solid (0.85 - 0.5 * ((s - 1) / nm) / nd) border -1 \
		title (has[s] ? title_of(s) : ''), \
	     for [s=1:ns] datafile skip 1 using (is(s) ? xpos(s) : NaN):3:(sprintf('%.1f', $3)) \
		with labels offset 0, 0.7 notitle, \
	     1 with lines dt 2 lw 1.5 lc 'black' title 'hook target, mnist: 1 %', \
	     5 with lines dt 3 lw 1.5 lc 'black' title 'hook target, launch: 5 %'
	unset output
}
