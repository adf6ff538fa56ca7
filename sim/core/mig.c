/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mig.c - MIG profile tables and the geometry of one GPU (see mig.h).
 *
 * Sources of the tables (checked for this release):
 *
 * - Profile names, compute and memory slices, copy engines, NVDEC decoders
 *   and the number of instances available: NVIDIA Multi-Instance GPU User
 *   Guide (r580), "Supported MIG Profiles", table 6 (A100, printed for
 *   A100-SXM4-40GB with the note that the 80GB product names the same
 *   profiles by its memory), table 7 (H100 80GB) and table 8 (H200 141GB).
 *   https://docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-mig-profiles.html
 *   A memory slice holds its own memory controllers and L2 banks ("MIG
 *   partitioning", same guide), so an instance's share of the memory
 *   bandwidth is its memory slices / 8.
 * - Valid start positions: the same guide, "Getting Started with MIG",
 *   the `nvidia-smi mig -lgipp` listing of an A100 40GB: 1g.5gb {0..6}:1,
 *   1g.10gb {0,2,4,6}:2, 2g.10gb {0,2,4}:2, 3g.20gb {0,4}:4, 4g.20gb {0}:4,
 *   7g.40gb {0}:8 (memory-slice units). The guide gives placements only for
 *   that GPU; the A100 80GB, H100 and H200 tables list the same memory
 *   fractions and instance counts per profile, which these placements
 *   reproduce, so gpusim uses them for all four. A published `-lgi` listing
 *   of an H100 80GB shows 2g.20gb at 0:2 and 3g.40gb at 4:4, as here.
 * - SMs and memory as the driver reports them (`nvidia-smi mig -lgip`,
 *   columns SM and Memory in GiB with two decimals, here in MiB):
 *   A100-SXM4-40GB: 14/28/42/56/98 SMs, 4.75/9.75/19.62/19.62/39.50 GiB for
 *     1g.5gb/2g.10gb/3g.20gb/4g.20gb/7g.40gb, the listing in NVIDIA developer
 *     forum thread 170488 ("Why MIG instances can only sum up to 98 SMs
 *     instead of the 108 SMs available?"). 1g.10gb, which that driver did not
 *     have yet, has the 2g.10gb's two memory slices and one compute slice:
 *     14 SMs and 9.75 GiB.
 *   A100-SXM4-80GB: 14/14/28/42/56/98 SMs, 9.50/19.50/19.50/39.25/39.25/79.00
 *     GiB, two published `nvidia-smi mig -lgip` listings that agree (one in
 *     an EKS GPU-sharing guide, one in a GPU-lab report on an 8-GPU A100
 *     node); 2g.20gb = 19968 MiB with 28 SMs also in nvitop pull request 8.
 *   H100 80GB HBM3 (SXM5): 16/26/32/60/64/132 SMs, 9.75/19.62/19.62/39.50/
 *     39.50/79.25 GiB, `nvidia-smi mig -lgip` in J. Barrow's field notes on
 *     MIG (jbarrow.ai) and in a published MIG walk-through on an H100 80GB
 *     HBM3; the SMs 16/26/32 are also those of the GH100 listings in
 *     NVIDIA/gpu-operator pull request 903 (H100 NVL) and NVIDIA/mig-parted
 *     pull request 139 (GH200). The H100 PCIe has 114 SMs and other SM
 *     counts: gpusim's H100 is the SXM5 part.
 *   H200 141GB: 16/26/32/60/64 SMs, 16.00/32.25/32.25/69.50/69.50 GiB for
 *     1g.18gb to 4g.71gb, `nvidia-smi mig -lgip` in NVIDIA/mig-parted issue
 *     120 ("Add support for the NVIDIA H200 GPU"). No published listing of
 *     its 7g.141gb was found: gpusim gives it all 132 SMs, like the H100's
 *     7g, and twice the 4-slice instance's memory (139.00 GiB), a lower
 *     bound.
 * - SMs of the whole GPU with MIG off: A100 108 (NVIDIA A100 Tensor Core GPU
 *   Architecture whitepaper; deviceQuery on an A100-SXM4-80GB prints 108),
 *   H100 SXM5 and H200 132 (the 7g instance has all of them).
 * - The "+me" profiles (one 1g instance with the media engines) have the
 *   geometry of their base profile and are left out.
 *
 * The memory in the profile names (10gb) is more than the instance has: a
 * pod asking 10,000 MiB does not fit an H100 1g.10gb (9,984 MiB). One table
 * differs from its name in the guide: table 6 gives 1g.10gb on the A100
 * 40GB a memory fraction of 1/8, but its name and its 2-slice placement make
 * it 2/8, which is what gpusim uses.
 */
#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "core/mig.h"

#define ALL7 0x7f   /* starts 0..6 */
#define EVEN 0x55   /* starts 0, 2, 4, 6 */
#define E024 0x15   /* starts 0, 2, 4 */
#define S04 0x11    /* starts 0, 4 */
#define S0 0x01     /* start 0 */

/*
 * name, compute slices, memory slices, starts, SMs, copy engines, decoders,
 * memory in MiB: the GiB nvidia-smi prints (two decimals) x 1024; 19.62 is
 * 19.625 GiB, 20096 MiB (instance memory comes in multiples of 128 MiB).
 */
#define PROF(name, c, m, starts, sm, ce, dec, mib) { name, c, m, starts, sm, ce, dec, mib }

/*
 * The six profiles of a GPU of 7 compute and 8 memory slices have one
 * geometry on all four GPUs (see above), in the guide's order: 1g, 1g with
 * two memory slices, 2g, 3g, 4g, 7g. Each card gives its names, SMs, copy
 * engines, decoders and MiB.
 */
#define G1(n, sm, ce, dec, mib) PROF(n, 1, 1, ALL7, sm, ce, dec, mib)
#define G1M2(n, sm, ce, dec, mib) PROF(n, 1, 2, EVEN, sm, ce, dec, mib)
#define G2(n, sm, ce, dec, mib) PROF(n, 2, 2, E024, sm, ce, dec, mib)
#define G3(n, sm, ce, dec, mib) PROF(n, 3, 4, S04, sm, ce, dec, mib)
#define G4(n, sm, ce, dec, mib) PROF(n, 4, 4, S0, sm, ce, dec, mib)
#define G7(n, sm, ce, dec, mib) PROF(n, 7, 8, S0, sm, ce, dec, mib)

/* Sized by its entries: a count other than GS_MIG_N_TABLES conflicts with mig.h. */
const struct gs_mig_table gs_mig_tables[] = {
	{ "A100 40GB", 40960, 108, 6, {
		G1("1g.5gb", 14, 1, 0, 4864), G1M2("1g.10gb", 14, 1, 1, 9984),
		G2("2g.10gb", 28, 2, 1, 9984), G3("3g.20gb", 42, 3, 2, 20096),
		G4("4g.20gb", 56, 4, 2, 20096), G7("7g.40gb", 98, 7, 5, 40448),
	} },
	{ "A100 80GB", 81920, 108, 6, {
		G1("1g.10gb", 14, 1, 0, 9728), G1M2("1g.20gb", 14, 1, 1, 19968),
		G2("2g.20gb", 28, 2, 1, 19968), G3("3g.40gb", 42, 3, 2, 40192),
		G4("4g.40gb", 56, 4, 2, 40192), G7("7g.80gb", 98, 7, 5, 80896),
	} },
	{ "H100 80GB", 81920, 132, 6, {
		G1("1g.10gb", 16, 1, 1, 9984), G1M2("1g.20gb", 26, 1, 1, 20096),
		G2("2g.20gb", 32, 2, 2, 20096), G3("3g.40gb", 60, 3, 3, 40448),
		G4("4g.40gb", 64, 4, 4, 40448), G7("7g.80gb", 132, 8, 7, 81152),
	} },
	{ "H200 141GB", 144384, 132, 6, {
		G1("1g.18gb", 16, 1, 1, 16384), G1M2("1g.35gb", 26, 1, 1, 33024),
		G2("2g.35gb", 32, 2, 2, 33024), G3("3g.71gb", 60, 3, 3, 71168),
		G4("4g.71gb", 64, 4, 4, 71168), G7("7g.141gb", 132, 8, 7, 142336),
	} },
};

/* gpusim's model names (core/gpu_model.c) and their tables. */
static const struct {
	const char *model;
	int table;
} model_tables[] = {
	{ "A100", 0 }, { "A100-40G", 0 }, { "A100-80G", 1 }, { "H100", 2 }, { "H200", 3 },
};

int gs_mig_table_count(void)
{
	return GS_MIG_N_TABLES;
}

const struct gs_mig_table *gs_mig_table_for_model(const char *model)
{
	size_t i;

	for (i = 0; model && i < sizeof(model_tables) / sizeof(model_tables[0]); i++)
		if (strcmp(model_tables[i].model, model) == 0)
			return &gs_mig_tables[model_tables[i].table];
	return NULL;
}

int gs_mig_profile_find(const struct gs_mig_table *t, const char *name)
{
	int i;

	for (i = 0; i < t->n; i++)
		if (strcmp(t->p[i].name, name) == 0)
			return i;
	return -1;
}

double gs_mig_profile_sm_share(const struct gs_mig_table *t, const struct gs_mig_profile *p)
{
	return t->sm_full > 0 && p->sm < t->sm_full ? (double)p->sm / t->sm_full : 1.0;
}

double gs_mig_profile_bw_share(const struct gs_mig_profile *p)
{
	return (double)p->mem_slices / GS_MIG_MEM_SLICES;
}

void gs_mig_gpu_init(struct gs_mig_gpu *g)
{
	memset(g, 0, sizeof(*g));
}

/* Bitmask of memory slices start .. start + n - 1. */
static unsigned slice_mask(int start, int n)
{
	return ((1u << n) - 1u) << start;
}

int gs_mig_create(const struct gs_mig_table *t, struct gs_mig_gpu *g, int prof, int start)
{
	const struct gs_mig_profile *p;
	struct gs_mig_instance *in;

	if (prof < 0 || prof >= t->n || start < 0 || start >= GS_MIG_MEM_SLICES)
		return GS_EINVAL;
	p = &t->p[prof];
	if (!((p->starts >> start) & 1u) || start + p->mem_slices > GS_MIG_MEM_SLICES)
		return GS_EINVAL;
	if (!gs_mig_fits_at(t, g, prof, start))
		return GS_ENOFIT;
	in = &g->inst[g->n];
	in->profile = (uint8_t)prof;
	in->start = (uint8_t)start;
	in->busy = 0;
	g->mem_used |= (uint8_t)slice_mask(start, p->mem_slices);
	g->compute_used = (uint8_t)(g->compute_used + p->compute);
	return g->n++;
}

void gs_mig_destroy(const struct gs_mig_table *t, struct gs_mig_gpu *g, int i)
{
	const struct gs_mig_profile *p;

	if (i < 0 || i >= g->n)
		return;
	p = &t->p[g->inst[i].profile];
	g->mem_used = (uint8_t)(g->mem_used & ~slice_mask(g->inst[i].start, p->mem_slices));
	g->compute_used = (uint8_t)(g->compute_used - p->compute);
	memmove(&g->inst[i], &g->inst[i + 1], (size_t)(g->n - i - 1) * sizeof(g->inst[0]));
	g->n--;
}

int gs_mig_choose(const struct gs_mig_table *t, const struct gs_mig_gpu *g, int prof,
		  int *prof_out, int *start_out)
{
	int i, q, best = -1;

	if (prof < 0 || prof >= t->n)
		return GS_ENOFIT;
	if (g->fixed) {
		for (i = 0; i < g->n; i++) {
			const struct gs_mig_instance *in = &g->inst[i];

			if (in->busy || in->profile < prof)
				continue;
			if (best < 0 || in->profile < g->inst[best].profile ||
			    (in->profile == g->inst[best].profile &&
			     in->start < g->inst[best].start))
				best = i;
		}
		if (best < 0)
			return GS_ENOFIT;
		*prof_out = g->inst[best].profile;
		*start_out = g->inst[best].start;
		return 0;
	}
	for (q = prof; q < t->n; q++) {
		int s = gs_mig_find_start(t, g, q);

		if (s >= 0) {
			*prof_out = q;
			*start_out = s;
			return 0;
		}
	}
	return GS_ENOFIT;
}

/* "0,2,4,6": the valid starts of p, for messages. */
static char *starts_text(const struct gs_mig_profile *p, char *buf, size_t len)
{
	size_t used = 0;
	int st;

	buf[0] = '\0';
	for (st = 0; st < GS_MIG_MEM_SLICES && used < len; st++)
		if ((p->starts >> st) & 1u)
			used += (size_t)snprintf(buf + used, len - used, "%s%d", used ? "," : "", st);
	return buf;
}

int gs_mig_layout_parse(const struct gs_mig_table *t, const char *layout, struct gs_mig_gpu *g,
			char *err, size_t err_len)
{
	const char *s = layout;

	gs_mig_gpu_init(g);
	while (*s) {
		char name[GS_MIG_NAME_MAX + 2], sbuf[32], *at;
		size_t len = strcspn(s, "+");
		int prof, start;

		if (len == 0 || len >= sizeof(name)) {
			snprintf(err, err_len, "'%.*s' is not a MIG profile of the %s", (int)len, s,
				 t->product);
			return GS_EINVAL;
		}
		memcpy(name, s, len);
		name[len] = '\0';
		at = strchr(name, '@');
		if (at)
			*at++ = '\0';
		prof = gs_mig_profile_find(t, name);
		if (prof < 0) {
			snprintf(err, err_len, "'%s' is not a MIG profile of the %s", name, t->product);
			return GS_EINVAL;
		}
		if (at) {
			/* An explicit start, as gs_mig_layout_format() writes it. */
			if (at[0] < '0' || at[0] > '7' || at[1] != '\0' ||
			    !((t->p[prof].starts >> (at[0] - '0')) & 1u)) {
				snprintf(err, err_len, "'%s' is not a valid start for %s (valid: %s)",
					 at, name, starts_text(&t->p[prof], sbuf, sizeof(sbuf)));
				return GS_EINVAL;
			}
			start = at[0] - '0';
			if (gs_mig_create(t, g, prof, start) < 0) {
				snprintf(err, err_len,
					 "layout '%s' does not fit: %s@%d overlaps the instances "
					 "before it", layout, name, start);
				return GS_EINVAL;
			}
		} else {
			start = gs_mig_find_start(t, g, prof);
			if (start < 0) {
				snprintf(err, err_len,
					 "layout '%s' does not fit: no free valid start for %s "
					 "after the profiles before it", layout, name);
				return GS_EINVAL;
			}
			gs_mig_create(t, g, prof, start);
		}
		s += len;
		if (*s == '+')
			s++;
		if (*s == '\0' && s[-1] == '+') {
			snprintf(err, err_len, "layout '%s' ends with '+'", layout);
			return GS_EINVAL;
		}
	}
	if (g->n == 0) {
		snprintf(err, err_len, "empty MIG layout");
		return GS_EINVAL;
	}
	g->fixed = 1;
	return 0;
}

char *gs_mig_layout_format(const struct gs_mig_table *t, const struct gs_mig_gpu *g, char *buf,
			   size_t len)
{
	size_t used = 0;
	int i;

	if (!len)
		return buf;
	buf[0] = '\0';
	for (i = 0; i < g->n && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s@%d", i ? "+" : "",
					 t->p[g->inst[i].profile].name, g->inst[i].start);
	return buf;
}
