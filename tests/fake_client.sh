#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# fake_client.sh - stands in for the CUDA clients (vecadd, mnist, launch,
# memprobe) in test_bench_harness, on machines without a GPU. Installed as
# symbolic links named after the clients.
#
# It takes the clients' flags, waits for --start-at-ns like them, and
# reports a throughput that follows from what the harness set up: the
# compute share it was given (GPUSHARE_COMPUTE_PERCENT under the hook,
# CUDA_MPS_ACTIVE_THREAD_PERCENTAGE under MPS), else 1000 divided by the
# fake clients running on the same GPU at the start time. Under
# libgpushare it loses 2 %, so the harness's overhead has a known value.
# It echoes the environment it saw as seen_* keys. A client named
# crash* exits 3 without a report. Under MPS it first sleeps
# FAKE_CLIENT_SLEEP_S seconds when that is set (a run to interrupt).
# Under the hook it keeps its pod's limits in GPUSHARE_SHM_DIR as
# libgpushare does, and refuses to run, as libgpushare does, when a region
# of its pod already holds another compute share.
set -eu

kernel=$(basename "$0")
name=$kernel start=0 limit=0
while [ $# -gt 0 ]; do
	case "$1" in
	--name) name=$2; shift 2 ;;
	--start-at-ns) start=$2; shift 2 ;;
	--limit-mib) limit=$2; shift 2 ;;
	--duration-s|--warmup-s|--size-mib|--batch) shift 2 ;;
	--check) shift ;;
	*) echo "fake client: unknown flag $1" >&2; exit 2 ;;
	esac
done
case "$name" in crash*) echo "fake client: crashing as asked" >&2; exit 3 ;; esac

if [ -n "${GPUSHARE_SHM_DIR:-}" ]; then
	region="$GPUSHARE_SHM_DIR/gpushare.pod.${GPUSHARE_POD_ID:?}"
	if [ -e "$region" ] && [ "$(cat "$region")" != "${GPUSHARE_COMPUTE_PERCENT:-100}" ]; then
		echo "fake client: $region: the pod's compute share is $(cat "$region") %, not" \
			"${GPUSHARE_COMPUTE_PERCENT:-100} %: refusing to run" >&2
		exit 1
	fi
	echo "${GPUSHARE_COMPUTE_PERCENT:-100}" > "$region"
fi

dir=${FAKE_CLIENT_DIR:?}
gpu=${CUDA_VISIBLE_DEVICES:-none}
reg="$dir/running.$gpu.$$"
: > "$reg"
now=$(date +%s%N)
if [ "$start" -gt "$now" ]; then
	sleep "$(awk -v d=$((start - now)) 'BEGIN { printf "%.3f", d / 1e9 }')"
fi
# Clients registered on this GPU; counted at the start and again at the
# end, so that a neighbour that started late is still seen.
count() {
	c=0
	for f in "$dir"/running."$gpu".*; do
		[ -e "$f" ] && c=$((c + 1))
	done
	echo "$c"
}
n=$(count)
if [ -n "${CUDA_MPS_PIPE_DIRECTORY:-}" ] && [ -n "${FAKE_CLIENT_SLEEP_S:-}" ]; then
	sleep "$FAKE_CLIENT_SLEEP_S"
fi
sleep 0.3
n2=$(count)
[ "$n2" -gt "$n" ] && n=$n2
rm -f "$reg"

pct=${GPUSHARE_COMPUTE_PERCENT:-${CUDA_MPS_ACTIVE_THREAD_PERCENTAGE:-}}
hooked=0
case "${LD_PRELOAD:-}" in *libgpushare*) hooked=1 ;; esac
tput=$(awk -v n="$n" -v p="$pct" -v h="$hooked" 'BEGIN {
	t = p != "" ? 1000 * p / 100 : 1000 / n
	if (h) t *= 0.98
	printf "%.3f", t }')

ok=1 rc=0
if [ "$kernel" = memprobe ]; then
	# The real probe passes only when something enforces the limit.
	if [ "${GPUSHARE_MEM_LIMIT_MIB:-}" != "$limit" ]; then ok=0 rc=1; fi
fi
printf 'report kernel=%s name=%s ok=%s throughput=%s unit=ops/s colocated_seen=%s' \
	"$kernel" "$name" "$ok" "$tput" "$n"
printf ' seen_visible=%s seen_preload="%s" seen_pod="%s" seen_mem="%s" seen_pct="%s"' \
	"$gpu" "${LD_PRELOAD:-}" "${GPUSHARE_POD_ID:-}" "${GPUSHARE_MEM_LIMIT_MIB:-}" \
	"${GPUSHARE_COMPUTE_PERCENT:-}"
printf ' seen_mps_pct="%s" seen_mps_pipe="%s" seen_mps_mem="%s" seen_shm="%s"\n' \
	"${CUDA_MPS_ACTIVE_THREAD_PERCENTAGE:-}" "${CUDA_MPS_PIPE_DIRECTORY:-}" \
	"${CUDA_MPS_PINNED_DEVICE_MEM_LIMIT:-}" "${GPUSHARE_SHM_DIR:-}"
exit $rc
