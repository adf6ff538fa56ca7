#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# gpu_check_fake.sh - make gpu-check (scripts/gpu-check.sh) end to end
# against the fake driver, so that the first run on a GPU does not fail on
# a typo: the harness with stand-in clients (tests/fake_client.sh) and a
# stand-in MPS control (tests/fake_mps_control.sh), the PyTorch and CuPy
# checks with the stand-ins of tests/gpucheck/ under the real libgpushare,
# the summary and the tarball. The build, which needs a real GPU, must be
# skipped with a reason; the hook step runs the stand-in clients, which
# keep their pods' regions where the library would (the first run on a
# GPU failed there: no directory for them). A second
# run has an MPS control daemon that cannot start: MPS is skipped, saying
# why, and the rest runs. Exit 77 without python3.
#
# usage: gpu_check_fake.sh SOURCE_DIR BENCH_CUDA_BUILD_DIR
set -u
src=$1
bin=$2
command -v python3 >/dev/null 2>&1 || { echo "gpu_check_fake: no python3: skipped"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpusim-gpu-check.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
bad=0

fail() {
	echo "gpu_check_fake: $*" >&2
	bad=1
}

# run NAME MPS_CONTROL [SCENARIOS]: gpu-check against the fake driver, its output
# in $tmp/NAME.log.
run() {
	mkdir -p "$tmp/$1/clients" "$tmp/$1/bin" "$tmp/$1/state" "$tmp/$1/mps" "$tmp/$1/out"
	for c in vecadd mnist launch memprobe; do
		ln -s "$src/tests/fake_client.sh" "$tmp/$1/clients/$c"
	done
	ln -s "$2" "$tmp/$1/bin/nvidia-cuda-mps-control"
	PATH="$tmp/$1/bin:$PATH" FAKE_CLIENT_DIR="$tmp/$1/state" GPUSIM_BENCH_MPS_DIR="$tmp/$1/mps" \
		LD_LIBRARY_PATH="$bin/fakecuda" FAKECUDA_DEVICES=1 PYTHONPATH="$src/tests/gpucheck" \
		PYTHONDONTWRITEBYTECODE=1 \
		GPU_CHECK_FAKE=1 GPU_CHECK_BIN="$bin" GPU_CHECK_CLIENTS="$tmp/$1/clients" \
		GPU_CHECK_RESULTS="$tmp/$1/results/bench/Fake-GPU/gpu-check" \
		GPU_CHECK_OUT="$tmp/$1/out" GPU_CHECK_SECONDS=1 GPU_CHECK_SCENARIOS="${3:-}" \
		GPU_CHECK_BENCH_ARGS="--startup-s 0.3 --duration-s 0.2 --warmup-s 0" \
		sh "$src/scripts/gpu-check.sh" > "$tmp/$1.log" 2>&1
	rc=$?
	cat "$tmp/$1.log"
	[ "$rc" -eq 0 ] || fail "$1: gpu-check exited $rc"
}

# expect NAME PATTERN: the summary of run NAME has a line matching PATTERN (grep -E).
expect() {
	grep -Eq "$2" "$tmp/$1/results/bench/Fake-GPU/gpu-check/summary.txt" ||
		fail "$1: the summary has no line matching '$2'"
}

run ok "$src/tests/fake_mps_control.sh"
for line in '^  PASS  device' '^  SKIP  build: the fake driver' \
	'^  PASS  hook' \
	'^  PASS  mps' '^  PASS  bench' '^  PASS  python' \
	'^  PASS  torch: 4096 MiB pod, native allocator: total 4096 MiB' \
	'^  PASS  torch: 4096 MiB pod, expandable-segments allocator' \
	'^  PASS  torch: 4096 MiB pod, cudaMallocAsync allocator' \
	'^  PASS  torch: two processes of one 4096 MiB pod' \
	'^  PASS  torch: torch.cuda.graph in a 30 % pod beside a busy 70 % one: 20 captures' \
	'^  PASS  torch: matmul pair 30/70' '^  PASS  torch: matmul pair 10/90' \
	'^  PASS  cupy: 4096 MiB pod' \
	'mnist overhead under hook \(%\) +2\.00  <= 1, median of 3 runs \(2\.00 to 2\.00\)' \
	'p30 share under hook \(asked 0\.300\) +0\.300' \
	'memory limit exact under hook \(memprobe\) +check_ok=1' \
	'vecadd x7 under mps: throughput / alone' \
	'^no check failed'; do
	expect ok "$line"
done
tar -tzf "$tmp/ok/out/gpu-check-Fake-GPU.tar.gz" > "$tmp/list" 2>/dev/null ||
	fail "no tarball in GPU_CHECK_OUT"
for f in gpu-check/summary.txt gpu-check/summary.json gpu-check/checks.jsonl \
	gpu-check/bench/results.txt gpu-check/bench/slowdown.csv gpu-check/logs/bench.log; do
	grep -qx "$f" "$tmp/list" || fail "the tarball lacks $f"
done
cmp -s "$tmp/ok/out/gpu-check-summary.txt" "$tmp/ok/results/bench/Fake-GPU/gpu-check/summary.txt" ||
	fail "GPU_CHECK_OUT has no copy of the summary"
for left in "$tmp"/ok/mps/*; do
	[ -e "$left" ] && fail "an MPS daemon's directory was left behind: $left"
done

# A host where the MPS control daemon cannot start.
printf '#!/bin/sh\necho "An MPS control daemon cannot start here" >&2\nexit 1\n' > "$tmp/no-mps"
chmod +x "$tmp/no-mps"
run nomps "$tmp/no-mps" "$src/bench/cuda/scenarios/check/compute-30-70.json"
expect nomps '^  SKIP  mps: MPS cannot run here: nvidia-cuda-mps-control -d failed'
expect nomps '^  PASS  bench'
grep -q 'mode=mps' "$tmp/nomps/results/bench/Fake-GPU/gpu-check/bench/results.txt" &&
	fail "nomps: the bench ran MPS where it cannot start"
# The overhead figures are medians over the scenario's repeats: one short window
# of a launch-bound kernel can stray past its target (12.7 % against 3.3-7.5 %
# on an H100), and the median of three is what is held against it.
mkdir -p "$tmp/median/bench"
{
	echo '# gpusim-bench results 1'
	for o in 7.5 0.5 -1.2; do
		echo "client scenario=check-overhead mode=hook name=mnist kernel=mnist overhead_pct=$o"
	done
	for o in 12.7 3.9 3.3; do
		echo "client scenario=check-overhead mode=hook name=launch kernel=launch overhead_pct=$o"
	done
} > "$tmp/median/bench/results.txt"
python3 "$src/bench/cuda/gpucheck/gpucheck.py" summary --dir "$tmp/median" > /dev/null
expect_median() {
	grep -Eq "$1" "$tmp/median/summary.txt" || fail "median: the summary has no line matching '$1'"
}
expect_median '^  PASS  mnist overhead under hook \(%\) +0\.50  <= 1, median of 3 runs \(-1\.20 to 7\.50\)'
expect_median '^  PASS  launch overhead under hook \(%\) +3\.90  <= 5, median of 3 runs \(3\.30 to 12\.70\)'
[ "$bad" -eq 0 ] && echo "gpu_check_fake: ok"
exit $bad
