/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pod_limits.c - a pod's limits between config.h and region.h (pod_limits.h).
 */
#include <stdio.h>
#include <string.h>

#include "pod_limits.h"

_Static_assert((int)GS_SHARE_GIVEN_MEM == (int)GS_LIMITS_MEM &&
		       (int)GS_SHARE_GIVEN_COMPUTE == (int)GS_LIMITS_COMPUTE &&
		       (int)GS_SHARE_GIVEN_RESERVE == (int)GS_LIMITS_RESERVE,
	       "config.h and region.h name the families of limits alike");
_Static_assert(GS_SHARE_MAX_DEVS == GS_REGION_MAX_DEVS, "per-device limits");

void gs_pod_limits_from_config(const struct gs_share_config *cfg, struct gs_pod_limits *l)
{
	int i;

	memset(l, 0, sizeof(*l));
	l->mem_bytes = cfg->mem_limit_bytes;
	l->compute_pct = (uint32_t)cfg->compute_pct;
	l->ctx_reserve_bytes = cfg->ctx_reserve_bytes;
	for (i = 0; i < GS_SHARE_MAX_DEVS; i++) {
		l->dev_mem_bytes[i] = cfg->dev_mem_limit_bytes[i];
		l->dev_compute_pct[i] = (uint32_t)cfg->dev_compute_pct[i];
	}
	snprintf(l->mem_source, sizeof(l->mem_source), "%s", cfg->mem_source);
}

void gs_pod_limits_to_config(const struct gs_pod_limits *l, struct gs_share_config *cfg)
{
	int i;

	if (!(cfg->given & GS_SHARE_GIVEN_MEM)) {
		cfg->mem_limit_bytes = l->mem_bytes;
		for (i = 0; i < GS_SHARE_MAX_DEVS; i++)
			cfg->dev_mem_limit_bytes[i] = l->dev_mem_bytes[i];
		cfg->mem_source = "the pod region";
	}
	if (!(cfg->given & GS_SHARE_GIVEN_COMPUTE)) {
		cfg->compute_pct = (int)l->compute_pct;
		for (i = 0; i < GS_SHARE_MAX_DEVS; i++)
			cfg->dev_compute_pct[i] = (int)l->dev_compute_pct[i];
	}
	if (!(cfg->given & GS_SHARE_GIVEN_RESERVE))
		cfg->ctx_reserve_bytes = l->ctx_reserve_bytes;
}
