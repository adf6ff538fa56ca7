#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
#
# check_layers.sh - the layering rule of sim/, checked on the includes.
#
# Every include under sim/ runs downwards through the layers
#   core < io, policies < engine < store < run < report < cli
# (io and policies are side by side and do not include each other), is
# written from the one root sim/ ("core/cluster.h"), never with "../";
# core/ and policies/ use libc and libm only (bench/cuda links them), and
# nothing outside store/ includes sqlite3.h. And cli/ holds option tables
# and commands only: no file there owns threads, signals or SQL (no
# pthread.h, threads.h, signal.h or sqlite3.h, no pthread_*, thrd_*,
# sqlite3* or sig_atomic_t name, no signal(), sigaction(), raise() or
# kill() call, no gs_db_sqlite(); comments and strings aside): that is
# run/'s and store/'s. Prints every violation and exits 1 when there is one.
#
# usage: check_layers.sh [SOURCE_DIR]
#        check_layers.sh --self-test   (the check finds each kind of violation)
set -u
if [ "${1:-}" = --self-test ]; then
	dir=$(mktemp -d) || exit 2
	mkdir -p "$dir/sim/core" "$dir/sim/run" "$dir/sim/cli"
	printf '/* x.h */\n#include "run/y.h"\n' >"$dir/sim/core/x.h"
	printf '/* y.h */\n#include "core/x.h"\n' >"$dir/sim/run/y.h"
	cat >"$dir/sim/cli/z.c" <<'C'
/* z.c - pthread_create(), signal() and sqlite3_exec() in comments are fine */
#include <pthread.h>
#include "run/y.h"
static const char *help = "SIGINT stops it; kill(1) and sqlite3_open( say so";
static volatile sig_atomic_t caught;
int run(void)
{
	struct { int signal; } r = { 0 };
	signal(2, 0);
	return r.signal + sqlite3_close(0);
}
C
	got=$(sh "$0" "$dir")
	rc=$?
	rm -rf "$dir"
	want="check_layers: cli/z.c:2: <pthread.h>: cli/ owns no threads, signals or SQL (run/, store/ do)
check_layers: core/x.h:2: \"run/y.h\": core/ must not include the higher layer run/
check_layers: cli/z.c:5: sig_atomic_t: cli/ owns no threads, signals or SQL (run/, store/ do)
check_layers: cli/z.c:9: signal(: cli/ owns no threads, signals or SQL (run/, store/ do)
check_layers: cli/z.c:10: sqlite3_close: cli/ owns no threads, signals or SQL (run/, store/ do)"
	if [ $rc = 1 ] && [ "$got" = "$want" ]; then
		echo "check_layers: self-test passed"
		exit 0
	fi
	printf 'check_layers: self-test failed (exit %s):\n%s\n' "$rc" "$got"
	exit 1
fi
src=${1:-$(dirname "$0")/..}
cd "$src/sim" || exit 2

rank() {
	case $1 in
	core) echo 0 ;;
	io | policies) echo 1 ;;
	engine) echo 2 ;;
	store) echo 3 ;;
	run) echo 4 ;;
	report) echo 5 ;;
	cli) echo 6 ;;
	*) echo 99 ;;
	esac
}

bad=0
complain() {
	echo "check_layers: $*"
	bad=1
}

for f in $(find . -name '*.c' -o -name '*.h' -o -name '*.def' | sed 's|^\./||' | sort); do
	layer=${f%%/*}
	r=$(rank "$layer")
	[ "$r" = 99 ] && complain "$f: not in a known layer folder"
	grep -n '^[[:space:]]*#[[:space:]]*include' "$f" | while IFS= read -r line; do
		n=${line%%:*}
		inc=$(printf '%s\n' "$line" | sed -n 's/.*#[[:space:]]*include[[:space:]]*\([<"][^>"]*[>"]\).*/\1/p')
		case $inc in
		\"*)
			path=${inc#\"}
			path=${path%\"}
			case $path in
			../* | */../*) echo "check_layers: $f:$n: $inc: include from the root sim/, not with ../" ;;
			esac
			to=${path%%/*}
			if [ "$to" = "$path" ]; then
				echo "check_layers: $f:$n: $inc: write the include from the root sim/ (layer/file.h)"
				continue
			fi
			tr=$(rank "$to")
			if [ "$tr" -gt "$r" ]; then
				echo "check_layers: $f:$n: $inc: $layer/ must not include the higher layer $to/"
			elif [ "$tr" = "$r" ] && [ "$to" != "$layer" ]; then
				echo "check_layers: $f:$n: $inc: $layer/ and $to/ are side by side and must not include each other"
			fi
			;;
		\<sqlite3.h\>)
			[ "$layer" = store ] || echo "check_layers: $f:$n: $inc: only store/ talks to SQLite"
			;;
		\<pthread.h\> | \<threads.h\> | \<signal.h\>)
			[ "$layer" = cli ] && echo "check_layers: $f:$n: $inc: cli/ owns no threads, signals or SQL (run/, store/ do)"
			;;
		\<gsl/* | \<cjson/*)
			case $layer in core | policies) echo "check_layers: $f:$n: $inc: $layer/ uses libc and libm only" ;; esac
			;;
		esac
	done
done >/tmp/check_layers.$$ 2>&1
# Names and calls under cli/, with comments and string and character
# literals blanked first (line numbers kept), so help text may say SIGINT.
if [ -d cli ]; then
	find cli -name '*.c' -o -name '*.h' | sort | xargs -r perl -0777 -ne '
		s{/\*.*?\*/}{ (my $c = $&) =~ tr/\n//cd; $c }gse;
		s{//[^\n]*}{}g;
		s{"(?:[^"\\\n]|\\.)*"}{""}g;
		s{\x27(?:[^\x27\\\n]|\\.)*\x27}{0}g;
		my $n = 0;
		for my $line (split /\n/, $_, -1) {
			$n++;
			while ($line =~ /\b(pthread_\w+|thrd_\w+|mtx_\w+|cnd_\w+|sqlite3\w*|sig_atomic_t|sigset_t|gs_db_sqlite|(?:signal|sigaction|sigemptyset|sigfillset|sigaddset|sigprocmask|raise|kill)\s*\()/g) {
				(my $what = $1) =~ s/\s+//g;
				print "check_layers: $ARGV:$n: $what: cli/ owns no threads, signals or SQL (run/, store/ do)\n";
			}
		}' >>/tmp/check_layers.$$ 2>&1
fi
if [ -s /tmp/check_layers.$$ ]; then
	cat /tmp/check_layers.$$
	bad=1
fi
rm -f /tmp/check_layers.$$
[ $bad = 0 ] && echo "check_layers: sim/ follows the layering rule"
exit $bad
