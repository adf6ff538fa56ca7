#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# check_completion.sh - checks the bash and zsh completion the build wrote
# (gpusim --completion, into build/completion) the way a user meets them:
# bash sources the script and runs its function on COMP_WORDS, and an
# interactive zsh with compinit is sent the line and a Tab
# (zsh_capture.zsh). Without zsh, only bash is checked (scripts/deps.sh
# installs zsh). The lines and what they must offer are below.
#
# usage: tests/check_completion.sh COMPLETION_DIR
set -u
dir=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
bad=0
n=0

fail() {
	echo "check_completion: FAIL: $*" >&2
	bad=1
}

# The cases: a line (completed at its end, after the last space when it ends
# with one) and the words expected, all of them and nothing else.
cases=(
	'gpusim rep|replay'
	'gpusim replay --pol|--policy'
	'gpusim replay --policy bi|binpack'
	'gpusim replay --policy binpack,fg|binpack,fgd binpack,fgd-lookahead'
	'gpusim replay --mode |inflate time'
	'gpusim replay --arrivals |poisson trace'
	'gpusim inspect --policy bi|binpack'
	'gpusim inspect --policy binpack,fg|binpack,fgd binpack,fgd-lookahead'
	'gpusim inspect --at |end peak'
	'gpusim inspect -t p|peak'
	'gpusim sweep --sharing timeslice,m|timeslice,mig timeslice,mps'
	'gpusim sweep --mo|--mode'
	'gpusim interference |check export fit-busy show validate'
	'gpusim interference export --o|--out'
	'gpusim sweep --pods README.md CMakeL|CMakeLists.txt'
	'gpusim sweep --nodes CMakeL|CMakeLists.txt'
	'gpusim merge out.db CMakeL|CMakeLists.txt'
	'gpusim plot --out scr|scripts'
)

# bash: COMPREPLY of _gpusim for the words of the line.
bash_complete() { # LINE
	(
		# shellcheck disable=SC1091
		. "$dir/gpusim"
		read -r -a COMP_WORDS <<<"$1"
		[ "${1% }" != "$1" ] && COMP_WORDS+=("")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		COMP_LINE=$1
		COMPREPLY=()
		_gpusim
		printf '%s\n' "${COMPREPLY[@]}" | sort -u | tr '\n' ' '
	)
}

# zsh shows a list item's last part only (binpack,fgd -> fgd).
zsh_expected() { # WORDS
	local w out=
	for w in $1; do out+="${w##*,} "; done
	printf '%s\n' $out | sort -u | tr '\n' ' '
}

bash -n "$dir/gpusim" || fail "the bash completion is not valid bash"
cd "$here/.." || exit 1 # the source tree: the file names the cases complete
for c in "${cases[@]}"; do
	line=${c%%|*}
	want=$(printf '%s\n' ${c#*|} | sort -u | tr '\n' ' ')
	got=$(bash_complete "$line")
	[ "$got" = "$want" ] || fail "bash: '$line<TAB>' offers '$got', not '$want'"
	n=$((n + 1))
done
echo "check_completion: bash: $n lines"

# File names as they are, in a directory of odd ones: a glob character or a
# blank in a name is neither expanded nor split (x[ab].csv came back as
# xa.csv). Cases: the line, then each name expected, ';'-separated.
odd=$(mktemp -d /tmp/gpusim-complete.XXXXXX)
(
	cd "$odd" || exit 1
	: >'x[ab].csv'
	: >xa.csv
	: >'x y.csv'
	mkdir 'd*ir' dz
	for c in 'gpusim replay --pods x;x y.csv;x[ab].csv;xa.csv' 'gpusim plot --out d;d*ir;dz'; do
		line=${c%%;*}
		want=$(printf '%s\n' "${c#*;}" | tr ';' '\n' | sort)
		got=$( (
			. "$dir/gpusim"
			read -r -a COMP_WORDS <<<"$line"
			COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
			COMPREPLY=()
			_gpusim
			printf '%s\n' "${COMPREPLY[@]}" | sort
		))
		[ "$got" = "$want" ] || {
			echo "check_completion: FAIL: bash, among odd names: '$line<TAB>' offers" \
				"'$(echo "$got" | tr '\n' ';')', not '$(echo "$want" | tr '\n' ';')'" >&2
			exit 1
		}
	done
) || bad=1
rm -rf "$odd"

if ! command -v zsh >/dev/null 2>&1; then
	echo "check_completion: zsh is not installed (scripts/deps.sh installs it): zsh not checked"
else
	zsh -n "$dir/_gpusim" || fail "the zsh completion is not valid zsh"
	n=0
	for c in "${cases[@]}"; do
		line=${c%%|*}
		want=$(zsh_expected "${c#*|}")
		got=$(zsh -f "$here/zsh_capture.zsh" "$dir" "$line" | tr '\n' ' ')
		[ "$got" = "$want" ] || fail "zsh: '$line<TAB>' offers '$got', not '$want'"
		n=$((n + 1))
	done
	echo "check_completion: zsh: $n lines"
fi
[ "$bad" = 0 ] || exit 1
echo "check_completion: ok"
