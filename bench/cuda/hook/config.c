/* SPDX-License-Identifier: Apache-2.0 */
/*
 * config.c - reads and checks libgpushare's environment variables.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "core/error.h"

#define MIB ((uint64_t)1 << 20)
#define GIB ((uint64_t)1 << 30)

/* Largest limit we accept: 1 PiB per device, far beyond any card. */
#define MAX_LIMIT_MIB ((uint64_t)1 << 30)

/*
 * Parses a whole decimal integer in [lo, hi]. Leading or trailing blanks,
 * signs, suffixes and empty strings are all rejected.
 */
static int parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return GS_EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return GS_EINVAL;
	*out = v;
	return 0;
}

/*
 * Parses a size the way HAMi documents it: an integer of bytes, or one
 * followed by k, m or g (K, M, G), binary units: 4g = 4096m = 4 GiB.
 * Nothing else: no blanks, signs, fractions or "gb". 0 is allowed (HAMi:
 * no limit).
 */
static int parse_size(const char *s, uint64_t *out)
{
	uint64_t v, mul = 1;
	size_t n = s ? strlen(s) : 0;
	char digits[32];

	if (!n || n >= sizeof(digits))
		return GS_EINVAL;
	memcpy(digits, s, n + 1);
	switch (digits[n - 1]) {
	case 'k': case 'K': mul = (uint64_t)1 << 10; break;
	case 'm': case 'M': mul = MIB; break;
	case 'g': case 'G': mul = GIB; break;
	default: break;
	}
	if (mul != 1)
		digits[--n] = 0;
	if (parse_u64(digits, 0, MAX_LIMIT_MIB * MIB / mul, &v))
		return GS_EINVAL;
	*out = v * mul;
	return 0;
}

#define SIZE_WANT "not a size (bytes, or an integer followed by k, m or g, as in 4g or 4096m)"

static int valid_id(const char *s)
{
	size_t n = 0;

	for (; s[n]; n++) {
		char ch = s[n];

		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' || ch == '-'))
			return 0;
	}
	return n > 0 && n < GS_SHARE_ID_MAX && s[0] != '.';
}

static int fail(char *err, size_t err_len, const char *var, const char *val, const char *want)
{
	snprintf(err, err_len, "%s='%s': %s", var, val, want);
	return GS_EINVAL;
}

/*
 * The variable var as an integer from lo to hi (want says so in the
 * message) into *out: 1 when it is set, 0 when unset or empty, GS_EINVAL.
 */
static int read_u64(gs_share_getenv_fn get, const char *var, uint64_t lo, uint64_t hi,
		    const char *want, uint64_t *out, char *err, size_t err_len)
{
	const char *s = get(var);

	if (!s || !*s)
		return 0;
	if (parse_u64(s, lo, hi, out))
		return fail(err, err_len, var, s, want);
	return 1;
}

/* The id the variable var names (checked), or dflt when it is unset, into out. */
static int read_id(gs_share_getenv_fn get, const char *var, const char *dflt,
		   char out[GS_SHARE_ID_MAX], char *err, size_t err_len)
{
	const char *s = get(var);

	if (s && *s && !valid_id(s))
		return fail(err, err_len, var, s,
			    "use 1 to 63 of A-Z a-z 0-9 . _ -, not starting with '.'");
	strcpy(out, s && *s ? s : dflt);
	return 0;
}

/*
 * HAMi's memory variables. Returns 1 when they set a limit on some
 * device, 0 when not, or GS_EINVAL.
 */
static int read_hami_mem(struct gs_share_config *c, gs_share_getenv_fn get, char *err,
			 size_t len)
{
	const char *s = get("CUDA_DEVICE_MEMORY_LIMIT");
	char name[48];
	uint64_t v;
	int i, any = 0;

	if (s && *s) {
		if (parse_size(s, &v))
			return fail(err, len, "CUDA_DEVICE_MEMORY_LIMIT", s, SIZE_WANT);
		c->mem_limit_bytes = v;
		c->given |= GS_SHARE_GIVEN_MEM;
		any = v != 0;
	}
	for (i = 0; i < GS_SHARE_MAX_DEVS; i++) {
		snprintf(name, sizeof(name), "CUDA_DEVICE_MEMORY_LIMIT_%d", i);
		s = get(name);
		if (!s || !*s)
			continue;
		if (parse_size(s, &v))
			return fail(err, len, name, s, SIZE_WANT);
		c->dev_mem_limit_bytes[i] = v;
		c->given |= GS_SHARE_GIVEN_MEM;
		if (v && !any)
			any = 2;
	}
	if (any)
		c->mem_source = any == 1 ? "CUDA_DEVICE_MEMORY_LIMIT" : "CUDA_DEVICE_MEMORY_LIMIT_<i>";
	return any != 0;
}

