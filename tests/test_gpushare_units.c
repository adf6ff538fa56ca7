/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_gpushare_units.c - the parts of libgpushare that need no driver:
 * the environment variables, the allocation map, the elastic share, the
 * token bucket, the kernel cost table and the shared regions (version
 * checks, the robust mutex, reclaiming the slots of dead processes).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "config.h"
#include "core/error.h"
#include "memsize.h"
#include "ptrmap.h"
#include "region.h"
#include "throttle.h"
#include "tmpdir.h"

#define MIB ((uint64_t)1 << 20)
#define GIB ((uint64_t)1 << 30)

/* --- the environment ------------------------------------------------------ */

/* A fake environment: NULL-terminated name/value pairs. */
static const char *const *fake_env;

static const char *fake_get(const char *name)
{
	const char *const *p;

	for (p = fake_env; p && *p; p += 2)
		if (!strcmp(p[0], name))
			return p[1];
	return NULL;
}

static int read_with(const char *const *env, struct gs_share_config *cfg, char *err, size_t len)
{
	fake_env = env;
	memset(cfg, 0x5a, sizeof(*cfg));
	err[0] = 0;
	return gs_share_config_read(cfg, fake_get, err, len);
}

static void test_config_defaults(void **state)
{
	static const char *const env[] = { NULL };
	struct gs_share_config c;
	char err[256];

	(void)state;
	assert_int_equal(read_with(env, &c, err, sizeof(err)), 0);
	assert_int_equal(c.mem_limit_bytes, 0);
	assert_int_equal(c.compute_pct, 100);
	assert_string_equal(c.pod_id, "default");
	assert_string_equal(c.node_id, "node");
	assert_string_equal(c.shm_dir, "");
	assert_int_equal(c.active_window_ms, 100);
	assert_true(gs_share_config_unlimited(&c));
}

static void test_config_own_variables(void **state)
{
	static const char *const env[] = {
		"GPUSHARE_MEM_LIMIT_MIB", "1536", "GPUSHARE_COMPUTE_PERCENT", "30",
		"GPUSHARE_POD_ID", "team-a.job_7", "GPUSHARE_NODE_ID", "n1",
		"GPUSHARE_SHM_DIR", "/run/gpushare", "GPUSHARE_LOG", "2",
		"ALIYUN_COM_GPU_MEM_CONTAINER", "3", /* ours win */
		"HOSTNAME", "ignored", NULL
	};
	struct gs_share_config c;
	char err[256];

	(void)state;
	assert_int_equal(read_with(env, &c, err, sizeof(err)), 0);
	assert_int_equal(c.mem_limit_bytes, 1536 * MIB);
	assert_string_equal(c.mem_source, "GPUSHARE_MEM_LIMIT_MIB");
	assert_int_equal(c.compute_pct, 30);
	assert_string_equal(c.pod_id, "team-a.job_7");
	assert_string_equal(c.node_id, "n1");
	assert_string_equal(c.shm_dir, "/run/gpushare");
	assert_int_equal(c.log_level, 2);
	assert_false(gs_share_config_unlimited(&c));
}

static void test_config_gpushare_plugin(void **state)
{
	static const char *const gib[] = { "ALIYUN_COM_GPU_MEM_CONTAINER", "3",
					   "ALIYUN_COM_GPU_MEM_DEV", "16", "HOSTNAME",
					   "pod-x", NULL };
	static const char *const mib[] = { "ALIYUN_COM_GPU_MEM_CONTAINER", "3000",
					   "ALIYUN_COM_GPU_MEM_DEV", "16000",
					   "GPUSHARE_MEM_UNIT", "MiB", NULL };
	struct gs_share_config c;
	char err[256];

	(void)state;
	assert_int_equal(read_with(gib, &c, err, sizeof(err)), 0);
	assert_int_equal(c.mem_limit_bytes, 3 * GIB);
	assert_string_equal(c.mem_source, "ALIYUN_COM_GPU_MEM_CONTAINER");
	/* In a Kubernetes pod the host name is the pod name. */
	assert_string_equal(c.pod_id, "pod-x");
	assert_int_equal(read_with(mib, &c, err, sizeof(err)), 0);
	assert_int_equal(c.mem_limit_bytes, 3000 * MIB);
}

