#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# bench_launch.sh - `make bench-hook`: what libgpushare adds to an
# unthrottled cuLaunchKernel, on the fake driver (no GPU needed).
#
#   bench/cuda/hook/bench_launch.sh [BUILD] [HOOK_LIB]
#
# BUILD defaults to build; HOOK_LIB to BUILD/bench/cuda/libgpushare.so (give
# another build's library to compare two versions of the hook on the same
# fake driver and the same loop). Two pods, both unthrottled:
#   noshare  no compute share (GPUSHARE_COMPUTE_PERCENT unset): heartbeats only
#   alone30  a 30 % share with nobody else on the GPU: elastic, the throttle's
#            checks run but never charge
# For each: the median ns per launch of BENCH_RUNS (7) runs of BENCH_LAUNCHES
# (2000000) launches, hook against direct, and, when valgrind is installed,
# the instructions per launch of each path (callgrind, 100000 launches).
# Results vary with the machine's load: compare figures from one session.
set -eu

build=${1:-build}
hook=${2:-$build/bench/cuda/libgpushare.so}
exe=$build/bench/cuda/bench_hook_launch
fake=$build/bench/cuda/fakecuda
runs=${BENCH_RUNS:-7}
launches=${BENCH_LAUNCHES:-2000000}

for f in "$exe" "$hook" "$fake/libcuda.so.1"; do
	if [ ! -e "$f" ]; then
		echo "bench-hook: $f is missing; build first (make build)" >&2
		exit 2
	fi
done
shm=$(mktemp -d /tmp/gpushare-bench.XXXXXX)
trap 'rm -rf "$shm"' EXIT INT TERM

hooked() { # name, then variables and the command: the command under the hook, as pod bench-name
	name=$1
	shift
	env LD_PRELOAD="$hook" LD_LIBRARY_PATH="$fake" FAKECUDA_KERNEL_NS=0 \
		GPUSHARE_POD_ID="bench-$name" GPUSHARE_SHM_DIR="$shm" "$@"
}

run() { # name, extra variables...
	name=$1
	shift
	hooked "$name" "$@" "$exe" --launches "$launches" --runs "$runs" |
		sed -n "s/^launch /$name /p"
	if command -v valgrind >/dev/null 2>&1; then
		for path in direct hook; do
			out="$shm/callgrind.$name.$path"
			hooked "$name" "$@" valgrind --tool=callgrind --toggle-collect=launch_loop \
				--callgrind-out-file="$out" \
				"$exe" --launches 100000 --runs 1 --only "$path" >/dev/null 2>&1
			ir=$(sed -n 's/^summary: *//p' "$out")
			# The warm-up (10001 launches) is collected too: 110001 in all.
			echo "$name $path instructions_per_launch=$(awk -v ir="$ir" \
				'BEGIN { printf "%.1f", ir / 110001 }')"
		done
	fi
}

run noshare GPUSHARE_COMPUTE_PERCENT=100
run alone30 GPUSHARE_COMPUTE_PERCENT=30
