/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sharing.c - sharing modes and their specs (see sharing.h).
 *
 * The MPS defaults follow the NVIDIA Kubernetes device plugin's MPS
 * sharing, which splits a GPU into `replicas` equal clients: its MPS
 * control daemon (cmd/mps-control-daemon/mps/daemon.go) sets
 * set_default_active_thread_percentage to 100 / replicas and
 * set_default_device_pinned_mem_limit to the card's memory / replicas in
 * MiB, both in integer division (3 replicas: 33 %). The device plugin has no
 * default replica count; gpusim uses 4 for time-slicing and MPS alike (set
 * it with :replicas=N).
 *
 * vgpu's accuracy is how much of its caps an interception limiter enforces
 * (engine/sharing.h): 1 by default, gpusim's own library and HAMi-core with
 * its SM-linear correction step (HAMi-core pull request 317) keep a 30 %
 * cap within a few points; HAMi-core before it gave a 30 % process 46 % of
 * a 188-SM GPU next to a 70 % one (HAMi-core issue 314), accuracy 0.2.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/sharing.h"

static const char *const mode_str[] = {
#define GS_SHARE_STR(name, str) str,
	GS_SHARE_MAP(GS_SHARE_STR)
#undef GS_SHARE_STR
};

const char *gs_share_mode_str(int mode)
{
	if (mode < 0 || mode >= GS_SHARE__COUNT)
		return "unknown";
	return mode_str[mode];
}

int gs_share_mode_find(const char *name)
{
	int i;

	for (i = 0; i < GS_SHARE__COUNT; i++)
		if (strcmp(mode_str[i], name) == 0)
			return i;
	return -1;
}

void gs_share_cfg_init(struct gs_share_cfg *cfg, enum gs_share_mode mode)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->mode = (uint8_t)mode;
	if (mode == GS_SHARE_TIMESLICE || mode == GS_SHARE_MPS)
		cfg->replicas = GS_SHARE_REPLICAS_DEFAULT;
	if (mode == GS_SHARE_VGPU) {
		cfg->elastic = 1; /* bench/cuda's library lends idle share (GaiaGPU-style) */
		cfg->accuracy_milli = 1000;
	}
}

int32_t gs_share_slot_milli(int replicas)
{
	if (replicas < 1)
		replicas = 1;
	return 1000 / replicas;
}

int32_t gs_share_mps_thread_milli(const struct gs_share_cfg *cfg)
{
	if (cfg->thread_pct)
		return cfg->thread_pct * 10;
	return 100 / (cfg->replicas ? cfg->replicas : 1) * 10;
}

int64_t gs_share_mps_pinned_mib(const struct gs_share_cfg *cfg, int64_t card_mib)
{
	if (cfg->pinned_mib)
		return cfg->pinned_mib;
	return card_mib / (cfg->replicas ? cfg->replicas : 1);
}

/* A decimal integer in [min, max], the whole string. */
static bool parse_int(const char *s, long long min, long long max, long long *out)
{
	char *end;
	long long v;

	if (!*s || (*s != '-' && (*s < '0' || *s > '9')))
		return false;
	v = strtoll(s, &end, 10);
	if (*end || v < min || v > max)
		return false;
	*out = v;
	return true;
}

/* Settings each mode takes, for messages. */
/* A decimal fraction in [0, 1] with at most 3 decimals ("0.2", "1", "0.125"), in thousandths. */
static bool parse_fraction_milli(const char *s, long long *out)
{
	long long milli = 0;
	int digits = 0;

	if (s[0] == '1' && (s[1] == '\0' || (s[1] == '.' && strspn(s + 2, "0") == strlen(s + 2)))) {
		*out = 1000;
		return true;
	}
	if (s[0] != '0')
		return false;
	if (s[1] == '\0') {
		*out = 0;
		return true;
	}
	if (s[1] != '.' || s[2] == '\0')
		return false;
	for (s += 2; *s; s++) {
		if (*s < '0' || *s > '9' || ++digits > 3)
			return false;
		milli = milli * 10 + (*s - '0');
	}
	while (digits++ < 3)
		milli *= 10;
	*out = milli;
	return true;
}

