# SPDX-License-Identifier: Apache-2.0
# plot_bars.gp - unallocated GPU % at arrived workload 100 % for the traces
# of one family (cpu, gpushare, gpuspec or multigpu): a group of bars per
# trace, one bar per policy, mean over seeds with sd error bars (Weng et
# al., ATC 2023, Figs. 11-14).
#
# Driven by `gpusim plot`, which sets: scriptdir (with a trailing slash),
# datafile, family, policies, out (the output path without extension),
# seeds, maxseeds, scoring (as plot_alloc.gp) and bound (1: draw it).
# Data: tab-separated, the trace name then mean and sd for each policy in
# the order of `policies`, then the floor no placement goes below (gpusim
# bound; NaN without) and 0, drawn as a black mark over each group.
set datafile separator "\t"
set datafile missing 'NaN'
set ylabel 'Unallocated GPU at arrived 100% (%)'
if (maxseeds > 1) {
	set title sprintf("Unallocated GPU by %s trace\n%s scoring, mean and sd of %s", family, scoring, seeds) noenhanced
} else {
	set title sprintf("Unallocated GPU by %s trace\n%s scoring, %s", family, scoring, seeds) noenhanced
}
set xlabel 'Trace (openb workload)'
set yrange [0:*]
set key outside top center horizontal noenhanced
set grid ytics
set style data histogram
set style histogram errorbars gap 1 lw 1
set style fill solid 0.8 border -1
set xtics noenhanced
n = words(policies)
do for [fmt in 'png svg pdf'] {
	call scriptdir.'plot_common.gp' fmt
	set output out.'.'.fmt
	plot for [i=1:n] datafile using (column(2*i)):(column(2*i+1)):xtic(1) lc i dt 1 \
		title word(policies, i), \
	     for [k=1:bound] datafile using 0:(column(2*n+2)) with points pt 5 ps 1.5 \
		lc rgb 'black' title 'bound: any placement'
	unset output
}
