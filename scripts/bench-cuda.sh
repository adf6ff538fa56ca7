#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# bench-cuda.sh - `make bench`: the CUDA benchmark suite (bench/cuda) on
# this host's NVIDIA GPUs.
#
#   scripts/bench-cuda.sh [BUILD]      BUILD defaults to build; the suite is
#                                      built in BUILD-cuda
#
# Needs an NVIDIA GPU with its driver and the CUDA toolkit (nvcc); without
# a GPU it says so and exits 1. The simulator's -dev packages (GSL, SQLite,
# cJSON) are optional: without them only the allocator and bench/cuda are
# built (GS_SIM=OFF) and the results stay text until `gpusim bench-import`
# runs elsewhere. Results go to results/bench/<device>/:
#   results.txt    every run, for gpusim bench-import (key=value lines)
#   slowdown.csv   the slowdown table (kernel x co-located clients x mode)
#   bench.db, csv/, *.png, *.svg   when gpusim (and gnuplot) are at hand
#   logs/          each client's stderr, the private MPS logs
#
# Variables: BENCH_QUICK=1 runs every scenario once for 3 s (a check, not a
# measurement); BENCH_SCENARIOS="a.json b.json" runs only those;
# CUDA_ARCHS overrides the GPU architectures built (default: native).
set -eu

build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
bdir="$build-cuda"

# shellcheck source=scripts/cuda-lib.sh
. "$root/scripts/cuda-lib.sh"

why=$(cuda_gpu_missing)
if [ -n "$why" ]; then
	echo "make bench needs an NVIDIA GPU: $why." >&2
	echo "It runs real CUDA kernels; on a machine without a GPU use 'make test'" >&2
	echo "(the interception library and the harness are tested there against a" >&2
	echo "fake driver) or 'make bench-sim' (the simulator's own speed)." >&2
	exit 1
fi

# The simulator too when its libraries are here (for bench-import); the suite does not need it.
cuda_build "$bdir" gpusim-bench gpushare gpushare-pod vecadd mnist launch memprobe

bench="$bdir/bench/cuda/gpusim-bench"
device=$(cuda_device_name)
slug=$(cuda_slug "$device")
out="$root/results/bench/$slug"
mkdir -p "$out"
rm -rf "$out/logs"

if [ -n "${BENCH_SCENARIOS:-}" ]; then
	scenarios=$BENCH_SCENARIOS
else
	s="$root/bench/cuda/scenarios"
	scenarios="$s/overhead.json $s/interference-vecadd.json $s/interference-mnist.json"
	scenarios="$scenarios $s/interference-launch.json $s/interference-mix.json"
	scenarios="$scenarios $s/memory.json $s/compute-30-70.json $s/compute-10-90.json"
fi
quick=""
if [ "${BENCH_QUICK:-0}" = 1 ]; then
	quick="--duration-s 3 --repeat 1"
fi

echo "bench: $device; results in $out" >&2
status=0
# shellcheck disable=SC2086
"$bench" $quick --out "$out/results.txt" --slowdown-csv "$out/slowdown.csv" \
	--work-dir "$out/logs" $scenarios || status=$?
if [ ! -f "$out/results.txt" ]; then
	echo "bench: gpusim-bench wrote no results (exit $status)" >&2
	exit 1
fi

gpusim="$bdir/gpusim"
if [ -x "$gpusim" ]; then
	rm -f "$out/bench.db"
	"$gpusim" bench-import --db "$out/bench.db" --csv-dir "$out/csv" "$out/results.txt"
	if command -v gnuplot >/dev/null 2>&1; then
		gnuplot -e "dir='$out/csv'" "$root/scripts/plot-bench.gp"
	fi
else
	echo "bench: gpusim is not built here (simulator libraries missing); load the results" >&2
	echo "elsewhere with: gpusim bench-import --db DB --csv-dir DIR $out/results.txt" >&2
fi
if [ "$status" -ne 0 ]; then
	echo "bench: some clients failed (exit $status); see $out/logs and the status fields" >&2
fi
exit "$status"
