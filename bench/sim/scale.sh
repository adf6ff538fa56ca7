#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# scale.sh - how the simulator scales with nodes and pods (`make bench-scale`).
#
#   bench/sim/scale.sh [BUILD_DIR]        (default build)
#
# For each cell NODESxPODS it writes a synthetic cluster and trace with
# bench/sim/scale_spec.sh and `gpusim gen` (openb's node and request mix,
# an offered load of about 120% of the GPU capacity over the arrival
# window, so that a pending queue builds up and stays), then times
# `gpusim replay --mode time --no-db -q` for each policy under
# /usr/bin/time -v and prints, per cell and policy, the median wall time,
# the median CPU time (user + system), the largest peak RSS, and from the
# table the replay prints, the offered load the run got (LOAD%) and its
# longest pending queue (PEAKQ). Times include reading and checksumming
# the files.
#
# Environment:
#   SCALE_CELLS     cells, NODESxPODS, space-separated (default below)
#   SCALE_POLICIES  comma-separated (default binpack,spread,fgd)
#   SCALE_REPEATS   runs per cell and policy (default 3; the median is shown)
#   SCALE_LOAD      scale_spec.sh's LOAD (default 3: about 120% offered)
#   SCALE_TIMEOUT   seconds before a run is given up and shown as '>T' (1800)
#   SCALE_DIR       where generated traces are kept between runs
#                   (default BUILD_DIR/scale-traces; ~40 MB per million pods)
#   SCALE_GPUSIM    the gpusim to time (default BUILD_DIR/gpusim), e.g. an
#                   older build for a before/after table
set -eu

build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
gpusim=${SCALE_GPUSIM:-$build/gpusim}
gen=$build/gpusim
cells=${SCALE_CELLS:-"1000x10000 10000x100000 1000x1000000 10000x1000000 100000x100000 100000x1000000"}
policies=${SCALE_POLICIES:-binpack,spread,fgd}
repeats=${SCALE_REPEATS:-3}
load=${SCALE_LOAD:-3}
limit=${SCALE_TIMEOUT:-1800}
dir=${SCALE_DIR:-$build/scale-traces}

for exe in "$gpusim" "$gen" /usr/bin/time; do
	if [ ! -x "$exe" ]; then
		echo "bench-scale: $exe is missing (build first; /usr/bin/time is Debian's 'time')" >&2
		exit 2
	fi
done
mkdir -p "$dir"

# median, to_s
. "$here/stats.sh"

echo "== host: $(nproc) CPUs, $(uname -m), $(date -u +%Y-%m-%dT%H:%M:%SZ), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== $gpusim, time mode, $repeats runs per cell, medians; RSS is the largest peak"
printf "%-8s %-9s %-8s %5s %9s %9s %8s %8s %8s\n" nodes pods policy runs wall_s cpu_s rss_mb load_pct peak_q
for cell in $cells; do
	nodes=${cell%x*}
	pods=${cell#*x}
	spec=$dir/spec-$nodes-$pods-$load.json
	cfile=$dir/nodes-$nodes-$pods-$load.csv
	pfile=$dir/pods-$nodes-$pods-$load.csv
	if [ ! -s "$pfile" ] || [ ! -s "$cfile" ]; then
		"$here/scale_spec.sh" "$nodes" "$pods" "$load" >"$spec"
		"$gen" gen --spec "$spec" --seed 1 --nodes-out "$cfile" --pods-out "$pfile" -q
	fi
	IFS=, read -r -a pols <<<"$policies"
	for pol in "${pols[@]}"; do
		walls="" cpus="" rss=0 info="- -" ok=1
		for ((r = 0; r < repeats; r++)); do
			log=$(mktemp)
			out=$(mktemp)
			if timeout "$limit" /usr/bin/time -v "$gpusim" replay --mode time --nodes "$cfile" \
				--pods "$pfile" --policy "$pol" --no-db >"$out" 2>"$log"; then
				w=$(awk -F': ' '/Elapsed \(wall clock\)/ { print $2 }' "$log" | to_s)
				c=$(awk -F': ' '/User time/ { u = $2 } /System time/ { s = $2 } END { print u + s }' "$log")
				m=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$log")
				walls="$walls $w"
				cpus="$cpus $c"
				[ "$m" -gt "$rss" ] && rss=$m
				[ "$r" = 0 ] && info=$(awk 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i }
					NR == 2 { print (col["LOAD%"] ? $col["LOAD%"] : "-"),
						(col["PEAKQ"] ? $col["PEAKQ"] : "-") }' "$out")
			else
				ok=0
			fi
			rm -f "$log" "$out"
			[ $ok = 1 ] || break
		done
		if [ $ok = 1 ]; then
			# shellcheck disable=SC2086
			printf "%-8s %-9s %-8s %5s %9.2f %9.2f %8.0f %8s %8s\n" "$nodes" "$pods" "$pol" \
				"$repeats" "$(tr ' ' '\n' <<<"$walls" | median)" \
				"$(tr ' ' '\n' <<<"$cpus" | median)" "$((rss / 1024))" $info
		else
			printf "%-8s %-9s %-8s %5s %9s %9s %8s %8s %8s\n" "$nodes" "$pods" "$pol" \
				"$repeats" ">$limit" "-" "-" - -
		fi
	done
done
