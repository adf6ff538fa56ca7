/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pod_limits.h - a pod's limits between the variables that give them
 * (config.h) and the pod region that keeps them (region.h), for the
 * library (hook_pod.c) and gpushare-pod alike. libc only.
 */
#ifndef GS_SHARE_POD_LIMITS_H
#define GS_SHARE_POD_LIMITS_H

#include "config.h"
#include "region.h"

/* The limits cfg gives, as the pod region keeps them (l->by unset). */
void gs_pod_limits_from_config(const struct gs_share_config *cfg, struct gs_pod_limits *l);

/* cfg takes from l the families of limits it did not give (cfg->given). */
void gs_pod_limits_to_config(const struct gs_pod_limits *l, struct gs_share_config *cfg);

#endif