static const char *mode_keys(int mode)
{
	switch (mode) {
	case GS_SHARE_TIMESLICE:
		return "replicas=N";
	case GS_SHARE_MPS:
		return "replicas=N, threads=PCT, pinned_mib=MIB";
	case GS_SHARE_VGPU:
		return "capped or elastic, accuracy=FRACTION";
	case GS_SHARE_MIG:
		return "layout=PROFILE+PROFILE+...";
	default:
		return "none";
	}
}

/* The settings of a spec, one bit each, to refuse one given twice. */
enum { SET_REPLICAS = 1, SET_THREADS = 2, SET_PINNED = 4, SET_VGPU = 8, SET_LAYOUT = 16 };

/* The bit of a setting's key ("elastic" and "capped" are one setting), 0 if unknown. */
static unsigned setting_bit(const char *key)
{
	if (strcmp(key, "replicas") == 0)
		return SET_REPLICAS;
	if (strcmp(key, "threads") == 0)
		return SET_THREADS;
	if (strcmp(key, "pinned_mib") == 0)
		return SET_PINNED;
	if (strcmp(key, "capped") == 0 || strcmp(key, "elastic") == 0)
		return SET_VGPU;
	if (strcmp(key, "layout") == 0)
		return SET_LAYOUT;
	return 0;
}

/* Applies one KEY=VALUE (or flag) of a spec to cfg; *seen holds the settings given so far. */
static int apply_setting(struct gs_share_cfg *cfg, const char *spec, char *kv, unsigned *seen,
			 char *err, size_t err_len)
{
	char *eq = strchr(kv, '=');
	const char *key = kv, *val = eq ? eq + 1 : NULL;
	unsigned bit;
	long long v;

	if (eq)
		*eq = '\0';
	bit = setting_bit(key);
	if (bit & *seen) {
		snprintf(err, err_len, "sharing spec '%s': %s is given twice", spec,
			 bit == SET_VGPU ? "elastic/capped" : key);
		return GS_EINVAL;
	}
	*seen |= bit;
	switch (cfg->mode) {
	case GS_SHARE_TIMESLICE:
	case GS_SHARE_MPS:
		if (strcmp(key, "replicas") == 0 && val) {
			if (!parse_int(val, 1, GS_SHARE_REPLICAS_MAX, &v))
				goto bad_value;
			cfg->replicas = (uint8_t)v;
			return 0;
		}
		if (cfg->mode == GS_SHARE_MPS && strcmp(key, "threads") == 0 && val) {
			if (!parse_int(val, 1, 100, &v))
				goto bad_value;
			cfg->thread_pct = (uint8_t)v;
			return 0;
		}
		if (cfg->mode == GS_SHARE_MPS && strcmp(key, "pinned_mib") == 0 && val) {
			if (!parse_int(val, 1, INT64_MAX / 2, &v))
				goto bad_value;
			cfg->pinned_mib = v;
			return 0;
		}
		break;
	case GS_SHARE_VGPU:
		if (!val && (strcmp(key, "capped") == 0 || strcmp(key, "elastic") == 0)) {
			cfg->elastic = key[0] == 'e';
			return 0;
		}
		if (strcmp(key, "accuracy") == 0 && val) {
			if (!parse_fraction_milli(val, &v))
				goto bad_value;
			cfg->accuracy_milli = (uint16_t)v;
			return 0;
		}
		break;
	case GS_SHARE_MIG:
		if (strcmp(key, "layout") == 0 && val) {
			size_t n = strlen(val);

			if (n == 0 || n >= sizeof(cfg->layout) ||
			    strspn(val, "0123456789abcdefghijklmnopqrstuvwxyz.+@") != n)
				goto bad_value;
			memcpy(cfg->layout, val, n + 1);
			return 0;
		}
		break;
	default:
		break;
	}
	snprintf(err, err_len, "sharing spec '%s': '%s' is not a setting of %s (it takes: %s)",
		 spec, key, gs_share_mode_str(cfg->mode), mode_keys(cfg->mode));
	return GS_EINVAL;
bad_value:
	snprintf(err, err_len, "sharing spec '%s': %s='%s' is out of range%s", spec, key, val,
		 strcmp(key, "replicas") == 0 ? " (1 to 32)"
		 : strcmp(key, "threads") == 0 ? " (1 to 100 percent)"
		 : strcmp(key, "accuracy") == 0 ? " (0 to 1, at most 3 decimals)"
		 : strcmp(key, "layout") == 0 ? " (profile names joined by '+')" : "");
	return GS_EINVAL;
}