/* HAMi's variables: sizes with k, m, g; a limit per device; the SM share. */
static void test_config_hami(void **state)
{
	static const char *const global[] = { "CUDA_DEVICE_MEMORY_LIMIT", "4g", NULL };
	static const char *const units[][2] = {
		{ "4096m", "4096" }, { "4G", "4096" }, { "1048576k", "1024" },
		{ "1073741824", "1024" }, { "2M", "2" }, { "0", "0" },
	};
	static const char *const per_dev[] = { "CUDA_DEVICE_MEMORY_LIMIT", "4g",
					       "CUDA_DEVICE_MEMORY_LIMIT_1", "2048m",
					       "CUDA_DEVICE_MEMORY_LIMIT_15", "1g", NULL };
	static const char *const only_dev[] = { "CUDA_DEVICE_MEMORY_LIMIT_1", "512m", NULL };
	static const char *const ours_win[] = { "GPUSHARE_MEM_LIMIT_MIB", "1000",
						"CUDA_DEVICE_MEMORY_LIMIT", "4g",
						"CUDA_DEVICE_MEMORY_LIMIT_1", "2g",
						"GPUSHARE_COMPUTE_PERCENT", "40",
						"CUDA_DEVICE_SM_LIMIT", "30",
						"CUDA_DEVICE_SM_LIMIT_1", "20", NULL };
	static const char *const over_plugin[] = { "CUDA_DEVICE_MEMORY_LIMIT", "1g",
						   "ALIYUN_COM_GPU_MEM_CONTAINER", "3", NULL };
	static const char *const sm[] = { "CUDA_DEVICE_SM_LIMIT", "30", "CUDA_DEVICE_SM_LIMIT_1",
					  "50", NULL };
	static const char *const sm_none[] = { "CUDA_DEVICE_SM_LIMIT", "0",
					       "CUDA_DEVICE_SM_LIMIT_2", "100", NULL };
	const char *env[3] = { "CUDA_DEVICE_MEMORY_LIMIT", NULL, NULL };
	struct gs_share_config c;
	char err[256];
	size_t i;

	(void)state;
	assert_int_equal(read_with(global, &c, err, sizeof(err)), 0);
	assert_int_equal(c.mem_limit_bytes, 4 * GIB);
	assert_string_equal(c.mem_source, "CUDA_DEVICE_MEMORY_LIMIT");
	assert_int_equal(gs_share_config_mem_limit(&c, 0), 4 * GIB);
	assert_int_equal(gs_share_config_mem_limit(&c, 7), 4 * GIB);
	assert_true(gs_share_config_mem_limited(&c));
	/* HAMi's units are binary: 1g is 1 GiB; a plain number is bytes; 0 no limit. */
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		env[1] = units[i][0];
		assert_int_equal(read_with(env, &c, err, sizeof(err)), 0);
		assert_int_equal(c.mem_limit_bytes, strtoull(units[i][1], NULL, 10) * MIB);
	}
	assert_false(gs_share_config_mem_limited(&c));
	/* Per device: CUDA_DEVICE_MEMORY_LIMIT_<i> for ordinal i, the global one elsewhere. */
	assert_int_equal(read_with(per_dev, &c, err, sizeof(err)), 0);
	assert_int_equal(gs_share_config_mem_limit(&c, 0), 4 * GIB);
	assert_int_equal(gs_share_config_mem_limit(&c, 1), 2 * GIB);
	assert_int_equal(gs_share_config_mem_limit(&c, 15), 1 * GIB);
	assert_int_equal(gs_share_config_mem_limit(&c, 40), 4 * GIB);
	assert_int_equal(read_with(only_dev, &c, err, sizeof(err)), 0);
	assert_int_equal(gs_share_config_mem_limit(&c, 0), 0);
	assert_int_equal(gs_share_config_mem_limit(&c, 1), 512 * MIB);
	assert_true(gs_share_config_mem_limited(&c));
	assert_string_equal(c.mem_source, "CUDA_DEVICE_MEMORY_LIMIT_<i>");
	assert_false(gs_share_config_unlimited(&c));
	/* Ours win over HAMi's on every device; HAMi's over the device plugin's. */
	assert_int_equal(read_with(ours_win, &c, err, sizeof(err)), 0);
	assert_int_equal(gs_share_config_mem_limit(&c, 0), 1000 * MIB);
	assert_int_equal(gs_share_config_mem_limit(&c, 1), 1000 * MIB);
	assert_string_equal(c.mem_source, "GPUSHARE_MEM_LIMIT_MIB");
	assert_int_equal(gs_share_config_compute_pct(&c, 0), 40);
	assert_int_equal(gs_share_config_compute_pct(&c, 1), 40);
	assert_int_equal(read_with(over_plugin, &c, err, sizeof(err)), 0);
	assert_int_equal(c.mem_limit_bytes, GIB);
	/* The SM share: a percentage, per device too; 0 and 100 mean none. */
	assert_int_equal(read_with(sm, &c, err, sizeof(err)), 0);
	assert_int_equal(c.compute_pct, 30);
	assert_int_equal(gs_share_config_compute_pct(&c, 0), 30);
	assert_int_equal(gs_share_config_compute_pct(&c, 1), 50);
	assert_true(gs_share_config_compute_limited(&c));
	assert_int_equal(read_with(sm_none, &c, err, sizeof(err)), 0);
	assert_int_equal(gs_share_config_compute_pct(&c, 0), 100);
	assert_int_equal(gs_share_config_compute_pct(&c, 2), 100);
	assert_false(gs_share_config_compute_limited(&c));
}

static void expect_error(const char *const *env, const char *needle)
{
	struct gs_share_config c, before;
	char err[256];

	fake_env = env;
	memset(&c, 0x5a, sizeof(c));
	before = c;
	err[0] = 0;
	assert_int_equal(gs_share_config_read(&c, fake_get, err, sizeof(err)), GS_EINVAL);
	if (!strstr(err, needle))
		fail_msg("message '%s' does not contain '%s'", err, needle);
	/* Untouched on failure. */
	assert_memory_equal(&c, &before, sizeof(c));
}

static void test_config_errors(void **state)
{
	static const char *const e1[] = { "GPUSHARE_MEM_LIMIT_MIB", "12x", NULL };
	static const char *const e2[] = { "GPUSHARE_MEM_LIMIT_MIB", "1.5", NULL };
	static const char *const e3[] = { "GPUSHARE_MEM_LIMIT_MIB", "-5", NULL };
	static const char *const e4[] = { "GPUSHARE_COMPUTE_PERCENT", "101", NULL };
	static const char *const e5[] = { "GPUSHARE_COMPUTE_PERCENT", " 50", NULL };
	static const char *const e6[] = { "ALIYUN_COM_GPU_MEM_CONTAINER", "20",
					  "ALIYUN_COM_GPU_MEM_DEV", "16", NULL };
	static const char *const e7[] = { "ALIYUN_COM_GPU_MEM_CONTAINER", "2GiB", NULL };
	static const char *const e8[] = { "GPUSHARE_MEM_UNIT", "KiB",
					  "ALIYUN_COM_GPU_MEM_CONTAINER", "2", NULL };
	static const char *const e9[] = { "GPUSHARE_POD_ID", "../etc", NULL };
	static const char *const e10[] = { "GPUSHARE_SHM_DIR", "relative/dir", NULL };
	static const char *const e11[] = { "GPUSHARE_MEM_LIMIT_MIB", "99999999999999999999", NULL };

	(void)state;
	expect_error(e1, "GPUSHARE_MEM_LIMIT_MIB='12x': not an integer of MiB (0 for no limit)");
	expect_error(e2, "GPUSHARE_MEM_LIMIT_MIB='1.5'");
	expect_error(e3, "GPUSHARE_MEM_LIMIT_MIB='-5'");
	expect_error(e4, "GPUSHARE_COMPUTE_PERCENT='101': not an integer from 1 to 100");
	expect_error(e5, "GPUSHARE_COMPUTE_PERCENT=' 50'");
	expect_error(e6, "ALIYUN_COM_GPU_MEM_CONTAINER='20' is larger than ALIYUN_COM_GPU_MEM_DEV='16'");
	expect_error(e7, "ALIYUN_COM_GPU_MEM_CONTAINER='2GiB': not a positive integer (GiB)");
	expect_error(e8, "GPUSHARE_MEM_UNIT='KiB': expected GiB or MiB");
	expect_error(e9, "GPUSHARE_POD_ID='../etc'");
	expect_error(e10, "GPUSHARE_SHM_DIR='relative/dir'");
	expect_error(e11, "GPUSHARE_MEM_LIMIT_MIB='99999999999999999999'");
}

