#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
#
# test-install.sh - checks that gpusim installs and runs outside its source
# tree, the way a user gets it:
#   1. `cmake --install` into a scratch DESTDIR: the installed gpusim replays
#      the installed sample and `gpusim plot` finds the installed gnuplot
#      scripts (no path of the build tree is used); a man page per command is
#      installed and renders (groff, man), and so are the bash and zsh
#      completions (zsh's in vendor-completions under /usr, as Debian's
#      packages do, and in site-functions under any other prefix);
#   2. `cpack -G DEB`: the package holds the binaries, scripts, docs, man
#      pages and completions,
#      declares its library dependencies, and (as root with dpkg, e.g. in
#      CI) installs with dpkg, runs, and is removed again.
#
# usage: scripts/test-install.sh [BUILD_DIR]
set -eu
build=${1:-build}
scratch=$(mktemp -d /tmp/gpusim-install.XXXXXX)
trap 'rm -rf "$scratch"' EXIT INT TERM

fail() {
	echo "test-install: FAIL: $*" >&2
	exit 1
}

echo "== make install into $scratch/root (prefix /usr)"
DESTDIR="$scratch/root" cmake --install "$build" --prefix /usr >/dev/null
root=$scratch/root/usr
for f in bin/gpusim share/gpusim/scripts/plot_common.gp share/gpusim/traces/sample/cluster.csv \
	share/gpusim/traces/h100-mixed/cluster.csv share/gpusim/traces/h100-mixed/pods.csv \
	share/gpusim/scripts/plot_advise_pareto.gp \
	share/doc/gpusim/README.md share/doc/gpusim/SCHEMA.md share/doc/gpusim/LICENSE \
	share/doc/gpusim/docs/README.md share/doc/gpusim/docs/user-guide.md; do
	[ -e "$root/$f" ] || fail "$f is not installed"
done

check_docs() { # PREFIX_ROOT ZSH_DIR: a man page per command that renders, and completions
	for c in gpusim $("$1/bin/gpusim" --help |
		awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print "gpusim-" $1 } /^$/ { on = 0 }'); do
		page=$1/share/man/man1/$c.1.gz
		[ -s "$page" ] || fail "man page $c.1.gz is not installed"
		gzip -t "$page" || fail "$c.1.gz is not a gzip file"
		if command -v groff >/dev/null 2>&1; then
			warn=$(gzip -dc "$page" | groff -man -Tutf8 -ww -z 2>&1) && [ -z "$warn" ] ||
				fail "$c.1 does not render cleanly: $warn"
		fi
		if command -v man >/dev/null 2>&1; then
			MANWIDTH=80 man -l "$page" 2>&1 | grep -q "^NAME" || fail "man -l $c.1 shows no NAME"
		fi
	done
	[ -s "$1/share/bash-completion/completions/gpusim" ] || fail "the bash completion is not installed"
	[ -s "$1/share/zsh/$2/_gpusim" ] || fail "the zsh completion is not in share/zsh/$2"
	bash -n "$1/share/bash-completion/completions/gpusim" || fail "the bash completion is not bash"
}