int gs_share_parse(const char *spec, struct gs_share_cfg *out, char *err, size_t err_len)
{
	char buf[GS_SHARE_SPEC_MAX], *colon, *kv, *next;
	struct gs_share_cfg cfg;
	size_t len = strlen(spec);
	unsigned seen = 0;
	int mode, rc;

	if (len == 0 || len >= sizeof(buf)) {
		snprintf(err, err_len, "sharing spec '%s' is %s", spec, len ? "too long" : "empty");
		return GS_EINVAL;
	}
	memcpy(buf, spec, len + 1);
	colon = strchr(buf, ':');
	if (colon)
		*colon = '\0';
	mode = gs_share_mode_find(buf);
	if (mode < 0 || mode == GS_SHARE_DEFAULT) {
		snprintf(err, err_len,
			 "'%s' is not a sharing mode (ideal, exclusive, timeslice, mps, vgpu, mig)",
			 buf);
		return GS_EINVAL;
	}
	gs_share_cfg_init(&cfg, (enum gs_share_mode)mode);
	if (colon) {
		if (!colon[1]) {
			snprintf(err, err_len, "sharing spec '%s' ends with ':'", spec);
			return GS_EINVAL;
		}
		for (kv = colon + 1; kv; kv = next) {
			next = strchr(kv, ';');
			if (next)
				*next++ = '\0';
			if (!*kv) {
				snprintf(err, err_len, "sharing spec '%s' has an empty setting", spec);
				return GS_EINVAL;
			}
			rc = apply_setting(&cfg, spec, kv, &seen, err, err_len);
			if (rc)
				return rc;
		}
	}
	*out = cfg;
	return 0;
}

char *gs_share_format(const struct gs_share_cfg *cfg, char *buf, size_t len)
{
	size_t used;
	const char *sep = ":";

	if (!len)
		return buf;
	used = (size_t)snprintf(buf, len, "%s", gs_share_mode_str(cfg->mode));
#define ADD(...)                                                                   \
	do {                                                                       \
		if (used < len)                                                    \
			used += (size_t)snprintf(buf + used, len - used, __VA_ARGS__); \
		sep = ";";                                                         \
	} while (0)
	switch (cfg->mode) {
	case GS_SHARE_TIMESLICE:
	case GS_SHARE_MPS:
		if (cfg->replicas != GS_SHARE_REPLICAS_DEFAULT)
			ADD("%sreplicas=%d", sep, cfg->replicas);
		if (cfg->thread_pct)
			ADD("%sthreads=%d", sep, cfg->thread_pct);
		if (cfg->pinned_mib)
			ADD("%spinned_mib=%lld", sep, (long long)cfg->pinned_mib);
		break;
	case GS_SHARE_VGPU:
		if (!cfg->elastic)
			ADD("%scapped", sep);
		if (cfg->accuracy_milli != 1000)
			ADD("%saccuracy=%g", sep, cfg->accuracy_milli / 1000.0);
		break;
	case GS_SHARE_MIG:
		if (cfg->layout[0])
			ADD("%slayout=%s", sep, cfg->layout);
		break;
	default:
		break;
	}
#undef ADD
	return buf;
}

bool gs_share_cfg_equal(const struct gs_share_cfg *a, const struct gs_share_cfg *b)
{
	return a->mode == b->mode && a->replicas == b->replicas &&
	       a->thread_pct == b->thread_pct && a->elastic == b->elastic &&
	       a->pinned_mib == b->pinned_mib && a->accuracy_milli == b->accuracy_milli &&
	       strcmp(a->layout, b->layout) == 0;
}
