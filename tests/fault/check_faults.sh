#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# check_faults.sh - the store under injected faults, as SQLite tests itself:
# replay, sweep and merge run with the Nth write, sync or allocation failed
# (gsfault.c, LD_PRELOAD), for N over every such call (or an even spread of
# FAULT_POINTS of them when there are more), and then:
#   - the exit status is 0 or 1 (never 2, which means bad input, never a
#     signal), and a failure says "gpusim CMD: <reason>" on stderr;
#   - the database passes SQLite's integrity check and every run in it is
#     whole (its node and pod rows as many as its runs row says);
#   - a command that exited 0 stored what a run without faults stores;
#   - the same command run again without faults succeeds (a sweep resumes
#     to the complete matrix).
# A small full file system (tmpfs, in a user namespace when not root)
# fills the disk for real, for the writes gpusim makes through stdio.
#
#   check_faults.sh GPUSIM LIBGSFAULT SOURCE_DIR
#
# FAULT_POINTS (default 40) bounds the injections per command and kind.
# Exit 0 when every case holds, 1 with each failure listed.
set -u

gpusim=$1
lib=$2
src=$3
points=${FAULT_POINTS:-40}
work=$(mktemp -d "${TMPDIR:-/tmp}/gpusim-faults-XXXXXX")
trap 'rm -rf "$work"' EXIT
nodes=$src/traces/sample/cluster.csv
pods=$src/traces/sample/pods.csv
bad=0
cases=0
injected=0

complain() {
	echo "check_faults: $*"
	bad=1
}

command -v sqlite3 >/dev/null || {
	echo "check_faults: sqlite3 is not installed: skipped"
	exit 77
}

# What a run computed, without the columns that say when or how long.
summary() {
	sqlite3 "$1" "select policy, seed, mode, n_pods, n_placed, n_failed, n_events,
		wait_total_s, t_end_s, printf('%.17g', coalesce(gpu_alloc_arrival_pct, 0)),
		pods_sha256, params_json from runs where status = 'complete'
		order by policy, seed, pods_sha256" 2>/dev/null
}

# Integrity and whole runs; prints what is wrong.
check_db() {
	local db=$1 what=$2 ic
	[ -f "$db" ] || return 0
	ic=$(sqlite3 "$db" "pragma integrity_check" 2>&1 | head -1)
	[ "$ic" = ok ] || complain "$what: integrity check: $ic"
	# A database whose schema was never committed holds nothing to check.
	[ "$(sqlite3 "$db" "select count(*) from sqlite_schema where name = 'runs'")" = 1 ] || return 0
	sqlite3 "$db" "select run_id from runs r where status = 'complete' and (
		(select count(*) from run_nodes n where n.run_id = r.run_id) != r.n_nodes or
		(r.pods_stored and (select count(*) from pods p where p.run_id = r.run_id) != r.n_pods))" \
		2>/dev/null | while read -r id; do
		echo "check_faults: $what: run $id is not whole"
		echo bad >"$work/notwhole"
	done
	if [ -f "$work/notwhole" ]; then
		bad=1
		rm -f "$work/notwhole"
	fi
	if [ "$(sqlite3 "$db" "select count(*) from runs where status != 'complete'" 2>/dev/null)" != 0 ]; then
		complain "$what: runs left with a status other than complete"
	fi
}

# The command of scenario $1 on database $2 (and $3: merge's input).
scenario() {
	case $1 in
	replay) echo "replay --nodes $nodes --pods $pods --policy binpack,fgd --seed 3 --db $2 --quiet" ;;
	sweep) echo "sweep --nodes $nodes --pods $pods --policy binpack,spread --seeds 1-2 --jobs 2 --db $2 --quiet" ;;
	merge) echo "merge --quiet $2 $3" ;;
	esac
}

# Prepares the database a scenario starts from (merge: an output holding one run, and an input).
prepare() {
	local name=$1 db=$2 in=$3
	rm -f "$db" "$db-wal" "$db-shm"
	if [ "$name" = merge ]; then
		"$gpusim" replay --nodes "$nodes" --pods "$pods" --policy binpack --seed 1 --db "$db" --quiet >/dev/null
		if [ ! -f "$in" ]; then
			"$gpusim" sweep --nodes "$nodes" --pods "$pods" --policy binpack,spread --seeds 1-3 \
				--db "$in" --quiet >/dev/null
		fi
	fi
}