/*
 * Which families of limits the variables give: a process that gives none
 * of a family takes it from its pod (hook_pod.h); 0 and "none" values
 * still give it.
 */
static void test_config_given(void **state)
{
	static const char *const none[] = { "GPUSHARE_POD_ID", "p", NULL };
	static const char *const zero[] = { "GPUSHARE_MEM_LIMIT_MIB", "0", NULL };
	static const char *const hami_zero[] = { "CUDA_DEVICE_MEMORY_LIMIT", "0",
						 "CUDA_DEVICE_SM_LIMIT", "0", NULL };
	static const char *const plugin[] = { "ALIYUN_COM_GPU_MEM_CONTAINER", "2",
					      "GPUSHARE_CONTEXT_RESERVE_MIB", "0", NULL };
	static const char *const dev_sm[] = { "CUDA_DEVICE_SM_LIMIT_1", "100", NULL };
	struct gs_share_config c;
	char err[256];

	(void)state;
	assert_int_equal(read_with(none, &c, err, sizeof(err)), 0);
	assert_int_equal(c.given, 0);
	assert_int_equal(read_with(zero, &c, err, sizeof(err)), 0);
	assert_int_equal(c.given, GS_SHARE_GIVEN_MEM);
	assert_false(gs_share_config_mem_limited(&c));
	assert_int_equal(read_with(hami_zero, &c, err, sizeof(err)), 0);
	assert_int_equal(c.given, GS_SHARE_GIVEN_MEM | GS_SHARE_GIVEN_COMPUTE);
	assert_true(gs_share_config_unlimited(&c));
	assert_int_equal(read_with(plugin, &c, err, sizeof(err)), 0);
	assert_int_equal(c.given, GS_SHARE_GIVEN_MEM | GS_SHARE_GIVEN_RESERVE);
	assert_int_equal(read_with(dev_sm, &c, err, sizeof(err)), 0);
	assert_int_equal(c.given, GS_SHARE_GIVEN_COMPUTE);
}

static void test_config_context_reserve(void **state)
{
	static const char *const none[] = { NULL };
	static const char *const some[] = { "GPUSHARE_CONTEXT_RESERVE_MIB", "300", NULL };
	static const char *const bad[] = { "GPUSHARE_CONTEXT_RESERVE_MIB", "300M", NULL };
	struct gs_share_config c;
	char err[256];

	(void)state;
	assert_int_equal(read_with(none, &c, err, sizeof(err)), 0);
	assert_int_equal(c.ctx_reserve_bytes, 0);
	assert_int_equal(read_with(some, &c, err, sizeof(err)), 0);
	assert_int_equal(c.ctx_reserve_bytes, 300 * MIB);
	expect_error(bad, "GPUSHARE_CONTEXT_RESERVE_MIB='300M': not an integer from 0 to");
}

static void test_config_hami_errors(void **state)
{
	static const char *const e1[] = { "CUDA_DEVICE_MEMORY_LIMIT", "4x", NULL };
	static const char *const e2[] = { "CUDA_DEVICE_MEMORY_LIMIT", "4.5g", NULL };
	static const char *const e3[] = { "CUDA_DEVICE_MEMORY_LIMIT", "g", NULL };
	static const char *const e4[] = { "CUDA_DEVICE_MEMORY_LIMIT", "-1g", NULL };
	static const char *const e5[] = { "CUDA_DEVICE_MEMORY_LIMIT", "99999999999g", NULL };
	static const char *const e6[] = { "CUDA_DEVICE_MEMORY_LIMIT_3", " 4g", NULL };
	static const char *const e7[] = { "CUDA_DEVICE_SM_LIMIT", "101", NULL };
	static const char *const e8[] = { "CUDA_DEVICE_SM_LIMIT_1", "half", NULL };
	static const char *const e9[] = { "CUDA_DEVICE_MEMORY_LIMIT", "4gb", NULL };

	(void)state;
	expect_error(e1, "CUDA_DEVICE_MEMORY_LIMIT='4x': not a size (bytes, or an integer "
			 "followed by k, m or g, as in 4g or 4096m)");
	expect_error(e2, "CUDA_DEVICE_MEMORY_LIMIT='4.5g': not a size");
	expect_error(e3, "CUDA_DEVICE_MEMORY_LIMIT='g': not a size");
	expect_error(e4, "CUDA_DEVICE_MEMORY_LIMIT='-1g': not a size");
	expect_error(e5, "CUDA_DEVICE_MEMORY_LIMIT='99999999999g': not a size");
	expect_error(e6, "CUDA_DEVICE_MEMORY_LIMIT_3=' 4g': not a size");
	expect_error(e7, "CUDA_DEVICE_SM_LIMIT='101': not an integer from 0 to 100");
	expect_error(e8, "CUDA_DEVICE_SM_LIMIT_1='half': not an integer from 0 to 100");
	expect_error(e9, "CUDA_DEVICE_MEMORY_LIMIT='4gb': not a size");
}

/* --- the allocation map ------------------------------------------------------ */

static void test_ptrmap_against_reference(void **state)
{
	enum { N = 5000 };
	static uint64_t keys[N];
	static int live[N];
	struct gs_ptrmap m;
	struct gs_ptrmap_entry e;
	uint64_t x = 88172645463325252ull;
	size_t n_live = 0;
	int i, round;

	(void)state;
	gs_ptrmap_init(&m);
	assert_int_equal(gs_ptrmap_put(&m, 0, 1, 0), GS_EINVAL);
	assert_int_equal(gs_ptrmap_take(&m, 42, &e), GS_ENOENT);
	/* Device-like keys: 256-byte aligned, clustered, so probe runs collide. */
	for (i = 0; i < N; i++)
		keys[i] = 0x7f0000000000ull + (uint64_t)i * 256;
	for (round = 0; round < 40000; round++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		i = (int)(x % N);
		if (live[i]) {
			assert_int_equal(gs_ptrmap_take(&m, keys[i], &e), 0);
			assert_int_equal(e.key, keys[i]);
			assert_int_equal(e.bytes, (uint64_t)i * 3 + 1);
			assert_int_equal(e.dev, i % 16);
			live[i] = 0;
			n_live--;
		} else {
			assert_int_equal(gs_ptrmap_put(&m, keys[i], (uint64_t)i * 3 + 1, i % 16), 0);
			live[i] = 1;
			n_live++;
		}
		assert_int_equal(m.n, n_live);
		/* find sees exactly the live keys, and entries change in place. */
		if (live[i]) {
			struct gs_ptrmap_entry *f = gs_ptrmap_find(&m, keys[i]);

			assert_non_null(f);
			f->refs++;
			assert_int_equal(gs_ptrmap_find(&m, keys[i])->refs, 1);
			f->refs--;
		} else {
			assert_null(gs_ptrmap_find(&m, keys[i]));
		}
	}
	/* put_entry replaces, with every field. */
	{
		struct gs_ptrmap_entry in = { keys[0], 7, 3, 2, 99, 5 };

		assert_int_equal(gs_ptrmap_put_entry(&m, &in), 0);
		live[0] = 1;
		assert_int_equal(gs_ptrmap_find(&m, keys[0])->owner, 99);
		assert_int_equal(gs_ptrmap_put(&m, keys[0], 1, 0), 0);
		assert_int_equal(gs_ptrmap_find(&m, keys[0])->owner, 0);
	}
	for (i = 0; i < N; i++)
		assert_int_equal(gs_ptrmap_take(&m, keys[i], &e), live[i] ? 0 : GS_ENOENT);
	assert_int_equal(m.n, 0);
	gs_ptrmap_release(&m);
}

