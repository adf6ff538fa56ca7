#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# fetch-openb.sh - downloads the openb GPU trace (Alibaba cluster-trace-gpu-v2023)
# that gpusim replays, and checks every file before putting it in place.
#
#   scripts/fetch-openb.sh [OPTIONS] [DIR]
#
# DIR defaults to ../shared/traces/openb next to the repository (where the
# tests and `make bench-sim` look for it). The files come from the public
# repository github.com/alibaba/clusterdata, folder cluster-trace-gpu-v2023/csv,
# released with Weng et al., "Beware of Fragmentation: Scheduling GPU-Sharing
# Workloads with Fragmentation Gradient Descent", USENIX ATC 2023. The owners
# allow research and study use and ask users to cite that paper (see
# traces/README.md). The trace is never committed to this repository.
#
# Options:
#   --ref REF      branch, tag or commit of alibaba/clusterdata (default master)
#   --no-verify    accept files whose size, row count or SHA-256 differ from the
#                  ones recorded here, as after an upstream update (the header
#                  line is still checked)
#   --force        download again even if DIR already holds verified files
#   -h, --help     this text
#
# Environment: GS_OPENB_BASE_URL replaces the download location, for a mirror
# (for example file:///path/to/copy with curl).
#
# Everything is downloaded into a temporary folder inside DIR and checked;
# only when all 26 files pass are they moved into place, with a SHA256SUMS
# file. Exit status: 0 done, 1 download or check failed, 2 usage.
set -eu

ref=master
verify=1
force=0
dest=""

usage() {
	sed -n '2,/^set -eu/p' "$0" | sed -e '/^set -eu/d' -e 's/^# \{0,1\}//'
}

while [ $# -gt 0 ]; do
	case "$1" in
	--ref) [ $# -ge 2 ] || { echo "fetch-openb: --ref needs a value" >&2; exit 2; }
		ref=$2; shift 2 ;;
	--ref=*) ref=${1#--ref=}; shift ;;
	--no-verify) verify=0; shift ;;
	--force) force=1; shift ;;
	-h|--help) usage; exit 0 ;;
	-*) echo "fetch-openb: unknown option '$1' (see --help)" >&2; exit 2 ;;
	*) [ -z "$dest" ] || { echo "fetch-openb: more than one DIR given" >&2; exit 2; }
		dest=$1; shift ;;
	esac
done

