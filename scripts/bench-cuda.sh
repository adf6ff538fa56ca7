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

no_gpu() {
	echo "make bench needs an NVIDIA GPU: $1." >&2
	echo "It runs real CUDA kernels; on a machine without a GPU use 'make test'" >&2
	echo "(the interception library and the harness are tested there against a" >&2
	echo "fake driver) or 'make bench-sim' (the simulator's own speed)." >&2
	exit 1
}

if ! command -v nvidia-smi >/dev/null 2>&1; then
	no_gpu "nvidia-smi is not installed (no NVIDIA driver)"
fi
if ! nvidia-smi -L >/dev/null 2>&1; then
	no_gpu "nvidia-smi fails ($(nvidia-smi -L 2>&1 | head -n 1))"
fi
if [ ! -e /dev/nvidia0 ]; then
	no_gpu "there is no /dev/nvidia0 (no GPU visible here)"
fi

nvcc=$(command -v nvcc || true)
if [ -z "$nvcc" ] && [ -x /usr/local/cuda/bin/nvcc ]; then
	nvcc=/usr/local/cuda/bin/nvcc
fi
if [ -z "$nvcc" ]; then
	echo "make bench needs the CUDA toolkit (nvcc not in PATH nor in /usr/local/cuda/bin)." >&2
	exit 1
fi

# The simulator only if its libraries are here; the suite does not need it.
sim=OFF
if command -v pkg-config >/dev/null 2>&1 &&
	pkg-config --exists gsl sqlite3 libcjson 2>/dev/null; then
	sim=ON
fi

echo "bench: configuring $bdir (GS_SIM=$sim, nvcc $nvcc)" >&2
cmake -S "$root" -B "$bdir" -DCMAKE_BUILD_TYPE=Release -DGS_CUDA=ON -DGS_SIM="$sim" \
	-DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS:-native}" >&2
targets="gpusim-bench gpushare vecadd mnist launch memprobe"
if [ "$sim" = ON ]; then
	targets="$targets gpusim"
fi
# shellcheck disable=SC2086
cmake --build "$bdir" -j "$(nproc 2>/dev/null || echo 2)" --target $targets >&2

bench="$bdir/bench/cuda/gpusim-bench"
device=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
slug=$(printf '%s' "$device" | tr -c 'A-Za-z0-9._-' '-' | sed 's/--*/-/g; s/-$//')
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
