#!/bin/sh
# shellcheck disable=SC2317 # the steps' functions run through "$self" __step
# SPDX-License-Identifier: Apache-2.0
# gpu-check.sh - make gpu-check: the CUDA half of gpusim checked on this
# host's GPU with one command, in under 8 minutes, everything written under
# results/bench/<device>/gpu-check/ (bench/cuda/README.md, "The GPU check").
#
#   scripts/gpu-check.sh [BUILD]      builds in BUILD-gpu (default build-gpu)
#
# Steps, each with a time limit, its log in logs/ and one line of outcome
# (PASS, FAIL, or SKIP with the reason):
#   device     what the GPU is (nvidia-smi's queries only: no setting of
#              the card is ever changed, no clocks, compute mode or MIG)
#   build      libgpushare, gpushare-pod, gpusim-bench and the four CUDA
#              clients (bench/cuda; the simulator too when its libraries
#              are here)
#   hook       vecadd and mnist check themselves under the library, and
#              memprobe finds its 512 MiB limit exact (against the fake
#              driver: the stand-in clients, for the step's plumbing)
#   mps        can a private MPS control daemon run a client here? Its
#              pipe and log directories are private (/tmp/gpusim-mps-*),
#              and it is stopped after; where it cannot start, the bench
#              skips MPS and says why
#   bench      the suite of make bench in a quick form
#              (bench/cuda/scenarios/check/: every mode, overhead, memory
#              and compute isolation, 2 to 7 co-located clients, vecadd
#              against the device-to-device copy)
#   python     PyTorch (and CuPy where present) under the library
#              (bench/cuda/gpucheck/gpucheck.py)
# then a summary with pass/fail per check and the headline figures
# (summary.txt), and, when GPU_CHECK_OUT names a directory, a tarball of
# it all and the summary copied there. Exit status 0, or 1 when a step or
# check failed (a target missed is a measurement, not a failure).
#
# Variables: GPU_CHECK_OUT (see above); CUDA_ARCHS (default native);
# GPU_CHECK_SECONDS, each PyTorch measurement's seconds (default 5);
# GPU_CHECK_SCENARIOS, the bench's scenario files instead of the quick suite;
# GPU_CHECK_BENCH_ARGS, gpusim-bench's timing options (default --startup-s 1.5).
# GPU_CHECK_FAKE=1 runs it all against the fake driver, for the test
# gpu_check_fake (tests/gpu_check_fake.sh), which also sets
# GPU_CHECK_BIN (the test build's bench/cuda), GPU_CHECK_CLIENTS (stand-in
# clients), GPU_CHECK_RESULTS and GPU_CHECK_DEVICE: nothing is built (the
# build step is skipped with a reason), the hook step runs the stand-in
# clients, and the PyTorch and CuPy checks run on stand-ins for the two
# libraries.
set -u

root=$(cd "$(dirname "$0")/.." && pwd)
self=$root/scripts/gpu-check.sh
# shellcheck source=scripts/cuda-lib.sh
. "$root/scripts/cuda-lib.sh"
fake=${GPU_CHECK_FAKE:-0}

# step NAME LIMIT_S FUNCTION: runs FUNCTION (in a process of its own, so that
# its time limit holds), its output in logs/NAME.log, and records PASS (exit
# 0), SKIP (exit 77; the last line says why) or FAIL.
step() {
	st_name=$1 st_limit=$2
	shift 2
	st_t0=$(date +%s)
	timeout -k 10 "$st_limit" sh "$self" __step "$@" > "$logs/$st_name.log" 2>&1
	st_rc=$?
	st_dt=$(($(date +%s) - st_t0))
	st_why=$(tail -n 1 "$logs/$st_name.log" | tr '\t' ' ' | cut -c1-300)
	case $st_rc in
	0) st=PASS st_why="" ;;
	77) st=SKIP ;;
	124 | 137) st=FAIL st_why="timed out after ${st_limit} s" ;;
	*) st=FAIL st_why="exit $st_rc: $st_why" ;;
	esac
	printf '%s\t%s\t%s\t%s\n' "$st_name" "$st" "$st_dt" "$st_why" >> "$res/steps.tsv"
	echo "gpu-check: $st_name: $st (${st_dt} s)${st_why:+: $st_why}"
	return $st_rc
}

skip() { # the reason, as a step's last line, and exit 77
	echo "$*"
	exit 77
}

device_info() {
	echo "$device"
	if [ "$fake" = 1 ]; then
		echo "the fake CUDA driver (bench/cuda/hook/fake_cuda.c), no GPU"
		return 0
	fi
	# Queries only: read, never set.
	nvidia-smi --query-gpu=name,uuid,driver_version,memory.total,compute_mode,mig.mode.current \
		--format=csv || true
	nvidia-smi | sed -n '3p' || true
	nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
	"$nvcc" --version 2>/dev/null | tail -n 2
	python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)' \
		2>/dev/null || echo "no PyTorch"
	python3 -c 'import cupy; print("cupy", cupy.__version__)' 2>/dev/null || echo "no CuPy"
	echo "host: $(uname -srm), $(nproc) CPUs"
	return 0
}

build_all() {
	[ "$fake" = 1 ] && skip "the fake driver's test uses the test build's programs"
	cuda_build "$bdir" gpushare gpushare-pod gpusim-bench vecadd mnist launch memprobe
}

