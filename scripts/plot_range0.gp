# SPDX-License-Identifier: Apache-2.0
# plot_range0.gp - an axis range that starts at a fixed low end: [LOW:*],
# or [LOW:HIGH] when the column never passes LOW in any file, where
# autoscaling would give an empty range and gnuplot would warn about it
# (common: no pod waited, none is pending, no GPU is short of CPU).
#
# Called as: call scriptdir.'plot_range0.gp' 'x'|'y' 'COLUMN' 'FILE' 'LOW' 'HIGH'
# with n (the number of files) and FILE(i), the name of the caller's
# function giving the i-th file. It autoscales both axes before reading
# the files (stats keeps only the points inside the ranges set), so the
# caller sets its other fixed ranges after the call.
set autoscale x
set autoscale y
r0_lo = real(ARG4)
r0_max = r0_lo
do for [r0_i=1:n] {
	stats @ARG3(r0_i) using int(ARG2) nooutput
	# A file without a number in the column leaves STATS_max undefined.
	if (exists("STATS_max") && STATS_max > r0_max) { r0_max = STATS_max }
}
r0_hi = r0_max > r0_lo ? 0 : real(ARG5)
if (ARG1 eq 'x') {
	if (r0_hi > 0) { set xrange [r0_lo:r0_hi] } else { set xrange [r0_lo:*] }
} else {
	if (r0_hi > 0) { set yrange [r0_lo:r0_hi] } else { set yrange [r0_lo:*] }
}
