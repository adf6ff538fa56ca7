/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_schema.c - the DDL of the CUDA benchmark tables (bench/cuda results).
 *
 * Owned by the benchmark harness: the statements here run inside
 * gs_db_open()'s schema transaction, after the simulator's own DDL,
 * whenever a database is created or migrated, so they must be idempotent
 * (CREATE TABLE IF NOT EXISTS ...); `gpusim bench-import` also runs them
 * in its own transaction, so a database created before they existed gets
 * them on the first import. See results.h for the version rule. Every
 * table is documented in results/SCHEMA.md, "Benchmark tables", as a
 * "### name" section with one "| `column` |" row per column: the test
 * test_schema_md_matches_ddl fails for any column left out.
 *
 * One results file of gpusim-bench becomes, in one transaction, one row
 * of bench_runs per run record, one row of bench_results per client
 * record and one row of bench_slowdown per slowdown record, all carrying
 * the file's SHA-256 (an import is refused when that file is already
 * stored) and the device, driver and CUDA version they were measured on.
 */
#include "store/results.h"

const char *const gs_bench_schema_sql =
	"CREATE TABLE IF NOT EXISTS bench_runs ("
	"  bench_run_id INTEGER PRIMARY KEY,"
	"  source_sha256 TEXT NOT NULL,"
	"  source_path TEXT NOT NULL,"
	"  imported_at TEXT NOT NULL,"
	"  run_key TEXT NOT NULL,"
	"  scenario TEXT NOT NULL,"
	"  measure TEXT NOT NULL CHECK (measure IN"
	"    ('overhead', 'interference', 'memory', 'compute')),"
	"  mode TEXT NOT NULL CHECK (mode IN ('exclusive', 'timeslice', 'mps', 'hook')),"
	"  repeat INTEGER NOT NULL CHECK (repeat >= 0),"
	"  policy TEXT NOT NULL,"
	"  n_clients INTEGER NOT NULL CHECK (n_clients >= 1),"
	"  status TEXT NOT NULL CHECK (status IN ('ok', 'failed', 'skipped')),"
	"  reason TEXT,"
	"  started_at TEXT NOT NULL,"
	"  duration_s REAL NOT NULL,"
	"  wall_s REAL NOT NULL,"
	"  host TEXT NOT NULL,"
	"  device TEXT NOT NULL,"
	"  driver TEXT NOT NULL,"
	"  cuda TEXT NOT NULL,"
	"  UNIQUE (source_sha256, run_key)"
	");"
	"CREATE INDEX IF NOT EXISTS bench_runs_scenario ON bench_runs (scenario, mode);"
	"CREATE TABLE IF NOT EXISTS bench_results ("
	"  bench_run_id INTEGER NOT NULL REFERENCES bench_runs (bench_run_id) ON DELETE CASCADE,"
	"  client TEXT NOT NULL,"
	"  kernel TEXT NOT NULL,"
	"  gpu INTEGER NOT NULL CHECK (gpu >= 0),"
	"  gpu_milli INTEGER NOT NULL CHECK (gpu_milli BETWEEN 1 AND 1000),"
	"  gpu_mem_mib INTEGER NOT NULL CHECK (gpu_mem_mib >= 0),"
	"  colocated INTEGER NOT NULL CHECK (colocated >= 1),"
	"  status TEXT NOT NULL CHECK (status IN ('ok', 'failed', 'not-started')),"
	"  exit_code INTEGER NOT NULL,"
	"  check_ok INTEGER NOT NULL CHECK (check_ok IN (0, 1)),"
	"  throughput REAL,"
	"  unit TEXT,"
	"  wall_s REAL NOT NULL,"
	"  alone REAL,"
	"  factor REAL,"
	"  slowdown REAL,"
	"  share_req REAL NOT NULL,"
	"  share REAL,"
	"  overhead_pct REAL,"
	"  extra_json TEXT NOT NULL,"
	"  device TEXT NOT NULL,"
	"  driver TEXT NOT NULL,"
	"  cuda TEXT NOT NULL,"
	"  PRIMARY KEY (bench_run_id, client)"
	");"
	"CREATE TABLE IF NOT EXISTS bench_slowdown ("
	"  source_sha256 TEXT NOT NULL,"
	"  scenario TEXT NOT NULL,"
	"  kernel TEXT NOT NULL,"
	"  colocated INTEGER NOT NULL CHECK (colocated >= 1),"
	"  mode TEXT NOT NULL CHECK (mode IN ('timeslice', 'mps', 'hook')),"
	"  factor REAL NOT NULL,"
	"  samples INTEGER NOT NULL CHECK (samples >= 1),"
	"  device TEXT NOT NULL,"
	"  driver TEXT NOT NULL,"
	"  cuda TEXT NOT NULL,"
	"  PRIMARY KEY (source_sha256, scenario, kernel, colocated, mode)"
	");";
