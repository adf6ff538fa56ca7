#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# deps.sh - installs the Debian packages gpusim needs, only those missing.
#
#   scripts/deps.sh            build and test dependencies
#   scripts/deps.sh --check    list what is missing, install nothing (exit 1 if any)
#
# Uses apt-get directly as root, through sudo otherwise.
set -eu

pkgs="build-essential cmake pkg-config libgsl-dev libsqlite3-dev libcjson-dev libcmocka-dev sqlite3 gnuplot-nox"

missing=""
for p in $pkgs; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done

if [ -z "$missing" ]; then
	exit 0
fi
if [ "${1:-}" = "--check" ]; then
	echo "missing Debian packages:$missing" >&2
	exit 1
fi

echo "deps: installing$missing" >&2
if [ "$(id -u)" -eq 0 ]; then
	sudo=""
elif command -v sudo >/dev/null 2>&1; then
	sudo="sudo"
else
	echo "deps: need root or sudo to install:$missing" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
# shellcheck disable=SC2086
$sudo apt-get install -y -qq --no-install-recommends $missing