root=$(cd "$(dirname "$0")/.." && pwd)
[ -n "$dest" ] || dest="$root/../shared/traces/openb"
base=${GS_OPENB_BASE_URL:-https://raw.githubusercontent.com/alibaba/clusterdata/$ref/cluster-trace-gpu-v2023/csv}

# file, bytes, data rows (after the header), SHA-256 of the copy gpusim was tested with
files='
openb_node_list_all_node.csv 52287 1523 5a85c2af79c66a1efff8bbcbda430400aae56d8431370d738480967e1a9c6b15
openb_node_list_gpu_node.csv 42353 1213 2beca64b4d3dfa342036a34b56a495c6cef9225db836c81f541282cb1df320b5
openb_pod_list_cpu0.csv 499765 7064 1bc3fd9ee5c1468ccd018f624d9222746e08d59f963f66b925804734271c0eaa
openb_pod_list_cpu037.csv 518687 7336 8ed554026d041b15ff21ddc104d9a21dbd9a93c496262fa23ef7b5be27e220dc
openb_pod_list_cpu050.csv 525811 7439 747f43247bffc2b0bb081d7f61f0705ca8d390dafc0b647e642c92f3baf3ba1e
openb_pod_list_cpu072.csv 537576 7608 f8a2b031461b54d7b9f06d55473c2371eb3357b78a255c646bdca5e0833a8a2f
openb_pod_list_cpu100.csv 554709 7853 bec1c33fbdde61fd463877534ec79b393aec73e1cbb22d55fab9f166ac480982
openb_pod_list_cpu200.csv 622703 8832 b7e9d8a1a601da84d6e0b4110b19ef5001be5e4796d33e7b82f166ba95161f87
openb_pod_list_cpu235.csv 651171 9240 87bebd4d012faa8305ce1fd82737f51cf03361aac28b75d42e34aa656d7f4ee0
openb_pod_list_cpu250.csv 663708 9420 134c21ff96d57533df8a37b67632972884fec9396e77cd0898ddc370cc8e607d
openb_pod_list_cpu300.csv 710698 10094 76528825f40ee662cb098b3b6e683c1efd9f87a0c8af7e628df1f32c639636d1
openb_pod_list_default.csv 575468 8152 1ee7ed79c27a3b0861cda8ddba86a004c6aba904caafa329a76ae93ca63834a8
openb_pod_list_gpushare100.csv 561220 8152 12dbc07d6a49bf8641e2275a2ff5bf7be74b5df7d148d531e135b140b95f9a3d
openb_pod_list_gpushare20.csv 574603 8152 9be2d0efb52e242c32e23dd184cc5fcc1983478c6c9c02cbb6b4b62925c0ffcd
openb_pod_list_gpushare40.csv 572662 8152 d83ce79a4eb6987524bedbb0c65e41aed3a36bf6c1b78b86234c3687a07e1d40
openb_pod_list_gpushare60.csv 566361 8152 d31809628128a1f24491086eda4af3e23882b9213d3ef57a56ee2d1af69492fe
openb_pod_list_gpushare80.csv 563740 8152 88b6649369ced40d0fde287d2498ea61ff4b05fccba8bdc95daf6042f2f8431e
openb_pod_list_gpuspec05.csv 577176 8152 8f1c0ef7e4e511e982bd2818898ba22ee6d273bf5fce124b7ace285b5928cf4e
openb_pod_list_gpuspec10.csv 579461 8152 2dc7e4cb9480484f08539720b433a9ec9ab5d76b396f3f7557c53a2ff78a7611
openb_pod_list_gpuspec20.csv 582612 8152 6b9b89ab8913c1c074e994e98f548cf1a872fc5f76f2442ca8cd514a478b00a9
openb_pod_list_gpuspec25.csv 584915 8152 9d030679a2ccd7e27a7ec9ff15baff34480d22a0012515691fc187e3f35ee68c
openb_pod_list_gpuspec33.csv 587467 8152 eca4f746db1e5b25864ad021b55ece3943e101a3ebd4574d09dcb95c46117652
openb_pod_list_multigpu20.csv 271530 8324 d9ec6f6c74fb980cc0b81239470c6353fceea077ea9abd610003b604c7cc2b01
openb_pod_list_multigpu30.csv 277920 8508 a5e479c6444b1d83eef848159cf00c3cfa13441b2d1e2c113c391b91f1cc5b11
openb_pod_list_multigpu40.csv 286202 8746 32c9e8731ca07ef96108aa65f2a289bb9aacb47f642ed9e3789f99b242df60eb
openb_pod_list_multigpu50.csv 297219 9061 206f2f5959db30ecb7c44e7f13197c8ec50b7a35558ad3777cc3662ef0fe5373
'

node_hdr='sn,cpu_milli,memory_mib,gpu,model'
pod_hdr='name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time'
mg_hdr='name,cpu_milli,memory_mib,num_gpu,gpu_milli'

die() {
	echo "fetch-openb: $*" >&2
	exit 1
}

if command -v curl >/dev/null 2>&1; then
	fetch() { curl -fsSL --retry 2 --connect-timeout 20 -o "$2" "$1"; }
elif command -v wget >/dev/null 2>&1; then
	fetch() { wget -q -t 3 -T 20 -O "$2" "$1"; }
else
	die "needs curl or wget (apt-get install curl)"
fi

if command -v sha256sum >/dev/null 2>&1; then
	sha256() { sha256sum "$1" | cut -d' ' -f1; }
elif command -v shasum >/dev/null 2>&1; then
	sha256() { shasum -a 256 "$1" | cut -d' ' -f1; }
else
	sha256() { echo none; }
	[ "$verify" -eq 0 ] || die "needs sha256sum or shasum to verify the files (or use --no-verify)"
fi

# Checks one file against its line of the table; prints the problem and fails.
check() { # path name bytes rows sum
	head=$(head -n 1 "$1" | tr -d '\r')
	case "$2" in
	openb_node_list_*) want=$node_hdr ;;
	openb_pod_list_multigpu*) want=$mg_hdr ;;
	*) want=$pod_hdr ;;
	esac
	[ "$head" = "$want" ] || { echo "$2: first line is '$head', expected '$want'"; return 1; }
	[ "$verify" -eq 1 ] || return 0
	size=$(wc -c < "$1" | tr -d ' ')
	[ "$size" = "$3" ] || { echo "$2: $size bytes, expected $3 (upstream changed? --no-verify accepts it)"; return 1; }
	rows=$(($(wc -l < "$1") - 1))
	[ "$rows" = "$4" ] || { echo "$2: $rows rows, expected $4 (upstream changed? --no-verify accepts it)"; return 1; }
	got=$(sha256 "$1")
	[ "$got" = "$5" ] || { echo "$2: SHA-256 $got, expected $5 (upstream changed? --no-verify accepts it)"; return 1; }
	return 0
}

