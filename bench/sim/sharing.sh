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
# system) and its range, the median wall time, the largest peak RSS and
# the CPU time over exclusive's for the same policy. The run under the rate model moves
# completions whenever the pods on a GPU change, so this measures what
# that costs as the cluster grows.
#
# Environment:
#   SHARING_SCALE     how many times the example (default 1000)
#   SHARING_PODS      the pod count instead of 480 x SCALE, at the same
#                     arrival rate (100000 nodes: SCALE 16667 and PODS
#                     1000000, about 3 hours of arrivals)
#   SHARING_POLICIES  comma-separated (default binpack,spread,first-fit,fgd)
#   SHARING_MODES     space-separated (default exclusive timeslice mps vgpu mig)
#   SHARING_REPEATS   runs per policy and mode (default 3; the median is shown)
#   SHARING_DIR       where the generated files are kept (default BUILD_DIR/sharing-traces)
#   SHARING_GPUSIM    the gpusim to time (default BUILD_DIR/gpusim)
#   SHARING_BASE      a gpusim to compare with (an older build): each run
#                     follows one of SHARING_BASE with the same arguments, and
#                     the table adds its median CPU time and range and x_base,
#                     the median ratio of the pairs
set -eu

build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
gpusim=${SHARING_GPUSIM:-$build/gpusim}
gen=$build/gpusim
scale=${SHARING_SCALE:-1000}
n_pods=${SHARING_PODS:-}
policies=${SHARING_POLICIES:-binpack,spread,first-fit,fgd}
modes=${SHARING_MODES:-"exclusive timeslice mps vgpu mig"}
repeats=${SHARING_REPEATS:-3}
dir=${SHARING_DIR:-$build/sharing-traces}
base=${SHARING_BASE:-}

for exe in "$gpusim" "$gen" ${base:+"$base"} /usr/bin/time; do
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
case $n_pods in
*[!0-9]* | 0)
	echo "bench-sharing: SHARING_PODS must be a positive integer, not '$n_pods'" >&2
	exit 2
	;;
esac
mkdir -p "$dir"
tag=h100-x$scale${n_pods:+-$n_pods}
spec=$dir/$tag.json
nodes=$dir/$tag-nodes.csv
pods=$dir/$tag-pods.csv
if [ ! -s "$pods" ] || [ ! -s "$nodes" ]; then
	# Every "count" and the arrival rate times the scale (the pods' count
	# SHARING_PODS if set); nothing else moves.
	awk -v k="$scale" -v n_pods="$n_pods" '/"pods"/ { in_pods = 1 } {
		out = ""
		while (match($0, /"(count|arrivals_per_hour)": *[0-9.]+/)) {
			key = substr($0, RSTART, RLENGTH)
			sub(/[0-9.]+$/, "", key)
			num = substr($0, RSTART + length(key), RLENGTH - length(key))
			num = in_pods && key ~ /count/ && n_pods != "" ? n_pods : num * k
			out = out substr($0, 1, RSTART - 1) key num
			$0 = substr($0, RSTART + RLENGTH)
		}
		print out $0
	}' "$root/traces/h100-mixed/spec.json" >"$spec"
	"$gen" gen --spec "$spec" --seed 42 --nodes-out "$nodes" --pods-out "$pods" -q
fi

# median, range, timed
# shellcheck source=bench/sim/stats.sh
. "$here/stats.sh"

echo "== host: $(nproc) CPUs, $(uname -m), $(date -u +%Y-%m-%dT%H:%M:%SZ), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== $gpusim, H100 example x $scale ($(($(wc -l <"$nodes") - 1)) nodes, $(($(wc -l <"$pods") - 1)) pods), $repeats runs, medians"
printf "%-10s %-10s %5s %9s %11s %9s %8s %8s" policy sharing runs cpu_s cpu_range wall_s rss_mb x_excl
[ -n "$base" ] && printf " %10s %11s %7s" base_cpu_s base_range x_base
echo
IFS=, read -r -a pols <<<"$policies"
out=$(mktemp)
trap 'rm -f "$out"' EXIT INT TERM
for pol in "${pols[@]}"; do
	excl=""
	for mode in $modes; do
		cpus="" walls="" bcpus="" ratios="" rss=0
		args=(replay --mode time --nodes "$nodes" --pods "$pods" --policy "$pol" --sharing "$mode"
			--no-db -q)
		for ((r = 0; r < repeats; r++)); do
			# The base first, then the build: each pair runs back to back.
			if [ -n "$base" ]; then
				if ! timed 3600 "$out" "$base" "${args[@]}"; then
					echo "bench-sharing: $base $pol --sharing $mode failed: $t_err" >&2
					exit 1
				fi
				b=$t_cpu
				bcpus="$bcpus $b"
			fi
			if ! timed 3600 "$out" "$gpusim" "${args[@]}"; then
				echo "bench-sharing: $pol --sharing $mode failed: $t_err" >&2
				exit 1
			fi
			cpus="$cpus $t_cpu"
			walls="$walls $t_wall"
			[ -n "$base" ] && ratios="$ratios $(awk -v a="$t_cpu" -v b="$b" \
				'BEGIN { print (b > 0 ? a / b : 0) }')"
			[ "$t_rss" -gt "$rss" ] && rss=$t_rss
		done
		cpu=$(tr ' ' '\n' <<<"$cpus" | median)
		[ "$mode" = exclusive ] && excl=$cpu
		printf "%-10s %-10s %5s %9.2f %11s %9.2f %8.0f %8s" "$pol" "$mode" "$repeats" "$cpu" \
			"$(tr ' ' '\n' <<<"$cpus" | range)" "$(tr ' ' '\n' <<<"$walls" | median)" \
			"$((rss / 1024))" \
			"$(awk -v a="$cpu" -v b="$excl" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')"
		[ -n "$base" ] && printf " %10.2f %11s %7.2f" "$(tr ' ' '\n' <<<"$bcpus" | median)" \
			"$(tr ' ' '\n' <<<"$bcpus" | range)" "$(tr ' ' '\n' <<<"$ratios" | median)"
		echo
	done
done
