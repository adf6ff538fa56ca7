#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# scale_spec.sh - writes a `gpusim gen` spec for the scale benchmark
# (bench/sim/scale.sh): a cluster of NODES nodes in openb's GPU node mix and
# PODS pods in openb's default request mix, arriving as a Poisson process at
# a rate that offers LOAD x the cluster's GPU capacity (3 by default: a
# sustained overload, so a pending queue builds up and stays).
#
#   bench/sim/scale_spec.sh NODES PODS [LOAD] > spec.json
#
# Node groups: the 11 commonest node shapes of openb_node_list_gpu_node.csv
# with their shares of its 1213 nodes (the remainder goes to the largest
# group). Pod shapes: the 58 request shapes of openb_pod_list_default.csv
# seen at least 12 times (96% of its pods, 14% CPU-only), weighted by their
# counts. Durations are lognormal, median 600 s, sigma 1.0, clamped to
# 10 s .. 2 days; openb's default trace has a median of 540 s.
#
# Environment, for a cluster of one node shape over a long span (the
# month of a 100,000-GPU cluster in docs/performance.md):
#   SCALE_NODE  "NAME CPU_MILLI MEMORY_MIB NUM_GPU MODEL": every node alike
#               (then NODES may be below 11)
#   SCALE_DAYS  the pods arrive over this many days: the arrival rate is
#               PODS over that span, and the durations' median is what
#               offers LOAD x the GPU capacity at that rate (the clamp
#               becomes 10 s .. SCALE_DAYS days)
set -eu

