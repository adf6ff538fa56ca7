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
# `gpusim replay --mode MODE --no-db -q` for each policy under
# /usr/bin/time -v and prints, per cell and policy, the pods the run had,
# the median wall time, the median CPU time (user + system) and its range,
# the largest peak RSS, and from the table the replay prints, in time mode
# the offered load the run got (LOAD%) and its longest pending queue
# (PEAKQ). Times
# include reading and checksumming the files. A cell NODESxPODS:DAYS is a
# cluster of one node shape, 8-GPU G2 nodes, with the pods arriving over
# DAYS days at an offered load of 100% (12500x10000000:30 is a month of a
# 100,000-GPU cluster).
#
# Last, per policy, the exponents of a least-squares fit of
# log(CPU time) = c + a log(nodes) + b log(pods) over the cells that ran,
# and the exponent along the cells with ten pods per node (1000x10000,
# 10000x100000, 100000x1000000): how the cost grows when the cluster and
# its workload grow together. Inflate mode grows the trace to 1.3 times
# the GPU capacity, so there the pods follow the nodes and only the
# diagonal exponent is printed.
#
# Environment:
#   SCALE_CELLS     cells, NODESxPODS[:DAYS], space-separated (default below)
#   SCALE_POLICIES  comma-separated, or "all" (default binpack,spread,fgd)
#   SCALE_MODE      time (default) or inflate
#   SCALE_REPEATS   runs per cell and policy (default 3; the median is shown)
#   SCALE_LOAD      scale_spec.sh's LOAD (default 3: about 120% offered)
#   SCALE_TIMEOUT   seconds before a run is given up and shown as '>T' (1800);
#                   a run that fails shows 'failed' there, with its error below
#   SCALE_DIR       where generated traces are kept between runs
#                   (default BUILD_DIR/scale-traces; ~40 MB per million pods)
#   SCALE_GPUSIM    the gpusim to time (default BUILD_DIR/gpusim)
#   SCALE_RESULTS   a file that keeps each cell's median CPU time, one line
#                   per cell and policy, added to by each invocation; the
#                   exponents are fitted over all its lines (several
#                   invocations with their own SCALE_REPEATS, one fit;
#                   one file per SCALE_MODE)
#   SCALE_BASE      a gpusim to compare with (an older build): each run of
#                   SCALE_GPUSIM follows one of SCALE_BASE on the same cell,
#                   and the table adds the base's median CPU time and range
#                   and the median ratio of the pairs (a before/after table
#                   that the machine's load moves as little as it can); its
#                   exponents are fitted too, as POLICY@base
set -eu

build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
gpusim=${SCALE_GPUSIM:-$build/gpusim}
gen=$build/gpusim
cells=${SCALE_CELLS:-"1000x10000 10000x100000 1000x1000000 10000x1000000 100000x100000 100000x1000000"}
policies=${SCALE_POLICIES:-binpack,spread,fgd}
mode=${SCALE_MODE:-time}
repeats=${SCALE_REPEATS:-3}
load=${SCALE_LOAD:-3}
limit=${SCALE_TIMEOUT:-1800}
base=${SCALE_BASE:-}
dir=${SCALE_DIR:-$build/scale-traces}

for exe in "$gpusim" "$gen" ${base:+"$base"} /usr/bin/time; do
	if [ ! -x "$exe" ]; then
		echo "bench-scale: $exe is missing (build first; /usr/bin/time is Debian's 'time')" >&2
		exit 2
	fi
done
if [ "$mode" != time ] && [ "$mode" != inflate ]; then
	echo "bench-scale: SCALE_MODE must be time or inflate, not '$mode'" >&2
	exit 2
fi
if [ "$policies" = all ]; then
	policies=$("$gpusim" policies | awk 'NR > 1 && $1 != "" { printf "%s%s", sep, $1; sep = "," }')
fi
mkdir -p "$dir"

# median, to_s
# shellcheck source=bench/sim/stats.sh
. "$here/stats.sh"

if [ -n "${SCALE_RESULTS:-}" ]; then
	results=$SCALE_RESULTS
	touch "$results"
else
	results=$(mktemp)
	trap 'rm -f "$results"' EXIT INT TERM
fi
echo "== host: $(nproc) CPUs, $(uname -m), $(date -u +%Y-%m-%dT%H:%M:%SZ), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== $gpusim, $mode mode, $repeats runs per cell, medians; RSS is the largest peak"
[ -n "$base" ] && echo "== against $base, run before each run of the build: its CPU time," \
	"and x_base, the median of the per-pair ratios build / base"
printf "%-8s %-9s %-14s %9s %5s %9s %9s %11s %8s %8s %8s" nodes pods policy run_pods runs wall_s \
	cpu_s cpu_range rss_mb load_pct peak_q
