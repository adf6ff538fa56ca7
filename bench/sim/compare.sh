#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# compare.sh - do two gpusim binaries place every pod alike? Replays the 17
# openb traces of the FGD matrix with every policy in eight set-ups
# (inflate mode with compat and exact scoring; time mode at the trace's own
# pace, at --time-scale 100000 which builds a pending queue, the same with
# --max-wait 120 so that pods time out, with --compat so that ties go by a
# shuffled node order, and under the sharing model with time-slicing and
# with vGPU, where completions move, sampled every 600 s) and compares, run
# by run, the pods table (node, GPUs, state, times, failure reasons), the
# samples (the columns both binaries write: a newer schema may add some),
# the run summaries and the per-percent statistics the figures plot (at
# full precision). Used to show that a speed-up changed no result.
#
#   bench/sim/compare.sh OLD_GPUSIM NEW_GPUSIM [WORKDIR]
#
# Prints one line per trace and set-up, "same" or "DIFFERENT: what", and
# exits 1 if anything differs. Needs the openb trace in
# ../shared/traces/openb (or $GS_OPENB_DIR) and sqlite3.
# Both replay the policies OLD_GPUSIM knows (a policy added since would
# shift the new binary's run ids); COMPARE_POLICIES gives another list.
# COMPARE_TRACES and COMPARE_SETUPS (numbers 1-8) narrow it down; a
# trace with a slash in it is a pods file of its own, and COMPARE_NODES
# another cluster (a 100,000-node case from bench/sim/scale_spec.sh);
# COMPARE_NEW_ARGS adds options for the new binary only (for example
# --arrival-samples, so that an inflate run stores every sample as before).
set -u

if [ $# -lt 2 ]; then
	echo "usage: compare.sh OLD_GPUSIM NEW_GPUSIM [WORKDIR]" >&2
	exit 2
fi
# shellcheck disable=SC2034 # both are read as ${!side} below
old=$1 new=$2
here=$(cd "$(dirname "$0")" && pwd)
openb=${GS_OPENB_DIR:-$here/../../../shared/traces/openb}
work=${3:-$(mktemp -d "${TMPDIR:-/tmp}/gpusim-compare-XXXXXX")}
mkdir -p "$work"
nodes=${COMPARE_NODES:-$openb/openb_node_list_gpu_node.csv}
if [ ! -f "$nodes" ]; then
	echo "compare.sh: no cluster $nodes: the openb trace is not in $openb; set GS_OPENB_DIR" >&2
	exit 2
fi
traces=${COMPARE_TRACES:-"default cpu050 cpu100 cpu200 cpu250 gpushare40 gpushare60 gpushare80
	gpushare100 gpuspec10 gpuspec20 gpuspec25 gpuspec33 multigpu20 multigpu30 multigpu40 multigpu50"}
setups=${COMPARE_SETUPS:-"1 2 3 4 5 6 7 8"}
policies=${COMPARE_POLICIES:-$("$old" policies 2>/dev/null | awk 'NR > 1 && NF { print $1 }' | paste -sd, -)}
if [ -z "$policies" ]; then
	echo "compare.sh: cannot list the policies of $old; set COMPARE_POLICIES" >&2
	exit 2
fi

setup_args() {
	case $1 in
	1) echo "--mode inflate --seed 42" ;;
	2) echo "--mode inflate --exact --seed 7" ;;
	3) echo "--mode time --seed 42" ;;
	4) echo "--mode time --time-scale 100000 --seed 42" ;;
	5) echo "--mode time --time-scale 100000 --max-wait 120 --seed 42" ;;
	6) echo "--mode time --time-scale 100000 --compat --seed 7" ;;
	7) echo "--mode time --time-scale 100000 --sharing timeslice --sample-interval 600 --seed 42" ;;
	8) echo "--mode time --time-scale 100000 --sharing vgpu --sample-interval 600 --seed 42" ;;
	esac
}

# What must agree, run by run (runs are numbered alike: same order of policies).
queries=(
	"pods|select run_id, pod_idx, src_idx, state, node_idx, gpus, t_arrive_s, t_start_s, t_end_s, wait_s, fail_reason from pods order by run_id, pod_idx"
	"samples|select COMMON from samples order by run_id, sample_idx"
	"run_summary|select run_id, policy, n_pods, n_placed, n_failed, printf('%!.17g %!.17g %!.17g %!.17g %!.17g %!.17g %!.17g %!.17g', failed_pct, mean_wait_s, gpu_alloc_pct, unalloc_gpu_pct, frag_ratio_pct, frag_amount_pct, peak_gpu_alloc_pct, offered_load_pct), peak_pending, wait_p99_s, completion_p99_s, printf('%!.17g', slowdown_mean) from run_summary order by run_id"
	"arrived_buckets|select run_id, arrived_pct, n_samples, printf('%!.17g %!.17g %!.17g %!.17g', gpu_alloc_pct, unalloc_gpu_pct, frag_ratio_pct, frag_amount_pct) from arrived_buckets order by run_id, arrived_pct"
	"runs|select run_id, n_placed, n_failed, n_done, n_pending_end, n_events, n_retries, t_end_s, wait_total_s from runs order by run_id"
)

status=0
for t in $traces; do
	pods=$openb/openb_pod_list_$t.csv
	tag=$t
	case $t in */*) pods=$t tag=$(basename "$t" .csv) ;; esac
	for s in $setups; do
		args=$(setup_args "$s")
		for side in old new; do
			db=$work/$tag-$s-$side.db
			extra=""
			[ $side = new ] && extra=${COMPARE_NEW_ARGS:-}
			rm -f "$db"
			# shellcheck disable=SC2086
			if ! "${!side}" replay --nodes "$nodes" --pods "$pods" --policy "$policies" $args $extra \
				--db "$db" -q >"$work/$tag-$s-$side.log" 2>&1; then
				echo "$t [$args]: $side binary failed, see $work/$tag-$s-$side.log"
				status=1
				continue 2
			fi
		done
		diffs=""
		# The samples' columns both binaries write: a newer schema adds columns, not values.
		old_cols=$(sqlite3 "$work/$tag-$s-old.db" \
			"select group_concat(quote(name), ',') from pragma_table_info('samples')")
		common=$(sqlite3 "$work/$tag-$s-new.db" "select group_concat(name, ', ') from
			pragma_table_info('samples') where name in ($old_cols)")
		for q in "${queries[@]}"; do
			name=${q%%|*}
			sql=${q#*|}
			sql=${sql/COMMON/$common}
			a=$(sqlite3 "$work/$tag-$s-old.db" "$sql" | sha256sum)
			b=$(sqlite3 "$work/$tag-$s-new.db" "$sql" | sha256sum)
			[ "$a" = "$b" ] || diffs="$diffs $name"
		done
		if [ -z "$diffs" ]; then
			echo "$t [$args]: same"
		else
			echo "$t [$args]: DIFFERENT:$diffs"
			status=1
		fi
		rm -f "$work/$tag-$s-old.db" "$work/$tag-$s-new.db"
	done
done
exit $status
