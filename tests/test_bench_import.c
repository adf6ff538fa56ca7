/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_bench_import.c - `gpusim bench-import`: a results file of
 * gpusim-bench goes into the bench tables whole or not at all, is not
 * imported twice, and its CSV export holds what the plots need. Bad files
 * are refused with the file, the line and the key named, and leave the
 * database as it was. `gpusim plot` draws the bench figures from such a
 * database, and says which it skipped and why.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include <sqlite3.h>

#include "tmpdir.h"

static char out[8192];

/* The shape of a file gpusim-bench writes (compare tests/test_bench_harness.c). */
static const char good[] =
	"# gpusim-bench results 1\n"
	"host format=1 hostname=gpu1 gpus=1 gpu0_mem_mib=81559 device=\"NVIDIA H100 80GB HBM3\" driver=550.54.15 cuda=12.4\n"
	"run id=c/exclusive/0 scenario=c measure=compute mode=exclusive repeat=0 policy=binpack clients=2 status=ok started=2025-01-02T03:04:05Z duration_s=10 wall_s=25.5 host=gpu1 device=\"NVIDIA H100 80GB HBM3\" driver=550.54.15 cuda=12.4\n"
	"client run=c/exclusive/0 scenario=c mode=exclusive repeat=0 name=p30 kernel=vecadd gpu=0 gpu_milli=300 gpu_mem_mib=2048 colocated=1 status=ok exit=0 check_ok=1 throughput=3000 unit=GB/s wall_s=12.1 alone=3000 factor=1 slowdown=1 share_req=0.300 log=/tmp/x.log d2d_gbps=3100 ratio_d2d=0.967 device=\"NVIDIA H100 80GB HBM3\" driver=550.54.15 cuda=12.4\n"
	"client run=c/exclusive/0 scenario=c mode=exclusive repeat=0 name=p70 kernel=vecadd gpu=0 gpu_milli=700 gpu_mem_mib=2048 colocated=1 status=ok exit=0 check_ok=1 throughput=3000 unit=GB/s wall_s=12.1 alone=3000 factor=1 slowdown=1 share_req=0.700 note=\"a \\\"quoted\\\" value\" device=\"NVIDIA H100 80GB HBM3\" driver=550.54.15 cuda=12.4\n"
	"run id=c/hook/0 scenario=c measure=compute mode=hook repeat=0 policy=binpack clients=2 status=ok started=2025-01-02T03:05:05Z duration_s=10 wall_s=14 host=gpu1 device=\"NVIDIA H100 80GB HBM3\" driver=550.54.15 cuda=12.4\n"
	"client run=c/hook/0 scenario=c mode=hook repeat=0 name=p30 kernel=vecadd gpu=0 gpu_milli=300 gpu_mem_mib=2048 colocated=2 status=ok exit=0 check_ok=1 throughput=930 unit=GB/s wall_s=13 alone=3000 factor=0.31 slowdown=3.2258 share_req=0.300 share=0.3163 device=\"NVIDIA H100 80GB HBM3\" driver=550.54.15 cuda=12.4\n"
	"client run=c/hook/0 scenario=c mode=hook repeat=0 name=p70 kernel=vecadd gpu=0 gpu_milli=700 gpu_mem_mib=2048 colocated=2 status=ok exit=0 check_ok=1 throughput=2010 unit=GB/s wall_s=13 alone=3000 factor=0.67 slowdown=1.4925 share_req=0.700 share=0.6837 device=\"NVIDIA H100 80GB HBM3\" driver=550.54.15 cuda=12.4\n"
	"run id=c/mps/0 scenario=c measure=compute mode=mps repeat=0 policy=binpack clients=2 status=skipped reason=\"nvidia-cuda-mps-control not found in PATH\" started=2025-01-02T03:06:05Z duration_s=10 wall_s=0 host=gpu1 device=\"NVIDIA H100 80GB HBM3\" driver=550.54.15 cuda=12.4\n"
	"slowdown scenario=c kernel=vecadd colocated=2 mode=hook factor=0.49 samples=2 device=\"NVIDIA H100 80GB HBM3\" driver=550.54.15 cuda=12.4\n";

/*
 * What gpusim-bench wrote on the fake driver with tests/fake_client.sh for
 * the clients (test_bench_harness's set-up) for an overhead scenario, a
 * vecadd colocate [2, 4] and the compute scenarios 30/70 and 10/90; kept
 * whole but for a few runs, the clients' seen_* and log keys, and the
 * host and start times. The fake loses 2 % under the hook and gets what
 * MPS or the hook grants it, half the GPU when time-sliced.
 */
