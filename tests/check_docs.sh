#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
#
# check_docs.sh - checks the man pages the build wrote (gpusim --man, into
# build/man) against the program itself:
#   - there is gpusim.1 and one gpusim-CMD.1 per command of `gpusim --help`,
#     and gpusim.1 lists those commands;
#   - each page has NAME, SYNOPSIS, DESCRIPTION, OPTIONS, EXIT STATUS,
#     EXAMPLES and SEE ALSO, and renders with groff and man without a warning;
#   - each page's OPTIONS list exactly the options `gpusim CMD --help` lists
#     (for a command with verbs, `gpusim CMD VERB --help`, verb by verb);
#   - the default databases gpusim.1 names under FILES are those of --help.
#
# usage: tests/check_docs.sh GPUSIM MANDIR
set -eu
gpusim=$1
mandir=$2
tmp=$(mktemp -d /tmp/gpusim-docs.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
bad=0

fail() {
	echo "check_docs: FAIL: $*" >&2
	bad=1
}

if ! command -v groff >/dev/null 2>&1; then
	echo "check_docs: groff is not installed (apt-get install groff-base); skipped"
	exit 77
fi

# The page as plain text, 80 columns, no bold or underline.
render() {
	groff -man -Tascii -rLL=80n -P-cbou "$1" 2>/dev/null
}

# The options a --help text lists, one per line: "  -n, --nodes FILE" or "      --frag".
help_options() {
	sed -n 's/^  \(-[^ ], \|    \)\(--[a-z0-9-]*\).*/\2/p' | sort
}

# The options of the OPTIONS section of a rendered page, one per line, as
# "VERB --name" when the page has one subsection per verb ("   gpusim CMD VERB").
man_options() { # PAGE CMD
	render "$1" | awk -v cmd="gpusim $2 " '
		/^[A-Z]/ { in_opts = ($0 == "OPTIONS"); verb = ""; next }
		!in_opts { next }
		index($0, "   " cmd) == 1 { verb = substr($0, 4 + length(cmd)); next }
		/^       (-[^ ], )?--[a-z0-9-]/ {
			sub(/^       (-[^ ], )?/, "")
			sub(/[ ].*/, "")
			print (verb == "" ? "" : verb " ") $0
		}' | sort
}

cmds=$("$gpusim" --help | awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } /^$/ { on = 0 }')
[ -n "$cmds" ] || fail "gpusim --help lists no command"

for page in gpusim $(for c in $cmds; do echo "gpusim-$c"; done); do
	f=$mandir/$page.1
	if [ ! -s "$f" ]; then
		fail "$f is missing"
		continue
	fi
	for sec in NAME SYNOPSIS DESCRIPTION OPTIONS 'EXIT STATUS' EXAMPLES 'SEE ALSO'; do
		grep -q "^\.SH $sec\$" "$f" || fail "$page.1 has no $sec section"
	done
	groff -man -Tutf8 -ww -z "$f" >"$tmp/warn" 2>&1 || fail "groff cannot render $page.1"
	if command -v man >/dev/null 2>&1; then
		MANWIDTH=80 man --warnings -E UTF-8 -l "$f" >/dev/null 2>>"$tmp/warn" ||
			fail "man cannot render $page.1"
	fi
	if [ -s "$tmp/warn" ]; then
		fail "$page.1 renders with warnings:"
		cat "$tmp/warn" >&2
	fi
done

# gpusim(1) lists every command, in the order of --help.
render "$mandir/gpusim.1" | awk '/^COMMANDS/ { on = 1; next } /^[A-Z]/ { on = 0 }
	on && /^       [a-z]/ { print $1 }' >"$tmp/man-cmds"
echo "$cmds" >"$tmp/help-cmds"
cmp -s "$tmp/man-cmds" "$tmp/help-cmds" ||
	fail "gpusim.1 lists the commands $(tr '\n' ' ' <"$tmp/man-cmds")but --help $(tr '\n' ' ' <"$tmp/help-cmds")"

# gpusim.1's FILES: a database it calls "the default database of CMD and
# CMD" is the default each of those commands' --help gives for --db.
render "$mandir/gpusim.1" | awk '
	/^[A-Z]/ { on = ($0 == "FILES"); next }
	on && /^       [^ ]+\.db$/ { db = $1; next }
	on && db != "" && /The default database of / {
		sub(/.*The default database of /, ""); sub(/[ ]*[(.;].*/, ""); gsub(/,| and /, " ")
		print db, $0; db = ""
	}' >"$tmp/defaults"
[ -s "$tmp/defaults" ] || fail "gpusim.1 names no default database under FILES"
while read -r db users; do
	for c in $users; do
		help=$("$gpusim" "$c" --help 2>&1) || true
		case $help in
		*"(default $db)"*) ;;
		*) fail "gpusim.1 says $db is the default database of $c; 'gpusim $c --help' does not" ;;
		esac
	done
done <"$tmp/defaults"

# Each page lists exactly the options of --help.
n_opts=0
for c in $cmds; do
	"$gpusim" "$c" --help >"$tmp/help"
	if [ -n "$(help_options <"$tmp/help")" ]; then
		help_options <"$tmp/help" >"$tmp/want"
	else
		# A command of verbs: its --help names them ("gpusim CMD VERB ...").
		: >"$tmp/want"
		for v in $(sed -n "s/^.*gpusim $c \([a-z][a-z-]*\).*/\1/p" "$tmp/help" | sort -u); do
			"$gpusim" "$c" "$v" --help | help_options | sed "s/^/$v /" >>"$tmp/want"
		done
		sort -o "$tmp/want" "$tmp/want"
	fi
	man_options "$mandir/gpusim-$c.1" "$c" >"$tmp/got"
	if [ ! -s "$tmp/want" ]; then
		fail "found no option in 'gpusim $c --help'"
	elif ! cmp -s "$tmp/want" "$tmp/got"; then
		fail "gpusim-$c.1 and 'gpusim $c --help' list other options (< --help, > man page):"
		diff "$tmp/want" "$tmp/got" | grep '^[<>]' >&2 || true
	fi
	n_opts=$((n_opts + $(wc -l <"$tmp/want")))
done

# An option's .words hint (opt.h) ends its paragraph: the policies inspect
# --policy filters on, the words inspect --at takes besides a time.
render "$mandir/gpusim-inspect.1" | tr -s ' \n' '  ' >"$tmp/inspect"
for w in 'Values include binpack, ' 'Values include peak, end.'; do
	grep -qF "$w" "$tmp/inspect" || fail "gpusim-inspect.1 does not say '$w'"
done

[ "$bad" = 0 ] || exit 1
echo "check_docs: ok: $(echo "$cmds" | wc -l) commands, $n_opts options, man pages and --help agree"
