# SPDX-License-Identifier: Apache-2.0
# stats.sh - what the timing scripts of bench/sim share (sourced by scale.sh
# and advise.sh): the median of numbers on stdin, and /usr/bin/time's
# elapsed "h:mm:ss" or "m:ss.ss" in seconds.

median() {
	sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "-";
		else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

to_s() {
	awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }'
}
