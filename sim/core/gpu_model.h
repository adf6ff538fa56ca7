/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gpu_model.h - the table of GPU models a cluster knows: each model's name
 * as traces spell it and its memory per card.
 *
 * gpu_model.c holds the built-in figures and their sources; a JSON cluster
 * file can override or add models. A pod's set of allowed models is a
 * bitmask over the table's indices, hence GS_MAX_MODELS. Plain C, libc only.
 */
#ifndef GS_GPU_MODEL_H
#define GS_GPU_MODEL_H

#include <stdint.h>

#define GS_MAX_MODELS 32      /* distinct GPU models; a pod's model set is a bitmask */
#define GS_MODEL_NAME_MAX 32  /* including the terminating NUL */

/* A GPU model: name as it appears in traces, and memory per card. */
struct gs_gpu_model {
	char name[GS_MODEL_NAME_MAX];
	int64_t mem_mib;
};

/*
 * The model table of one cluster. gs_cluster_init() fills it with the
 * built-in models (see gpu_model.c for the figures and their sources);
 * gs_models_set() overrides or adds one.
 */
struct gs_models {
	int n;
	struct gs_gpu_model m[GS_MAX_MODELS];
};

/* The mask with a bit for each of the first n models (n up to GS_MAX_MODELS). */
static inline uint32_t gs_models_mask(int n)
{
	/* Shifting a 32-bit value by 32 is undefined: the full table is all ones. */
	return n >= GS_MAX_MODELS ? UINT32_MAX : n <= 0 ? 0 : (UINT32_C(1) << n) - 1;
}

/* Fills m with the built-in models only. */
void gs_models_builtin(struct gs_models *m);

/*
 * Looks up a model by name (case-sensitive). Returns its index or -1.
 */
int gs_models_find(const struct gs_models *m, const char *name);

/*
 * Adds a model or overrides the memory of an existing one.
 * Returns its index, GS_ERANGE if the table is full, GS_EINVAL for an empty
 * or too long name or a negative memory size.
 */
int gs_models_set(struct gs_models *m, const char *name, int64_t mem_mib);

/*
 * gpusim's name of the built-in model an NVIDIA device name denotes
 * ("NVIDIA H100 80GB HBM3" -> "H100", "NVIDIA A100-SXM4-80GB" ->
 * "A100-80G", "Tesla V100-SXM2-32GB" -> "V100M32"), or NULL when none
 * does. Static strings.
 */
const char *gs_models_from_device(const char *device);

#endif
