#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
#
# check_shared.sh - the shared pieces of sim/ stay the only copies: every
# growing array goes through core/grow.h (no realloc elsewhere in sim/ or
# tests/; the fault injector, which interposes realloc itself, aside),
# and error messages are written with gs_errf() (core/error.h),
# not with a file-local ERR macro. Prints every violation and exits 1 when
# there is one.
#
# usage: check_shared.sh [SOURCE_DIR]
set -u
src=${1:-$(dirname "$0")/..}
cd "$src" || exit 2

out=$(
	grep -rn --include='*.c' --include='*.h' '\<realloc[[:space:]]*(' sim tests |
		grep -v '^sim/core/grow\.h:' |
		grep -v '^tests/fault/gsfault\.c:' |
		sed 's/^/check_shared: use gs_grow(), gs_grow_cap() or gs_realloc_n() of core\/grow.h: /'
	grep -rn --include='*.c' --include='*.h' '#[[:space:]]*define[[:space:]]\+ERR\>' sim tests |
		sed 's/^/check_shared: use gs_errf() of core\/error.h instead of a local macro: /'
)
if [ -n "$out" ]; then
	printf '%s\n' "$out"
	exit 1
fi
echo "check_shared: growth only through core/grow.h, messages through gs_errf()"
