/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sharing.h - GPU-sharing mechanisms: the mode of a GPU, its settings, and
 * what a pod's request costs the scheduler on such a GPU.
 *
 * Modes (docs/sharing.md has the model in full):
 *   ideal      shares are accounted as requested and sharing costs nothing:
 *              gpusim's behaviour before the sharing model, the default
 *   exclusive  one pod per GPU; a fractional request takes a whole GPU
 *   timeslice  the NVIDIA device plugin's time-slicing: `replicas` pods per
 *              GPU, no memory isolation, busy pods get equal slices of time
 *   mps        NVIDIA MPS: `replicas` clients per GPU, each limited to an
 *              active-thread percentage and a pinned-memory limit
 *   vgpu       gpusim's interception library (HAMi-like): a hard memory
 *              limit and a compute share per pod, capped or elastic, and
 *              how accurately the limiter holds the caps
 *   mig        Multi-Instance GPU: each pod gets an instance (core/mig.h)
 *
 * A mode and its settings are written as a spec, MODE[:KEY=VALUE[;...]]:
 *   ideal | exclusive | timeslice[:replicas=N] |
 *   mps[:replicas=N][;threads=PCT][;pinned_mib=MIB] |
 *   vgpu[:elastic|:capped][;accuracy=FRACTION] |
 *   mig[:layout=PROFILE+PROFILE+...]
 * which is what cluster files, --sharing and the results database use.
 *
 * Plain C, libc only.
 */
#ifndef GS_SHARING_H
#define GS_SHARING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GS_SHARE_MAP(X)     \
	X(DEFAULT, "default") \
	X(IDEAL, "ideal")     \
	X(EXCLUSIVE, "exclusive") \
	X(TIMESLICE, "timeslice") \
	X(MPS, "mps")         \
	X(VGPU, "vgpu")       \
	X(MIG, "mig")

enum gs_share_mode {
#define GS_SHARE_ENUM(name, str) GS_SHARE_##name,
	GS_SHARE_MAP(GS_SHARE_ENUM)
#undef GS_SHARE_ENUM
	GS_SHARE__COUNT
};

#define GS_SHARE_MIXED 0xfe          /* a node whose GPUs differ in mode */
#define GS_SHARE_REPLICAS_MAX 32     /* see gs_share_slot_milli() */
#define GS_SHARE_REPLICAS_DEFAULT 4
#define GS_SHARE_LAYOUT_MAX 96
#define GS_SHARE_SPEC_MAX 160        /* a formatted spec fits in this */

/*
 * A GPU's sharing mode and settings. GS_SHARE_DEFAULT means "not set in
 * the cluster file": the run's --sharing default applies.
 */
struct gs_share_cfg {
	uint8_t mode;        /* enum gs_share_mode */
	uint8_t replicas;    /* timeslice, mps: pods per GPU, 1..32 */
	uint8_t thread_pct;  /* mps: active-thread percentage, 1..100; 0 = 100 / replicas */
	uint8_t elastic;     /* vgpu: 1 = idle share is lent out (default), 0 = capped */
	uint16_t accuracy_milli; /* vgpu: share of the caps the limiter enforces, 0..1000 (1000) */
	int64_t pinned_mib;  /* mps: pinned device memory per client; 0 = card / replicas */
	char layout[GS_SHARE_LAYOUT_MAX]; /* mig: fixed layout, "" = chosen as pods land */
};

/* "timeslice", ...; "unknown" for a bad value. */
const char *gs_share_mode_str(int mode);

/* The mode called name ("default" included), or -1. */
int gs_share_mode_find(const char *name);

/* Fills cfg with mode and that mode's default settings. */
void gs_share_cfg_init(struct gs_share_cfg *cfg, enum gs_share_mode mode);

/*
 * Parses a spec (see the top of this file) into *out. Returns 0, or
 * GS_EINVAL with a message in err naming the bad part and what is allowed.
 * The MIG layout is only checked for syntax here; profiles are checked
 * against a GPU model when a cluster node is given the mode.
 */
int gs_share_parse(const char *spec, struct gs_share_cfg *out, char *err, size_t err_len);

/*
 * Writes cfg as a canonical spec (settings left at their defaults are
 * omitted: "timeslice", "mps:replicas=7;threads=50"). Returns buf.
 */
char *gs_share_format(const struct gs_share_cfg *cfg, char *buf, size_t len);

/* True when a and b are the same mode with the same settings. */
bool gs_share_cfg_equal(const struct gs_share_cfg *a, const struct gs_share_cfg *b);

/*
 * The milli-GPU one replica takes in the scheduler's accounting of a
 * timeslice or MPS GPU with `replicas` replicas: floor(1000 / replicas).
 * For every replicas in 1..GS_SHARE_REPLICAS_MAX exactly `replicas` such
 * slots fit in 1000 and one more does not (tests/test_sharing.c).
 */
int32_t gs_share_slot_milli(int replicas);

/*
 * MPS active-thread share in milli-GPU: cfg's threads, or the device
 * plugin's integer 100 / replicas percent (3 replicas: 330).
 */
int32_t gs_share_mps_thread_milli(const struct gs_share_cfg *cfg);
/* MPS pinned memory in MiB: cfg's setting, or card_mib divided among the replicas. */
int64_t gs_share_mps_pinned_mib(const struct gs_share_cfg *cfg, int64_t card_mib);

#endif
