# shellcheck shell=bash
# SPDX-License-Identifier: Apache-2.0
# stats.sh - what the timing scripts of bench/sim share (sourced by scale.sh,
# sharing.sh and advise.sh): the median and range of numbers on stdin,
# /usr/bin/time's elapsed "h:mm:ss" or "m:ss.ss" in seconds, and one timed
# command.

# The median of the numbers on stdin, one a line; blank lines are no numbers.
median() {
	sort -g | awk 'NF { v[++n] = $1 } END { if (!n) print "-";
		else if (n % 2) print v[(n + 1) / 2]; else print (v[n / 2] + v[n / 2 + 1]) / 2 }'
}

# "MIN-MAX" of the numbers on stdin, two decimals ("-" for none).
range() {
	sort -g | awk 'NF { v[++n] = $1 } END { if (!n) print "-"; else printf "%.2f-%.2f\n", v[1], v[n] }'
}

to_s() {
	awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }'
}

# timed LIMIT_S OUT CMD...: runs CMD under /usr/bin/time -v, given up after
# LIMIT_S seconds, its stdout into the file OUT; then sets t_wall (seconds),
# t_cpu (user + system seconds) and t_rss (peak KiB), or on failure t_err
# (the last lines of its stderr); t_rc is the status (124: LIMIT_S ran out). Returns it.
# shellcheck disable=SC2034 # the t_* variables are this function's results, read by the callers
timed() {
	local limit=$1 out=$2 log rc=0

	shift 2
	log=$(mktemp)
	timeout "$limit" /usr/bin/time -v "$@" >"$out" 2>"$log" || rc=$?
	t_rc=$rc
	if [ $rc = 0 ]; then
		t_wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { print $2 }' "$log" | to_s)
		t_cpu=$(awk -F': ' '/User time/ { u = $2 } /System time/ { s = $2 } END { print u + s }' "$log")
		t_rss=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$log")
	else
		t_err=$(grep -v -E '^\s|^Command (being timed|exited)' "$log" | tail -n 5)
	fi
	rm -f "$log"
	return $rc
}