# Already there and intact? Then there is nothing to do.
if [ "$force" -eq 0 ] && [ -f "$dest/SHA256SUMS" ]; then
	ok=1
	while read -r name bytes rows sum; do
		[ -n "$name" ] || continue
		if [ ! -f "$dest/$name" ] || ! check "$dest/$name" "$name" "$bytes" "$rows" "$sum" >/dev/null; then
			ok=0
			break
		fi
	done <<EOF_FILES
$files
EOF_FILES
	if [ "$ok" -eq 1 ]; then
		echo "fetch-openb: $dest already holds the 26 verified files (--force downloads again)"
		exit 0
	fi
fi

mkdir -p "$dest" 2>/dev/null || die "cannot create $dest"
[ -w "$dest" ] || die "cannot write to $dest"
tmp=$(mktemp -d "$dest/.fetch-openb.XXXXXX") || die "cannot create a temporary folder in $dest"
trap 'rm -rf "$tmp"' EXIT INT TERM

echo "fetch-openb: downloading 26 files from $base into $dest" >&2
n=0
while read -r name bytes rows sum; do
	[ -n "$name" ] || continue
	n=$((n + 1))
	printf '  [%2d/26] %s\n' "$n" "$name" >&2
	if ! fetch "$base/$name" "$tmp/$name"; then
		die "could not download $base/$name
  (no network? the files can also be downloaded by hand from
   https://github.com/alibaba/clusterdata/tree/master/cluster-trace-gpu-v2023/csv
   into $dest; nothing was changed there)"
	fi
	if ! problem=$(check "$tmp/$name" "$name" "$bytes" "$rows" "$sum"); then
		die "$problem; nothing was changed in $dest"
	fi
	if [ "$verify" -eq 1 ]; then
		printf '%s  %s\n' "$sum" "$name" >> "$tmp/SHA256SUMS"
	else
		printf '%s  %s\n' "$(sha256 "$tmp/$name")" "$name" >> "$tmp/SHA256SUMS"
	fi
done <<EOF_FILES
$files
EOF_FILES

for f in "$tmp"/*.csv "$tmp/SHA256SUMS"; do
	mv -f "$f" "$dest/" || die "cannot move $(basename "$f") into $dest"
done
echo "fetch-openb: done; please cite Weng et al., USENIX ATC 2023 (see traces/README.md)" >&2
