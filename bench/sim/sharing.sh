#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# sharing.sh - what each GPU-sharing mechanism costs against exclusive GPUs
# on a large cluster (`make bench-sharing`).
#
#   bench/sim/sharing.sh [BUILD_DIR]        (default build)
#
# Scales the bundled H100 example (traces/h100-mixed/spec.json: 4 H100
# nodes and 2 CPU nodes, 480 pods over a day) SHARING_SCALE times, node
# counts, pod count and arrival rate alike (1000: 6000 nodes, 32,000 GPUs,
# 480,000 pods), generates it with `gpusim gen`, then times
# `gpusim replay --mode time --sharing MODE --no-db -q` for each policy and
# mode under /usr/bin/time -v and prints the median CPU time (user +
# system) and wall time, the largest peak RSS and the CPU time over
# exclusive's for the same policy. The run under the rate model moves
# completions whenever the pods on a GPU change, so this measures what
# that costs as the cluster grows.
#
# Environment:
#   SHARING_SCALE     how many times the example (default 1000)
#   SHARING_POLICIES  comma-separated (default binpack,spread,first-fit,fgd)
#   SHARING_MODES     space-separated (default exclusive timeslice mps vgpu mig)
#   SHARING_REPEATS   runs per policy and mode (default 3; the median is shown)
#   SHARING_DIR       where the generated files are kept (default BUILD_DIR/sharing-traces)
#   SHARING_GPUSIM    the gpusim to time (default BUILD_DIR/gpusim)
set -eu

build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
gpusim=${SHARING_GPUSIM:-$build/gpusim}
gen=$build/gpusim
scale=${SHARING_SCALE:-1000}
policies=${SHARING_POLICIES:-binpack,spread,first-fit,fgd}
modes=${SHARING_MODES:-"exclusive timeslice mps vgpu mig"}
repeats=${SHARING_REPEATS:-3}
dir=${SHARING_DIR:-$build/sharing-traces}

for exe in "$gpusim" "$gen" /usr/bin/time; do
	if [ ! -x "$exe" ]; then
		echo "bench-sharing: $exe is missing (build first; /usr/bin/time is Debian's 'time')" >&2
		exit 2
	fi
done
case $scale in
'' | *[!0-9]* | 0)
	echo "bench-sharing: SHARING_SCALE must be a positive integer, not '$scale'" >&2
	exit 2
	;;
esac
mkdir -p "$dir"
spec=$dir/h100-x$scale.json
nodes=$dir/h100-x$scale-nodes.csv
pods=$dir/h100-x$scale-pods.csv
if [ ! -s "$pods" ] || [ ! -s "$nodes" ]; then
	# Every "count" and the arrival rate times the scale; nothing else moves.
	awk -v k="$scale" '{
		out = ""
		while (match($0, /"(count|arrivals_per_hour)": *[0-9.]+/)) {
			key = substr($0, RSTART, RLENGTH)
			sub(/[0-9.]+$/, "", key)
			num = substr($0, RSTART + length(key), RLENGTH - length(key))
			out = out substr($0, 1, RSTART - 1) key (num * k)
			$0 = substr($0, RSTART + RLENGTH)
		}
		print out $0
	}' "$root/traces/h100-mixed/spec.json" >"$spec"
	"$gen" gen --spec "$spec" --seed 42 --nodes-out "$nodes" --pods-out "$pods" -q
fi

median() {
	sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "-";
		else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# "h:mm:ss" or "m:ss.ss" -> seconds
to_s() {
	awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }'
}

echo "== host: $(nproc) CPUs, $(uname -m), $(date -u +%Y-%m-%dT%H:%M:%SZ), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== $gpusim, H100 example x $scale ($(($(wc -l <"$nodes") - 1)) nodes, $(($(wc -l <"$pods") - 1)) pods), $repeats runs, medians"
printf "%-10s %-10s %5s %9s %9s %8s %8s\n" policy sharing runs cpu_s wall_s rss_mb x_excl
IFS=, read -r -a pols <<<"$policies"
for pol in "${pols[@]}"; do
	excl=""
	for mode in $modes; do
		cpus="" walls="" rss=0
		for ((r = 0; r < repeats; r++)); do
			log=$(mktemp)
			if ! /usr/bin/time -v "$gpusim" replay --mode time --nodes "$nodes" --pods "$pods" \
				--policy "$pol" --sharing "$mode" --no-db -q >/dev/null 2>"$log"; then
				echo "bench-sharing: $pol --sharing $mode failed:" >&2
				cat "$log" >&2
				rm -f "$log"
				exit 1
			fi
			cpus="$cpus $(awk -F': ' '/User time/ { u = $2 } /System time/ { s = $2 } END { print u + s }' "$log")"
			walls="$walls $(awk -F': ' '/Elapsed \(wall clock\)/ { print $2 }' "$log" | to_s)"
			m=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$log")
			[ "$m" -gt "$rss" ] && rss=$m
			rm -f "$log"
		done
		cpu=$(tr ' ' '\n' <<<"$cpus" | median)
		[ "$mode" = exclusive ] && excl=$cpu
		printf "%-10s %-10s %5s %9.2f %9.2f %8.0f %8s\n" "$pol" "$mode" "$repeats" "$cpu" \
			"$(tr ' ' '\n' <<<"$walls" | median)" "$((rss / 1024))" \
			"$(awk -v a="$cpu" -v b="$excl" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')"
	done
done
