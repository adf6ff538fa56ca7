#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
#
# check_hooks_doc.sh - bench/cuda/README.md names every entry point that
# libgpushare wraps, so that its list of hooked functions cannot drift from
# the code again: each GS_HOOK export of bench/cuda/hook/hooks.def and each
# GS_EXPORT function of bench/cuda/hook/*.c (NVML's) must appear in the
# README as `name`, in backquotes. Prints every one that does not and
# exits 1 when there is one.
#
# usage: check_hooks_doc.sh [SOURCE_DIR]
#        check_hooks_doc.sh --self-test   (the check finds a missing name)
set -u
if [ "${1:-}" = --self-test ]; then
	dir=$(mktemp -d) || exit 2
	mkdir -p "$dir/bench/cuda/hook"
	cat >"$dir/bench/cuda/hook/hooks.def" <<'D'
GS_HOOK(CUresult, cuMemAlloc_v2, "cuMemAlloc", 3020, ANY, (CUdeviceptr *dptr, size_t n))
GS_HOOK(CUresult, cuMemFree_v2, "cuMemFree", 3020, ANY,
	(CUdeviceptr dptr))
GS_REAL(CUresult, cuCtxGetDevice, "cuCtxGetDevice", 2000, ANY, (CUdevice *device))
D
	cat >"$dir/bench/cuda/hook/x.c" <<'C'
GS_EXPORT int nvmlFoo(void);
GS_EXPORT nvmlReturn_t nvmlBar(int x);
C
	printf 'Hooked: `cuMemAlloc_v2`, cuMemFree_v2, `nvmlFoo`.\n' >"$dir/bench/cuda/README.md"
	got=$(sh "$0" "$dir")
	rc=$?
	rm -rf "$dir"
	want="check_hooks_doc: bench/cuda/README.md does not name \`cuMemFree_v2\` (bench/cuda/hook/hooks.def)
check_hooks_doc: bench/cuda/README.md does not name \`nvmlBar\` (bench/cuda/hook/x.c)
check_hooks_doc: 2 of 4 hooked functions are not in bench/cuda/README.md"
	if [ $rc = 1 ] && [ "$got" = "$want" ]; then
		echo "check_hooks_doc: self-test passed"
		exit 0
	fi
	printf 'check_hooks_doc: self-test failed (exit %s):\n%s\n' "$rc" "$got"
	exit 1
fi
src=${1:-$(dirname "$0")/..}
cd "$src" || exit 2
def=bench/cuda/hook/hooks.def
readme=bench/cuda/README.md
if [ ! -r "$def" ] || [ ! -r "$readme" ]; then
	echo "check_hooks_doc: $def or $readme is missing under $src" >&2
	exit 2
fi

# One line per hooked function: NAME FILE.
names=$( {
	sed -n 's/^GS_HOOK([^,]*, *\([A-Za-z0-9_]*\),.*/\1 '"$(printf '%s' "$def" | sed 's/[\/&]/\\&/g')"'/p' "$def"
	for f in bench/cuda/hook/*.c; do
		sed -n 's/^GS_EXPORT [^(]*[^A-Za-z0-9_(]\([A-Za-z_][A-Za-z0-9_]*\)(.*/\1 '"$(printf '%s' "$f" | sed 's/[\/&]/\\&/g')"'/p' "$f"
	done
} | sort -u -k1,1)
n=$(printf '%s\n' "$names" | grep -c .)
if [ "$n" -eq 0 ]; then
	echo "check_hooks_doc: no GS_HOOK entries found in $def" >&2
	exit 2
fi
missing=0
while read -r name file; do
	[ -n "$name" ] || continue
	if ! grep -qF "\`$name\`" "$readme"; then
		echo "check_hooks_doc: $readme does not name \`$name\` ($file)"
		missing=$((missing + 1))
	fi
done <<EOT
$names
EOT
if [ "$missing" -gt 0 ]; then
	echo "check_hooks_doc: $missing of $n hooked functions are not in $readme"
	exit 1
fi
echo "check_hooks_doc: $readme names all $n hooked functions"
