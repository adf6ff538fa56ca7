/* SPDX-License-Identifier: Apache-2.0 */
/*
 * throttle.c - elastic share, token bucket and kernel cost table.
 */
#include <string.h>

#include "core/rng.h"
#include "throttle.h"

#define MAX_PODS 64

double gs_throttle_allowed(const char *pod_id, int share_pct, const struct gs_peer *peers,
			   int n_peers, uint64_t now_ns, uint64_t window_ns)
{
	const char *pods[MAX_PODS];
	int shares[MAX_PODS];
	int n_pods = 1, own_procs = 0, others = 0, i, j;
	double total = 0;

	pods[0] = pod_id;
	shares[0] = share_pct;
	for (i = 0; i < n_peers; i++) {
		const struct gs_peer *p = &peers[i];

		if (now_ns > p->last_active_ns && now_ns - p->last_active_ns > window_ns)
			continue;
		for (j = 0; j < n_pods; j++)
			if (!strcmp(pods[j], p->pod_id))
				break;
		if (j == 0) {
			own_procs++;
			continue;
		}
		if (j == n_pods) {
			if (n_pods == MAX_PODS)
				continue;
			pods[n_pods] = p->pod_id;
			shares[n_pods++] = p->share_pct;
			others++;
		} else if (p->share_pct > shares[j]) {
			shares[j] = p->share_pct;
		}
	}
	if (!others)
		return 1.0;
	for (j = 0; j < n_pods; j++)
		total += shares[j] > 0 ? shares[j] : 1;
	if (own_procs < 1)
		own_procs = 1;
	return (share_pct > 0 ? share_pct : 1) / total / own_procs;
}

static void refill(struct gs_bucket *b, uint64_t now_ns)
{
	if (now_ns > b->last_ns) {
		b->tokens_ns += (double)(now_ns - b->last_ns) * b->rate;
		if (b->tokens_ns > b->burst_ns)
			b->tokens_ns = b->burst_ns;
		b->last_ns = now_ns;
	}
}

void gs_bucket_init(struct gs_bucket *b, double burst_ns, double rate, uint64_t now_ns)
{
	b->burst_ns = burst_ns;
	b->tokens_ns = burst_ns;
	b->rate = rate > 0 ? rate : 1e-6;
	b->last_ns = now_ns;
}

void gs_bucket_set_rate(struct gs_bucket *b, double rate, uint64_t now_ns)
{
	refill(b, now_ns);
	b->rate = rate > 0 ? rate : 1e-6;
}

uint64_t gs_bucket_charge(struct gs_bucket *b, double cost_ns, uint64_t now_ns,
			  uint64_t min_sleep_ns)
{
	double wait_ns;

	refill(b, now_ns);
	b->tokens_ns -= cost_ns;
	if (b->tokens_ns >= 0)
		return 0;
	wait_ns = -b->tokens_ns / b->rate;
	return wait_ns < (double)min_sleep_ns ? 0 : (uint64_t)wait_ns;
}

uint64_t gs_cost_key(uintptr_t fn, uint64_t grid, uint64_t block, uint64_t smem_bytes)
{
	uint64_t k = gs_rng_mix((uint64_t)fn);

	k = gs_rng_mix(k ^ grid);
	k = gs_rng_mix(k ^ (block << 20) ^ smem_bytes);
	return k ? k : 1;
}

struct gs_cost_entry *gs_cost_launch(struct gs_cost_table *t, uint64_t key, int *sample_out)
{
	struct gs_cost_entry *e = &t->e[key % GS_COST_SLOTS];

	if (e->key != key) {
		memset(e, 0, sizeof(*e));
		e->key = key;
	}
	*sample_out = e->n_samples < GS_COST_FIRST_SAMPLES ||
		      e->launches % GS_COST_SAMPLE_EVERY == 0;
	e->launches++;
	return e;
}

double gs_cost_estimate(const struct gs_cost_table *t, const struct gs_cost_entry *e)
{
	return e && e->n_samples ? e->est_ns : t->mean_ns;
}

void gs_cost_record(struct gs_cost_table *t, uint64_t key, double ns)
{
	struct gs_cost_entry *e = &t->e[key % GS_COST_SLOTS];
	uint32_t i, n;
	double m;

	if (ns < 0)
		return;
	t->n_timed++;
	t->mean_ns += (ns - t->mean_ns) / (double)(t->n_timed < 64 ? t->n_timed : 64);
	if (e->key != key)
		return;
	e->sample_ns[e->next] = ns;
	e->next = (e->next + 1) % GS_COST_SAMPLES;
	if (e->n_samples < GS_COST_SAMPLES)
		e->n_samples++;
	n = e->n_samples;
	m = e->sample_ns[0];
	for (i = 1; i < n; i++)
		if (e->sample_ns[i] < m)
			m = e->sample_ns[i];
	e->est_ns = m;
}
