#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# run.sh - simulator speed benchmarks (`make bench-sim`).
#
#   bench/sim/run.sh [BUILD_DIR]     (default build)
#
# 1. Wall time of one run per policy on openb's default trace, in inflate
#    mode (the FGD experiment, compat scoring), in time mode, and in time
#    mode with each sharing mechanism (--sharing): the median of 5 runs and
#    events per second (bench_replay: simulation only, the inflation and
#    the policy set-up included, no database).
# 2. The FGD paper's whole matrix with `gpusim sweep`: 17 traces x 6
#    policies x seeds 42-51 = 1020 runs, --jobs 2, into a fresh database,
#    once with --no-pods (the form the FGD figures need; the target is
#    under 20 s and 100 MB on 2 cores) and once with every pod stored.
# 3. gpusim convert on a generated 1,000,000-row job table of each public
#    format (bench_convert; issue 23's target is under 5 s), median of 3.
#    Needs no trace: it runs first, before the openb check.
# Needs the openb trace in ../shared/traces/openb (or $GS_OPENB_DIR).
# BENCH_SWEEP=0 skips step 2; BENCH_REPEATS changes 5.
set -eu

build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
openb=${GS_OPENB_DIR:-$root/../shared/traces/openb}
repeats=${BENCH_REPEATS:-5}
policies=random,dotprod,gpuclustering,gpupacking,bestfit,fgd
# Step 1 also times the policy that goes beyond FGD (docs/beyond-fgd.md); step 2 is the paper's.
timed=$policies,fgd-lookahead

if [ -x "$build/bench/sim/bench_convert" ]; then
	echo "== gpusim convert: a generated 1,000,000-row job table per format, median of 3"
	"$build/bench/sim/bench_convert" 1000000 3
fi
if [ ! -f "$openb/openb_node_list_gpu_node.csv" ]; then
	echo "bench-sim: the openb trace is not in $openb; set GS_OPENB_DIR" >&2
	exit 2
fi
for exe in "$build/gpusim" "$build/bench/sim/bench_replay"; do
	if [ ! -x "$exe" ]; then
		echo "bench-sim: $exe is missing; build first (make)" >&2
		exit 2
	fi
done
nodes=$openb/openb_node_list_gpu_node.csv

echo "== host: $(nproc) CPUs, $(uname -m), $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "== one run per policy, openb_pod_list_default, median of $repeats"
"$build/bench/sim/bench_replay" "$nodes" "$openb/openb_pod_list_default.csv" inflate \
	"$repeats" "$timed"
"$build/bench/sim/bench_replay" "$nodes" "$openb/openb_pod_list_default.csv" time \
	"$repeats" "binpack,spread,first-fit,$timed" | tail -n +2
# The sharing-aware replay (docs/sharing.md): the rate model
# on every GPU; openb has no MIG models, so 'mig' runs them exclusive.
echo "== time mode with each sharing mechanism, openb_pod_list_default, median of $repeats"
for sharing in exclusive timeslice mps vgpu mig; do
	"$build/bench/sim/bench_replay" "$nodes" "$openb/openb_pod_list_default.csv" time \
		"$repeats" "binpack,spread,first-fit,$timed" --sharing "$sharing" | tail -n +2
done

if [ "${BENCH_SWEEP:-1}" = 0 ]; then
	exit 0
fi
traces=""
for t in default cpu050 cpu100 cpu200 cpu250 gpushare40 gpushare60 gpushare80 gpushare100 \
	 gpuspec10 gpuspec20 gpuspec25 gpuspec33 multigpu20 multigpu30 multigpu40 multigpu50; do
	traces="$traces${traces:+,}$openb/openb_pod_list_$t.csv"
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpusim-bench-XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
for extra in --no-pods ""; do
	rm -f "$tmp"/sweep.db*
	echo "== sweep: 17 traces x 6 policies x seeds 42-51 = 1020 runs, --jobs 2, fresh database," \
		"${extra:-every pod stored}"
	start=$(date +%s.%N)
	# shellcheck disable=SC2086
	"$build/gpusim" sweep --nodes "$nodes" --pods "$traces" --policy paper --seeds 42-51 \
		--jobs 2 $extra --db "$tmp/sweep.db" -q
	end=$(date +%s.%N)
	echo "sweep wall time: $(awk "BEGIN { printf \"%.1f\", $end - $start }") s, database $(du -h "$tmp/sweep.db" | cut -f1)"
done
