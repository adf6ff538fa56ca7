#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
#
# check_shell.sh - the project's shell scripts pass shellcheck at the
# warning level: every file under .ci/, bench/, scripts/ and tests/ that is
# named *.sh, starts with a sh or bash "#!" line, or carries a "shellcheck
# shell=" directive (a sourced library such as bench/sim/stats.sh). Sourced
# files are followed (-x) from the source tree's root, so a variable a
# library sets is known to its callers. A finding is printed as
# FILE:LINE:COL: ... [SCnnnn] and the check exits 1; a warning meant to stay
# is silenced where it stands, with its reason (# shellcheck disable=SCnnnn # why).
#
# usage: check_shell.sh [SOURCE_DIR]
#        check_shell.sh --self-test   (the check finds planted warnings)
set -u
export LC_ALL=C

if ! command -v shellcheck >/dev/null 2>&1; then
	echo "check_shell: shellcheck is not installed (scripts/deps.sh installs it)" >&2
	exit 2
fi

if [ "${1:-}" = --self-test ]; then
	dir=$(mktemp -d) || exit 2
	trap 'rm -rf "$dir"' EXIT
	mkdir -p "$dir/scripts" "$dir/tests"
	# A variable set and never read in a test, and a library's variable read but never set.
	printf '#!/bin/sh\nunused=1\n' >"$dir/tests/unused.sh"
	printf '# shellcheck shell=bash\nlib() { :; }\n' >"$dir/scripts/lib.inc"
	printf '#!/bin/bash\n# shellcheck source=scripts/lib.inc\n. "$(dirname "$0")/lib.inc"\nlib\necho "$never_set"\n' \
		>"$dir/scripts/caller"
	printf '#!/bin/sh\necho "clean"\n' >"$dir/scripts/clean.sh"
	out=$(sh "$0" "$dir" 2>&1)
	rc=$?
	ok=1
	[ "$rc" = 1 ] || { echo "check_shell self-test: exit $rc, want 1"; ok=0; }
	for want in 'tests/unused.sh:2:.*SC2034' 'scripts/caller:5:.*SC2154'; do
		echo "$out" | grep -q "$want" || { echo "check_shell self-test: no finding $want in:"; echo "$out"; ok=0; }
	done
	if echo "$out" | grep -q 'clean.sh\|lib.inc'; then
		echo "check_shell self-test: a clean file was flagged:"
		echo "$out"
		ok=0
	fi
	[ "$ok" = 1 ] && echo "check_shell self-test: ok"
	[ "$ok" = 1 ]
	exit
fi

src=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$src" || exit 2
list=$(mktemp) || exit 2
trap 'rm -f "$list"' EXIT
for d in .ci bench scripts tests; do
	[ -d "$d" ] && find "$d" -type f ! -name '*.md' ! -name '*.c' ! -name '*.h' ! -name '*.cu' \
		! -path '*/corpus/*'
done | sort | while IFS= read -r f; do
	case $f in
	*.sh) echo "$f" ;;
	*)
		if head -n 1 "$f" | grep -q '^#!.*\<\(ba\)\{0,1\}sh\>' ||
			grep -q '^# shellcheck shell=' "$f"; then
			echo "$f"
		fi
		;;
	esac
done >"$list"
if [ ! -s "$list" ]; then
	echo "check_shell: no shell scripts under $src" >&2
	exit 2
fi
# shellcheck disable=SC2046 # the list holds the tree's own file names, without blanks
shellcheck -x -S warning -f gcc $(cat "$list")
rc=$?
if [ "$rc" != 0 ]; then
	echo "check_shell: $(wc -l <"$list") scripts checked: fix the findings above, or silence one where it stands with its reason" >&2
	exit 1
fi
echo "check_shell: $(wc -l <"$list") scripts pass shellcheck -S warning"
