/* SPDX-License-Identifier: Apache-2.0 */
/*
 * interference_export.h - the interference table (io/interference.h) from
 * the benchmark results of a database (`make bench`, `gpusim bench-import`),
 * so a user can replace the built-in priors with measurements of their own
 * GPUs: `gpusim interference export --db DB`.
 */
#ifndef GS_INTERFERENCE_EXPORT_H
#define GS_INTERFERENCE_EXPORT_H

#include <stddef.h>

#include "io/interference.h"
#include "store/results.h"

/*
 * Fills t (emptied first) with one row per sharing mode, GPU model,
 * number of co-located clients and kernel of the bench_slowdown table:
 *   mode        timeslice and mps as measured; hook (the interception
 *               library) as vgpu
 *   gpu_model   gpusim's name of the device (gs_models_from_device()), or
 *               * when it has none (the device is then in the source)
 *   n           the clients sharing the GPU
 *   class       the client kernel (vecadd, mnist, launch): rename them to
 *               the workload classes of your traces
 *   efficiency  n x the mean throughput factor against alone, weighted by
 *               samples over every import and scenario: the harness's
 *               clients each keep a GPU busy on their own, so they need a
 *               whole GPU and their rate is received share x efficiency
 *   source      device, driver, CUDA version, samples and scenarios
 * Returns 0, GS_ENOENT when the database holds no bench results (err says
 * so), GS_EDB or GS_ENOMEM.
 */
int gs_db_interference_export(struct gs_db *db, struct gs_interference *t, char *err,
			      size_t err_len);

#endif
