#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
#
# check_contracts.sh - every exported function declared in a header under
# sim/ or bench/cuda/ has its contract: a comment ending on the line right
# above its declaration (STYLE.md: inputs, outputs, errors, ownership).
# Looks at the declarations that start in column 0 and name a gs_ function
# (prototypes and static inline definitions), whatever precedes them (a
# GS_HIDDEN, say); an __attribute__ line between comment and declaration
# belongs to it. Prints each one without a comment as FILE:LINE: NAME.
#
# Then the names under sim/ (STYLE.md: named after the file they live in):
# tests/names.txt lists, per header, the prefixes of the gs_ names it
# exports (those functions and its extern variables). Every header has a
# row, a prefix has one header, and each exported name belongs to the
# header whose prefix is the longest it starts with: gs_load_x declared in
# engine/arrivals.h fails, gs_load being io/trace/load.h's. No file name
# appears twice under sim/. Exits 1 when either check fails.
#
# usage: check_contracts.sh [SOURCE_DIR]
#        check_contracts.sh --self-test   (the checks find what they look for)
set -u
if [ "${1:-}" = --self-test ]; then
	dir=$(mktemp -d) || exit 2
	mkdir -p "$dir/sim/core" "$dir/sim/engine" "$dir/bench/cuda/hook" "$dir/tests"
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
	cat >"$dir/sim/engine/z.h" <<'H'
/* z.h - one name of its own, one under x.h's prefix, one of nobody's. */
/* Returns 3. */
int gs_z_count(void);
/* Returns 4. */
int gs_bad_z(void);
/* Its values. */
extern const int gs_other[];
H
	printf '/* w.h - a header without a row. */\n/* Returns 5. */\nint gs_w(void);\n' \
		>"$dir/sim/engine/w.h"
	: >"$dir/sim/core/x.c"
	: >"$dir/sim/engine/x.c"
	cat >"$dir/tests/names.txt" <<'T'
# comment
sim/core/x.h: gs_good gs_bad
sim/engine/z.h: gs_z gs_good
sim/io/gone.h: gs_gone
T
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
check_contracts: 3 exported functions lack a one-line contract
check_names: file name x.c appears 2 times under sim/
check_names: sim/engine/w.h: gs_w: no prefix in tests/names.txt owns it
check_names: sim/engine/w.h: no row in tests/names.txt
check_names: sim/engine/z.h: gs_bad_z: the prefix gs_bad is sim/core/x.h's
check_names: sim/engine/z.h: gs_other: no prefix in tests/names.txt owns it
check_names: sim/io/gone.h: a row in tests/names.txt for a header that is not there
check_names: tests/names.txt: gs_good is listed for sim/core/x.h and sim/engine/z.h
check_names: 7 problems"
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
status=0
if [ -n "$out" ]; then
	printf '%s\n' "$out" | sed 's/^/check_contracts: no contract comment above /'
	echo "check_contracts: $(printf '%s\n' "$out" | grep -c '') exported functions lack a one-line contract"
	status=1
else
	echo "check_contracts: every exported function in sim/**/*.h and bench/cuda/**/*.h" \
		"has a contract comment"
fi

# The names: "D header name" for every exported name, "T header prefix" for
# the table, "H header" for every header, "B basename" for every file.
[ -d sim ] || exit $status
table=tests/names.txt
if [ ! -f "$table" ]; then
	echo "check_names: $table is missing"
	exit 1
fi
problems=$({
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$table" | awk '{
		hdr = $1; sub(/:$/, "", hdr)
		for (i = 2; i <= NF; i++) print "T", hdr, $i
		if (NF < 2) print "T", hdr, ""
	}'
	find sim -name '*.h' | sort | sed 's/^/H /'
	find sim -name '*.h' | sort | while IFS= read -r f; do
		awk -v file="$f" '
			/^\/\*/ { in_comment = 1 }
			in_comment {
				if ($0 ~ /\*\//)
					in_comment = 0
				next
			}
			/^extern/ && match($0, /gs_[A-Za-z0-9_]+[[:space:]]*(\[|;)/) {
				name = substr($0, RSTART, RLENGTH)
				sub(/[[:space:]]*[[;]$/, "", name)
				print "D", file, name
				next
			}
			/^[A-Za-z_]/ && !/^(typedef|struct [A-Za-z_0-9]+ *\{|enum|union|extern)/ &&
			match($0, /gs_[A-Za-z0-9_]+[[:space:]]*\(/) {
				name = substr($0, RSTART, RLENGTH)
				sub(/[[:space:]]*\($/, "", name)
				print "D", file, name
			}
		' "$f"
	done
	find sim -name '*.[ch]' | sed 's|.*/||' | sort | uniq -c | awk '$1 > 1 { print "B", $2, $1 }'
} | awk -v table="$table" '
	$1 == "T" {
		rows[$2] = 1
		if ($3 == "")
			next
		if ($3 in owner && owner[$3] != $2)
			printf "%s: %s is listed for %s and %s\n", table, $3, owner[$3], $2
		else
			owner[$3] = $2
		next
	}
	$1 == "H" {
		seen[$2] = 1
		if (!($2 in rows))
			printf "%s: no row in %s\n", $2, table
		next
	}
	$1 == "B" {
		printf "file name %s appears %d times under sim/\n", $2, $3
		next
	}
	$1 == "D" {
		best = ""
		for (p in owner)
			if (($3 == p || index($3, p "_") == 1) && length(p) > length(best))
				best = p
		if (best == "")
			printf "%s: %s: no prefix in %s owns it\n", $2, $3, table
		else if (owner[best] != $2)
			printf "%s: %s: the prefix %s is %s\047s\n", $2, $3, best, owner[best]
	}
	END {
		for (h in rows)
			if (!(h in seen))
				printf "%s: a row in %s for a header that is not there\n", h, table
	}
' | sort)
if [ -n "$problems" ]; then
	printf '%s\n' "$problems" | sed 's/^/check_names: /'
	n=$(printf '%s\n' "$problems" | grep -c '')
	[ "$n" = 1 ] && echo "check_names: 1 problem" || echo "check_names: $n problems"
	exit 1
fi
echo "check_names: every name exported under sim/ follows tests/names.txt; no file name twice"
exit $status