for name in replay sweep merge; do
	ref=$work/ref-$name.db
	in=$work/in.db
	prepare "$name" "$ref" "$in"
	# shellcheck disable=SC2046
	"$gpusim" $(scenario "$name" "$ref" "$in") >/dev/null 2>&1 || complain "$name: fails without faults"
	want=$(summary "$ref")
	for ops in write sync alloc; do
		db=$work/$name.db
		prepare "$name" "$db" "$in"
		# shellcheck disable=SC2046
		GS_FAULT_OPS=$ops GS_FAULT_PATH=$work/$name.db GS_FAULT_REPORT=$work/report \
			LD_PRELOAD=$lib "$gpusim" $(scenario "$name" "$db" "$in") >/dev/null 2>&1
		total=$(awk '{print $2}' "$work/report" 2>/dev/null)
		total=${total:-0}
		if [ "$total" = 0 ]; then
			[ "$ops" = alloc ] || complain "$name: no $ops call was seen (is the injector loaded?)"
			continue
		fi
		step=$(((total + points - 1) / points))
		n=1
		while [ "$n" -le "$total" ]; do
			cases=$((cases + 1))
			prepare "$name" "$db" "$in"
			errno=ENOSPC
			[ $((n % 2)) = 0 ] && errno=EIO
			# shellcheck disable=SC2046
			GS_FAULT_OPS=$ops GS_FAULT_AT=$n GS_FAULT_STICKY=1 GS_FAULT_ERRNO=$errno \
				GS_FAULT_PATH=$work/$name.db GS_FAULT_REPORT=$work/report \
				LD_PRELOAD=$lib timeout 60 "$gpusim" $(scenario "$name" "$db" "$in") \
				>"$work/out" 2>"$work/err"
			st=$?
			hits=$(awk '{print $4}' "$work/report" 2>/dev/null)
			injected=$((injected + ${hits:-0}))
			what="$name, $ops $n of $total ($errno)"
			case $st in
			0)
				[ "$(summary "$db")" = "$want" ] ||
					complain "$what: exit 0 but the runs differ from a run without faults"
				;;
			1)
				grep -q "^gpusim $name: ..*" "$work/err" ||
					complain "$what: exit 1 without a 'gpusim $name: reason' line: $(head -c 300 "$work/err")"
				grep -q "^gpusim $name: *$" "$work/err" && complain "$what: an empty message"
				;;
			*)
				complain "$what: exit $st: $(head -c 300 "$work/err")"
				;;
			esac
			check_db "$db" "$what"
			# The same command again, without faults: it works, and a sweep completes its matrix.
			# shellcheck disable=SC2046
			"$gpusim" $(scenario "$name" "$db" "$in") >/dev/null 2>"$work/err2" ||
				complain "$what: the command fails again without faults: $(head -c 300 "$work/err2")"
			if [ "$name" = sweep ] && [ "$(summary "$db")" != "$want" ]; then
				complain "$what: the resumed sweep's runs differ from a run without faults"
			fi
			n=$((n + step))
		done
	done
done

# A disk that is really full: gpusim's stdio writes (interference show --out)
# and SQLite's, on a 64 KiB tmpfs. Root mounts it; otherwise a user namespace.
full_disk() {
	local dir=$work/full
	mkdir -p "$dir"
	cat >"$work/full.sh" <<EOF
set -u
mount -t tmpfs -o size=64k tmpfs "$dir" || exit 77
head -c 1000000 /dev/zero >"$dir/filler" 2>/dev/null
"$gpusim" interference show --out "$dir/table.csv" 2>"$work/full-err1"; echo "\$?" >"$work/full-st1"
ls -A "$dir" | grep -v '^filler\$' >"$work/full-kept1"
"$gpusim" replay --nodes "$nodes" --pods "$pods" --policy binpack --db "$dir/r.db" \
	2>"$work/full-err2" >/dev/null; echo "\$?" >"$work/full-st2"
"$gpusim" --completion bash "$dir/gpusim.bash" 2>"$work/full-err3"; echo "\$?" >"$work/full-st3"
ls -A "$dir" | grep -v '^filler\$' >"$work/full-kept3"
umount "$dir"
EOF
	if [ "$(id -u)" = 0 ]; then
		sh "$work/full.sh"
	else
		unshare -rm sh "$work/full.sh"
	fi
}
full_disk
fst=$?
if [ "$fst" = 77 ] || [ ! -f "$work/full-st1" ]; then
	echo "check_faults: no small tmpfs could be mounted here: the full-disk cases were skipped"
else
	cases=$((cases + 2))
	[ "$(cat "$work/full-st1")" = 1 ] || complain "full disk: interference show --out exit $(cat "$work/full-st1")"
	grep -q "No space left on device" "$work/full-err1" ||
		complain "full disk: interference show --out does not say why: $(cat "$work/full-err1")"
	[ -s "$work/full-kept1" ] && complain "full disk: interference show --out left files: $(cat "$work/full-kept1")"
	[ "$(cat "$work/full-st2")" = 1 ] ||
		complain "full disk: replay --db exit $(cat "$work/full-st2"): $(head -c 300 "$work/full-err2")"
	grep -q "disk is full\|No space left on device" "$work/full-err2" ||
		complain "full disk: replay --db does not say the disk is full: $(head -c 300 "$work/full-err2")"
	cases=$((cases + 1))
	[ "$(cat "$work/full-st3")" = 1 ] || complain "full disk: --completion exit $(cat "$work/full-st3")"
	grep -q "No space left on device" "$work/full-err3" ||
		complain "full disk: --completion does not say why: $(cat "$work/full-err3")"
	[ -s "$work/full-kept3" ] && complain "full disk: --completion left files: $(cat "$work/full-kept3")"
fi

echo "check_faults: $cases cases, $injected faults injected"
exit $bad