#define HW " device=\"Fake GPU\" driver=unknown cuda=13.0\n"
static const char fake[] =
	"# gpusim-bench results 1\n"
	"host format=1 hostname=gpu1 gpus=2 gpu0_mem_mib=16384 gpu1_mem_mib=16384" HW
	"run id=overhead/exclusive/0 scenario=overhead measure=overhead mode=exclusive repeat=0 policy=binpack clients=3 status=ok started=2025-01-02T03:04:05Z duration_s=0.2 wall_s=2.421 host=gpu1" HW
	"client run=overhead/exclusive/0 scenario=overhead mode=exclusive repeat=0 name=v kernel=vecadd gpu=0 gpu_milli=1000 gpu_mem_mib=0 colocated=1 status=ok exit=0 check_ok=1 throughput=1000 unit=ops/s wall_s=0.806 alone=1000 factor=1 slowdown=1 share_req=1.000" HW
	"client run=overhead/exclusive/0 scenario=overhead mode=exclusive repeat=0 name=m kernel=mnist gpu=0 gpu_milli=1000 gpu_mem_mib=0 colocated=1 status=ok exit=0 check_ok=1 throughput=1000 unit=ops/s wall_s=0.807 alone=1000 factor=1 slowdown=1 share_req=1.000" HW
	"client run=overhead/exclusive/0 scenario=overhead mode=exclusive repeat=0 name=l kernel=launch gpu=0 gpu_milli=1000 gpu_mem_mib=0 colocated=1 status=ok exit=0 check_ok=1 throughput=1000 unit=ops/s wall_s=0.807 alone=1000 factor=1 slowdown=1 share_req=1.000" HW
	"run id=overhead/mps/0 scenario=overhead measure=overhead mode=mps repeat=0 policy=binpack clients=3 status=ok started=2025-01-02T03:04:05Z duration_s=0.2 wall_s=2.424 host=gpu1" HW
	"client run=overhead/mps/0 scenario=overhead mode=mps repeat=0 name=v kernel=vecadd gpu=0 gpu_milli=1000 gpu_mem_mib=0 colocated=1 status=ok exit=0 check_ok=1 throughput=1000 unit=ops/s wall_s=0.807 alone=1000 factor=1 slowdown=1 share_req=1.000 overhead_pct=0" HW
	"client run=overhead/mps/0 scenario=overhead mode=mps repeat=0 name=m kernel=mnist gpu=0 gpu_milli=1000 gpu_mem_mib=0 colocated=1 status=ok exit=0 check_ok=1 throughput=1000 unit=ops/s wall_s=0.807 alone=1000 factor=1 slowdown=1 share_req=1.000 overhead_pct=0" HW
	"client run=overhead/mps/0 scenario=overhead mode=mps repeat=0 name=l kernel=launch gpu=0 gpu_milli=1000 gpu_mem_mib=0 colocated=1 status=ok exit=0 check_ok=1 throughput=1000 unit=ops/s wall_s=0.806 alone=1000 factor=1 slowdown=1 share_req=1.000 overhead_pct=0" HW
	"run id=overhead/hook/0 scenario=overhead measure=overhead mode=hook repeat=0 policy=binpack clients=3 status=ok started=2025-01-02T03:04:05Z duration_s=0.2 wall_s=2.423 host=gpu1" HW
	"client run=overhead/hook/0 scenario=overhead mode=hook repeat=0 name=v kernel=vecadd gpu=0 gpu_milli=1000 gpu_mem_mib=0 colocated=1 status=ok exit=0 check_ok=1 throughput=980 unit=ops/s wall_s=0.807 alone=1000 factor=0.98 slowdown=1.0204 share_req=1.000 overhead_pct=2" HW
	"client run=overhead/hook/0 scenario=overhead mode=hook repeat=0 name=m kernel=mnist gpu=0 gpu_milli=1000 gpu_mem_mib=0 colocated=1 status=ok exit=0 check_ok=1 throughput=980 unit=ops/s wall_s=0.808 alone=1000 factor=0.98 slowdown=1.0204 share_req=1.000 overhead_pct=2" HW
	"client run=overhead/hook/0 scenario=overhead mode=hook repeat=0 name=l kernel=launch gpu=0 gpu_milli=1000 gpu_mem_mib=0 colocated=1 status=ok exit=0 check_ok=1 throughput=980 unit=ops/s wall_s=0.807 alone=1000 factor=0.98 slowdown=1.0204 share_req=1.000 overhead_pct=2" HW
	"slowdown scenario=overhead kernel=vecadd colocated=1 mode=mps factor=1.00000 samples=1" HW
	"slowdown scenario=overhead kernel=mnist colocated=1 mode=mps factor=1.00000 samples=1" HW
	"slowdown scenario=overhead kernel=launch colocated=1 mode=mps factor=1.00000 samples=1" HW
	"slowdown scenario=overhead kernel=vecadd colocated=1 mode=hook factor=0.98000 samples=1" HW
	"slowdown scenario=overhead kernel=mnist colocated=1 mode=hook factor=0.98000 samples=1" HW
	"slowdown scenario=overhead kernel=launch colocated=1 mode=hook factor=0.98000 samples=1" HW
	"run id=interference-vecadd-x2/exclusive/0 scenario=interference-vecadd-x2 measure=interference mode=exclusive repeat=0 policy=binpack clients=2 status=ok started=2025-01-02T03:04:05Z duration_s=0.2 wall_s=1.616 host=gpu1" HW
	"client run=interference-vecadd-x2/exclusive/0 scenario=interference-vecadd-x2 mode=exclusive repeat=0 name=v-1 kernel=vecadd gpu=0 gpu_milli=500 gpu_mem_mib=0 colocated=1 status=ok exit=0 check_ok=1 throughput=1000 unit=ops/s wall_s=0.807 alone=1000 factor=1 slowdown=1 share_req=0.500" HW
	"client run=interference-vecadd-x2/exclusive/0 scenario=interference-vecadd-x2 mode=exclusive repeat=0 name=v-2 kernel=vecadd gpu=0 gpu_milli=500 gpu_mem_mib=0 colocated=1 status=ok exit=0 check_ok=1 throughput=1000 unit=ops/s wall_s=0.808 alone=1000 factor=1 slowdown=1 share_req=0.500" HW
	"run id=interference-vecadd-x2/timeslice/0 scenario=interference-vecadd-x2 measure=interference mode=timeslice repeat=0 policy=binpack clients=2 status=ok started=2025-01-02T03:04:05Z duration_s=0.2 wall_s=1.057 host=gpu1" HW
	"client run=interference-vecadd-x2/timeslice/0 scenario=interference-vecadd-x2 mode=timeslice repeat=0 name=v-1 kernel=vecadd gpu=0 gpu_milli=500 gpu_mem_mib=0 colocated=2 status=ok exit=0 check_ok=1 throughput=500 unit=ops/s wall_s=1.056 alone=1000 factor=0.5 slowdown=2 share_req=0.500 share=0.5" HW
	"client run=interference-vecadd-x2/timeslice/0 scenario=interference-vecadd-x2 mode=timeslice repeat=0 name=v-2 kernel=vecadd gpu=0 gpu_milli=500 gpu_mem_mib=0 colocated=2 status=ok exit=0 check_ok=1 throughput=500 unit=ops/s wall_s=1.056 alone=1000 factor=0.5 slowdown=2 share_req=0.500 share=0.5" HW
	"run id=interference-vecadd-x2/hook/0 scenario=interference-vecadd-x2 measure=interference mode=hook repeat=0 policy=binpack clients=2 status=ok started=2025-01-02T03:04:05Z duration_s=0.2 wall_s=1.060 host=gpu1" HW
	"client run=interference-vecadd-x2/hook/0 scenario=interference-vecadd-x2 mode=hook repeat=0 name=v-1 kernel=vecadd gpu=0 gpu_milli=500 gpu_mem_mib=0 colocated=2 status=ok exit=0 check_ok=1 throughput=490 unit=ops/s wall_s=1.059 alone=1000 factor=0.49 slowdown=2.0408 share_req=0.500 share=0.5" HW
	"client run=interference-vecadd-x2/hook/0 scenario=interference-vecadd-x2 mode=hook repeat=0 name=v-2 kernel=vecadd gpu=0 gpu_milli=500 gpu_mem_mib=0 colocated=2 status=ok exit=0 check_ok=1 throughput=490 unit=ops/s wall_s=1.059 alone=1000 factor=0.49 slowdown=2.0408 share_req=0.500 share=0.5" HW
	"slowdown scenario=interference-vecadd-x2 kernel=vecadd colocated=2 mode=timeslice factor=0.50000 samples=2" HW
	"slowdown scenario=interference-vecadd-x2 kernel=vecadd colocated=2 mode=hook factor=0.49000 samples=2" HW
	"run id=interference-vecadd-x4/exclusive/0 scenario=interference-vecadd-x4 measure=interference mode=exclusive repeat=0 policy=binpack clients=4 status=ok started=2025-01-02T03:04:05Z duration_s=0.2 wall_s=3.252 host=gpu1" HW
	"client run=interference-vecadd-x4/exclusive/0 scenario=interference-vecadd-x4 mode=exclusive repeat=0 name=v-1 kernel=vecadd gpu=0 gpu_milli=250 gpu_mem_mib=0 colocated=1 status=ok exit=0 check_ok=1 throughput=1000 unit=ops/s wall_s=0.807 alone=1000 factor=1 slowdown=1 share_req=0.250" HW
	"client run=interference-vecadd-x4/exclusive/0 scenario=interference-vecadd-x4 mode=exclusive repeat=0 name=v-2 kernel=vecadd gpu=0 gpu_milli=250 gpu_mem_mib=0 colocated=1 status=ok exit=0 check_ok=1 throughput=1000 unit=ops/s wall_s=0.809 alone=1000 factor=1 slowdown=1 share_req=0.250" HW
	"client run=interference-vecadd-x4/exclusive/0 scenario=interference-vecadd-x4 mode=exclusive repeat=0 name=v-3 kernel=vecadd gpu=0 gpu_milli=250 gpu_mem_mib=0 colocated=1 status=ok exit=0 check_ok=1 throughput=1000 unit=ops/s wall_s=0.813 alone=1000 factor=1 slowdown=1 share_req=0.250" HW
	"client run=interference-vecadd-x4/exclusive/0 scenario=interference-vecadd-x4 mode=exclusive repeat=0 name=v-4 kernel=vecadd gpu=0 gpu_milli=250 gpu_mem_mib=0 colocated=1 status=ok exit=0 check_ok=1 throughput=1000 unit=ops/s wall_s=0.821 alone=1000 factor=1 slowdown=1 share_req=0.250" HW
	"run id=interference-vecadd-x4/timeslice/0 scenario=interference-vecadd-x4 measure=interference mode=timeslice repeat=0 policy=binpack clients=4 status=ok started=2025-01-02T03:04:05Z duration_s=0.2 wall_s=1.313 host=gpu1" HW
	"client run=interference-vecadd-x4/timeslice/0 scenario=interference-vecadd-x4 mode=timeslice repeat=0 name=v-1 kernel=vecadd gpu=0 gpu_milli=250 gpu_mem_mib=0 colocated=4 status=ok exit=0 check_ok=1 throughput=250 unit=ops/s wall_s=1.312 alone=1000 factor=0.25 slowdown=4 share_req=0.250 share=0.25" HW
	"client run=interference-vecadd-x4/timeslice/0 scenario=interference-vecadd-x4 mode=timeslice repeat=0 name=v-2 kernel=vecadd gpu=0 gpu_milli=250 gpu_mem_mib=0 colocated=4 status=ok exit=0 check_ok=1 throughput=250 unit=ops/s wall_s=1.312 alone=1000 factor=0.25 slowdown=4 share_req=0.250 share=0.25" HW
	"client run=interference-vecadd-x4/timeslice/0 scenario=interference-vecadd-x4 mode=timeslice repeat=0 name=v-3 kernel=vecadd gpu=0 gpu_milli=250 gpu_mem_mib=0 colocated=4 status=ok exit=0 check_ok=1 throughput=250 unit=ops/s wall_s=1.310 alone=1000 factor=0.25 slowdown=4 share_req=0.250 share=0.25" HW
	"client run=interference-vecadd-x4/timeslice/0 scenario=interference-vecadd-x4 mode=timeslice repeat=0 name=v-4 kernel=vecadd gpu=0 gpu_milli=250 gpu_mem_mib=0 colocated=4 status=ok exit=0 check_ok=1 throughput=250 unit=ops/s wall_s=1.310 alone=1000 factor=0.25 slowdown=4 share_req=0.250 share=0.25" HW
	"run id=interference-vecadd-x4/hook/0 scenario=interference-vecadd-x4 measure=interference mode=hook repeat=0 policy=binpack clients=4 status=ok started=2025-01-02T03:04:05Z duration_s=0.2 wall_s=1.313 host=gpu1" HW
	"client run=interference-vecadd-x4/hook/0 scenario=interference-vecadd-x4 mode=hook repeat=0 name=v-1 kernel=vecadd gpu=0 gpu_milli=250 gpu_mem_mib=0 colocated=4 status=ok exit=0 check_ok=1 throughput=245 unit=ops/s wall_s=1.312 alone=1000 factor=0.245 slowdown=4.0816 share_req=0.250 share=0.25" HW
	"client run=interference-vecadd-x4/hook/0 scenario=interference-vecadd-x4 mode=hook repeat=0 name=v-2 kernel=vecadd gpu=0 gpu_milli=250 gpu_mem_mib=0 colocated=4 status=ok exit=0 check_ok=1 throughput=245 unit=ops/s wall_s=1.312 alone=1000 factor=0.245 slowdown=4.0816 share_req=0.250 share=0.25" HW
	"client run=interference-vecadd-x4/hook/0 scenario=interference-vecadd-x4 mode=hook repeat=0 name=v-3 kernel=vecadd gpu=0 gpu_milli=250 gpu_mem_mib=0 colocated=4 status=ok exit=0 check_ok=1 throughput=245 unit=ops/s wall_s=1.312 alone=1000 factor=0.245 slowdown=4.0816 share_req=0.250 share=0.25" HW
	"client run=interference-vecadd-x4/hook/0 scenario=interference-vecadd-x4 mode=hook repeat=0 name=v-4 kernel=vecadd gpu=0 gpu_milli=250 gpu_mem_mib=0 colocated=4 status=ok exit=0 check_ok=1 throughput=245 unit=ops/s wall_s=1.312 alone=1000 factor=0.245 slowdown=4.0816 share_req=0.250 share=0.25" HW
	"slowdown scenario=interference-vecadd-x4 kernel=vecadd colocated=4 mode=timeslice factor=0.25000 samples=4" HW
	"slowdown scenario=interference-vecadd-x4 kernel=vecadd colocated=4 mode=hook factor=0.24500 samples=4" HW
	"run id=compute-30-70/exclusive/0 scenario=compute-30-70 measure=compute mode=exclusive repeat=0 policy=binpack clients=2 status=ok started=2025-01-02T03:04:05Z duration_s=0.2 wall_s=1.616 host=gpu1" HW
	"client run=compute-30-70/exclusive/0 scenario=compute-30-70 mode=exclusive repeat=0 name=p30 kernel=vecadd gpu=0 gpu_milli=300 gpu_mem_mib=2048 colocated=1 status=ok exit=0 check_ok=1 throughput=1000 unit=ops/s wall_s=0.808 alone=1000 factor=1 slowdown=1 share_req=0.300" HW
	"client run=compute-30-70/exclusive/0 scenario=compute-30-70 mode=exclusive repeat=0 name=p70 kernel=vecadd gpu=0 gpu_milli=700 gpu_mem_mib=2048 colocated=1 status=ok exit=0 check_ok=1 throughput=1000 unit=ops/s wall_s=0.807 alone=1000 factor=1 slowdown=1 share_req=0.700" HW
	"run id=compute-30-70/timeslice/0 scenario=compute-30-70 measure=compute mode=timeslice repeat=0 policy=binpack clients=2 status=ok started=2025-01-02T03:04:05Z duration_s=0.2 wall_s=1.058 host=gpu1" HW
	"client run=compute-30-70/timeslice/0 scenario=compute-30-70 mode=timeslice repeat=0 name=p30 kernel=vecadd gpu=0 gpu_milli=300 gpu_mem_mib=2048 colocated=2 status=ok exit=0 check_ok=1 throughput=500 unit=ops/s wall_s=1.058 alone=1000 factor=0.5 slowdown=2 share_req=0.300 share=0.5" HW
	"client run=compute-30-70/timeslice/0 scenario=compute-30-70 mode=timeslice repeat=0 name=p70 kernel=vecadd gpu=0 gpu_milli=700 gpu_mem_mib=2048 colocated=2 status=ok exit=0 check_ok=1 throughput=500 unit=ops/s wall_s=1.058 alone=1000 factor=0.5 slowdown=2 share_req=0.700 share=0.5" HW
	"run id=compute-30-70/mps/0 scenario=compute-30-70 measure=compute mode=mps repeat=0 policy=binpack clients=2 status=ok started=2025-01-02T03:04:05Z duration_s=0.2 wall_s=1.060 host=gpu1" HW
	"client run=compute-30-70/mps/0 scenario=compute-30-70 mode=mps repeat=0 name=p30 kernel=vecadd gpu=0 gpu_milli=300 gpu_mem_mib=2048 colocated=2 status=ok exit=0 check_ok=1 throughput=300 unit=ops/s wall_s=1.057 alone=1000 factor=0.3 slowdown=3.3333 share_req=0.300 share=0.3" HW
	"client run=compute-30-70/mps/0 scenario=compute-30-70 mode=mps repeat=0 name=p70 kernel=vecadd gpu=0 gpu_milli=700 gpu_mem_mib=2048 colocated=2 status=ok exit=0 check_ok=1 throughput=700 unit=ops/s wall_s=1.057 alone=1000 factor=0.7 slowdown=1.4286 share_req=0.700 share=0.7" HW
	"run id=compute-30-70/hook/0 scenario=compute-30-70 measure=compute mode=hook repeat=0 policy=binpack clients=2 status=ok started=2025-01-02T03:04:05Z duration_s=0.2 wall_s=1.059 host=gpu1" HW
	"client run=compute-30-70/hook/0 scenario=compute-30-70 mode=hook repeat=0 name=p30 kernel=vecadd gpu=0 gpu_milli=300 gpu_mem_mib=2048 colocated=2 status=ok exit=0 check_ok=1 throughput=294 unit=ops/s wall_s=1.058 alone=1000 factor=0.294 slowdown=3.4014 share_req=0.300 share=0.3" HW
	"client run=compute-30-70/hook/0 scenario=compute-30-70 mode=hook repeat=0 name=p70 kernel=vecadd gpu=0 gpu_milli=700 gpu_mem_mib=2048 colocated=2 status=ok exit=0 check_ok=1 throughput=686 unit=ops/s wall_s=1.058 alone=1000 factor=0.686 slowdown=1.4577 share_req=0.700 share=0.7" HW
	"slowdown scenario=compute-30-70 kernel=vecadd colocated=2 mode=timeslice factor=0.50000 samples=2" HW
	"slowdown scenario=compute-30-70 kernel=vecadd colocated=2 mode=mps factor=0.50000 samples=2" HW
	"slowdown scenario=compute-30-70 kernel=vecadd colocated=2 mode=hook factor=0.49000 samples=2" HW
	"run id=compute-10-90/exclusive/0 scenario=compute-10-90 measure=compute mode=exclusive repeat=0 policy=binpack clients=2 status=ok started=2025-01-02T03:04:05Z duration_s=0.2 wall_s=1.614 host=gpu1" HW
	"client run=compute-10-90/exclusive/0 scenario=compute-10-90 mode=exclusive repeat=0 name=p10 kernel=mnist gpu=0 gpu_milli=100 gpu_mem_mib=1024 colocated=1 status=ok exit=0 check_ok=1 throughput=1000 unit=ops/s wall_s=0.807 alone=1000 factor=1 slowdown=1 share_req=0.100" HW
	"client run=compute-10-90/exclusive/0 scenario=compute-10-90 mode=exclusive repeat=0 name=p90 kernel=mnist gpu=0 gpu_milli=900 gpu_mem_mib=1024 colocated=1 status=ok exit=0 check_ok=1 throughput=1000 unit=ops/s wall_s=0.807 alone=1000 factor=1 slowdown=1 share_req=0.900" HW
	"run id=compute-10-90/hook/0 scenario=compute-10-90 measure=compute mode=hook repeat=0 policy=binpack clients=2 status=ok started=2025-01-02T03:04:05Z duration_s=0.2 wall_s=1.058 host=gpu1" HW
	"client run=compute-10-90/hook/0 scenario=compute-10-90 mode=hook repeat=0 name=p10 kernel=mnist gpu=0 gpu_milli=100 gpu_mem_mib=1024 colocated=2 status=ok exit=0 check_ok=1 throughput=98 unit=ops/s wall_s=1.058 alone=1000 factor=0.098 slowdown=10.204 share_req=0.100 share=0.1" HW
	"client run=compute-10-90/hook/0 scenario=compute-10-90 mode=hook repeat=0 name=p90 kernel=mnist gpu=0 gpu_milli=900 gpu_mem_mib=1024 colocated=2 status=ok exit=0 check_ok=1 throughput=882 unit=ops/s wall_s=1.057 alone=1000 factor=0.882 slowdown=1.1338 share_req=0.900 share=0.9" HW
	"slowdown scenario=compute-10-90 kernel=mnist colocated=2 mode=hook factor=0.49000 samples=2" HW;

