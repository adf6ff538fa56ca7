# SPDX-License-Identifier: Apache-2.0
# plot_regress_bars.gp - `gpusim regress --out`: unallocated GPU % at
# arrived workload 100 % (Weng et al., ATC 2023, Figs. 11-14) for every
# inflate-mode family, the new runs against the baseline: per family a
# group of bars, two per policy side by side, the baseline's pale,
# now dark, each the mean over seeds with an sd error bar.
#
# Driven by gpusim regress, which sets: scriptdir (with a trailing slash),
# datafile, policies, lts (as plot_regress_curve.gp), out and sub. Data:
# tab-separated, the family, then for each policy in the order of
# `policies` the baseline's mean and sd and now's mean and sd.
set datafile separator "\t"
set datafile missing 'nan'
set ylabel 'Unallocated GPU at arrived 100% (%)'
set title sprintf("Unallocated GPU by family: now (dark) against the baseline (pale)\n%s", sub) noenhanced
set xlabel 'Family (mode-trace)'
set yrange [0:*]
set key outside top center horizontal noenhanced
set grid ytics
set style data histogram
set style histogram errorbars gap 1 lw 1
set xtics noenhanced
n = words(policies)
lt(i) = int(word(lts, i))
# Series j = 1..2n: policy (j+1)/2, the baseline for odd j, now for even j.
col(j) = 2 + 4 * ((j - 1) / 2) + 2 * ((j - 1) % 2)
do for [fmt in 'png svg pdf'] {
	call scriptdir.'plot_common.gp' fmt
	set output out.'.'.fmt
	plot for [j=1:2*n] datafile using (column(col(j))):(column(col(j) + 1)):xtic(1) \
		lc lt((j + 1) / 2) dt 1 fs solid (j % 2 ? 0.25 : 0.9) border lc lt((j + 1) / 2) title (j % 2 ? '' : word(policies, (j + 1) / 2))
	unset output
}