/* HAMi's SM share, global (i = -1) and per device: 0 and 100 mean none. */
static int read_hami_sm(struct gs_share_config *c, gs_share_getenv_fn get, char *err,
			size_t len)
{
	char name[48];
	uint64_t v;
	int i, rc;

	for (i = -1; i < GS_SHARE_MAX_DEVS; i++) {
		if (i < 0)
			snprintf(name, sizeof(name), "CUDA_DEVICE_SM_LIMIT");
		else
			snprintf(name, sizeof(name), "CUDA_DEVICE_SM_LIMIT_%d", i);
		rc = read_u64(get, name, 0, 100, "not an integer from 0 to 100", &v, err, len);
		if (rc < 0)
			return rc;
		if (!rc)
			continue;
		*(i < 0 ? &c->compute_pct : &c->dev_compute_pct[i]) = v ? (int)v : 100;
		c->given |= GS_SHARE_GIVEN_COMPUTE;
	}
	return 0;
}

static int read_mem(struct gs_share_config *c, gs_share_getenv_fn get, char *err, size_t len)
{
	const char *own = get("GPUSHARE_MEM_LIMIT_MIB");
	const char *ctr = get("ALIYUN_COM_GPU_MEM_CONTAINER");
	const char *dev = get("ALIYUN_COM_GPU_MEM_DEV");
	const char *unit = get("GPUSHARE_MEM_UNIT");
	uint64_t v, dv, unit_bytes = GIB;
	int rc;

	if (own && *own) {
		if (parse_u64(own, 0, MAX_LIMIT_MIB, &v))
			return fail(err, len, "GPUSHARE_MEM_LIMIT_MIB", own,
				    "not an integer of MiB (0 for no limit)");
		c->mem_limit_bytes = v * MIB;
		c->mem_source = "GPUSHARE_MEM_LIMIT_MIB";
		c->given |= GS_SHARE_GIVEN_MEM;
		return 0;
	}
	rc = read_hami_mem(c, get, err, len);
	if (rc)
		return rc < 0 ? rc : 0;
	if (!ctr || !*ctr)
		return 0;
	c->given |= GS_SHARE_GIVEN_MEM;
	/*
	 * The device plugin counts in GiB unless it runs with
	 * --memory-unit=MiB; GPUSHARE_MEM_UNIT says which.
	 */
	if (unit && *unit) {
		if (!strcmp(unit, "MiB"))
			unit_bytes = MIB;
		else if (strcmp(unit, "GiB"))
			return fail(err, len, "GPUSHARE_MEM_UNIT", unit, "expected GiB or MiB");
	}
	if (parse_u64(ctr, 1, unit_bytes == GIB ? MAX_LIMIT_MIB / 1024 : MAX_LIMIT_MIB, &v))
		return fail(err, len, "ALIYUN_COM_GPU_MEM_CONTAINER", ctr,
			    unit_bytes == GIB ? "not a positive integer (GiB)"
					      : "not a positive integer (MiB)");
	if (dev && *dev) {
		if (parse_u64(dev, 1, unit_bytes == GIB ? MAX_LIMIT_MIB / 1024 : MAX_LIMIT_MIB, &dv))
			return fail(err, len, "ALIYUN_COM_GPU_MEM_DEV", dev,
				    "not a positive integer");
		if (v > dv) {
			snprintf(err, len,
				 "ALIYUN_COM_GPU_MEM_CONTAINER='%s' is larger than "
				 "ALIYUN_COM_GPU_MEM_DEV='%s'", ctr, dev);
			return GS_EINVAL;
		}
	}
	c->mem_limit_bytes = v * unit_bytes;
	c->mem_source = "ALIYUN_COM_GPU_MEM_CONTAINER";
	return 0;
}

const char *gs_share_config_getenv(const char *name)
{
	static char host[GS_SHARE_ID_MAX];
	const char *v = getenv(name);

	if (!v && !strcmp(name, "HOSTNAME") && !gethostname(host, sizeof(host) - 1))
		return host;
	return v;
}

