#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# slurm_sweep.sh - the Slurm recipe of docs/distributed-sweeps.md, for
# real, on this one host: starts munged, slurmctld and slurmd with a
# private configuration in a temporary directory (their own sockets, ports,
# spool, state and logs; nothing under /etc or /run is touched), submits a
# job array whose tasks each run one shard of a sweep (gpusim sweep
# --shard K/N), merges the shards with gpusim merge, checks that the merged
# database holds what a sweep on one host makes (every run_summary figure
# to 17 digits, and no run missing from the plan), and stops the daemons.
#
#   tests/slurm_sweep.sh GPUSIM SOURCE_DIR        (CTest label "slurm")
#
# It runs only when GS_TEST_SLURM=1 (make test-slurm; .ci/run installs
# slurm-wlm and munge and runs it): otherwise, or when the packages are
# missing or the daemons cannot start here (no root, no munge key, ports
# taken, a container that forbids it), it exits 77 with the reason, and
# CTest reports the test as skipped, never as passed.
set -u

gpusim=${1:?usage: slurm_sweep.sh GPUSIM SOURCE_DIR}
src=${2:?usage: slurm_sweep.sh GPUSIM SOURCE_DIR}
shards=3

skip() {
	echo "SKIPPED: $*"
	exit 77
}
fail() {
	echo "FAILED: $*"
	exit 1
}

[ "${GS_TEST_SLURM:-0}" = 1 ] || skip "not asked for: GS_TEST_SLURM=1 (make test-slurm) runs it"
for exe in munged slurmctld slurmd sbatch squeue sinfo scontrol sqlite3; do
	command -v "$exe" >/dev/null 2>&1 ||
		skip "$exe is not installed (apt-get install slurm-wlm munge sqlite3)"
done
[ -x "$gpusim" ] || fail "$gpusim is not built"
# Absolute, for the array tasks, which run elsewhere.
gpusim=$(cd "$(dirname "$gpusim")" && pwd)/$(basename "$gpusim")
src=$(cd "$src" && pwd)

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpusim-slurm-XXXXXX") || fail "no temporary directory"
chmod 0755 "$tmp"
export SLURM_CONF=$tmp/slurm.conf

stop() {
	scontrol shutdown >/dev/null 2>&1
	for pidf in "$tmp/slurmd.pid" "$tmp/slurmctld.pid" "$tmp/munged.pid"; do
		[ -s "$pidf" ] && kill "$(cat "$pidf")" 2>/dev/null
	done
	sleep 1
	for pidf in "$tmp/slurmd.pid" "$tmp/slurmctld.pid" "$tmp/munged.pid"; do
		[ -s "$pidf" ] && kill -9 "$(cat "$pidf")" 2>/dev/null
	done
	rm -rf "$tmp"
}
trap stop EXIT
trap 'exit 1' INT TERM

# --- munge, with its own key and socket ---------------------------------------------
mkdir -p "$tmp/munge" && chmod 0700 "$tmp/munge"
head -c 1024 /dev/urandom >"$tmp/munge/munge.key" && chmod 0400 "$tmp/munge/munge.key"
socket=$tmp/munge/munge.socket
if ! munged --force --key-file="$tmp/munge/munge.key" --socket="$socket" \
	--pid-file="$tmp/munged.pid" --log-file="$tmp/munge/munged.log" \
	--seed-file="$tmp/munge/munged.seed" >"$tmp/munge/start.log" 2>&1; then
	skip "munged cannot start here: $(tail -n 2 "$tmp/munge/start.log" "$tmp/munge/munged.log" 2>/dev/null | tr '\n' ' ')"
fi
for _ in $(seq 50); do [ -S "$socket" ] && break; sleep 0.1; done
[ -S "$socket" ] || skip "munged started but made no socket"

