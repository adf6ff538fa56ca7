#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# deps.sh - installs the Debian packages gpusim needs, only those missing.
#
#   scripts/deps.sh            build and test dependencies
#   scripts/deps.sh --fuzz     those, plus clang and its libFuzzer runtime (make fuzz) and
#                              valgrind (scripts/check-threads.sh)
#   scripts/deps.sh --check    list what is missing, install nothing (exit 1 if any);
#                              --check --fuzz checks the fuzzing tools too
#
# Uses apt-get directly as root, through sudo otherwise.
set -eu

# groff-base and man-db render the man pages, zsh runs the completion test (tests/check_docs.sh,
# check_completion.sh), python3 the GPU check's Python parts on the fake driver
# (tests/gpu_check_fake.sh), shellcheck the scripts (tests/check_shell.sh).
pkgs="build-essential cmake pkg-config libgsl-dev libsqlite3-dev libxxhash-dev nettle-dev libcjson-dev libyaml-dev libsmartcols-dev libglpk-dev coinor-libcbc-dev libcmocka-dev sqlite3 gnuplot-nox
groff-base man-db zsh python3 shellcheck"
check=0
for arg in "$@"; do
	case $arg in
	--check) check=1 ;;
	--fuzz) pkgs="$pkgs clang libclang-rt-dev valgrind" ;;
	*)
		echo "usage: scripts/deps.sh [--fuzz] [--check]" >&2
		exit 2
		;;
	esac
done

missing=""
for p in $pkgs; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done

if [ -z "$missing" ]; then
	exit 0
fi
if [ "$check" = 1 ]; then
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
