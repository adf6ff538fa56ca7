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
"$gpusim" replay --nodes "$top/traces/sample/cluster.csv" --pods "$top/traces/sample/pods.csv" \
	--policy all --seed 42 --db "$db"

echo
echo "== gpusim inspect: run 1 (binpack) at its peak GPU allocation"
"$gpusim" inspect --db "$db" --run 1 --at peak

echo
echo "== sqlite3: the run_summary view (schema: results/SCHEMA.md)"
sqlite3 -header -column "$db" \
	"select run_id, policy, n_placed, n_failed, round(mean_wait_s, 1) as mean_wait_s,
	        (select max(t_start_s - t_arrive_s) from pods p where p.run_id = s.run_id) as max_wait_s,
	        round(unalloc_gpu_pct, 2) as unalloc_gpu_pct from run_summary s order by run_id"

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