# --- slurmctld and slurmd, on free ports of this host -------------------------------
host=$(hostname -s)
free_port() {
	local p
	for p in $(seq "$1" "$2"); do
		(echo >"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
	done
	echo 0
}
cport=$(free_port 26817 26899)
dport=$(free_port $((cport + 1)) 26999)
[ "$cport" != 0 ] && [ "$dport" != 0 ] || skip "no free TCP port for slurmctld and slurmd"
mkdir -p "$tmp/state" "$tmp/spool"
user=$(id -un)
cat >"$SLURM_CONF" <<EOF
ClusterName=gpusimtest
SlurmctldHost=$host
SlurmUser=$user
SlurmdUser=$user
SlurmctldPort=$cport
SlurmdPort=$dport
AuthType=auth/munge
AuthInfo=socket=$socket
CredType=cred/munge
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
SlurmdTimeout=60
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=gpusim Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
slurmctld -i >"$tmp/slurmctld.start" 2>&1 ||
	skip "slurmctld cannot start here: $(tail -n 3 "$tmp/slurmctld.start" "$tmp/slurmctld.log" 2>/dev/null | tr '\n' ' ')"
slurmd >"$tmp/slurmd.start" 2>&1 ||
	skip "slurmd cannot start here: $(tail -n 3 "$tmp/slurmd.start" "$tmp/slurmd.log" 2>/dev/null | tr '\n' ' ')"
up=0
for _ in $(seq 60); do
	state=$(sinfo -h -n "$host" -o %t 2>/dev/null)
	case $state in idle* | mix* | alloc*) up=1; break ;; esac
	sleep 0.5
done
[ $up = 1 ] || skip "slurmd never came up (node state '${state:-none}'): $(tail -n 3 "$tmp/slurmd.log" "$tmp/slurmctld.log" 2>/dev/null | tr '\n' ' ')"
echo "slurm up on $host: slurmctld port $cport, slurmd port $dport"

# --- the recipe: one array task per shard, then merge -------------------------------
matrix="--nodes $src/traces/sample/cluster.csv --pods $src/traces/sample/pods.csv"
matrix="$matrix --mode time --policy binpack,spread,fgd --seeds 1-6"
# shellcheck disable=SC2086
job=$(sbatch --parsable --array=1-$shards --cpus-per-task=1 --chdir="$tmp" \
	--output="$tmp/task-%a.out" --wrap "$gpusim sweep $matrix \
--shard \$SLURM_ARRAY_TASK_ID/$shards --jobs 1 --db $tmp/shard-\$SLURM_ARRAY_TASK_ID.db") ||
	fail "sbatch refused the array"
echo "submitted array job $job ($shards tasks)"
done=0
for _ in $(seq 600); do
	if [ -z "$(squeue -h -j "$job" 2>/dev/null)" ]; then
		done=1
		break
	fi
	sleep 0.5
done
[ $done = 1 ] || fail "the array job did not finish in 300 s: $(squeue -j "$job" 2>&1 | tail -n 3)"
for k in $(seq $shards); do
	[ -s "$tmp/shard-$k.db" ] || fail "task $k made no database: $(cat "$tmp/task-$k.out" 2>/dev/null)"
	grep -q "left to the other shards of $shards" "$tmp/task-$k.out" ||
		fail "task $k did not run its shard: $(cat "$tmp/task-$k.out")"
done
"$gpusim" merge "$tmp/merged.db" "$tmp"/shard-*.db >"$tmp/merge.out" 2>&1 ||
	fail "gpusim merge: $(cat "$tmp/merge.out")"
cat "$tmp/merge.out"
grep -q "18 runs, 18 in $tmp/merged.db, 0 missing" "$tmp/merge.out" ||
	fail "the merged database misses runs of the plan"

# shellcheck disable=SC2086
"$gpusim" sweep $matrix --db "$tmp/single.db" -q >/dev/null || fail "the single-host sweep failed"
q="select policy, seed, printf('%!.17g %!.17g %!.17g %!.17g', gpu_alloc_pct, mean_wait_s,
	slowdown_mean, completion_mean_s), peak_pending, wait_p99_s, n_placed, n_failed
	from run_summary order by policy, seed"
a=$(sqlite3 "$tmp/merged.db" "$q")
b=$(sqlite3 "$tmp/single.db" "$q")
[ -n "$a" ] && [ "$a" = "$b" ] || fail "the merged shards differ from one sweep:
$(diff <(echo "$a") <(echo "$b") | head -n 10)"
echo "the $shards shards, run as a Slurm array and merged, hold what one sweep makes"
exit 0