if [ $# -lt 2 ] || [ $# -gt 3 ]; then
	echo "usage: scale_spec.sh NODES PODS [LOAD]" >&2
	exit 2
fi
exec awk -v nodes="$1" -v pods="$2" -v load="${3:-3}" -v shape="${SCALE_NODE:-}" \
	-v days="${SCALE_DAYS:-0}" '
BEGIN {
	if (nodes < (shape == "" ? 11 : 1) || pods < 1 || load <= 0 || days < 0) {
		print "scale_spec.sh: need NODES >= 11 (1 with SCALE_NODE), PODS >= 1, LOAD > 0, " \
		      "SCALE_DAYS >= 0" > "/dev/stderr"
		exit 2
	}
	# share-of-1213, name, cpu_milli, memory_mib, num_gpu, model
	nt = split("549 g2x8 96000 393216 8 G2|387 t4x2 104000 524288 2 T4|" \
		   "107 p100x2s 16000 122880 2 P100|39 g3x8 128000 786432 8 G3|" \
		   "28 v100m16x4 32000 131072 4 V100M16|22 p100x2 64000 262144 2 P100|" \
		   "21 v100m32x8 96000 786432 8 V100M32|19 v100m16x1 8000 32768 1 V100M16|" \
		   "17 t4x4 96000 393216 4 T4|9 v100m32x4 48000 376832 4 V100M32|" \
		   "7 v100m16x8 64000 262144 8 V100M16", nd, "|")
	if (shape != "")
		nt = split("1 " shape, nd, "|")
	total = 0
	for (i = 1; i <= nt; i++) total += (split(nd[i], f, " ") ? f[1] : 0)
	left = nodes; gpus = 0
	for (i = nt; i >= 1; i--) {
		split(nd[i], f, " ")
		cnt[i] = (i == 1) ? left : int(nodes * f[1] / total + 0.5)
		if (cnt[i] < 1) cnt[i] = 1
		left -= (i == 1) ? 0 : cnt[i]
		gpus += cnt[i] * f[5]
	}
	# count, cpu_milli, memory_mib, num_gpu, gpu_milli
	ns = split("1047 3152 5600 1 810|857 11300 49152 1 1000|534 11400 48128 1 1000|" \
		   "470 3152 5600 1 1000|388 11908 47104 1 470|364 12500 57344 0 0|" \
		   "360 8000 30517 1 470|284 32000 49152 0 0|255 18708 64512 1 1000|" \
		   "237 11908 47104 1 650|195 9810 41560 1 1000|163 8000 30517 0 0|" \
		   "158 15700 58368 1 1000|158 12000 24576 1 1000|153 11908 47104 1 1000|" \
		   "120 15400 51200 0 0|111 4000 22888 1 320|108 16000 32768 1 1000|" \
		   "104 8000 16384 1 1000|104 4000 24576 1 1000|99 12000 16384 1 1000|" \
		   "95 16500 51200 0 0|93 14200 58368 1 1000|84 4000 30517 1 230|" \
		   "84 24200 93184 1 1000|78 4000 15258 1 320|75 3152 5600 1 590|" \
		   "72 8000 30517 1 320|72 4152 10600 1 550|65 11400 77824 1 1000|" \
		   "55 8000 32768 1 1000|53 4000 15258 1 160|51 6000 6144 1 460|" \
		   "51 11900 77824 1 1000|45 4152 10600 1 370|44 12000 15360 1 1000|" \
		   "43 4000 30517 1 320|41 8200 33792 1 1000|40 4000 31250 1 1000|" \
		   "36 15200 80896 1 1000|33 16000 65536 1 1000|31 4152 10600 1 810|" \
		   "29 6000 12288 1 460|27 16400 125952 1 1000|26 4000 22888 1 230|" \
		   "24 4000 15258 1 220|22 1000 2048 1 320|20 6000 22888 1 160|" \
		   "19 8000 30517 1 220|18 88000 327680 8 1000|18 8000 30517 1 230|" \
		   "18 64200 263168 8 1000|18 6000 18432 1 460|18 4000 22888 1 480|" \
		   "16 11300 37888 1 1000|15 1000 6144 1 1000|12 8000 30517 1 650|" \
		   "12 4000 15258 1 230", sh, "|")
	w = 0; g = 0
	for (i = 1; i <= ns; i++) {
		split(sh[i], f, " ")
		w += f[1]; g += f[1] * f[4] * f[5]
	}
	# Mean of a lognormal: median x exp(sigma^2 / 2); the clamps cut little.
	median = 600; max_s = 172800
	mean_dur = median * exp(1.0 * 1.0 / 2)
	rate = load * gpus * 1000 * 3600 / ((g / w) * mean_dur)
	if (days > 0) {
		rate = pods / (days * 24)
		median = int(load * gpus * 1000 * 3600 / ((g / w) * rate * exp(0.5)) + 0.5)
		max_s = days * 86400
	}
	printf "{\n  \"comment\": \"scale benchmark: %d nodes, %d pods, offered GPU load %.2f (bench/sim/scale_spec.sh)\",\n", nodes, pods, load
	printf "  \"nodes\": [\n"
	for (i = 1; i <= nt; i++) {
		split(nd[i], f, " ")
		printf "    {\"name\": \"%s\", \"count\": %d, \"cpu_milli\": %d, \"memory_mib\": %d, \"num_gpu\": %d, \"gpu_model\": \"%s\"}%s\n", f[2], cnt[i], f[3], f[4], f[5], f[6], i < nt ? "," : ""
	}
	printf "  ],\n  \"pods\": {\n    \"count\": %d,\n    \"name_prefix\": \"p\",\n", pods
	printf "    \"arrivals_per_hour\": %.3f,\n", rate
	printf "    \"duration\": {\"median_s\": %d, \"sigma\": 1.0, \"min_s\": 10, \"max_s\": %d},\n", median, max_s
	printf "    \"mix\": [\n"
	for (i = 1; i <= ns; i++) {
		split(sh[i], f, " ")
		printf "      {\"weight\": %d, \"cpu_milli\": %d, \"memory_mib\": %d", f[1], f[2], f[3]
		if (f[4] > 0) printf ", \"num_gpu\": %d, \"gpu_milli\": %d", f[4], f[5]
		printf "}%s\n", i < ns ? "," : ""
	}
	printf "    ]\n  }\n}\n"
}'
