#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# demo.sh - what `make demo` runs: replays the bundled sample trace with
# every policy, shows one run the way `kubectl inspect gpushare` would, and
# queries the results database with sqlite3; runs the GPU-sharing
# mechanisms side by side on the bundled H100 example (traces/h100-mixed);
# asks gpusim advise for the verdict on it; and reads a Kubernetes
# snapshot as kubectl prints it (traces/k8s).
#
#   scripts/demo.sh [path/to/gpusim]
set -eu

gpusim=${1:-build/gpusim}
top=$(cd "$(dirname "$0")/.." && pwd)
out="$top/results/demo"

# Prints the path of the database NAME.db under $out, having removed the
# copy an earlier demo left (and its WAL files) so that run ids start at 1.
fresh_db() {
	rm -f "$out/$1.db" "$out/$1.db-wal" "$out/$1.db-shm"
	echo "$out/$1.db"
}

mkdir -p "$out"
db=$(fresh_db demo)

echo "== gpusim replay: bundled sample (traces/sample), every policy, time mode"
echo "   (FAILED and PEND first, then COMPL(s) and WAIT(s): docs/time-mode.md says why)"
"$gpusim" replay --nodes "$top/traces/sample/cluster.csv" --pods "$top/traces/sample/pods.csv" \
	--policy all --seed 42 --db "$db"

echo
echo "== gpusim inspect: run 1 (binpack) at its peak GPU allocation"
"$gpusim" inspect --db "$db" --run 1 --at peak

echo
echo "== sqlite3: the run_summary view (schema: results/SCHEMA.md), every pod placed, by mean wait"
sqlite3 -header -column "$db" \
	"select rank() over (order by mean_wait_s) as rank, run_id, policy, n_placed,
	        round(mean_wait_s, 1) as mean_wait_s, wait_p99_s, wait_max_s,
	        round(slowdown_mean, 3) as slowdown, round(pending_avg, 2) as queue,
	        round(gpu_alloc_pct, 2) as alloc_pct
	 from run_summary s order by mean_wait_s"

echo
echo "== gpusim sweep: the sharing mechanisms side by side on a small H100 cluster (traces/h100-mixed)"
echo "   (ALLOC% is the GPU share the mechanism reserves, USEFUL% the work the pods get done;"
echo "    FAILED under timeslice: GPU memory oversubscribed; PEND under mps: pods above its pinned limit)"
sdb=$(fresh_db sharing)
"$gpusim" sweep --nodes "$top/traces/h100-mixed/cluster.csv" --pods "$top/traces/h100-mixed/pods.csv" \
	--sharing exclusive,timeslice,mps,vgpu,mig --policy binpack,spread --seeds 42 --db "$sdb"

echo
echo "== gpusim replay + inspect: a cluster file that gives each node its own mechanism"
"$gpusim" replay --nodes "$top/traces/h100-mixed/cluster-mixed.csv" \
	--pods "$top/traces/h100-mixed/pods.csv" --policy spread --seed 42 --db "$sdb" -q >/dev/null
"$gpusim" inspect --db "$sdb" --run 11 --at peak

echo
echo "== sqlite3: the sharing figures of the sweep (run_summary)"
sqlite3 -header -column "$sdb" \
	"select sharing, policy, n_placed, n_failed, n_oversubscribed as oom,
	        round(mean_wait_s, 1) as mean_wait_s, round(slowdown_mean, 2) as slowdown,
	        round(gpu_alloc_pct, 2) as alloc_pct, round(eff_util_pct, 2) as useful_pct,
	        round(mig_slack_pct, 2) as mig_slack_pct
	 from run_summary where run_id <= 10 order by policy, sharing"

if command -v gnuplot >/dev/null 2>&1; then
	echo
	echo "== gpusim plot: the sharing figures of the sweep (completion-time CDFs, slowdown"
	echo "   against co-located pods, useful against allocated GPU %), with the time-mode ones"
	"$gpusim" plot --db "$sdb" --out "$out/plots" 2>/dev/null | grep '\.png$'
fi

echo
echo "== gpusim advise: which policy and sharing mechanism for the H100 example, and why"
echo "   (every policy under every mechanism at 50, 80 and 95% load, seeds until they separate;"
echo "    the report with its figures: results/demo/advise/advise.md)"
adb=$(fresh_db advise)
"$gpusim" advise --nodes "$top/traces/h100-mixed/cluster.csv" --pods "$top/traces/h100-mixed/pods.csv" \
	--db "$adb" --report "$out/advise"

echo
echo "== gpusim inspect --state: a Kubernetes cluster as 'kubectl get nodes,pods -A -o yaml' prints it"
"$gpusim" inspect --state "$top/traces/k8s/cluster.yaml"
echo
echo "== gpusim replay --state: its pending pods placed by every policy (Dynamic Resource Allocation)"
"$gpusim" replay --state "$top/traces/k8s/dra.yaml" --policy binpack,spread,fgd --no-db

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
echo "results: $db, $sdb, $adb"