hook_clients() {
	# libgpushare refuses to run without its pod's region: the directory must
	# exist (the first run on a GPU failed here). Against the fake driver the
	# stand-in clients write their regions there as the library does.
	mkdir -p "$res/shm-hook" || return 1
	for c in vecadd mnist; do
		LD_PRELOAD="$bin/libgpushare.so" GPUSHARE_POD_ID="check-$c" \
			GPUSHARE_SHM_DIR="$res/shm-hook" GPUSHARE_MEM_LIMIT_MIB=512 "$clients/$c" --check ||
			return 1
	done
	LD_PRELOAD="$bin/libgpushare.so" GPUSHARE_POD_ID=check-memprobe \
		GPUSHARE_SHM_DIR="$res/shm-hook" GPUSHARE_MEM_LIMIT_MIB=512 \
		"$clients/memprobe" --limit-mib 512 --duration-s 0.1
}

bench() { # gpusim-bench with its fixed arguments, then SCENARIO.json...
	# shellcheck disable=SC2086
	"$bin/gpusim-bench" --client-dir "$clients" --hook "$bin/libgpushare.so" \
		${GPU_CHECK_BENCH_ARGS:---startup-s 1.5} "$@"
}

mps_probe() {
	bench --out "$res/bench/mps-probe.txt" --work-dir "$res/bench/mps-probe" \
		"$root/bench/cuda/scenarios/check/mps-probe.json" || true
	if grep -q '^run .*mode=mps .*status=ok' "$res/bench/mps-probe.txt" 2>/dev/null; then
		return 0
	fi
	skip "MPS cannot run here: $(sed -n 's/^run .*mode=mps .*reason="\([^"]*\)".*/\1/p' \
		"$res/bench/mps-probe.txt" 2>/dev/null | head -n 1) (see logs/mps.log); the bench skips it"
}

bench_suite() {
	s="$root/bench/cuda/scenarios/check"
	scenarios=${GPU_CHECK_SCENARIOS:-}
	if [ -z "$scenarios" ]; then
		scenarios="$s/overhead.json $s/compute-30-70.json $s/compute-10-90.json"
		scenarios="$scenarios $s/memory.json $s/interference-vecadd.json"
	fi
	# shellcheck disable=SC2086
	bench --out "$res/bench/results.txt" --slowdown-csv "$res/bench/slowdown.csv" \
		--work-dir "$res/bench/work" --modes "$modes" $scenarios
}

python_checks() {
	command -v python3 >/dev/null 2>&1 || skip "no python3"
	python3 -c 'import torch' 2>/dev/null || python3 -c 'import cupy' 2>/dev/null ||
		skip "neither PyTorch nor CuPy is installed for python3"
	python3 "$root/bench/cuda/gpucheck/gpucheck.py" run --hook "$bin/libgpushare.so" \
		--dir "$res" --seconds "${GPU_CHECK_SECONDS:-5}"
}


# A step runs here, in a process of its own, with the main process's variables.
if [ "${1:-}" = __step ]; then
	shift
	"$@"
	exit $?
fi

build=${1:-build}
start=$(date +%s)
if [ "$fake" = 1 ]; then
	device=${GPU_CHECK_DEVICE:-Fake GPU}
	bin=${GPU_CHECK_BIN:?GPU_CHECK_FAKE=1 needs GPU_CHECK_BIN}
	clients=${GPU_CHECK_CLIENTS:?GPU_CHECK_FAKE=1 needs GPU_CHECK_CLIENTS}
	bdir=""
else
	why=$(cuda_gpu_missing)
	if [ -n "$why" ]; then
		echo "gpu-check needs an NVIDIA GPU: $why; 'make test' runs it against the fake driver" >&2
		exit 1
	fi
	device=$(cuda_device_name)
	case $build in
	/*) bdir=$build-gpu ;;
	*) bdir=$root/$build-gpu ;;
	esac
	bin=$bdir/bench/cuda
	clients=$bin
fi
slug=$(cuda_slug "$device")
res=${GPU_CHECK_RESULTS:-$root/results/bench/$slug/gpu-check}
rm -rf "$res"
mkdir -p "$res/logs" "$res/bench"
logs=$res/logs
modes=timeslice,mps,hook
export device bin clients res logs bdir fake modes
: > "$res/steps.tsv"

echo "gpu-check: $device; results in $res"
step device 30 device_info
cp "$logs/device.log" "$res/device.txt"
if step build 300 build_all || [ "$fake" = 1 ]; then
	step hook 120 hook_clients
	step mps 90 mps_probe || export modes=timeslice,hook
	step bench 420 bench_suite
	step python 300 python_checks
fi
echo "gpu-check: $(($(date +%s) - start)) s in all"
if command -v python3 >/dev/null 2>&1; then
	python3 "$root/bench/cuda/gpucheck/gpucheck.py" summary --dir "$res"
	failed=$?
else
	cat "$res/steps.tsv"
	failed=0
	grep -q "$(printf '\tFAIL\t')" "$res/steps.tsv" && failed=1
fi
# The pods' regions and the PyTorch checks' handshake files are scratch;
# the client logs and MPS logs stay.
rm -rf "$res/shm" "$res/shm-hook" "$res"/bench/work/shm-* "$res"/hold.ready "$res"/hold.until \
	"$res"/busy.ready
if [ -n "${GPU_CHECK_OUT:-}" ]; then
	mkdir -p "$GPU_CHECK_OUT"
	tar -czf "$GPU_CHECK_OUT/gpu-check-$slug.tar.gz" -C "$(dirname "$res")" "$(basename "$res")"
	cp "$res/summary.txt" "$GPU_CHECK_OUT/gpu-check-summary.txt" 2>/dev/null
	echo "gpu-check: $GPU_CHECK_OUT/gpu-check-$slug.tar.gz"
fi
exit $failed
