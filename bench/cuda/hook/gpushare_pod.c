/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gpushare_pod.c - gpushare-pod: sets a pod up for libgpushare, as a device
 * plugin or an init container would, by writing the pod's limits into its
 * region (region.h) before any of its processes start. Every process of
 * the pod then finds them there, also one started without the limit
 * variables (a shell opened with kubectl exec, a cron job, an SSH
 * session), and none can change them.
 *
 *   gpushare-pod            write the limits its own variables give
 *   gpushare-pod --show     print the pod's limits and what it uses
 *
 * The variables are the library's (bench/cuda/README.md, "Variables"):
 * the limits, GPUSHARE_POD_ID (default: the host name) and
 * GPUSHARE_SHM_DIR. Exit status: 0; 1 when the region cannot be written
 * or live processes of the pod run under other limits; 2 for bad
 * variables or options, or when they give no limit at all.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "core/error.h"
#include "pod_limits.h"
#include "region.h"

static const char usage[] =
	"usage: gpushare-pod [--show]\n"
	"Writes the limits that GPUSHARE_MEM_LIMIT_MIB, CUDA_DEVICE_MEMORY_LIMIT[_<i>],\n"
	"ALIYUN_COM_GPU_MEM_CONTAINER, GPUSHARE_COMPUTE_PERCENT, CUDA_DEVICE_SM_LIMIT[_<i>]\n"
	"and GPUSHARE_CONTEXT_RESERVE_MIB give into the region of the pod named by\n"
	"GPUSHARE_POD_ID (default: the host name), in GPUSHARE_SHM_DIR (default: POSIX\n"
	"shared memory), where every process of the pod finds them.\n"
	"  --show    print the pod's limits and what its processes use, change nothing\n"
	"  --help    this text\n"
	"Exit status: 0, 1 (cannot write, or live processes of the pod run under other\n"
	"limits), 2 (bad variables or options, or no limit given).\n";

static int show(struct gs_region *r, const char *pod_id)
{
	static const char *const by[] = { "none yet", "written by its first process",
					  "set up by gpushare-pod" };
	struct gs_pod_region *p = gs_region_pod(r);
	struct gs_pod_limits l;
	char text[512];
	int i, live = 0;

	gs_pod_limits_get(r, &l);
	printf("pod %s: %s\n", pod_id, r->path);
	printf("limits: %s\n", by[l.by <= GS_LIMITS_SETUP ? l.by : 0]);
	if (l.by) {
		printf("memory limit: %s\n", gs_pod_limits_text(&l, GS_LIMITS_MEM, text, sizeof(text)));
		printf("compute share: %s\n",
		       gs_pod_limits_text(&l, GS_LIMITS_COMPUTE, text, sizeof(text)));
		printf("context reserve: %s\n",
		       gs_pod_limits_text(&l, GS_LIMITS_RESERVE, text, sizeof(text)));
	}
	if (gs_region_lock(r))
		return 1;
	gs_pod_reclaim_locked(r, -1);
	for (i = 0; i < GS_REGION_MAX_PROCS; i++)
		live += p->proc[i].in_use != 0;
	gs_region_unlock(r);
	for (i = 0; i < GS_REGION_MAX_DEVS; i++) {
		const uint8_t *u = p->dev[i].uuid;

		if (!p->dev[i].in_use)
			continue;
		printf("device GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x: "
		       "used %llu MiB\n",
		       u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12],
		       u[13], u[14], u[15], (unsigned long long)(gs_pod_used(r, i) >> 20));
	}
	printf("processes: %d live\n", live);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = { { "show", no_argument, NULL, 's' },
					      { "help", no_argument, NULL, 'h' },
					      { NULL, 0, NULL, 0 } };
	struct gs_share_config cfg;
	struct gs_pod_limits mine;
	struct gs_region r;
	char err[1024], text[512];
	int c, only_show = 0, rc;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 's') {
			only_show = 1;
		} else if (c == 'h') {
			fputs(usage, stdout);
			return 0;
		} else {
			fputs(usage, stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "gpushare-pod: unexpected argument '%s'\n%s", argv[optind], usage);
		return 2;
	}
	if (gs_share_config_read(&cfg, gs_share_config_getenv, err, sizeof(err))) {
		fprintf(stderr, "gpushare-pod: %s\n", err);
		return 2;
	}
	if (only_show) {
		rc = gs_region_open_existing(&r, cfg.shm_dir, GS_REGION_POD, cfg.pod_id, err,
					     sizeof(err));
		if (rc) {
			fprintf(stderr, "gpushare-pod: %s\n", err);
			return 1;
		}
		rc = show(&r, cfg.pod_id);
		gs_region_close(&r);
		return rc;
	}
	if (!cfg.given) {
		fprintf(stderr, "gpushare-pod: no limit given: set GPUSHARE_MEM_LIMIT_MIB (0 for none), "
			"HAMi's or the device plugin's variables, or GPUSHARE_COMPUTE_PERCENT\n");
		return 2;
	}
	rc = gs_region_open(&r, cfg.shm_dir, GS_REGION_POD, cfg.pod_id, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "gpushare-pod: %s\n", err);
		return 1;
	}
	gs_pod_limits_from_config(&cfg, &mine);
	rc = gs_pod_limits_settle(&r, &mine, GS_LIMITS_ALL, 1, -1, err, sizeof(err));
	if (rc)
		fprintf(stderr, "gpushare-pod: %s\n", err);
	else
		printf("pod %s: memory limit %s, compute share %s, in %s\n", cfg.pod_id,
		       gs_pod_limits_text(&mine, GS_LIMITS_MEM, text, sizeof(text)),
		       gs_pod_limits_text(&mine, GS_LIMITS_COMPUTE, err, sizeof(err)), r.path);
	gs_region_close(&r);
	return rc ? 1 : 0;
}
