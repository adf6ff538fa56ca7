# SPDX-License-Identifier: Apache-2.0
# plot_regress_cdf.gp - `gpusim regress --out`: the distribution of a
# time-mode figure per pod (wait or completion time) per policy, the new
# runs (solid, the policy's dash and marker) against the baseline (thin,
# dotted, same colour), as the fraction of pods at or below a value, from
# the quantiles gpusim regress stores (a grid of fractions, dense in the
# tail), joined by lines. The x axis is logarithmic: pods at 0 s (most
# never wait) are left of it, so a curve starts at the fraction of pods
# with 0 s.
#
# Driven by gpusim regress, which sets: scriptdir (with a trailing slash),
# datadir, family, policies, lts (as plot_regress_curve.gp), titles (the
# key entry of each policy, in double quotes: it says when all of a
# policy's pods are at 0 s, so that it has no line), what ('wait' or
# 'completion'), label (the x axis), out and sub. Data:
# datadir/<family>.<policy>.{base,now}.<what>.dat, tab-separated value,
# fraction.
set datafile separator "\t"
set xlabel label noenhanced
set ylabel 'Fraction of pods at or below'
set title sprintf("%s CDF, %s: now (solid) against the baseline (dotted)\n%s; log scale, pods at 0 s left of the axis", what eq 'wait' ? 'Wait' : 'Completion time', family, sub) noenhanced
set logscale x
set format x '10^{%T}'
set key top left noenhanced opaque
set grid
n = words(policies)
fb(i) = sprintf('%s/%s.%s.base.%s.dat', datadir, family, word(policies, i), what)
fn(i) = sprintf('%s/%s.%s.now.%s.dat', datadir, family, word(policies, i), what)
lt(i) = int(word(lts, i))
pos(x) = x > 0 ? x : NaN
# The y range: from the lowest visible point to 1, with a little room on both sides.
set table $scratch
plot for [i=1:n] fb(i) using (pos($1)):2 with lines, for [i=1:n] fn(i) using (pos($1)):2 with lines, \
     1 with lines
unset table
ymin = GPVAL_DATA_Y_MIN < 1 ? GPVAL_DATA_Y_MIN : 0.99
pad = (1 - ymin) * 0.03
set yrange [ymin - pad : 1 + pad]
do for [fmt in 'png svg pdf'] {
	call scriptdir.'plot_common.gp' fmt
	set output out.'.'.fmt
	plot for [i=1:n] fb(i) using (pos($1)):2 with lines lc lt(i) lw 1 dt 3 notitle, \
	     for [i=1:n] fn(i) using (pos($1)):2 with linespoints lt lt(i) ps 0.6 title word(titles, i), \
	     NaN with lines lc rgb '#404040' lw 1 dt 3 title 'baseline'
	unset output
}
