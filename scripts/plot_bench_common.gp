# SPDX-License-Identifier: Apache-2.0
# plot_bench_common.gp - what the plot_bench_*.gp scripts share, loaded by
# each once it has defined ns, its number of series, and is(s), true when
# the current row of datafile belongs to series s.
#
# Sets has[s] for every series: whether any row of datafile is in it (a
# series without rows gets no key entry). Defines mode_lt(m): a mode's
# line type (its colour in plot_common.gp), fixed by the mode's name, so
# that a mode looks the same in every figure and every database.
set datafile separator ','
array has[ns]
do for [s=1:ns] {
	stats datafile skip 1 using (is(s) ? 1 : 0) nooutput
	has[s] = STATS_sum > 0
}
mode_rank(m) = sum [i=1:4] (word('exclusive timeslice mps hook', i) eq m ? i : 0)
mode_lt(m) = mode_rank(m) > 0 ? mode_rank(m) : 5
