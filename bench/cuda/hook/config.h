/* SPDX-License-Identifier: Apache-2.0 */
/*
 * config.h - the limits of libgpushare, read from the environment.
 *
 * A pod's limits come from our own GPUSHARE_* variables, from HAMi's
 * (CUDA_DEVICE_MEMORY_LIMIT[_<i>], CUDA_DEVICE_SM_LIMIT[_<i>]) or from the
 * gpushare device plugin's (ALIYUN_COM_GPU_MEM_CONTAINER,
 * ALIYUN_COM_GPU_MEM_DEV), in that order of precedence: the first family
 * that sets a memory limit (or a compute share) decides it on every
 * device. HAMi's per-device variables name CUDA ordinals of the process
 * (0 to GS_SHARE_MAX_DEVS - 1) and fall back to the family's global one.
 * bench/cuda/README.md lists every variable. Parsing is strict: a value that does not parse is
 * an error that names the variable and the value, never a silent default,
 * because a typo in a limit would otherwise run a pod without one.
 *
 * A process that sets none of a family's variables has not given that
 * family (given): it takes those limits from its pod (hook_pod.h).
 *
 * This module only reads variables and checks them; it has no state and
 * no dependency beyond libc, so the unit tests call it directly.
 */
#ifndef GS_SHARE_CONFIG_H
#define GS_SHARE_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#define GS_SHARE_ID_MAX 64      /* pod and node ids, including the NUL */
#define GS_SHARE_DIR_MAX 256    /* GPUSHARE_SHM_DIR, including the NUL */
#define GS_SHARE_MAX_DEVS 16    /* per-device variables read: _0 to _15 */

/* The families of limits the variables may give (struct gs_share_config.given). */
enum {
	GS_SHARE_GIVEN_MEM = 1,     /* GPUSHARE_MEM_LIMIT_MIB, HAMi's, the device plugin's */
	GS_SHARE_GIVEN_COMPUTE = 2, /* GPUSHARE_COMPUTE_PERCENT, CUDA_DEVICE_SM_LIMIT* */
	GS_SHARE_GIVEN_RESERVE = 4, /* GPUSHARE_CONTEXT_RESERVE_MIB */
};

enum gs_share_log {
	GS_SHARE_LOG_QUIET = 0, /* errors only */
	GS_SHARE_LOG_WARN = 1,  /* default */
	GS_SHARE_LOG_INFO = 2,
};

struct gs_share_config {
	uint64_t mem_limit_bytes;        /* per device, 0 = no memory limit */
	int compute_pct;                 /* 1..100, 100 = no compute limit */
	/* Per CUDA ordinal, overriding the two above; 0 = as above. */
	uint64_t dev_mem_limit_bytes[GS_SHARE_MAX_DEVS];
	int dev_compute_pct[GS_SHARE_MAX_DEVS];
	char pod_id[GS_SHARE_ID_MAX];    /* names the pod's shared region */
	char node_id[GS_SHARE_ID_MAX];   /* names the node's shared region */
	char shm_dir[GS_SHARE_DIR_MAX];  /* "" = POSIX shm (shm_open) */
	int active_window_ms;            /* a pod that launched within this is competing */
	int log_level;                   /* enum gs_share_log */
	const char *mem_source;          /* which variable set the memory limit, static */
	uint64_t ctx_reserve_bytes;      /* charged per context created, 0 = none */
	unsigned given;                  /* GS_SHARE_GIVEN_* the variables set */
};

/* Looks a variable up; getenv in the library, a table in the tests. */
typedef const char *(*gs_share_getenv_fn)(const char *name);

/*
 * getenv, but HOSTNAME unset reads as the host name (the default pod id):
 * the lookup the library and gpushare-pod give gs_share_config_read. The
 * host name is kept in static storage.
 */
const char *gs_share_config_getenv(const char *name);

/*
 * Fills *cfg from the variables that get() returns. Returns 0, or
 * GS_EINVAL with a one-line message in err naming the variable, its value
 * and what was expected, for example
 * "GPUSHARE_MEM_LIMIT_MIB='12x': not a positive integer (MiB)".
 * *cfg is left untouched on failure.
 */
int gs_share_config_read(struct gs_share_config *cfg, gs_share_getenv_fn get, char *err,
			 size_t err_len);

/* The memory limit on device ordinal (a CUDA ordinal of this process), 0 = none. */
uint64_t gs_share_config_mem_limit(const struct gs_share_config *cfg, int ordinal);

/* True when some device has a memory limit. */
int gs_share_config_mem_limited(const struct gs_share_config *cfg);

/* The compute share on device ordinal, 1..100 (100 = none). */
int gs_share_config_compute_pct(const struct gs_share_config *cfg, int ordinal);

/* True when some device has a compute share below 100. */
int gs_share_config_compute_limited(const struct gs_share_config *cfg);

/* True when the configuration limits neither memory nor compute. */
int gs_share_config_unlimited(const struct gs_share_config *cfg);

#endif