int gs_share_config_read(struct gs_share_config *cfg, gs_share_getenv_fn get, char *err,
			 size_t err_len)
{
	struct gs_share_config c;
	const char *s;
	uint64_t v;
	int rc;

	memset(&c, 0, sizeof(c));
	c.compute_pct = 100;
	c.active_window_ms = 100;
	c.log_level = GS_SHARE_LOG_WARN;
	c.mem_source = "none";

	rc = read_mem(&c, get, err, err_len);
	if (rc)
		return rc;

	rc = read_u64(get, "GPUSHARE_COMPUTE_PERCENT", 1, 100, "not an integer from 1 to 100", &v,
		      err, err_len);
	if (rc > 0) {
		c.compute_pct = (int)v;
		c.given |= GS_SHARE_GIVEN_COMPUTE;
	} else if (rc < 0 || (rc = read_hami_sm(&c, get, err, err_len))) {
		return rc;
	}

	/*
	 * Containers of one Kubernetes pod share its UTS namespace, so the
	 * host name is the pod name: a sound default pod id.
	 */
	s = get("HOSTNAME");
	if (read_id(get, "GPUSHARE_POD_ID", s && valid_id(s) ? s : "default", c.pod_id, err,
		    err_len) ||
	    read_id(get, "GPUSHARE_NODE_ID", "node", c.node_id, err, err_len))
		return GS_EINVAL;

	s = get("GPUSHARE_SHM_DIR");
	if (s && *s) {
		if (s[0] != '/' || strlen(s) >= GS_SHARE_DIR_MAX)
			return fail(err, err_len, "GPUSHARE_SHM_DIR", s,
				    "not an absolute path shorter than 256 bytes");
		strcpy(c.shm_dir, s);
	}

	rc = read_u64(get, "GPUSHARE_ACTIVE_WINDOW_MS", 10, 10000, "not an integer from 10 to 10000",
		      &v, err, err_len);
	if (rc < 0)
		return rc;
	if (rc)
		c.active_window_ms = (int)v;

	/*
	 * The driver's own memory of each context (hundreds of MiB on recent
	 * GPUs), which no allocation call shows: charged when one is created.
	 */
	rc = read_u64(get, "GPUSHARE_CONTEXT_RESERVE_MIB", 0, MAX_LIMIT_MIB,
		      "not an integer from 0 to 1073741824 (MiB)", &v, err, err_len);
	if (rc < 0)
		return rc;
	if (rc) {
		c.ctx_reserve_bytes = v * MIB;
		c.given |= GS_SHARE_GIVEN_RESERVE;
	}

	rc = read_u64(get, "GPUSHARE_LOG", 0, 2, "expected 0, 1 or 2", &v, err, err_len);
	if (rc < 0)
		return rc;
	if (rc)
		c.log_level = (int)v;

	*cfg = c;
	return 0;
}

/* A device's own value when it has one, else the value for all devices. */
#define PER_DEVICE(cfg, dev_field, all_field, ordinal)                                  \
	((ordinal) >= 0 && (ordinal) < GS_SHARE_MAX_DEVS && (cfg)->dev_field[ordinal] \
		 ? (cfg)->dev_field[ordinal]                                           \
		 : (cfg)->all_field)

uint64_t gs_share_config_mem_limit(const struct gs_share_config *cfg, int ordinal)
{
	return PER_DEVICE(cfg, dev_mem_limit_bytes, mem_limit_bytes, ordinal);
}

int gs_share_config_compute_pct(const struct gs_share_config *cfg, int ordinal)
{
	return PER_DEVICE(cfg, dev_compute_pct, compute_pct, ordinal);
}

int gs_share_config_mem_limited(const struct gs_share_config *cfg)
{
	int i;

	for (i = 0; i < GS_SHARE_MAX_DEVS; i++)
		if (gs_share_config_mem_limit(cfg, i))
			return 1;
	return 0;
}

int gs_share_config_compute_limited(const struct gs_share_config *cfg)
{
	int i;

	for (i = 0; i < GS_SHARE_MAX_DEVS; i++)
		if (gs_share_config_compute_pct(cfg, i) < 100)
			return 1;
	return 0;
}

int gs_share_config_unlimited(const struct gs_share_config *cfg)
{
	return !gs_share_config_mem_limited(cfg) && !gs_share_config_compute_limited(cfg);
}
