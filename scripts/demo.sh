#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# demo.sh - what `make demo` runs: replays the bundled sample trace with
# every policy, shows one run the way `kubectl inspect gpushare` would, and
# queries the results database with sqlite3.
#
#   scripts/demo.sh [path/to/gpusim]
set -eu

gpusim=${1:-build/gpusim}
top=$(cd "$(dirname "$0")/.." && pwd)
out="$top/results/demo"
db="$out/demo.db"

mkdir -p "$out"
rm -f "$db" "$db-wal" "$db-shm"

echo "== gpusim replay: bundled sample (traces/sample), every policy, time mode"
echo "   (WAIT(s) is the mean wait, the figure to rank time-mode runs by; README.md says why)"
"$gpusim" replay --nodes "$top/traces/sample/cluster.csv" --pods "$top/traces/sample/pods.csv" \
	--policy all --seed 42 --db "$db"

echo
echo "== gpusim inspect: run 1 (binpack) at its peak GPU allocation"
"$gpusim" inspect --db "$db" --run 1 --at peak

echo
echo "== sqlite3: the run_summary view (schema: results/SCHEMA.md), policies ranked by mean wait"
sqlite3 -header -column "$db" \
	"select rank() over (order by mean_wait_s) as rank, run_id, policy, n_placed,
	        round(mean_wait_s, 1) as mean_wait_s, wait_p99_s, wait_max_s,
	        round(slowdown_mean, 3) as slowdown, round(pending_avg, 2) as queue,
	        round(gpu_alloc_pct, 2) as alloc_pct
	 from run_summary s order by mean_wait_s"

openb="$top/../shared/traces/openb"
if [ -f "$openb/openb_pod_list_default.csv" ]; then
	echo
	echo "== the openb trace is present: FGD's inflation experiment on it (seed 42)"
	"$gpusim" replay --mode inflate --nodes "$openb/openb_node_list_gpu_node.csv" \
		--pods "$openb/openb_pod_list_default.csv" --policy all --seed 42 --db "$db"
else
	echo
	echo "(the openb trace is not in ../shared/traces/openb; scripts/fetch-openb.sh downloads it)"
fi
echo
echo "results: $db"
