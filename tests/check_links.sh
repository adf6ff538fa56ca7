#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
#
# check_links.sh - the documentation's relative links lead somewhere: in
# README.md, docs/*.md and the other Markdown pages of the tree (the CUDA
# half's README, the trace formats and samples, the results schema, the
# baseline and fuzzing notes), every link that is not a URL must name a file
# or folder that exists, and a "#anchor" must be a heading of the page it
# points to (slugged as GitHub does: lower case, punctuation dropped, spaces
# to hyphens, -1, -2 for repeats) or an explicit <a id/name>. Links inside
# code blocks and code spans are text, not links. Every page of docs/ must
# also be reachable from README.md by following links, so no page is lost.
# Prints each problem as FILE:LINE: ... and exits 1 when there is one.
#
# usage: check_links.sh [SOURCE_DIR]
#        check_links.sh --self-test   (the check finds planted dead links)
set -u
export LC_ALL=C

if [ "${1:-}" = --self-test ]; then
	dir=$(mktemp -d) || exit 2
	mkdir -p "$dir/docs" "$dir/results"
	cat >"$dir/README.md" <<'MD'
# Tool

See [the guide](docs/guide.md#twice-1), [a dead page](docs/missing.md),
[a dead anchor](docs/guide.md#no-such-heading) and [the schema](results/SCHEMA.md).
`[not a link](nowhere.md)` and <https://example.com> are not checked.

```sh
echo "[in a code block](gone.md)"
```
MD
	cat >"$dir/docs/guide.md" <<'MD'
# The guide

## Running it: `tool run`

Back to [the top](../README.md#tool), [here](#running-it-tool-run), [twice](#twice-1),
[nowhere](#nowhere) and [a URL](https://example.com/x.md).

## Twice
## Twice
MD
	printf '# Lost\n\nNo page links here.\n' >"$dir/docs/lost.md"
	printf '# Schema\n' >"$dir/results/SCHEMA.md"
	got=$(sh "$0" "$dir")
	rc=$?
	rm -rf "$dir"
	want="README.md:3: dead link 'docs/missing.md': no such file
README.md:4: dead link 'docs/guide.md#no-such-heading': docs/guide.md has no heading or anchor 'no-such-heading'
docs/guide.md:6: dead link '#nowhere': docs/guide.md has no heading or anchor 'nowhere'
docs/lost.md: no link from README.md leads to this page
check_links: 4 problems"
	if [ $rc = 1 ] && [ "$got" = "$want" ]; then
		echo "check_links: self-test passed"
		exit 0
	fi
	printf 'check_links: self-test failed (exit %s):\n%s\n--- expected:\n%s\n' "$rc" "$got" "$want"
	exit 1
fi

src=${1:-$(dirname "$0")/..}
cd "$src" || exit 2
if [ ! -f README.md ]; then
	echo "check_links: no README.md in $src" >&2
	exit 2
fi

# The pages checked: those that exist of this list (a checkout may lack bench/).
pages=$(for f in README.md docs/*.md docs/*/*.md bench/cuda/README.md traces/README.md \
	traces/*/README.md results/SCHEMA.md results/baseline/README.md tests/fuzz/README.md; do
	[ -f "$f" ] && echo "$f"
done | sort -u)

tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM

# One awk program reads every page twice: the first pass collects each page's
# anchors, the second checks the links. Output: problems, and "EDGE from to"
# lines for the reachability walk below.
# shellcheck disable=SC2086 # $pages is a list of plain file names
awk -v tmpdir="$tmp" '
	# The GitHub anchor of a heading text.
	function slug(h,    s, out, i, c) {
		s = h
		# [text](url) -> text; images and HTML tags vanish.
		while (match(s, /!?\[[^]]*\]\([^)]*\)/)) {
			t = substr(s, RSTART, RLENGTH)
			sub(/^!?\[/, "", t)
			sub(/\]\(.*$/, "", t)
			s = substr(s, 1, RSTART - 1) t substr(s, RSTART + RLENGTH)
		}
		gsub(/<[^>]*>/, "", s)
		s = tolower(s)
		out = ""
		for (i = 1; i <= length(s); i++) {
			c = substr(s, i, 1)
			if (c ~ /[a-z0-9_-]/ || c > "\177")
				out = out c
			else if (c == " ")
				out = out "-"
		}
		return out
	}
	# Code fences: a line starting (after up to 3 spaces) with ``` or ~~~.
	function fence(line) {
		return line ~ /^ ? ? ?(```|~~~)/
	}
	# The directory part of a path ("" for a file at the root).
	function dirname(p) {
		if (p !~ /\//)
			return ""
		sub(/\/[^\/]*$/, "", p)
		return p
	}
	# a/b/../c/./d -> a/c/d; returns "" for a path that climbs out of the tree.
	function normalize(p,    n, parts, i, out, k, stack) {
		n = split(p, parts, "/")
		k = 0
		for (i = 1; i <= n; i++) {
			if (parts[i] == "" || parts[i] == ".")
				continue
			if (parts[i] == "..") {
				if (k == 0)
					return "/OUTSIDE/" p
				k--
				continue
			}
			stack[++k] = parts[i]
		}
		out = ""
		for (i = 1; i <= k; i++)
			out = out (i > 1 ? "/" : "") stack[i]
		return out
	}
	function exists(p,    r) {
		if (p in known)
			return known[p]
		r = (system("test -e \"" p "\"") == 0)
		known[p] = r
		return r
	}
	function problem(msg) {
		print FILENAME ":" FNR ": " msg > (tmpdir "/problems")
		nprob++
	}
	function check(target,    path, anchor, hash, resolved) {
		sub(/^</, "", target)
		sub(/>$/, "", target)
		if (target ~ /^[a-zA-Z][a-zA-Z0-9+.-]*:/ || target == "")
			return	# a URL (https:, mailto:, ...)
		hash = index(target, "#")
		if (hash) {
			path = substr(target, 1, hash - 1)
			anchor = substr(target, hash + 1)
		} else {
			path = target
			anchor = ""
		}
		if (path == "")
			resolved = FILENAME
		else if (path ~ /^\//)
			resolved = normalize(substr(path, 2))
		else
			resolved = normalize((dirname(FILENAME) == "" ? "" : dirname(FILENAME) "/") path)
		if (resolved ~ /^\/OUTSIDE\// || (resolved != "" && !exists(resolved))) {
			problem("dead link \x27" target "\x27: no such file")
			return
		}
		if (resolved ~ /\.md$/)
			print "EDGE " FILENAME " " resolved > (tmpdir "/edges")
		if (anchor == "")
			return
		if (!(resolved in is_page)) {
			if (resolved ~ /\.md$/)
				problem("dead link \x27" target "\x27: " resolved " is not one of the pages checked, so its anchors are unknown")
			return
		}
		if (!((resolved SUBSEP anchor) in anchors))
			problem("dead link \x27" target "\x27: " resolved " has no heading or anchor \x27" anchor "\x27")
	}
	FNR == 1 {
		pass = (FILENAME in seen) ? 2 : 1
		seen[FILENAME] = 1
		is_page[FILENAME] = 1
		in_code = 0
	}
	fence($0) { in_code = !in_code; next }
	in_code { next }
	pass == 1 {
		line = $0
		while (match(line, /<a [^>]*(id|name)="[^"]*"/)) {
			a = substr(line, RSTART, RLENGTH)
			sub(/^.*(id|name)="/, "", a)
			sub(/"$/, "", a)
			anchors[FILENAME, a] = 1
			line = substr(line, RSTART + RLENGTH)
		}
		if ($0 ~ /^#+[ \t]/) {
			h = $0
			sub(/^#+[ \t]+/, "", h)
			sub(/[ \t]+#+[ \t]*$/, "", h)
			sub(/[ \t]+$/, "", h)
			s = slug(h)
			n = count[FILENAME, s]++
			anchors[FILENAME, (n ? s "-" n : s)] = 1
		}
		next
	}
	{
		line = $0
		# Code spans are text: drop them (`...` and ``...``).
		gsub(/``[^`]*``/, "", line)
		gsub(/`[^`]*`/, "", line)
		# Reference definitions: "[label]: target".
		if (match(line, /^ ? ? ?\[[^]]+\]:[ \t]*[^ \t]+/)) {
			t = line
			sub(/^ ? ? ?\[[^]]+\]:[ \t]*/, "", t)
			sub(/[ \t].*$/, "", t)
			check(t)
			next
		}
		while (match(line, /\]\([^)]*\)/)) {
			t = substr(line, RSTART + 2, RLENGTH - 3)
			line = substr(line, RSTART + RLENGTH)
			sub(/^[ \t]+/, "", t)
			sub(/[ \t].*$/, "", t)	# drop a "title"
			check(t)
		}
	}
	END { printf "%d\n", nprob > (tmpdir "/count") }
' $pages $pages

# Reachability: every page of docs/ is reached from README.md along links.
touch "$tmp/edges" "$tmp/problems"
reached=README.md
frontier=README.md
while [ -n "$frontier" ]; do
	next=
	for f in $frontier; do
		for t in $(awk -v f="$f" '$2 == f { print $3 }' "$tmp/edges"); do
			case " $reached " in
			*" $t "*) ;;
			*)
				reached="$reached $t"
				next="$next $t"
				;;
			esac
		done
	done
	frontier=$next
done
nunreached=0
for f in $pages; do
	case $f in
	docs/*)
		case " $reached " in
		*" $f "*) ;;
		*)
			echo "$f: no link from README.md leads to this page" >>"$tmp/problems"
			nunreached=$((nunreached + 1))
			;;
		esac
		;;
	esac
done

read -r nprob <"$tmp/count"
if [ "$nprob" -gt 0 ] || [ "$nunreached" -gt 0 ]; then
	cat "$tmp/problems"
	total=$((nprob + nunreached))
	echo "check_links: $total problem$([ $total = 1 ] || echo s)"
	exit 1
fi
echo "check_links: ok: $(echo "$pages" | wc -l) pages, every relative link and anchor leads somewhere"