/* --- array sizes -------------------------------------------------------------- */

static void test_array_bytes(void **state)
{
	const uint64_t page = GS_ARRAY_PAGE;

	(void)state;
	/* 2048 x 2048 floats: 16 MiB exactly, already whole pages. */
	assert_int_equal(gs_array_bytes(0x20, 1, 2048, 2048, 0, 0, 1), 16 * MIB);
	/* Anything small still takes a page. */
	assert_int_equal(gs_array_bytes(0x01, 1, 1, 0, 0, 0, 1), page);
	/* Rows pad to 512 bytes, heights to 8 rows: 100 x 3 uchar4 -> 512 x 8. */
	assert_int_equal(gs_array_bytes(0x01, 4, 100, 3, 0, 0, 1), page);
	assert_int_equal(gs_array_bytes(0x01, 4, 1000, 1000, 0, 0, 1) % page, 0);
	assert_true(gs_array_bytes(0x01, 4, 1000, 1000, 0, 0, 1) >= 4000ull * 1000);
	/* 3-D: depth counts; layered: layers keep their count down the mips. */
	assert_int_equal(gs_array_bytes(0x20, 2, 1024, 512, 16, GS_ARRAY_LAYERED, 1), 64 * MIB);
	assert_true(gs_array_bytes(0x20, 1, 256, 256, 6, GS_ARRAY_CUBEMAP, 9) >
		    gs_array_bytes(0x20, 1, 256, 256, 6, 0, 9));
	/* A full mip chain is a third more than its base. */
	assert_int_equal(gs_array_bytes(0x20, 1, 4096, 4096, 0, 0, 13), 86 * MIB);
	/* Block-compressed: 1 byte a texel; unknown formats: 16. */
	assert_int_equal(gs_array_bytes(0x97, 1, 4096, 4096, 0, 0, 1), 16 * MIB);
	assert_int_equal(gs_array_bytes(0x77, 1, 1024, 1024, 0, 0, 1), 16 * MIB);
	/* Nonsense is the driver's to refuse; overflow is never small. */
	assert_int_equal(gs_array_bytes(0x20, 0, 16, 16, 0, 0, 1), 0);
	assert_int_equal(gs_array_bytes(0x20, 1, 0, 16, 0, 0, 1), 0);
	assert_int_equal(gs_array_bytes(0x20, 4, UINT64_MAX / 4, 1u << 30, 1u << 30, 0, 1),
			 UINT64_MAX);
}

/* --- the elastic share ---------------------------------------------------- */

static struct gs_peer peer(const char *pod, int share, uint64_t last_ns)
{
	struct gs_peer p;

	memset(&p, 0, sizeof(p));
	snprintf(p.pod_id, sizeof(p.pod_id), "%s", pod);
	p.share_pct = share;
	p.last_active_ns = last_ns;
	return p;
}

static void test_throttle_allowed(void **state)
{
	const uint64_t now = 10000000000ull, win = 100000000ull;
	struct gs_peer p[4];

	(void)state;
	/* Alone, or only with our own pod: the whole GPU (elastic). */
	assert_true(gs_throttle_allowed("a", 30, NULL, 0, now, win) == 1.0);
	p[0] = peer("a", 30, now);
	p[1] = peer("a", 30, now - 1000);
	assert_true(gs_throttle_allowed("a", 30, p, 2, now, win) == 1.0);

	/* 30/70 and 10/90 against an active competitor. */
	p[1] = peer("b", 70, now - 1000);
	assert_float_equal(gs_throttle_allowed("a", 30, p, 2, now, win), 0.30, 1e-12);
	assert_float_equal(gs_throttle_allowed("b", 70, p, 2, now, win), 0.70, 1e-12);
	p[1] = peer("b", 90, now);
	assert_float_equal(gs_throttle_allowed("a", 10, p, 2, now, win), 0.10, 1e-12);

	/* A competitor idle for longer than the window does not count... */
	p[1] = peer("b", 70, now - win - 1);
	assert_true(gs_throttle_allowed("a", 30, p, 2, now, win) == 1.0);
	/* ...one sleeping in its throttle (beat in the future) does. */
	p[1] = peer("b", 70, now + 5 * win);
	assert_float_equal(gs_throttle_allowed("a", 30, p, 2, now, win), 0.30, 1e-12);

	/* Spare share goes to the active pods in proportion. */
	p[1] = peer("b", 20, now);
	assert_float_equal(gs_throttle_allowed("a", 30, p, 2, now, win), 0.60, 1e-12);
	/* A pod without a share counts as asking for the whole GPU. */
	p[1] = peer("b", 100, now);
	assert_float_equal(gs_throttle_allowed("a", 30, p, 2, now, win), 30.0 / 130, 1e-12);

	/* Two active processes of our pod split its share. */
	p[0] = peer("a", 30, now);
	p[1] = peer("a", 30, now);
	p[2] = peer("b", 70, now);
	assert_float_equal(gs_throttle_allowed("a", 30, p, 3, now, win), 0.15, 1e-12);
	/* Two processes of the other pod do not double its share. */
	p[0] = peer("a", 30, now);
	p[1] = peer("b", 70, now);
	p[2] = peer("b", 70, now);
	assert_float_equal(gs_throttle_allowed("a", 30, p, 3, now, win), 0.30, 1e-12);
}

