#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
#
# check_plot_titles.sh - every title of the gnuplot scripts under scripts/
# fits the width of the figures gpusim plot draws (960 pixels, Sans 11:
# about 126 characters before gnuplot cuts both ends off). A title's
# format is measured with each conversion (%s, %d, ...) as a stand-in of
# 28 characters, as long as openb's longest trace names
# ("openb_pod_list_gpushare100" and the like) and a --load setting; each of
# its lines (split at \n) must hold at most 124 characters. A finding is
# printed as FILE:LINE: ... and the check exits 1.
#
# usage: check_plot_titles.sh [SOURCE_DIR]
#        check_plot_titles.sh --self-test   (the check finds a planted title)
set -u
export LC_ALL=C
max=124

if [ "${1:-}" = --self-test ]; then
	dir=$(mktemp -d) || exit 2
	trap 'rm -rf "$dir"' EXIT
	mkdir -p "$dir/scripts"
	long="A very long title, trace %s (%s): what it shows and what every line means, all seeds and all policies"
	printf 'set title sprintf("%s", a, b) noenhanced\n' "$long" >"$dir/scripts/wide.gp"
	printf 'set title sprintf("Short, trace %%s\\n%s", a) noenhanced\nset title %s\n' \
		"the second line is short" "'A plain title'" >"$dir/scripts/fits.gp"
	out=$(sh "$0" "$dir" 2>&1)
	rc=$?
	ok=1
	[ "$rc" = 1 ] || { echo "check_plot_titles self-test: exit $rc, want 1"; ok=0; }
	echo "$out" | grep -q '^scripts/wide.gp:1: ' ||
		{ echo "check_plot_titles self-test: the wide title was not found in:"; echo "$out"; ok=0; }
	if echo "$out" | grep -q 'fits.gp'; then
		echo "check_plot_titles self-test: a title that fits was flagged:"
		echo "$out"
		ok=0
	fi
	[ "$ok" = 1 ] && echo "check_plot_titles self-test: ok"
	[ "$ok" = 1 ]
	exit
fi

src=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$src" || exit 2
n=0
for f in scripts/*.gp; do
	[ -f "$f" ] || continue
	n=$((n + 1))
done
if [ "$n" = 0 ]; then
	echo "check_plot_titles: no scripts/*.gp under $src" >&2
	exit 2
fi
# The first quoted string after "title" or "title sprintf(" on a line is
# the title's text or format; key entries (title word(...)) have none.
awk -v max="$max" '
function measure(s, file, line,    parts, k, t, w) {
	gsub(/%%/, "%", s)
	gsub(/%[-+ #0-9.]*[sdgfeixc]/, "<..........................>", s)
	k = split(s, parts, /\\n/)
	for (t = 1; t <= k; t++) {
		w = length(parts[t])
		if (w > max) {
			printf "%s:%d: a title line of %d characters (conversions as 28) is wider than a figure holds (%d): break it with \\n\n", file, line, w, max
			bad = 1
		}
	}
}
{
	rest = $0
	p = index(rest, "title ")
	if (p == 0)
		next
	rest = substr(rest, p + 6)
	sub(/^sprintf\(/, "", rest)
	q = substr(rest, 1, 1)
	if (q != "\"" && q != "\047")
		next
	rest = substr(rest, 2)
	e = index(rest, q)
	if (e == 0)
		next
	measure(substr(rest, 1, e - 1), FILENAME, FNR)
}
END { exit bad }
' scripts/*.gp
