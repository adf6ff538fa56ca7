#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
#
# check_hooks_def.sh - bench/cuda/hook/hooks.def against cudaTypedefs.h.
#
# libgpushare answers cuGetProcAddress(api, version, flags) with the wrapper
# of the newest hooks.def entry for api not newer than version (hook.c), so
# for every API it names, hooks.def must hold the newest ABI that the CUDA
# headers it is built with know (PFN_<api>_v<N>, _ptsz for the per-thread
# flavour) among its entries, and each entry's version must be one of
# those ABIs (older ones may be wrapped too). Otherwise a
# wrapper of one ABI would be handed out for another. A GS_REAL entry (a
# function called, not wrapped: the fake driver answers cuGetProcAddress
# with it) must name an ABI the headers know. Prints every violation and
# exits 1 when there is one.
#
# usage: check_hooks_def.sh HOOKS_DEF CUDA_INCLUDE_DIR
set -u
def=$1
inc=$2
typedefs=$inc/cudaTypedefs.h
cuda_version=$(sed -n 's/^#define CUDA_VERSION \([0-9]*\).*/\1/p' "$inc/cuda.h")
if [ ! -r "$typedefs" ] || [ -z "$cuda_version" ]; then
	echo "check_hooks_def: no cudaTypedefs.h or CUDA_VERSION under $inc" >&2
	exit 2
fi
bad=0
n=0
# One line per entry: api version flavour kind (HOOK or REAL).
# An entry may run over several lines: continuation lines start with a tab.
entries=$(awk '/^\t/ { sub(/^\t+/, ""); line = line " " $0; next } { if (line != "") print line; line = $0 }
	END { if (line != "") print line }' "$def" |
	sed -n 's/^GS_\(HOOK\|REAL\)([^,]*, *[A-Za-z0-9_]*, *"\([A-Za-z0-9_]*\)", *\([0-9]*\), *\([A-Z]*\),.*/\2 \3 \4 \1/p')
while read -r api version flavour kind; do
	[ -n "$api" ] || continue
	n=$((n + 1))
	if [ "$flavour" = PTSZ ]; then
		suffix=_ptsz
	else
		suffix=
	fi
	# Every ABI version of this API and flavour the headers know.
	versions=$(grep -o "PFN_${api}_v[0-9]*${suffix}[^A-Za-z0-9_]" "$typedefs" |
		sed "s/^PFN_${api}_v\([0-9]*\).*/\1/" | sort -un)
	if ! printf '%s\n' $versions | grep -qx "$version"; then
		echo "hooks.def: $api $version $flavour: cudaTypedefs.h has no PFN_${api}_v${version}${suffix}" >&2
		bad=1
		continue
	fi
	[ "$kind" = HOOK ] || continue
	# The newest entry of the API and flavour must be the newest ABI.
	ours=$(printf '%s\n' "$entries" |
		awk -v a="$api" -v f="$flavour" '$1 == a && $3 == f && $4 == "HOOK" { print $2 }' |
		sort -n | tail -n 1)
	newest=$(printf '%s\n' $versions | awk -v max="$cuda_version" '$1 <= max' | tail -n 1)
	if [ "$version" = "$ours" ] && [ "$newest" != "$ours" ]; then
		echo "hooks.def: $api $flavour: newest entry $ours, but CUDA $cuda_version has PFN_${api}_v${newest}${suffix}; add it" >&2
		bad=1
	fi
done <<EOT
$entries
EOT
if [ "$n" -eq 0 ]; then
	echo "check_hooks_def: no GS_HOOK or GS_REAL entries found in $def" >&2
	exit 2
fi
[ "$bad" -eq 0 ] && echo "check_hooks_def: $n entries checked against CUDA $cuda_version"
exit $bad
