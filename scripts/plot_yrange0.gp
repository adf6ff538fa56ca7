# SPDX-License-Identifier: Apache-2.0
# plot_yrange0.gp - the y range of a panel of non-negative series: [0:*],
# or [0:1] when column ARG1 is zero in every file, where autoscaling
# would make gnuplot warn about an empty range [0:0] (a run where no pod
# waits, or no GPU is short of CPU, is common).
#
# Called as: call scriptdir.'plot_yrange0.gp' 'COLUMN', with n (the
# number of files) and file(i) (the i-th file) defined by the caller, and
# no x range set (stats keeps only the points inside the ranges set).
set autoscale y
y0_max = 0
do for [y0_i=1:n] {
	stats file(y0_i) using int(ARG1) nooutput
	# A file without a number in the column leaves STATS_max undefined.
	if (exists("STATS_max") && STATS_max > y0_max) { y0_max = STATS_max }
}
if (y0_max > 0) { set yrange [0:*] } else { set yrange [0:1] }
