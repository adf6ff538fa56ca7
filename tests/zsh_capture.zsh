# SPDX-License-Identifier: Apache-2.0
#
# zsh_capture.zsh - prints, one per line, the completions zsh offers for a
# command line, as a user gets them by pressing Tab: an interactive zsh in a
# pseudo-terminal (zsh/zpty) with compinit and the completion functions of
# FPATH_DIR, its compadd wrapped to print each match. Used by
# check_completion.sh.
#
# usage: zsh -f tests/zsh_capture.zsh FPATH_DIR 'gpusim replay --pol'
zmodload zsh/zpty || exit 77
zpty z zsh -f -i
zpty -w z "PS1=''; fpath=($1 \$fpath)"
zpty -w z 'autoload -Uz compinit; compinit -u -D'
# Matches are printed as <<WORD>>; the quotes keep the echo of these lines from matching.
zpty -w z 'compadd() { if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return; fi; local -a __hits; local h; builtin compadd -A __hits "$@"; for h in $__hits; do print -r -- "<""<$h>>"; done; builtin compadd "$@" }'
zpty -w z "end-mark() { print -r -- '<''<:end:>>' }; comppostfuncs=( end-mark )"
zpty -w z "bindkey '^I' complete-word"
zpty -n -w z "$2"$'\t'
local out line i
for (( i = 0; i < 150; i++ )); do
	if zpty -r -t z line; then
		out+=$line
		[[ $out == *'<<:end:>>'* ]] && break
	else
		sleep 0.1
	fi
done
zpty -d z
[[ $out == *'<<:end:>>'* ]] || { print -u2 "zsh_capture: no completion for '$2' within 15 s"; exit 1 }
print -r -- "$out" | grep -o '<<[^<>]*>>' | sed 's/^<<//; s/>>$//' | grep -vx ':end:' | sort -u