static void test_bucket_long_run_rate(void **state)
{
	const double cost = 100000; /* 100 us per launch */
	struct gs_bucket b;
	uint64_t t = 1000000000ull, start = t, wait, admitted = 0, i;

	(void)state;
	gs_bucket_init(&b, 5e6, 0.25, t);
	/* A greedy client: launches, sleeps whatever it is told, repeats. */
	for (i = 0; i < 100000; i++) {
		wait = gs_bucket_charge(&b, cost, t, 200000);
		t += wait + 1000; /* 1 us of launch overhead */
		admitted++;
	}
	/* GPU time admitted over wall time = the rate, plus the initial burst. */
	{
		double gpu = (double)admitted * cost, wall = (double)(t - start);
		double got = (gpu - 5e6) / wall;

		if (got < 0.245 || got > 0.255)
			fail_msg("admitted %.4f of the GPU, expected 0.25", got);
	}
}

static void test_bucket_min_sleep_and_burst(void **state)
{
	struct gs_bucket b;
	uint64_t t = 1000;

	(void)state;
	gs_bucket_init(&b, 1e6, 0.5, t);
	/* The burst is spent first, without sleeping. */
	assert_int_equal(gs_bucket_charge(&b, 1e6, t, 200000), 0);
	/* A small debt is carried, not slept: 50 us / 0.5 = 100 us < 200 us. */
	assert_int_equal(gs_bucket_charge(&b, 50000, t, 200000), 0);
	/* Once it is large enough, the sleep repays all of it. */
	assert_int_equal(gs_bucket_charge(&b, 100000, t, 200000), 300000);
	/* After a long idle time tokens are capped at the burst. */
	t += 1000000000ull;
	assert_int_equal(gs_bucket_charge(&b, 1e6, t, 200000), 0);
	assert_int_equal(gs_bucket_charge(&b, 200000, t, 1), 400000);
	/* A new rate applies from now on. */
	gs_bucket_set_rate(&b, 0.1, t);
	assert_int_equal(gs_bucket_charge(&b, 0, t, 1), 2000000);
}

static void test_cost_table(void **state)
{
	static struct gs_cost_table t;
	struct gs_cost_entry *e;
	uint64_t k1 = gs_cost_key(0x1000, 64, 256, 0), k2 = gs_cost_key(0x1000, 128, 256, 0);
	int sample, i, n_sampled = 0;

	(void)state;
	assert_int_not_equal(k1, k2);
	assert_int_not_equal(gs_cost_key(0, 0, 0, 0), 0);
	e = gs_cost_launch(&t, k1, &sample);
	assert_true(sample);
	/* Unseen kernel, nothing timed yet: free. */
	assert_true(gs_cost_estimate(&t, e) == 0);
	gs_cost_record(&t, k1, 3000);
	gs_cost_record(&t, k1, 1000); /* inflated timings are ignored by the minimum */
	gs_cost_record(&t, k1, 2000);
	assert_true(gs_cost_estimate(&t, e) == 1000);
	/* After the first samples, one launch in GS_COST_SAMPLE_EVERY is timed. */
	for (i = 0; i < 10 * GS_COST_SAMPLE_EVERY; i++) {
		gs_cost_launch(&t, k1, &sample);
		n_sampled += sample;
	}
	assert_int_equal(n_sampled, 10);
	/* Another kernel falls back to the running mean until it is timed. */
	e = gs_cost_launch(&t, k2, &sample);
	assert_float_equal(gs_cost_estimate(&t, e), 2000, 1e-9);
	/* A timing for an evicted kernel does not land on its successor. */
	if (k1 % GS_COST_SLOTS == k2 % GS_COST_SLOTS)
		return;
	gs_cost_record(&t, k2, 500);
	assert_true(gs_cost_estimate(&t, e) == 500);
}

/* --- the shared regions ------------------------------------------------------ */

static int make_dir(void **state)
{
	(void)state;
	return gs_test_tmpdir_make("gpushare-units");
}

static void test_region_shared_between_opens(void **state)
{
	const char *dir = gs_test_tmpdir();
	struct gs_region a, b;
	char err[512];
	static const uint8_t uuid[16] = { 1, 2, 3 };
	int slot;

	(void)state;
	assert_int_equal(gs_region_open(&a, dir, GS_REGION_POD, "p", err, sizeof(err)), 0);
	assert_int_equal(gs_region_open(&b, dir, GS_REGION_POD, "p", err, sizeof(err)), 0);
	assert_int_equal(gs_region_pod(&a)->hdr.version, GS_REGION_VERSION);
	assert_int_equal(gs_pod_dev_index(&b, -1, uuid, 0), GS_ENOENT); /* look only */
	assert_int_equal(gs_pod_attach(&a, getpid(), &slot, err, sizeof(err)), 0);
	assert_int_equal(gs_pod_dev_index(&a, slot, uuid, 0), 0);
	assert_int_equal(gs_pod_dev_index(&b, -1, uuid, 0), 0);
	assert_int_equal(gs_region_check(&a, err, sizeof(err)), 0);
	gs_region_close(&a);
	gs_region_close(&b);
}

/* GPUSHARE_SHM_DIR naming no directory: the refusal says which and what to do. */
static void test_region_missing_directory(void **state)
{
	char dir[256], err[1024], want[1024];
	struct gs_region r;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/not-made", gs_test_tmpdir());
	assert_int_equal(gs_region_open(&r, dir, GS_REGION_POD, "p", err, sizeof(err)), GS_EIO);
	snprintf(want, sizeof(want), "cannot open %s/gpushare.pod.p: the directory %s does not "
		 "exist (GPUSHARE_SHM_DIR: create it, or mount the node's directory there)", dir,
		 dir);
	assert_string_equal(err, want);
	assert_int_equal(r.fd, -1);
}

/* Rewrites one header field of the pod region file. */
static void poke_header(size_t offset, uint32_t value)
{
	const char *dir = gs_test_tmpdir();
	char path[GS_REGION_PATH_MAX];
	int fd;

	gs_region_path(path, sizeof(path), dir, GS_REGION_POD, "p");
	fd = open(path, O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, &value, sizeof(value), (off_t)offset), sizeof(value));
	close(fd);
}