static int setup(void **state)
{
	(void)state;
	return gs_test_tmpdir_make("bench-import");
}

/* Runs gpusim with args (relative paths are in dir); output in out. */
static int gpusim(const char *args)
{
	char cmd[1024], path[256];
	size_t n;
	FILE *f;
	int status;

	gs_test_path("out.txt", path, sizeof(path));
	snprintf(cmd, sizeof(cmd), "cd '%s' && '%s' %s >out.txt 2>&1", gs_test_tmpdir(),
		 GS_GPUSIM_BIN, args);
	status = system(cmd);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(out, 1, sizeof(out) - 1, f);
	out[n] = 0;
	fclose(f);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The first column of the first row of sql, as text ("" for NULL or no row). */
static const char *query(const char *sql)
{
	static char buf[1024];
	char path[256];
	sqlite3 *db;
	sqlite3_stmt *st;

	gs_test_path("b.db", path, sizeof(path));
	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	buf[0] = 0;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		snprintf(buf, sizeof(buf), "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_close(db);
	return buf;
}

static void test_import_and_again(void **state)
{
	(void)state;
	gs_test_write("r.txt", good, NULL, 0);
	assert_int_equal(gpusim("bench-import --db b.db r.txt"), 0);
	assert_non_null(strstr(out, "r.txt: 3 runs, 4 client results, 1 slowdown rows into b.db"));
	assert_string_equal(query("SELECT count(*) FROM bench_runs"), "3");
	assert_string_equal(query("SELECT count(*) FROM bench_results"), "4");
	assert_string_equal(query("SELECT count(*) FROM bench_slowdown"), "1");
	assert_string_equal(query("SELECT status || ':' || reason FROM bench_runs WHERE mode = 'mps'"),
			    "skipped:nvidia-cuda-mps-control not found in PATH");
	assert_string_equal(query("SELECT share FROM bench_results r JOIN bench_runs b"
				  " USING (bench_run_id) WHERE b.mode = 'hook' AND r.client = 'p30'"),
			    "0.3163");
	/* Fields of the absent kind are NULL, not 0. */
	assert_string_equal(query("SELECT coalesce(share, 'null') || coalesce(overhead_pct, 'null')"
				  " FROM bench_results WHERE client = 'p30' AND colocated = 1"),
			    "nullnull");
	/* The client's own fields stay, as JSON. */
	assert_string_equal(query("SELECT json_extract(extra_json, '$.ratio_d2d') FROM bench_results"
				  " WHERE client = 'p30' AND colocated = 1"),
			    "0.967");
	assert_string_equal(query("SELECT json_extract(extra_json, '$.note') FROM bench_results"
				  " WHERE client = 'p70' AND colocated = 1"),
			    "a \"quoted\" value");
	assert_string_equal(query("SELECT device || '|' || driver || '|' || cuda FROM bench_slowdown"),
			    "NVIDIA H100 80GB HBM3|550.54.15|12.4");
	assert_string_equal(query("SELECT count(DISTINCT source_sha256) FROM bench_runs"), "1");

	/* The same file again: nothing new. */
	assert_int_equal(gpusim("bench-import --db b.db r.txt"), 0);
	assert_non_null(strstr(out, "r.txt is already in b.db (3 runs); nothing imported"));
	assert_string_equal(query("SELECT count(*) FROM bench_results"), "4");
}

static void test_csv_export(void **state)
{
	char path[256], buf[2048];
	size_t n;
	FILE *f;

	(void)state;
	gs_test_write("r.txt", good, NULL, 0);
	assert_int_equal(gpusim("bench-import --db b.db --csv-dir csv r.txt"), 0);
	gs_test_path("csv/shares.csv", path, sizeof(path));
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	assert_string_equal(buf, "scenario,mode,client,share_req,share,samples,device\n"
				 "c,hook,p30,0.3,0.3163,1,\"NVIDIA H100 80GB HBM3\"\n"
				 "c,hook,p70,0.7,0.6837,1,\"NVIDIA H100 80GB HBM3\"\n");
	gs_test_path("csv/slowdown.csv", path, sizeof(path));
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	assert_string_equal(buf, "kernel,colocated,mode,factor,samples,device\n"
				 "vecadd,2,hook,0.49,2,\"NVIDIA H100 80GB HBM3\"\n");
	gs_test_path("csv/overhead.csv", path, sizeof(path));
	assert_int_equal(access(path, R_OK), 0);
}

/* Fails unless dir/plots/name exists with more than a kilobyte and out names it. */
static void expect_figure(const char *name)
{
	char path[256];
	struct stat sb;

	snprintf(path, sizeof(path), "%s/plots/%s", gs_test_tmpdir(), name);
	if (stat(path, &sb) || sb.st_size < 1000)
		fail_msg("%s: missing or nearly empty; output:\n%s", path, out);
	if (!strstr(out, name))
		fail_msg("output does not list %s:\n%s", name, out);
}

static void expect_no_figure(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/plots/%s", gs_test_tmpdir(), name);
	assert_int_equal(access(path, F_OK), -1);
}

static int have_gnuplot(void)
{
	return system("gnuplot -V >/dev/null 2>&1") == 0;
}

static void test_plot_bench(void **state)
{
	static const char *const figures[] = { "bench_overhead", "bench_slowdown", "bench_shares" };
	char args[512], name[64];
	size_t i;

	(void)state;
	gs_test_write("fake.txt", fake, NULL, 0);
	assert_int_equal(gpusim("bench-import --db b.db --csv-dir csv fake.txt"), 0);
	assert_non_null(strstr(out, "fake.txt: 15 runs, 39 client results, 14 slowdown rows"));
	/* The figures' data: what the fake clients were made to do. */
	assert_string_equal(query("SELECT group_concat(kernel || ':' || mode || ':' || overhead_pct, ' ')"
				  " FROM (SELECT r.kernel, b.mode, avg(r.overhead_pct) overhead_pct"
				  " FROM bench_results r JOIN bench_runs b USING (bench_run_id)"
				  " WHERE r.overhead_pct IS NOT NULL GROUP BY 1, 2 ORDER BY 1, 2)"),
			    "launch:hook:2.0 launch:mps:0.0 mnist:hook:2.0 mnist:mps:0.0"
			    " vecadd:hook:2.0 vecadd:mps:0.0");
	if (!have_gnuplot())
		skip();
	snprintf(args, sizeof(args), "plot --db b.db --out plots --scripts '%s/scripts'",
		 GS_SOURCE_DIR);
	assert_int_equal(gpusim(args), 0);
	for (i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "%s.png", figures[i]);
		expect_figure(name);
		snprintf(name, sizeof(name), "%s.svg", figures[i]);
		expect_figure(name);
	}
	/* No simulator runs in a bench database: skipped, said, not an error. */
	assert_non_null(strstr(out, "gpusim plot: skipped the inflate-mode figures: "));
	assert_non_null(strstr(out, "no complete inflate-mode runs"));
	assert_null(strstr(out, "skipped bench"));
	/* The temporary data files are gone. */
	assert_null(strstr(out, "data files kept"));

	/* Another device's results in the same database: still one set of figures. */
	gs_test_write("r.txt", good, NULL, 0);
	assert_int_equal(gpusim("bench-import --db b.db r.txt"), 0);
	assert_int_equal(gpusim(args), 0);
	expect_figure("bench_shares.png");
	expect_figure("bench_slowdown.svg");
}

static void test_plot_bench_partial(void **state)
{
	char args[512];

	(void)state;
	if (!have_gnuplot())
		skip();
	/* A compute scenario only: no overhead figure, and the reason why. */
	gs_test_write("r.txt", good, NULL, 0);
	assert_int_equal(gpusim("bench-import --db b.db r.txt"), 0);
	snprintf(args, sizeof(args), "plot --db b.db --out plots --scripts '%s/scripts'",
		 GS_SOURCE_DIR);
	assert_int_equal(gpusim(args), 0);
	expect_figure("bench_shares.png");
	expect_figure("bench_slowdown.png");
	expect_no_figure("bench_overhead.png");
	expect_no_figure("bench_overhead.svg");
	assert_non_null(strstr(out, "gpusim plot: skipped bench_overhead: no client ran alone on a GPU"
				    " in a mode other than exclusive (an overhead scenario) in b.db"));
	/* --quiet says nothing at all. */
	snprintf(args, sizeof(args), "plot -q --db b.db --out plots --scripts '%s/scripts'",
		 GS_SOURCE_DIR);
	assert_int_equal(gpusim(args), 0);
	assert_string_equal(out, "");

	/* A database with neither kind of result: nothing to plot is bad input. */
	gs_test_write("empty.txt", "", NULL, 0);
	assert_int_equal(gpusim("bench-import --db e.db empty.txt"), 2);
	assert_int_equal(gpusim("plot --db e.db --out plots2"), 2);
	assert_non_null(strstr(out, "no complete inflate-mode runs with --compat scoring to plot"));
	assert_non_null(strstr(out, "gpusim plot: skipped bench_overhead, bench_slowdown and"
				    " bench_shares: e.db holds no CUDA benchmark results"));
}

/* Replaces the first occurrence of from in good with to. */
static void write_variant(const char *name, const char *from, const char *to)
{
	char buf[sizeof(good) + 256];
	const char *p = strstr(good, from);

	assert_non_null(p);
	snprintf(buf, sizeof(buf), "%.*s%s%s", (int)(p - good), good, to, p + strlen(from));
	gs_test_write(name, buf, NULL, 0);
}

static void expect_refused(const char *name, const char *msg)
{
	char args[256];

	snprintf(args, sizeof(args), "bench-import --db b.db %s", name);
	assert_int_equal(gpusim(args), 2);
	if (!strstr(out, msg))
		fail_msg("output '%s' lacks '%s'", out, msg);
	/* All or nothing: not even the runs before the bad line are stored. */
	assert_string_equal(query("SELECT count(*) FROM bench_runs"), "0");
}

static void test_bad_files(void **state)
{
	(void)state;
	/* Make the database (and its tables) first, with nothing in them. */
	gs_test_write("empty.txt", "", NULL, 0);
	assert_int_equal(gpusim("bench-import --db b.db empty.txt"), 2);
	assert_non_null(strstr(out, "empty.txt:1: empty file; not a gpusim-bench results file"));

	write_variant("v2.txt", "# gpusim-bench results 1", "# gpusim-bench results 2");
	expect_refused("v2.txt", "v2.txt:1: results format 2; this gpusim reads format 1");
	write_variant("other.txt", "# gpusim-bench results 1", "kernel,mode,factor");
	expect_refused("other.txt", "other.txt:1: not a gpusim-bench results file");
	write_variant("gpu.txt", "name=p70 kernel=vecadd gpu=0", "name=p70 kernel=vecadd gpu=x");
	expect_refused("gpu.txt", "gpu.txt:5: client record: gpu='x' is not an integer from 0 to 1023");
	write_variant("miss.txt", " kernel=vecadd gpu=0 gpu_milli=700", " gpu=0 gpu_milli=700");
	expect_refused("miss.txt", "miss.txt:5: client record: missing key 'kernel'");
	write_variant("quote.txt", "note=\"a \\\"quoted\\\" value\"", "note=\"open");
	expect_refused("quote.txt", "quote.txt:5: column ");
	write_variant("type.txt", "slowdown scenario=c", "slow scenario=c");
	expect_refused("type.txt", "type.txt:10: unknown record type 'slow' (host, run, client, slowdown)");
	write_variant("orphan.txt", "client run=c/hook/0 scenario=c mode=hook repeat=0 name=p30",
		      "client run=c/other/0 scenario=c mode=hook repeat=0 name=p30");
	expect_refused("orphan.txt", "orphan.txt:7: client record: run 'c/other/0' has no run record above it");
	write_variant("mode.txt", "mode=hook repeat=0 policy", "mode=vgpu repeat=0 policy");
	expect_refused("mode.txt", "mode.txt:6: run record rejected by the database: CHECK constraint failed");
	write_variant("nan.txt", "throughput=930", "throughput=nan");
	expect_refused("nan.txt", "nan.txt:7: client record: throughput='nan' is not a number");

	assert_int_equal(gpusim("bench-import --db b.db nosuch.txt"), 2);
	assert_non_null(strstr(out, "gpusim bench-import: nosuch.txt: No such file or directory"));
	assert_int_equal(gpusim("bench-import r.txt"), 2);
	assert_non_null(strstr(out, "gpusim bench-import: --db is required"));
}

/*
 * The interference table from the benchmark results, worked out from the
 * two files above: the fake GPU's time-slicing keeps each of n vecadd
 * clients at 1/n (0.5 of 2 clients in two scenarios, 0.25 of 4), so
 * efficiency n x factor = 1; the hook (vgpu) loses 2 %: 0.98 alone, 2 x
 * 0.49 with two. The H100 file's hook pair gives the same for model H100.
 * The exported table is valid and a replay can use it.
 */
static void test_interference_export(void **state)
{
	char path[256], buf[4096];
	size_t n;
	FILE *f;

	(void)state;
	gs_test_write("r.txt", good, NULL, 0);
	gs_test_write("fake.txt", fake, NULL, 0);
	assert_int_equal(gpusim("interference export --db b.db"), 2);
	assert_non_null(strstr(out, "no benchmark slowdown results"));
	assert_int_equal(gpusim("bench-import --db b.db r.txt"), 0);
	assert_int_equal(gpusim("bench-import --db b.db fake.txt"), 0);
	assert_int_equal(gpusim("interference export --db b.db --out t.csv"), 0);
	gs_test_path("t.csv", path, sizeof(path));
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	assert_non_null(strstr(buf, "mode,gpu_model,n,class,efficiency,source\n"
				    "vgpu,*,1,launch,0.98,make bench on Fake GPU (driver unknown; "
				    "CUDA 13.0): 1 x the mean throughput factor 0.9800 against alone "
				    "of 1 clients over 1 scenarios\n"));
	assert_non_null(strstr(buf, "\nvgpu,*,2,vecadd,0.98,"));
	assert_non_null(strstr(buf, "\nvgpu,H100,2,vecadd,0.98,make bench on NVIDIA H100 80GB "
				    "HBM3 (driver 550.54.15; CUDA 12.4): 2 x the mean throughput "
				    "factor 0.4900 against alone of 2 clients over 1 scenarios\n"));
	assert_non_null(strstr(buf, "\nmps,*,1,mnist,1,"));
	assert_non_null(strstr(buf, "\nmps,*,2,vecadd,1,"));
	assert_non_null(strstr(buf, "\ntimeslice,*,2,vecadd,1,make bench on Fake GPU "
				    "(driver unknown; CUDA 13.0): 2 x the mean throughput factor 0.5000 "
				    "against alone of 4 clients over 2 scenarios\n"));
	assert_non_null(strstr(buf, "\ntimeslice,*,4,vecadd,1,"));
	assert_int_equal(gpusim("interference check t.csv"), 0);
	assert_non_null(strstr(out, "t.csv: 13 rows, valid"));
	/* The built-in table, and a broken one. */
	assert_int_equal(gpusim("interference show --out d.csv"), 0);
	assert_int_equal(gpusim("interference check d.csv"), 0);
	/* Every figure as the built-in table has it: no digit lost on the way out. */
	gs_test_path("d.csv", path, sizeof(path));
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	assert_non_null(strstr(buf, "\nvgpu,*,1,*,0.98985,GaiaGPU"));
	assert_non_null(strstr(buf, "\ntimeslice,*,3,*,0.9021,nos"));
	gs_test_write("bad.csv", "mode,gpu_model,n,class,efficiency,source\nmps,*,two,*,1,x\n",
		      NULL, 0);
	assert_int_equal(gpusim("interference check bad.csv"), 2);
	assert_non_null(strstr(out, "bad.csv:2: column n: 'two' is not a decimal number"));
	assert_int_equal(gpusim("interference sing"), 2);
	assert_non_null(strstr(out, "'sing' is not a verb"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		GS_TMPDIR_TEST(test_import_and_again, setup),
		GS_TMPDIR_TEST(test_csv_export, setup),
		GS_TMPDIR_TEST(test_bad_files, setup),
		GS_TMPDIR_TEST(test_plot_bench, setup),
		GS_TMPDIR_TEST(test_plot_bench_partial, setup),
		GS_TMPDIR_TEST(test_interference_export, setup),
	};

	if (access(GS_GPUSIM_BIN, X_OK) != 0) {
		fprintf(stderr, "%s is not built\n", GS_GPUSIM_BIN);
		return 1;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
