#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
#
# check_contracts.sh - every exported function declared in a header under
# sim/ or bench/cuda/ has its contract: a comment ending on the line right
# above its declaration (STYLE.md: inputs, outputs, errors, ownership).
# Looks at the declarations that start in column 0 and name a gs_ function
# (prototypes and static inline definitions), whatever precedes them (a
# GS_HIDDEN, say); an __attribute__ line between comment and declaration
# belongs to it. Prints each one without a comment as FILE:LINE: NAME and
# exits 1 when there is one.
#
# usage: check_contracts.sh [SOURCE_DIR]
#        check_contracts.sh --self-test   (the check finds a missing contract)
set -u
if [ "${1:-}" = --self-test ]; then
	dir=$(mktemp -d) || exit 2
	mkdir -p "$dir/sim/core" "$dir/bench/cuda/hook"
	cat >"$dir/sim/core/x.h" <<'H'
/* x.h - a header with one documented and two undocumented functions. */
struct gs_x {
	int (*gs_member)(void);
};
/* Returns 1. */
int gs_good(void);
int gs_bad(void);

static inline int gs_bad_inline(void)
{
	return 0;
}
H
	cat >"$dir/bench/cuda/hook/y.h" <<'H'
/* y.h - a header of the interception library with one of each. */
/* Returns 2. */
GS_HIDDEN int gs_y_good(void);
GS_HIDDEN int gs_y_bad(void);
H
	got=$(sh "$0" "$dir")
	rc=$?
	rm -rf "$dir"
	want="check_contracts: no contract comment above bench/cuda/hook/y.h:4: gs_y_bad
check_contracts: no contract comment above sim/core/x.h:7: gs_bad
check_contracts: no contract comment above sim/core/x.h:9: gs_bad_inline
check_contracts: 3 exported functions lack a one-line contract"
	if [ $rc = 1 ] && [ "$got" = "$want" ]; then
		echo "check_contracts: self-test passed"
		exit 0
	fi
	printf 'check_contracts: self-test failed (exit %s):\n%s\n' "$rc" "$got"
	exit 1
fi
src=${1:-$(dirname "$0")/..}
cd "$src" || exit 2

# Only the trees that are there: a checkout without bench/ still has sim/.
dirs=
for d in sim bench/cuda; do
	[ -d "$d" ] && dirs="$dirs $d"
done
if [ -z "$dirs" ]; then
	echo "check_contracts: neither sim/ nor bench/cuda/ under $src" >&2
	exit 2
fi
# shellcheck disable=SC2086 # $dirs is a list of plain directory names
out=$(find $dirs -name '*.h' | sort | while IFS= read -r f; do
	awk -v file="$f" '
		# The previous line ends a comment: "... */" or a "//" line.
		function commented(prev) {
			return prev ~ /\*\/[[:space:]]*$/ || prev ~ /^[[:space:]]*\/\//
		}
		# An attribute line between the comment and the prototype belongs to it.
		/^__attribute__/ { next }
		/^\/\*/ { in_comment = 1 }
		in_comment {
			if ($0 ~ /\*\//)
				in_comment = 0
			prev = $0
			next
		}
		/^[A-Za-z_]/ && !/^(typedef|struct [A-Za-z_0-9]+ *\{|enum|union|extern)/ &&
		match($0, /gs_[A-Za-z0-9_]+[[:space:]]*\(/) {
			name = substr($0, RSTART, RLENGTH)
			sub(/[[:space:]]*\($/, "", name)
			if (!commented(prev))
				printf "%s:%d: %s\n", file, NR, name
		}
		{ prev = $0 }
	' "$f"
done)
if [ -n "$out" ]; then
	printf '%s\n' "$out" | sed 's/^/check_contracts: no contract comment above /'
	echo "check_contracts: $(printf '%s\n' "$out" | grep -c '') exported functions lack a one-line contract"
	exit 1
fi
echo "check_contracts: every exported function in sim/**/*.h and bench/cuda/**/*.h" \
	"has a contract comment"
