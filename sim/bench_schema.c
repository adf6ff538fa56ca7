/*
 * bench_schema.c - the DDL of the CUDA benchmark tables (bench/cuda results).
 *
 * Placeholder owned by the benchmark harness, which fills it in: the
 * statements here run inside gs_db_open()'s schema transaction, after the
 * simulator's own DDL, whenever a database is created or migrated, so they
 * must be idempotent (CREATE TABLE IF NOT EXISTS ...). See results.h for
 * the version rule. Document every table in results/SCHEMA.md as a
 * "### name" section with one "| `column` |" row per column: the test
 * test_schema_md_matches_ddl fails for any column left out.
 */
#include "results.h"

const char *const gs_bench_schema_sql = "";
