/* SPDX-License-Identifier: Apache-2.0 */
/*
 * host.c - the GPUs of this host, found through the CUDA driver API
 * loaded at run time, and the driver's version.
 *
 * The prototypes are declared here rather than taken from cuda.h: the
 * harness must build where only a C compiler is at hand, and these
 * entry points have had the same ABI since CUDA 3.2. The compute mode is
 * read with cuDeviceGetAttribute (what nvidia-smi --query-gpu=compute_mode
 * shows) and never changed.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "core/error.h"

typedef int (*init_fn)(unsigned int);
typedef int (*version_fn)(int *);
typedef int (*count_fn)(int *);
typedef int (*get_fn)(int *, int);
typedef int (*name_fn)(char *, int, int);
typedef int (*mem_fn)(size_t *, int);
typedef int (*uuid_fn)(unsigned char *, int);
typedef int (*attr_fn)(int *, int, int);

#define ATTR_COMPUTE_MODE 20 /* CU_DEVICE_ATTRIBUTE_COMPUTE_MODE */

const char *gs_bench_compute_mode_name(int mode)
{
	switch (mode) {
	case GS_BENCH_CM_DEFAULT: return "Default";
	case GS_BENCH_CM_EXCLUSIVE_THREAD: return "Exclusive_Thread";
	case GS_BENCH_CM_PROHIBITED: return "Prohibited";
	case GS_BENCH_CM_EXCLUSIVE_PROCESS: return "Exclusive_Process";
	default: return "unknown";
	}
}

void gs_bench_driver_version(const char *line, char *out, size_t len)
{
	const char *p = strstr(line, "Kernel Module"), *q;

	snprintf(out, len, "unknown");
	if (!p)
		return;
	/* The open module inserts words ("for x86_64"): skip to the version. */
	for (p += strlen("Kernel Module"); *p && *p != '\n'; p = q) {
		int digits = 0, dots = 0;

		while (*p == ' ' || *p == '\t')
			p++;
		for (q = p; *q && *q != ' ' && *q != '\t' && *q != '\n'; q++) {
			digits += *q >= '0' && *q <= '9';
			dots += *q == '.';
		}
		if (digits && dots && digits + dots == q - p && *p != '.') {
			snprintf(out, len, "%.*s", (int)(q - p), p);
			return;
		}
	}
}

static void read_driver_version(char *out, size_t len)
{
	char line[512];
	FILE *f = fopen("/proc/driver/nvidia/version", "r");

	snprintf(out, len, "unknown");
	if (!f)
		return;
	if (fgets(line, sizeof(line), f))
		gs_bench_driver_version(line, out, len);
	fclose(f);
}

int gs_bench_host_discover(struct gs_bench_host *h, char *err, size_t err_len)
{
	const char *libname;
	void *lib;
	init_fn init;
	version_fn version;
	count_fn count;
	get_fn get;
	name_fn name;
	mem_fn mem;
	uuid_fn uuid;
	attr_fn attr;
	int rc, n = 0, v = 0, i;

	memset(h, 0, sizeof(*h));
	if (gethostname(h->hostname, sizeof(h->hostname) - 1))
		snprintf(h->hostname, sizeof(h->hostname), "unknown");
	read_driver_version(h->driver, sizeof(h->driver));
	/* The variable exists for tests: a driver that is not there. */
	libname = getenv("GPUSIM_BENCH_LIBCUDA");
	if (!libname || !*libname)
		libname = "libcuda.so.1";
	lib = dlopen(libname, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		snprintf(err, err_len, "no CUDA driver (%s): %s", libname, dlerror());
		return GS_ENODEV;
	}
	init = (init_fn)dlsym(lib, "cuInit");
	version = (version_fn)dlsym(lib, "cuDriverGetVersion");
	count = (count_fn)dlsym(lib, "cuDeviceGetCount");
	get = (get_fn)dlsym(lib, "cuDeviceGet");
	name = (name_fn)dlsym(lib, "cuDeviceGetName");
	mem = (mem_fn)dlsym(lib, "cuDeviceTotalMem_v2");
	uuid = (uuid_fn)dlsym(lib, "cuDeviceGetUuid");
	attr = (attr_fn)dlsym(lib, "cuDeviceGetAttribute"); /* optional */
	if (!init || !version || !count || !get || !name || !mem || !uuid) {
		snprintf(err, err_len, "libcuda.so.1 lacks a driver entry point this harness needs");
		dlclose(lib);
		return GS_EIO;
	}
	rc = init(0);
	if (rc) {
		/* 100 = CUDA_ERROR_NO_DEVICE; anything else: a driver that is not usable. */
		snprintf(err, err_len, "cuInit failed with CUDA error %d%s", rc,
			 rc == 100 ? " (no CUDA device)" : "");
		dlclose(lib);
		return GS_ENODEV;
	}
	if (version(&v) == 0)
		snprintf(h->cuda, sizeof(h->cuda), "%d.%d", v / 1000, v % 1000 / 10);
	if (count(&n) || n <= 0) {
		snprintf(err, err_len, "the CUDA driver reports no device");
		dlclose(lib);
		return GS_ENODEV;
	}
	if (n > GS_MAX_GPUS)
		n = GS_MAX_GPUS;
	for (i = 0; i < n; i++) {
		struct gs_bench_gpu *g = &h->gpu[i];
		unsigned char u[16];
		size_t bytes = 0;
		int dev;

		if (get(&dev, i) || name(g->name, (int)sizeof(g->name), dev) || mem(&bytes, dev) ||
		    uuid(u, dev)) {
			snprintf(err, err_len, "cannot query CUDA device %d", i);
			dlclose(lib);
			return GS_EIO;
		}
		g->mem_mib = (int64_t)(bytes >> 20);
		if (!attr || attr(&g->compute_mode, ATTR_COMPUTE_MODE, dev))
			g->compute_mode = GS_BENCH_CM_UNKNOWN;
		snprintf(g->uuid, sizeof(g->uuid),
			 "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
			 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12],
			 u[13], u[14], u[15]);
	}
	h->n_gpus = n;
	/* Keep the driver loaded: unloading it is pointless and sometimes unsafe. */
	return 0;
}
