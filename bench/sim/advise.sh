#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# advise.sh - how long the default `gpusim advise` takes (`make bench-advise`).
#
#   bench/sim/advise.sh [BUILD_DIR]        (default build)
#
# Times, under /usr/bin/time -v, each case on a fresh database (nothing to
# resume), ADVISE_REPEATS times, and prints the median wall time, the
# median CPU time (user + system), the largest peak RSS, the runs made and
# the database's size:
#   h100-4      the bundled H100 example as it is: 4 nodes of 8 H100 (and
#               2 CPU nodes), traces/h100-mixed/pods.csv
#   h100-16     the same node types scaled to 16 nodes of 8 H100 (the
#               issue's walk-through), written into BUILD_DIR/bench-advise/
#   openb       openb's 1213 GPU nodes with its default trace
#   openb-gs40  the same with openb_pod_list_gpushare40.csv
# Every case is the default advise: every policy, every mechanism the GPUs
# can do (MIG where the model has it), loads 50, 80, 95, seeds 42-46, more
# seeds for the top two where they tie, the ideal reference line, pod rows of
# the first seed, -j ADVISE_JOBS (default 2). The openb cases need
# OPENB (default ../shared/traces/openb) and are skipped without it.
#
# Environment: ADVISE_REPEATS (default 3), ADVISE_CASES (default all four),
# ADVISE_JOBS, OPENB, ADVISE_GPUSIM (the gpusim to time).
set -eu

build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
gpusim=${ADVISE_GPUSIM:-$build/gpusim}
repeats=${ADVISE_REPEATS:-3}
jobs=${ADVISE_JOBS:-2}
cases=${ADVISE_CASES:-"h100-4 h100-16 openb openb-gs40"}
OPENB=${OPENB:-../shared/traces/openb}
dir=$build/bench-advise

for exe in "$gpusim" /usr/bin/time; do
	if [ ! -x "$exe" ]; then
		echo "bench-advise: $exe is missing (build first; /usr/bin/time is Debian's 'time')" >&2
		exit 2
	fi
done
mkdir -p "$dir"

# median, to_s
# shellcheck source=bench/sim/stats.sh
. "$here/stats.sh"

# The H100 example's node types, 16 GPU nodes (and its 2 CPU nodes).
awk -F, 'NR == 1 { print; next } $4 > 0 { gpu = $0; next } { cpu[++n] = $0 }
	END { split(gpu, f, ","); for (i = 0; i < 16; i++) { f[1] = "h100-" i;
		print f[1] "," f[2] "," f[3] "," f[4] "," f[5] } for (i = 1; i <= n; i++) print cpu[i] }' \
	traces/h100-mixed/cluster.csv >"$dir/h100-16.csv"

inputs() { # CASE -> "NODES PODS", or nothing when its files are missing
	case $1 in
	h100-4) echo "traces/h100-mixed/cluster.csv traces/h100-mixed/pods.csv" ;;
	h100-16) echo "$dir/h100-16.csv traces/h100-mixed/pods.csv" ;;
	openb) [ -f "$OPENB/openb_pod_list_default.csv" ] &&
		echo "$OPENB/openb_node_list_gpu_node.csv $OPENB/openb_pod_list_default.csv" ;;
	openb-gs40) [ -f "$OPENB/openb_pod_list_gpushare40.csv" ] &&
		echo "$OPENB/openb_node_list_gpu_node.csv $OPENB/openb_pod_list_gpushare40.csv" ;;
	esac
}

echo "== host: $(nproc) CPUs, $(uname -m), $(date -u +%Y-%m-%dT%H:%M:%SZ), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== $gpusim advise, defaults, -j $jobs, $repeats runs per case on a fresh database, medians"
printf '%-11s %9s %9s %9s %7s %9s\n' CASE WALL_S CPU_S RSS_MB RUNS DB_MB
for c in $cases; do
	# shellcheck disable=SC2046 # two paths, split into $1 and $2 on purpose
	set -- $(inputs "$c" || true)
	if [ $# -ne 2 ]; then
		echo "$c: skipped (its trace is missing; set OPENB)"
		continue
	fi
	walls=() cpus=() rss=0 runs=- size=-
	for _ in $(seq "$repeats"); do
		rm -f "$dir/$c.db" "$dir/$c.db-wal" "$dir/$c.db-shm"
		/usr/bin/time -v -o "$dir/$c.time" "$gpusim" advise --nodes "$1" --pods "$2" \
			--db "$dir/$c.db" -j "$jobs" >"$dir/$c.out" 2>"$dir/$c.err" ||
			{ echo "$c: gpusim advise failed:"; cat "$dir/$c.err"; exit 1; }
		walls+=("$(awk -F': ' '/Elapsed/ { print $2 }' "$dir/$c.time" | to_s)")
		cpus+=("$(awk -F': ' '/User time/ { u = $2 } /System time/ { s = $2 } END { print u + s }' \
			"$dir/$c.time")")
		r_kb=$(awk -F': ' '/Maximum resident/ { print $2 }' "$dir/$c.time")
		[ "$r_kb" -gt "$rss" ] && rss=$r_kb
		runs=$(sed -n 's/^runs: \([0-9]*\) .*/\1/p' "$dir/$c.out")
		size=$(du -m "$dir/$c.db" | cut -f1)
	done
	printf '%-11s %9s %9s %9s %7s %9s\n' "$c" "$(printf '%s\n' "${walls[@]}" | median)" \
		"$(printf '%s\n' "${cpus[@]}" | median)" "$((rss / 1024))" "$runs" "$size"
done
echo "== the verdicts: $dir/CASE.out"
