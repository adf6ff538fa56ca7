#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# check-threads.sh - a parallel sweep under valgrind's helgrind: fails on
# any data race or lock-order problem outside SQLite's WAL index (see
# tests/helgrind.supp). Sweep workers share the cluster, the traces and
# every library's global state; this is what found them racing on cJSON's
# error position.
#
#   scripts/check-threads.sh [GPUSIM]      (default build/gpusim)
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
gpusim=${1:-$src/build/gpusim}
if ! command -v valgrind >/dev/null 2>&1; then
	echo "check-threads.sh: valgrind is not installed (apt-get install valgrind); skipped" >&2
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
s=$src/traces/sample
status=0
valgrind --tool=helgrind --error-exitcode=3 --suppressions="$src/tests/helgrind.supp" \
	"$gpusim" sweep --nodes "$s/cluster.csv" --pods "$s/pods.csv" --policy binpack,spread \
	--seeds 1-2 --jobs 2 --db "$tmp/threads.db" --no-pods --quiet >"$tmp/log" 2>&1 || status=$?
if [ "$status" -ne 0 ]; then
	grep -E -A14 "Possible data race|lock order|ERROR SUMMARY" "$tmp/log" | head -60 >&2
	echo "check-threads.sh: helgrind found a problem in a parallel sweep (exit $status)" >&2
	exit 1
fi
grep "ERROR SUMMARY" "$tmp/log"
