/* SPDX-License-Identifier: Apache-2.0 */
/*
 * results_fixture.h - finished simulations built by hand, for the results
 * store and `gpusim inspect` tests. struct gs_sim is a plain struct, so the
 * tests fill in outcomes and samples whose stored rows and summary numbers
 * can be worked out on paper, independently of the engine.
 *
 * The cluster (both fixtures):
 *   node 0 "node-a"  64000 milli CPU, 262144 MiB, 4 x V100M16 (16384 MiB)
 *   node 1 "node-b"  32000 milli CPU, 131072 MiB, 2 x T4 (15360 MiB here)
 *   node 2 "node-c"  16000 milli CPU,  65536 MiB, no GPU
 * 6 GPUs, 6000 milli-GPU, 112000 milli CPU, 458752 MiB.
 *
 * rf_build_time(): a time-mode run of 5 pods. Pod i of the arrival order
 * is trace row 4 - i (named "t<row>"):
 *   pod 0  4000 cpu,  8192 MiB, 1 x 500,  running on node 0 GPU 2, t 10..
 *   pod 1  8000 cpu, 16384 MiB, 2 x 1000, T4 only, done on node 1 GPUs 0,1,
 *          arrived 20, started 30, ended 100 (waited 10)
 *   pod 2  2000 cpu,  4096 MiB, 1 x 700 with 8000 MiB, failed: arrived 40,
 *          gave up at 70; 1 node short of cpu, 2 of GPU share
 *   pod 3  1000 cpu,  2048 MiB, no GPU, done on node 2, t 50..60
 *   pod 4   500 cpu,  1024 MiB, 1 x 1000, pending at the end, arrived 70;
 *          1 node with too few GPUs, 2 short of GPU share
 * Samples (t, allocated milli-GPU): (10, 500) (30, 2500) (100, 500)
 * (110, 500); the run ends at t = 110. The event figures (sim.tm), set
 * by hand: arrival window 10..70, makespan 100, busy 90 s; waits 0, 0, 10
 * (mean 3.33, p50 0, p90 = p99 = max 10); completion times 10 and 80
 * (mean 45, p50 10, p90 = p99 = max 80); slowdown mean 4.5, p99 8;
 * pending 0.4 on average, peak 2; GPU allocated 30 % over the arrival
 * window, 35 % over the busy time, peak 41.67 %; 1 pod timed out; offered
 * load 55.5 %.
 *
 * rf_build_inflate(): an inflate-mode run of 2 pods (one placed, one
 * failed) with five samples around arrived = 100 %, fragmentation tracked:
 *   arrived milli  5940  5970  6000  6029  6030
 *   arrived %        99   100   100   100   101   (llround of 99.5 is 100)
 *   allocated      4400  4500  4800  5100  6000
 *   frag milli      200   300   600   900     0
 */
#ifndef GS_RESULTS_FIXTURE_H
#define GS_RESULTS_FIXTURE_H

#include "engine/replay.h"
#include "store/results.h"

#define RF_PODS_PATH "traces/sample/pods.csv"
#define RF_NODES_PATH "traces/sample/nodes.csv"
#define RF_PODS_SHA "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define RF_NODES_SHA "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
#define RF_PARAMS "{\"mode\":\"time\",\"time_scale\":1}"

struct rf_run {
	struct gs_trace trace;
	struct gs_sim sim;
	struct gs_run_info info;
};

/* Builds the fixtures described above; release with rf_release(). */
void rf_build_time(struct rf_run *r);
void rf_build_inflate(struct rf_run *r);
void rf_release(struct rf_run *r);

/* A fresh path for a database under the system temp directory (static buffer). */
const char *rf_temp_db(const char *tag);

#endif
