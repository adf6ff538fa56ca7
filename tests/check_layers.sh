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
# nothing outside store/ includes sqlite3.h. Prints every violation and
# exits 1 when there is one.
#
# usage: check_layers.sh [SOURCE_DIR]
set -u
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
		\<gsl/* | \<cjson/* | \<sqlite3.h\>)
			case $layer in core | policies) echo "check_layers: $f:$n: $inc: $layer/ uses libc and libm only" ;; esac
			;;
		esac
	done
done >/tmp/check_layers.$$ 2>&1
if [ -s /tmp/check_layers.$$ ]; then
	cat /tmp/check_layers.$$
	bad=1
fi
rm -f /tmp/check_layers.$$
[ $bad = 0 ] && echo "check_layers: sim/ follows the layering rule"
exit $bad