static void expect_refused(const char *needle)
{
	const char *dir = gs_test_tmpdir();
	struct gs_region r;
	char err[512];

	err[0] = 0;
	assert_int_equal(gs_region_open(&r, dir, GS_REGION_POD, "p", err, sizeof(err)),
			 GS_ESCHEMA);
	if (!strstr(err, needle))
		fail_msg("message '%s' does not contain '%s'", err, needle);
	assert_int_equal(r.fd, -1);
}

static void test_region_refuses_other_layouts(void **state)
{
	const char *dir = gs_test_tmpdir();
	struct gs_region r;
	char err[512], path[GS_REGION_PATH_MAX], msg[128];
	int fd;

	(void)state;
	assert_int_equal(gs_region_open(&r, dir, GS_REGION_POD, "p", err, sizeof(err)), 0);
	gs_region_close(&r);

	poke_header(offsetof(struct gs_region_hdr, version), GS_REGION_VERSION + 1);
	snprintf(msg, sizeof(msg), "has layout version %u but this libgpushare uses version %u",
		 GS_REGION_VERSION + 1, GS_REGION_VERSION);
	expect_refused(msg);
	expect_refused("refusing to share it");

	poke_header(offsetof(struct gs_region_hdr, version), GS_REGION_VERSION);
	poke_header(offsetof(struct gs_region_hdr, magic), 0x12345678);
	expect_refused("is not a gpushare region (magic 0x12345678");

	poke_header(offsetof(struct gs_region_hdr, magic), GS_REGION_MAGIC);
	poke_header(offsetof(struct gs_region_hdr, kind), GS_REGION_NODE);
	expect_refused("expects a");

	/* A node region opened as a pod region is refused too (size and kind). */
	poke_header(offsetof(struct gs_region_hdr, kind), GS_REGION_POD);
	gs_region_path(path, sizeof(path), dir, GS_REGION_POD, "p");
	fd = open(path, O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 7), 0);
	close(fd);
	expect_refused("too short for a gpushare region");

	/* Removing it is the documented way out. */
	assert_int_equal(gs_region_unlink(dir, GS_REGION_POD, "p"), 0);
	assert_int_equal(gs_region_open(&r, dir, GS_REGION_POD, "p", err, sizeof(err)), 0);
	gs_region_close(&r);
}

static void test_region_robust_mutex(void **state)
{
	const char *dir = gs_test_tmpdir();
	struct gs_region r;
	char err[512];
	pid_t pid;
	int status;

	(void)state;
	assert_int_equal(gs_region_open(&r, dir, GS_REGION_POD, "p", err, sizeof(err)), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct gs_region c;

		if (gs_region_open(&c, dir, GS_REGION_POD, "p", err, sizeof(err)) ||
		    gs_region_lock(&c))
			_exit(3);
		_exit(0); /* dies holding the mutex */
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(WEXITSTATUS(status), 0);
	/* Without a robust mutex this would hang until the test's timeout. */
	assert_int_equal(gs_region_lock(&r), 0);
	gs_region_unlock(&r);
	assert_int_equal(gs_region_lock(&r), 0);
	gs_region_unlock(&r);
	gs_region_close(&r);
}

static void test_pod_reclaims_only_dead(void **state)
{
	const char *dir = gs_test_tmpdir();
	const uint64_t limit = 100 * MIB;
	static const uint8_t uuid[16] = { 9 };
	struct gs_region r;
	char err[512], ch;
	int slot, dev, go[2], ready[2], status;
	pid_t alive, dead;

	(void)state;
	assert_int_equal(pipe(go), 0);
	assert_int_equal(pipe(ready), 0);
	/* One child takes 60 MiB and stays alive until told; one takes 30 and dies. */
	alive = fork();
	assert_true(alive >= 0);
	if (alive == 0) {
		struct gs_region c;
		int s, d;

		/* Holding only the read end, it exits when the test process does. */
		close(go[1]);
		if (gs_region_open(&c, dir, GS_REGION_POD, "p", err, sizeof(err)) ||
		    gs_pod_attach(&c, getpid(), &s, err, sizeof(err)) ||
		    (d = gs_pod_dev_index(&c, s, uuid, limit)) < 0 || gs_pod_reserve(&c, s, d, 60 * MIB, limit))
			_exit(3);
		if (write(ready[1], "x", 1) != 1 || read(go[0], &ch, 1) != 1)
			_exit(4);
		_exit(0);
	}
	assert_int_equal(read(ready[0], &ch, 1), 1);
	dead = fork();
	assert_true(dead >= 0);
	if (dead == 0) {
		struct gs_region c;
		int s, d;

		if (gs_region_open(&c, dir, GS_REGION_POD, "p", err, sizeof(err)) ||
		    gs_pod_attach(&c, getpid(), &s, err, sizeof(err)) ||
		    (d = gs_pod_dev_index(&c, s, uuid, limit)) < 0 || gs_pod_reserve(&c, s, d, 30 * MIB, limit))
			_exit(3);
		raise(SIGKILL); /* no cleanup of any kind */
	}
	assert_int_equal(waitpid(dead, &status, 0), dead);
	assert_true(WIFSIGNALED(status));

	assert_int_equal(gs_region_open(&r, dir, GS_REGION_POD, "p", err, sizeof(err)), 0);
	assert_int_equal(gs_pod_attach(&r, getpid(), &slot, err, sizeof(err)), 0);
	dev = gs_pod_dev_index(&r, slot, uuid, limit);
	assert_int_equal(dev, 0);
	/* The dead child's 30 MiB were reclaimed at attach; the live one's 60 remain. */
	assert_int_equal(gs_pod_used(&r, dev), 60 * MIB);
	assert_int_equal(gs_pod_reserve(&r, slot, dev, 40 * MIB + 1, limit), GS_ENOMEM);
	assert_int_equal(gs_pod_reserve(&r, slot, dev, 40 * MIB, limit), 0);
	assert_int_equal(gs_pod_used(&r, dev), limit);
	gs_pod_unreserve(&r, slot, dev, 40 * MIB);

	/* Once the live child exits, its bytes come back too. */
	assert_int_equal(write(go[1], "x", 1), 1);
	assert_int_equal(waitpid(alive, &status, 0), alive);
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(gs_pod_reserve(&r, slot, dev, limit, limit), 0);
	assert_int_equal(gs_pod_used(&r, dev), limit);
	gs_pod_unreserve(&r, slot, dev, limit);
	gs_region_close(&r);
	close(go[0]);
	close(go[1]);
	close(ready[0]);
	close(ready[1]);
}

/* The device table: full of devices in use, refused; freed once nobody uses them. */
static void test_pod_device_table(void **state)
{
	const char *dir = gs_test_tmpdir();
	struct gs_region r;
	uint8_t uuid[16];
	char err[512], ch;
	int slot, i, go[2], ready[2], status;
	pid_t pid;

	(void)state;
	assert_int_equal(pipe(go), 0);
	assert_int_equal(pipe(ready), 0);
	memset(uuid, 0, sizeof(uuid));
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct gs_region c;
		int s;

		close(go[1]);
		if (gs_region_open(&c, dir, GS_REGION_POD, "p", err, sizeof(err)) ||
		    gs_pod_attach(&c, getpid(), &s, err, sizeof(err)))
			_exit(3);
		for (i = 0; i < GS_REGION_MAX_DEVS; i++) {
			uuid[0] = (uint8_t)i;
			if (gs_pod_dev_index(&c, s, uuid, 0) != i)
				_exit(4);
		}
		if (write(ready[1], "x", 1) != 1 || read(go[0], &ch, 1) != 1)
			_exit(5);
		_exit(0);
	}
	assert_int_equal(read(ready[0], &ch, 1), 1);
	assert_int_equal(gs_region_open(&r, dir, GS_REGION_POD, "p", err, sizeof(err)), 0);
	assert_int_equal(gs_pod_attach(&r, getpid(), &slot, err, sizeof(err)), 0);
	uuid[0] = 200;
	/* Every entry belongs to a live process. */
	assert_int_equal(gs_pod_dev_index(&r, slot, uuid, 0), GS_ENOMEM);
	/* One the other process uses is shared, not duplicated. */
	uuid[0] = 3;
	assert_int_equal(gs_pod_dev_index(&r, slot, uuid, 0), 3);
	/* A limit other than the one a live process runs under is refused. */
	uuid[0] = 4;
	assert_int_equal(gs_pod_dev_index(&r, slot, uuid, 100 * MIB), GS_EINVAL);
	assert_int_equal(write(go[1], "x", 1), 1);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(WEXITSTATUS(status), 0);
	/* It exited: the entries only it used are free again; ours (3) stays. */
	uuid[0] = 200;
	i = gs_pod_dev_index(&r, slot, uuid, 0);
	assert_true(i >= 0 && i != 3);
	uuid[0] = 3;
	assert_int_equal(gs_pod_dev_index(&r, slot, uuid, 0), 3);
	/* Alone now, this process may set another limit. */
	assert_int_equal(gs_pod_dev_index(&r, slot, uuid, 100 * MIB), 3);
	assert_int_equal(gs_region_pod(&r)->dev[3].limit_bytes, 100 * MIB);
	gs_region_close(&r);
	close(go[0]);
	close(go[1]);
	close(ready[0]);
	close(ready[1]);
}

