#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# fake_mps_control.sh - stands in for nvidia-cuda-mps-control in
# test_bench_harness, on machines without a GPU. Installed in PATH under
# that name.
#
# Like the real one: "-d" starts a control daemon in the background for
# CUDA_MPS_PIPE_DIRECTORY (refusing when one already runs there), which
# writes its pid to nvidia-cuda-mps-control.pid and a "control" socket
# stand-in there and a control.log to CUDA_MPS_LOG_DIRECTORY, and returns
# once it listens; "quit" on stdin asks the daemon of that directory to
# exit and returns at once, before the daemon has gone. The daemon takes
# FAKE_MPS_QUIT_S seconds (default 0.5) to exit, so that a harness that
# does not wait is caught. Every event is logged to $FAKE_CLIENT_DIR/mps.log
# with its CLOCK_REALTIME time in ns.
set -u

log="${FAKE_CLIENT_DIR:?}/mps.log"
pipe=${CUDA_MPS_PIPE_DIRECTORY:-/tmp/nvidia-mps}
pidfile="$pipe/nvidia-cuda-mps-control.pid"

if [ "${1:-}" = "-d" ]; then
	if [ ! -d "$pipe" ]; then
		echo "fake mps: $pipe: no such directory" >&2
		exit 1
	fi
	if [ -e "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; then
		echo "An instance of this daemon is already running" >&2
		exit 1
	fi
	(
		# Quit, or its directory removed from under it.
		while [ ! -e "$pipe/quit" ] && [ -d "$pipe" ]; do sleep 0.05; done
		sleep "${FAKE_MPS_QUIT_S:-0.5}"
		echo "daemon-exit pipe=$pipe t=$(date +%s%N)" >> "$log"
		rm -f "$pipe/quit" "$pipe/control" "$pidfile"
	) < /dev/null > /dev/null 2>&1 &
	echo $! > "$pidfile"
	: > "$pipe/control"
	echo "fake control daemon for $pipe" > "${CUDA_MPS_LOG_DIRECTORY:-/var/log/nvidia-mps}/control.log"
	echo "daemon-start pipe=$pipe log=${CUDA_MPS_LOG_DIRECTORY:-} t=$(date +%s%N)" >> "$log"
	exit 0
fi
in=$(cat)
echo "control pipe=$pipe stdin=$in t=$(date +%s%N)" >> "$log"
if [ "$in" = quit ] && [ -e "$pipe/control" ]; then
	: > "$pipe/quit"
fi
exit 0