[ -n "$base" ] && printf " %10s %11s %7s" base_cpu_s base_range x_base
echo
for cell in $cells; do
	days=${cell#*:}
	[ "$days" = "$cell" ] && days=""
	cell=${cell%%:*}
	nodes=${cell%x*}
	pods=${cell#*x}
	tag=$nodes-$pods-$load${days:+-$days}
	spec=$dir/spec-$tag.json
	cfile=$dir/nodes-$tag.csv
	pfile=$dir/pods-$tag.csv
	if [ ! -s "$pfile" ] || [ ! -s "$cfile" ]; then
		if [ -n "$days" ]; then
			SCALE_NODE="g2x8 96000 393216 8 G2" SCALE_DAYS=$days \
				"$here/scale_spec.sh" "$nodes" "$pods" 1 >"$spec"
		else
			"$here/scale_spec.sh" "$nodes" "$pods" "$load" >"$spec"
		fi
		"$gen" gen --spec "$spec" --seed 1 --nodes-out "$cfile" --pods-out "$pfile" -q
	fi
	IFS=, read -r -a pols <<<"$policies"
	for pol in "${pols[@]}"; do
		walls="" cpus="" bcpus="" ratios="" rss=0 info="- - -" ok=1
		args=(replay --mode "$mode" --nodes "$cfile" --pods "$pfile" --policy "$pol" --no-db)
		out=$(mktemp)
		for ((r = 0; r < repeats; r++)); do
			# The base first, then the build: each pair runs back to back.
			if [ -n "$base" ]; then
				timed "$limit" "$out" "$base" "${args[@]}" || { ok=0; break; }
				b=$t_cpu
				bcpus="$bcpus $b"
			fi
			timed "$limit" "$out" "$gpusim" "${args[@]}" || { ok=0; break; }
			walls="$walls $t_wall"
			cpus="$cpus $t_cpu"
			[ -n "$base" ] && ratios="$ratios $(awk -v a="$t_cpu" -v b="$b" \
				'BEGIN { print (b > 0 ? a / b : 0) }')"
			[ "$t_rss" -gt "$rss" ] && rss=$t_rss
			[ "$r" = 0 ] && info=$(awk 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i }
				NR == 2 { print (col["PODS"] ? $col["PODS"] : "-"),
					(col["LOAD%"] ? $col["LOAD%"] : "-"),
					(col["PEAKQ"] ? $col["PEAKQ"] : "-") }' "$out")
		done
		rm -f "$out"
		if [ $ok = 1 ]; then
			cpu=$(tr ' ' '\n' <<<"$cpus" | median)
			read -r run_pods load_pct peak_q <<<"$info"
			printf "%-8s %-9s %-14s %9s %5s %9.2f %9.2f %11s %8.0f %8s %8s" "$nodes" "$pods" \
				"$pol" "$run_pods" "$repeats" "$(tr ' ' '\n' <<<"$walls" | median)" "$cpu" \
				"$(tr ' ' '\n' <<<"$cpus" | range)" "$((rss / 1024))" "$load_pct" "$peak_q"
			[ -n "$base" ] && printf " %10.2f %11s %7.2f" "$(tr ' ' '\n' <<<"$bcpus" | median)" \
				"$(tr ' ' '\n' <<<"$bcpus" | range)" "$(tr ' ' '\n' <<<"$ratios" | median)"
			echo
			echo "$pol $nodes $run_pods $cpu ${days:+month}" >>"$results"
			[ -n "$base" ] && echo "$pol@base $nodes $run_pods $(tr ' ' '\n' <<<"$bcpus" |
				median) ${days:+month}" >>"$results"
		else
			# timeout(1) exits 124 when the limit is reached; anything else is the run failing.
			if [ "${t_rc:-1}" = 124 ]; then why=">$limit"; else why="failed"; fi
			printf "%-8s %-9s %-14s %9s %5s %9s %9s %11s %8s %8s %8s\n" "$nodes" "$pods" "$pol" - \
				"$repeats" "$why" - - - - -
			echo "  ${t_err:-}" | head -n 5
		fi
	done
done

echo "== exponents of CPU time: log(cpu) = c + a log(nodes) + b log(pods) over the cells;"
echo "   diagonal: along the cells with 10 pods per node"
printf "%-14s %6s %8s %8s %10s\n" policy cells a_nodes b_pods diagonal
awk -v mode="$mode" '
function fit(x, y, n,    i, sx, sy, sxx, sxy) {
	sx = sy = sxx = sxy = 0
	for (i = 1; i <= n; i++) { sx += x[i]; sy += y[i]; sxx += x[i] * x[i]; sxy += x[i] * y[i] }
	return (n * sxx - sx * sx) > 0 ? (n * sxy - sx * sy) / (n * sxx - sx * sx) : "nan"
}
$5 == "" && $4 > 0 { pol[$1] = 1; k = ++cnt[$1]; ln[$1, k] = log($2); lp[$1, k] = log($3); lc[$1, k] = log($4)
	if (mode == "inflate" || $3 == 10 * $2) { d = ++dn[$1]; dx[$1, d] = log($2); dy[$1, d] = log($4) } }
END {
	for (p in pol) {
		n = cnt[p]; a = b = "-"
		if (mode == "time" && n >= 3) {
			# Two regressors: solve the 2x2 normal equations on centred values.
			mn = mp = mc = 0
			for (i = 1; i <= n; i++) { mn += ln[p, i]; mp += lp[p, i]; mc += lc[p, i] }
			mn /= n; mp /= n; mc /= n
			snn = spp = snp = snc = spc = 0
			for (i = 1; i <= n; i++) {
				u = ln[p, i] - mn; v = lp[p, i] - mp; w = lc[p, i] - mc
				snn += u * u; spp += v * v; snp += u * v; snc += u * w; spc += v * w
			}
			det = snn * spp - snp * snp
			if (det > 1e-12) { a = sprintf("%.2f", (snc * spp - spc * snp) / det)
					   b = sprintf("%.2f", (spc * snn - snc * snp) / det) }
		}
		m = dn[p]; diag = "-"
		if (m >= 2) {
			for (i = 1; i <= m; i++) { x[i] = dx[p, i]; y[i] = dy[p, i] }
			diag = sprintf("%.2f", fit(x, y, m))
		}
		printf "%-14s %6d %8s %8s %10s\n", p, n, a, b, diag
	}
}' "$results" | sort