/* gs_region_check: deleted, replaced, truncated, zeroed. */
static void test_region_check(void **state)
{
	const char *dir = gs_test_tmpdir();
	char err[512], path[GS_REGION_PATH_MAX];
	struct gs_region r, o;
	uint64_t zero = 0;
	int fd;

	(void)state;
	gs_region_path(path, sizeof(path), dir, GS_REGION_POD, "p");
	assert_int_equal(gs_region_open(&r, dir, GS_REGION_POD, "p", err, sizeof(err)), 0);
	assert_int_equal(gs_region_check(&r, err, sizeof(err)), 0);
	/* Zeroing the epoch alone is seen. */
	fd = open(path, O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, &zero, sizeof(zero), offsetof(struct gs_region_hdr, epoch)),
			 sizeof(zero));
	assert_int_equal(gs_region_check(&r, err, sizeof(err)), GS_ESCHEMA);
	assert_non_null(strstr(err, "was zeroed or re-initialised"));
	/* Truncated: seen without touching the mapping (no SIGBUS here). */
	assert_int_equal(ftruncate(fd, 100), 0);
	assert_int_equal(gs_region_check(&r, err, sizeof(err)), GS_ESCHEMA);
	assert_non_null(strstr(err, "was truncated to 100 bytes"));
	close(fd);
	/* Deleted, then made anew by another process: a different file. */
	assert_int_equal(unlink(path), 0);
	assert_int_equal(gs_region_check(&r, err, sizeof(err)), GS_ENOENT);
	assert_non_null(strstr(err, "was deleted or replaced"));
	assert_int_equal(gs_region_open(&o, dir, GS_REGION_POD, "p", err, sizeof(err)), 0);
	assert_int_equal(gs_region_check(&r, err, sizeof(err)), GS_ENOENT);
	assert_int_equal(gs_region_check(&o, err, sizeof(err)), 0);
	gs_region_close(&o);
	gs_region_close(&r);
}

/*
 * A pod has one set of limits, in its region: the first process (or the
 * pod's setup) writes them, a process may not change them, one without
 * limits of its own takes them, and the setup cannot change them under
 * live processes.
 */