run_installed() { # PREFIX_ROOT: replay the installed sample, then plot from a neutral directory
	bin=$1/bin/gpusim
	work=$scratch/work.$$
	rm -rf "$work"
	mkdir -p "$work"
	(cd "$work" && "$bin" replay --nodes "$1/share/gpusim/traces/sample/cluster.csv" \
		--pods "$1/share/gpusim/traces/sample/pods.csv" --policy binpack \
		--db results/t.db -q) >/dev/null || fail "installed gpusim replay failed"
	[ -s "$work/results/t.db" ] || fail "replay did not create results/t.db"
	# The quick path's last step, on the installed H100 example.
	(cd "$work" && "$bin" advise --nodes "$1/share/gpusim/traces/h100-mixed/cluster.csv" \
		--pods "$1/share/gpusim/traces/h100-mixed/pods.csv" --policy binpack,fgd \
		--load 80 --seeds 42-43 --max-seeds 2 --no-pods --db results/a.db 2>/dev/null) \
		>"$work/advise.out" || fail "installed gpusim advise failed"
	grep -q "^pods, load 80%: mig + " "$work/advise.out" ||
		fail "installed gpusim advise gave no MIG verdict: $(head -20 "$work/advise.out")"
	(cd "$work" && "$bin" replay --mode inflate --nodes "$1/share/gpusim/traces/sample/cluster.csv" \
		--pods "$1/share/gpusim/traces/sample/pods.csv" --policy fgd --seed 1 \
		--db results/t.db -q) >/dev/null || fail "installed gpusim replay --mode inflate failed"
	# The default scripts directory (named on stderr) is the installed one,
	# not the source tree's that the build compiled in as the last resort.
	(cd "$work" && env -u GPUSIM_SCRIPTS "$bin" plot --db results/t.db --out plots \
		>/dev/null 2>"$work/plot.err") || true # without gnuplot it fails, after naming them
	grep -q "gnuplot scripts from .*bin/\.\./share/gpusim/scripts" "$work/plot.err" ||
		fail "installed gpusim plot does not default to the installed scripts: $(cat "$work/plot.err")"
	if command -v gnuplot >/dev/null 2>&1; then
		(cd "$work" && env -u GPUSIM_SCRIPTS "$bin" plot --db results/t.db --out plots -q) ||
			fail "installed gpusim plot failed (scripts not found?)"
		ls "$work"/plots/*.png >/dev/null 2>&1 || fail "installed gpusim plot drew nothing"
	fi
	rm -rf "$work"
}
run_installed "$root"
check_docs "$root" vendor-completions
echo "   installed gpusim replays, plots with the installed scripts; its man pages render"
echo "== make install into $scratch/local (prefix /usr/local)"
DESTDIR="$scratch/local" cmake --install "$build" --prefix /usr/local >/dev/null
check_docs "$scratch/local/usr/local" site-functions
echo "   man pages and completions installed (zsh: share/zsh/site-functions)"

if ! command -v cpack >/dev/null 2>&1 || ! command -v dpkg-deb >/dev/null 2>&1; then
	echo "== no cpack or dpkg-deb: the package is not checked"
	exit 0
fi
echo "== cpack -G DEB"
(cd "$build" && cpack -G DEB -B "$scratch/pkg" >/dev/null) || fail "cpack failed"
deb=$(ls "$scratch"/pkg/*.deb)
dpkg-deb --info "$deb" >"$scratch/info"
dpkg-deb --contents "$deb" >"$scratch/contents"
grep -q 'Depends:.*libsqlite3' "$scratch/info" || fail "the package does not depend on libsqlite3"
grep -q '\./usr/bin/gpusim$' "$scratch/contents" || fail "the package has no /usr/bin/gpusim"
grep -q '\./usr/share/gpusim/scripts/plot_common.gp' "$scratch/contents" ||
	fail "the package has no gnuplot scripts"
grep -q '\./usr/share/gpusim/traces/h100-mixed/pods\.csv$' "$scratch/contents" ||
	fail "the package has no bundled H100 example"
grep -q '\./usr/share/man/man1/gpusim-sweep\.1\.gz' "$scratch/contents" || fail "the package has no man pages"
grep -q '\./usr/share/doc/gpusim/docs/user-guide\.md$' "$scratch/contents" ||
	fail "the package has no documentation pages (share/doc/gpusim/docs)"
grep -q '\./usr/share/bash-completion/completions/gpusim$' "$scratch/contents" ||
	fail "the package has no bash completion"
dpkg-deb -x "$deb" "$scratch/x"
run_installed "$scratch/x/usr"
check_docs "$scratch/x/usr" vendor-completions
echo "   $(basename "$deb"): contents and dependencies right; unpacked, it replays and plots"

if [ "$(id -u)" -eq 0 ] && [ "${CI:-}" = true ] && ! dpkg-query -W -f='${Status}' gpusim 2>/dev/null | grep -q 'ok installed'; then
	echo "== dpkg -i (CI, as root)"
	dpkg -i "$deb" >/dev/null || fail "dpkg -i failed"
	run_installed /usr
	dpkg -P gpusim >/dev/null || fail "dpkg -P failed"
	echo "   installed with dpkg, ran, purged"
fi
echo "test-install: ok"
