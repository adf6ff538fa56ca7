#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# regress.sh - the runs of gpusim's regression baseline, and the two things
# done with them:
#
#   scripts/regress.sh baseline [BUILD]        make baseline: run them into a
#       temporary database and write results/baseline/ from it (needs the
#       openb trace; run it after any intended change of results)
#   scripts/regress.sh check [BUILD] [OUT]     make regress, CI: run them into
#       OUT/regress.db (OUT defaults to results/ci, made afresh) and compare
#       with results/baseline/; OUT gets report.md and the overlay figures.
#       Exits with gpusim regress's status: 0 pass, 1 a regression.
#
# The families (mode-trace, as gpusim regress names them):
#   inflate-sample, time-sample   the bundled sample trace; always run
#   inflate-default, inflate-gpushare40, inflate-cpu050
#                                 openb, the FGD paper's six policies, seeds
#                                 42-51, inflate mode, no pod rows
#   time-default                  openb default in time mode at a steady
#                                 offered load of 80 % (--load 80, Poisson
#                                 arrivals), binpack, spread, first-fit and
#                                 fgd, seeds 42-44, pod rows kept (the wait
#                                 and completion-time CDFs)
#   time-sample-sharing=MODE      the sharing-mechanism x policy matrix
#                                 (exclusive, timeslice, mps, vgpu, mig x
#                                 binpack, spread, first-fit, fgd) on the
#                                 sample; the same on the bundled H100
#                                 example at --load 80 once it is in traces/
# Without the openb trace (OPENB, default ../shared/traces/openb), check
# skips its families with a message and compares the rest (--partial).
#
# Environment: OPENB (the openb folder), JOBS (sweep threads, default: CPUs).
set -euo pipefail
cd "$(dirname "$0")/.."

what=${1:-}
BUILD=${2:-build}
G=$BUILD/gpusim
OPENB=${OPENB:-../shared/traces/openb}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
SAMPLE=traces/sample

usage() {
	echo "usage: scripts/regress.sh baseline [BUILD] | check [BUILD] [OUT]" >&2
	exit 2
}

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

have_openb() {
	[ -f "$OPENB/openb_node_list_gpu_node.csv" ] && [ -f "$OPENB/openb_pod_list_default.csv" ]
}

# step NAME CMD...: runs a sweep of the baseline. Its warnings about the bundled
# inputs (pods MPS never places, GPUs without MIG) are the same on every run,
# not news: they are shown only when the sweep fails.
step() {
	local name=$1 t0 log
	shift
	t0=$(now)
	log=$(mktemp)
	if ! "$@" >/dev/null 2>"$log"; then
		cat "$log" >&2
		rm -f "$log"
		return 1
	fi
	rm -f "$log"
	echo "regress.sh: $name: $(since "$t0") s"
}

# run_all DB: every family into DB.
run_all() {
	local db=$1
	step "inflate-sample (6 policies x 10 seeds)" \
		"$G" sweep -q --nodes $SAMPLE/cluster.csv --pods $SAMPLE/pods.csv --policy paper \
		--seeds 42-51 --no-pods --jobs "$JOBS" --db "$db"
	step "time-sample (4 policies)" \
		"$G" sweep -q --mode time --nodes $SAMPLE/cluster.csv --pods $SAMPLE/pods.csv \
		--policy binpack,spread,first-fit,fgd --seeds 42 --jobs "$JOBS" --db "$db"
	if have_openb; then
		local t
		for t in default gpushare40 cpu050; do
			step "inflate-$t (6 policies x 10 seeds)" \
				"$G" sweep -q --nodes "$OPENB/openb_node_list_gpu_node.csv" \
				--pods "$OPENB/openb_pod_list_$t.csv" --policy paper --seeds 42-51 \
				--no-pods --jobs "$JOBS" --db "$db"
		done
		step "time-default (4 policies x 3 seeds, --load 80)" \
			"$G" sweep -q --mode time --nodes "$OPENB/openb_node_list_gpu_node.csv" \
			--pods "$OPENB/openb_pod_list_default.csv" --load 80 \
			--policy binpack,spread,first-fit,fgd --seeds 42-44 --jobs "$JOBS" --db "$db"
	else
		echo "regress.sh: no openb trace in $OPENB: skipping inflate-default, inflate-gpushare40," \
			"inflate-cpu050 and time-default (scripts/fetch-openb.sh fetches it)"
	fi
	run_sharing "$db"
}

# The mechanism x policy matrix: on the bundled sample, and on the bundled
# H100 example (a folder traces/*h100*/ with cluster.* or nodes.*, and
# pods.*) when there is one.
run_sharing() {
	local db=$1 dir nodes pods help
	# Read the help whole first: grep -q stops at the first match, and under
	# pipefail the SIGPIPE of a help longer than one stdio buffer would read
	# as "no --sharing".
	help=$("$G" sweep --help 2>&1)
	if ! grep -qE '^ +(-[a-zA-Z], )?--sharing ' <<<"$help"; then
		echo "regress.sh: sharing matrix skipped: this gpusim's sweep has no --sharing"
		return 0
	fi
	step "time-sample-sharing=* (5 mechanisms x 4 policies)" \
		"$G" sweep -q --mode time --nodes $SAMPLE/cluster.csv --pods $SAMPLE/pods.csv \
		--sharing exclusive,timeslice,mps,vgpu,mig --policy binpack,spread,first-fit,fgd \
		--seeds 42 --jobs "$JOBS" --db "$db"
	dir=$(find traces -mindepth 1 -maxdepth 1 -type d -iname '*h100*' | sort | head -n 1)
	if [ -n "$dir" ]; then
		nodes=$(find "$dir" -maxdepth 1 \( -name 'cluster.*' -o -name 'nodes.*' \) | sort |
			head -n 1)
		pods=$(find "$dir" -maxdepth 1 -name 'pods.*' | sort | head -n 1)
	fi
	if [ -z "$dir" ] || [ -z "$nodes" ] || [ -z "$pods" ]; then
		echo "regress.sh: H100 sharing matrix skipped: no bundled H100 example" \
			"(traces/*h100*/ with cluster.* and pods.*)"
		return 0
	fi
	step "sharing matrix on $dir (5 mechanisms x 4 policies, --load 80)" \
		"$G" sweep -q --mode time --nodes "$nodes" --pods "$pods" --load 80 \
		--sharing exclusive,timeslice,mps,vgpu,mig --policy binpack,spread,first-fit,fgd \
		--seeds 42 --jobs "$JOBS" --db "$db"
}

[ -x "$G" ] || { echo "regress.sh: $G not found; build first (make)" >&2; exit 2; }

case $what in
baseline)
	have_openb || {
		echo "regress.sh: the baseline needs the openb trace in $OPENB" \
			"(scripts/fetch-openb.sh, or OPENB=DIR)" >&2
		exit 2
	}
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpusim-baseline-XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	run_all "$tmp/baseline.db"
	"$G" regress --db "$tmp/baseline.db" --write-baseline results/baseline
	echo "regress.sh: review 'git diff results/baseline' and commit it with the change"
	;;
check)
	out=${3:-results/ci}
	t0=$(now)
	rm -rf "$out"
	mkdir -p "$out"
	run_all "$out/regress.db"
	partial=
	have_openb || partial=--partial
	status=0
	"$G" regress --db "$out/regress.db" --baseline results/baseline --out "$out" $partial ||
		status=$?
	echo "regress.sh: the regression check took $(since "$t0") s;" \
		"report and figures in $out/ (report.md)"
	exit $status
	;;
*)
	usage
	;;
esac