static void test_pod_limits(void **state)
{
	struct gs_pod_limits mine, other;
	struct gs_region r;
	char err[1024], dir[256];
	int slot;

	(void)state;
	snprintf(dir, sizeof(dir), "%s", gs_test_tmpdir());
	assert_int_equal(gs_region_open_existing(&r, dir, GS_REGION_POD, "p", err, sizeof(err)),
			 GS_ENOENT);
	assert_non_null(strstr(err, "gpushare.pod.p"));
	assert_int_equal(gs_region_open(&r, dir, GS_REGION_POD, "p", err, sizeof(err)), 0);
	memset(&mine, 0, sizeof(mine));
	/* Nothing written yet, and nothing to write: no limits. */
	assert_int_equal(gs_pod_limits_settle(&r, &mine, 0, 0, -1, err, sizeof(err)), GS_ENOENT);
	mine.mem_bytes = 100 * MIB;
	mine.dev_mem_bytes[1] = 50 * MIB;
	mine.compute_pct = 30;
	assert_int_equal(gs_pod_limits_settle(&r, &mine, GS_LIMITS_MEM | GS_LIMITS_COMPUTE, 0, -1,
					      err, sizeof(err)), 0);
	assert_int_equal(mine.by, GS_LIMITS_PROCESS);
	/* Another process asking for more: refused, naming both. */
	other = mine;
	other.mem_bytes = 200 * MIB;
	assert_int_equal(gs_pod_limits_settle(&r, &other, GS_LIMITS_MEM, 0, -1, err, sizeof(err)),
			 GS_EINVAL);
	assert_non_null(strstr(err, "this process asks for the memory limit 200 MiB, device 1: 50 "
				    "MiB, but the pod's is 100 MiB, device 1: 50 MiB (written by "
				    "its first process): refusing to run"));
	/* One with a compute share of its own and no memory limit takes the pod's. */
	memset(&other, 0, sizeof(other));
	other.compute_pct = 30;
	other.ctx_reserve_bytes = 5 * MIB;
	assert_int_equal(gs_pod_limits_settle(&r, &other, GS_LIMITS_COMPUTE, 0, -1, err,
					      sizeof(err)), 0);
	assert_int_equal(other.mem_bytes, 100 * MIB);
	assert_int_equal(other.dev_mem_bytes[1], 50 * MIB);
	assert_int_equal(other.ctx_reserve_bytes, 0);
	/* The setup may change them while no other process lives... */
	other = mine;
	other.mem_bytes = 80 * MIB;
	assert_int_equal(gs_pod_limits_settle(&r, &other, GS_LIMITS_ALL, 1, -1, err, sizeof(err)),
			 0);
	gs_pod_limits_get(&r, &mine);
	assert_int_equal(mine.by, GS_LIMITS_SETUP);
	assert_int_equal(mine.mem_bytes, 80 * MIB);
	/* ...and not under a live one (this process, in a slot). */
	assert_int_equal(gs_pod_attach(&r, getpid(), &slot, err, sizeof(err)), 0);
	other.mem_bytes = 90 * MIB;
	assert_int_equal(gs_pod_limits_settle(&r, &other, GS_LIMITS_ALL, 1, -1, err, sizeof(err)),
			 GS_EEXIST);
	assert_non_null(strstr(err, "setting the pod's memory limit 90 MiB, device 1: 50 MiB, but "
				    "the pod's is 80 MiB, device 1: 50 MiB (set up by "
				    "gpushare-pod): refusing while processes of the pod run"));
	assert_int_equal(gs_pod_limits_settle(&r, &other, GS_LIMITS_ALL, 1, slot, err,
					      sizeof(err)), 0);
	gs_region_close(&r);
}

static void test_node_slots_and_peers(void **state)
{
	const char *dir = gs_test_tmpdir();
	static const uint8_t gpu0[16] = { 0xa }, gpu1[16] = { 0xb };
	struct gs_peer peers[8];
	struct gs_region r;
	char err[512], ch;
	uint32_t gen, gen2, gen3;
	int s0, s1, s2, n, status, go[2], ready[2];
	pid_t pid;

	(void)state;
	assert_int_equal(pipe(go), 0);
	assert_int_equal(pipe(ready), 0);
	assert_int_equal(gs_region_open(&r, dir, GS_REGION_NODE, "n", err, sizeof(err)), 0);
	s0 = gs_node_claim(&r, "a", gpu0, getpid(), 30, 1000, &gen);
	assert_true(s0 >= 0);
	s1 = gs_node_claim(&r, "a", gpu1, getpid(), 30, 1000, &gen2);
	assert_true(s1 >= 0 && s1 != s0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct gs_region c;
		uint32_t g;
		int s;

		close(go[1]);
		if (gs_region_open(&c, dir, GS_REGION_NODE, "n", err, sizeof(err)))
			_exit(3);
		s = gs_node_claim(&c, "b", gpu0, getpid(), 70, 2000, &g);
		if (s < 0 || write(ready[1], &s, sizeof(s)) != sizeof(s) || read(go[0], &ch, 1) != 1)
			_exit(4);
		_exit(0);
	}
	assert_int_equal(read(ready[0], &s2, sizeof(s2)), sizeof(s2));
	assert_true(s2 != s0 && s2 != s1);
	n = gs_node_peers(&r, gpu0, peers, 8);
	assert_int_equal(n, 2);
	assert_string_equal(peers[0].pod_id, "a");
	assert_string_equal(peers[1].pod_id, "b");
	assert_int_equal(peers[1].share_pct, 70);
	assert_int_equal(peers[1].last_active_ns, 2000);
	gs_node_beat(&r, s0, 5000);
	n = gs_node_peers(&r, gpu0, peers, 8);
	assert_int_equal(peers[0].last_active_ns, 5000);

	/* A process that exits stops competing at once, not after the window. */
	assert_int_equal(write(go[1], "x", 1), 1);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(WEXITSTATUS(status), 0);
	n = gs_node_peers(&r, gpu0, peers, 8);
	assert_int_equal(n, 1);
	assert_string_equal(peers[0].pod_id, "a");

	/* Its slot is taken over, with a new generation; ours never are. */
	n = gs_node_claim(&r, "c", gpu1, getpid(), 50, 6000, &gen3);
	assert_int_equal(n, s2);
	assert_true(gs_node_slot_current(&r, s0, gen));
	assert_true(gs_node_slot_current(&r, s1, gen2));
	assert_false(gs_node_slot_current(&r, s2, gen3 - 1));
	gs_region_close(&r);
	close(go[0]);
	close(go[1]);
	close(ready[0]);
	close(ready[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_defaults),
		cmocka_unit_test(test_config_own_variables),
		cmocka_unit_test(test_config_gpushare_plugin),
		cmocka_unit_test(test_config_errors),
		cmocka_unit_test(test_config_given),
		cmocka_unit_test(test_config_context_reserve),
		cmocka_unit_test(test_config_hami),
		cmocka_unit_test(test_config_hami_errors),
		cmocka_unit_test(test_ptrmap_against_reference),
		cmocka_unit_test(test_array_bytes),
		cmocka_unit_test(test_throttle_allowed),
		cmocka_unit_test(test_bucket_long_run_rate),
		cmocka_unit_test(test_bucket_min_sleep_and_burst),
		cmocka_unit_test(test_cost_table),
		GS_TMPDIR_TEST(test_region_shared_between_opens, make_dir),
		GS_TMPDIR_TEST(test_region_missing_directory, make_dir),
		GS_TMPDIR_TEST(test_region_refuses_other_layouts, make_dir),
		GS_TMPDIR_TEST(test_region_robust_mutex, make_dir),
		GS_TMPDIR_TEST(test_pod_reclaims_only_dead, make_dir),
		GS_TMPDIR_TEST(test_pod_device_table, make_dir),
		GS_TMPDIR_TEST(test_region_check, make_dir),
		GS_TMPDIR_TEST(test_pod_limits, make_dir),
		GS_TMPDIR_TEST(test_node_slots_and_peers, make_dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
