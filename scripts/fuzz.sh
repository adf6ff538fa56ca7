#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# fuzz.sh - runs every libFuzzer target of tests/fuzz for a bounded time.
#
#   scripts/fuzz.sh BUILD_DIR SECONDS [TARGET...]
#
# BUILD_DIR is a build configured with CC=clang -DGS_FUZZ=ON (`make fuzz`
# does that in build-fuzz/). Each target runs SECONDS seconds under ASan
# and UBSan, starting from its seed corpus in tests/fuzz/corpus/TARGET
# (read only) and its own working corpus in BUILD_DIR/fuzz/corpus/TARGET,
# which persists between runs. An input that crashes or breaks a property
# is saved in BUILD_DIR/fuzz/findings/TARGET/; copy it into the seed
# corpus (as regress-*) once the bug is fixed, so `make test` replays it.
# Prints executions and findings per target; exits 1 on any finding.
set -u
build=${1:?usage: fuzz.sh BUILD_DIR SECONDS [TARGET...]}
seconds=${2:?usage: fuzz.sh BUILD_DIR SECONDS [TARGET...]}
shift 2
src=$(cd "$(dirname "$0")/.." && pwd)
targets=${*:-"cluster_csv cluster_json pods_csv pods_json gen_spec scenario bench_import interference busy_dist
	validation k8s_yaml k8s_json cel sharing_spec db criteria
	convert_pai convert_dlrm convert_spot convert_philly convert_helios convert_acme"}

dict_of() {
	case $1 in
	cluster_csv | pods_csv) echo csv ;;
	cluster_json | pods_json) echo json ;;
	gen_spec) echo spec ;;
	scenario) echo scenario ;;
	bench_import) echo bench ;;
	interference | busy_dist | validation | sharing_spec) echo sharing ;;
	k8s_yaml | k8s_json) echo k8s ;;
	cel) echo cel ;;
	db) echo db ;;
	criteria) echo criteria ;;
	convert_philly) echo json ;;
	convert_*) echo convert ;;
	esac
}

# A database seed is a whole SQLite file (tests/fuzz/corpus/db: 21 KiB).
max_len_of() {
	case $1 in
	db) echo 32768 ;;
	*) echo 16384 ;;
	esac
}

status=0
total_execs=0
total_findings=0
printf '%-14s %10s %8s %9s\n' TARGET EXECS SECONDS FINDINGS
for t in $targets; do
	exe=$build/tests/fuzz/fuzz_$t
	if [ ! -x "$exe" ]; then
		echo "fuzz.sh: $exe is missing: configure with CC=clang -DGS_FUZZ=ON and build it" >&2
		exit 2
	fi
	work=$build/fuzz/corpus/$t
	found=$build/fuzz/findings/$t
	log=$build/fuzz/$t.log
	mkdir -p "$work" "$found"
	dict=$src/tests/fuzz/dict/$(dict_of "$t").dict
	start=$(date +%s)
	# -rss_limit_mb: a small input may legally ask for a large cluster (JSON
	# "count"); above this it is a finding. -timeout: one input, seconds.
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		"$exe" "$work" "$src/tests/fuzz/corpus/$t" -dict="$dict" \
		-max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 -max_len="$(max_len_of "$t")" \
		-artifact_prefix="$found/" -print_final_stats=1 >"$log" 2>&1
	rc=$?
	end=$(date +%s)
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	n=$(find "$found" -type f | wc -l)
	printf '%-14s %10s %8s %9s\n' "$t" "${execs:-?}" "$((end - start))" "$n"
	total_execs=$((total_execs + ${execs:-0}))
	total_findings=$((total_findings + n))
	if [ "$rc" -ne 0 ] || [ "$n" -ne 0 ]; then
		status=1
		echo "fuzz.sh: $t: a finding (exit $rc); the input is in $found/, the log in $log:" >&2
		grep -E "ERROR|runtime error|fuzz: |SUMMARY" "$log" | head -20 >&2
	fi
done
printf '%-14s %10s %8s %9s\n' total "$total_execs" - "$total_findings"
exit $status
