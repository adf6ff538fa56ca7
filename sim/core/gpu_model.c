/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gpu_model.c - the built-in table of GPU models and its lookups.
 *
 * Memory per card is what the vendor ships, in MiB (GiB x 1024). A cluster
 * file can override any entry or add models (see traces/README.md).
 *
 * The openb trace names two models only by code, G2 and G3 (Weng et al.,
 * ATC 2023, anonymise them). Their memory is unknown; gpusim assumes 16 GiB,
 * the smallest card in the trace. openb pods never ask for GPU memory, so
 * the assumption changes no openb result; it matters only for traces that
 * request gpu_mem_mib on those models, which should override it.
 */
#include <string.h>

#include "core/gpu_model.h"
#include "core/error.h"

static const struct gs_gpu_model builtin[] = {
	{ "T4", 16 * 1024 },
	{ "P100", 16 * 1024 },
	{ "V100M16", 16 * 1024 },
	{ "V100M32", 32 * 1024 },
	{ "A10", 24 * 1024 },
	{ "A100", 40 * 1024 },
	{ "A100-40G", 40 * 1024 },
	{ "A100-80G", 80 * 1024 },
	{ "H100", 80 * 1024 },
	{ "H200", 141 * 1024 },
	{ "G2", 16 * 1024 },  /* openb code, assumption: see above */
	{ "G3", 16 * 1024 },  /* openb code, assumption: see above */
};

void gs_models_builtin(struct gs_models *m)
{
	size_t i;

	memset(m, 0, sizeof(*m));
	for (i = 0; i < sizeof(builtin) / sizeof(builtin[0]); i++)
		m->m[m->n++] = builtin[i];
}

int gs_models_find(const struct gs_models *m, const char *name)
{
	int i;

	for (i = 0; i < m->n; i++)
		if (strcmp(m->m[i].name, name) == 0)
			return i;
	return -1;
}

int gs_models_set(struct gs_models *m, const char *name, int64_t mem_mib)
{
	size_t len = name ? strlen(name) : 0;
	int i;

	if (len == 0 || len >= GS_MODEL_NAME_MAX || mem_mib < 0)
		return GS_EINVAL;
	i = gs_models_find(m, name);
	if (i < 0) {
		if (m->n >= GS_MAX_MODELS)
			return GS_ERANGE;
		i = m->n++;
		memcpy(m->m[i].name, name, len + 1);
	}
	m->m[i].mem_mib = mem_mib;
	return i;
}

const char *gs_models_from_device(const char *device)
{
	if (!device)
		return NULL;
	if (strstr(device, "H200"))
		return "H200";
	if (strstr(device, "H100"))
		return "H100";
	if (strstr(device, "A100"))
		return strstr(device, "80G") ? "A100-80G" : "A100";
	if (strstr(device, "V100"))
		return strstr(device, "32G") ? "V100M32" : "V100M16";
	if (strstr(device, "A10"))
		return "A10";
	if (strstr(device, "P100"))
		return "P100";
	if (strstr(device, "T4"))
		return "T4";
	return NULL;
}
