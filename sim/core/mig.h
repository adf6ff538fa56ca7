/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mig.h - NVIDIA Multi-Instance GPU: the profile tables of the GPU models
 * that support it and the geometry of one GPU cut into instances.
 *
 * A MIG-capable GPU has 8 memory slices and 7 compute (SM) slices. A GPU
 * instance of a profile occupies `mem_slices` consecutive memory slices
 * starting at one of the profile's valid start positions, and `compute`
 * compute slices; instances never overlap. The start positions are in
 * memory-slice units, as `nvidia-smi mig -lgipp` prints them ({start}:size).
 *
 * Each profile also carries what the silicon gives it, as the driver
 * reports it (`nvidia-smi mig -lgip`): its SMs, its memory in MiB, its copy
 * engines and video decoders. Its share of the memory bandwidth is its
 * share of the memory slices (each slice has its own memory controllers and
 * L2 banks). The sharing model (engine/sharing.h) runs a pod on an instance
 * from its SM and bandwidth shares against the whole GPU's `sm_full` SMs.
 * mig.c holds the tables, with where each figure comes from.
 *
 * On every table here the profiles form a chain: sorted by compute slices,
 * each profile has at least the memory of the one before it and its valid
 * starts are a subset of the previous one's. So whatever fits in a GPU's
 * free slices, every smaller profile fits too; tests/test_mig.c checks it.
 *
 * Plain C, libc only (the CUDA harness links core/ too).
 */
#ifndef GS_MIG_H
#define GS_MIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GS_MIG_COMPUTE_SLICES 7
#define GS_MIG_MEM_SLICES 8
#define GS_MIG_MAX_PROFILES 8
#define GS_MIG_MAX_INSTANCES 7   /* at most one per compute slice */
#define GS_MIG_NAME_MAX 16       /* "7g.141gb" and its NUL */

/* One GPU instance profile. */
struct gs_mig_profile {
	char name[GS_MIG_NAME_MAX]; /* as nvidia-smi names it, without "MIG " */
	uint8_t compute;            /* compute slices, the "Ng" of the name */
	uint8_t mem_slices;         /* memory slices of 8: its share of memory bandwidth */
	uint8_t starts;             /* bit s: memory slice s is a valid start */
	uint8_t sm;                 /* SMs of the instance (nvidia-smi mig -lgip, column SM) */
	uint8_t copy_engines;       /* copy engines (column CE) */
	uint8_t decoders;           /* NVDEC video decoders (column DEC) */
	int64_t mem_mib;            /* instance memory as the driver reports it, MiB */
};

/* The profiles of one GPU product, smallest first (a chain, see above). */
struct gs_mig_table {
	const char *product;        /* "H100 80GB" */
	int64_t card_mib;           /* the card's memory the table assumes */
	int sm_full;                /* SMs of the whole GPU with MIG off */
	int n;
	struct gs_mig_profile p[GS_MIG_MAX_PROFILES];
};

#define GS_MIG_N_TABLES 4

/* The built-in tables, read through gs_mig_table_at(). */
extern const struct gs_mig_table gs_mig_tables[GS_MIG_N_TABLES];

/* The built-in tables (A100 40GB, A100 80GB, H100 80GB, H200 141GB). */
int gs_mig_table_count(void);

/*
 * Table i of the built-in ones (static), or NULL when i is out of range.
 * Inline: the allocator asks for a MIG node's table on every pick, bind
 * and unbind.
 */
static inline const struct gs_mig_table *gs_mig_table_at(int i)
{
	return i >= 0 && i < GS_MIG_N_TABLES ? &gs_mig_tables[i] : NULL;
}

/*
 * The table of the built-in GPU model called `model` ("A100", "A100-40G",
 * "A100-80G", "H100", "H200"), or NULL when the model has no MIG.
 */
const struct gs_mig_table *gs_mig_table_for_model(const char *model);

/* Index of the profile called name in t, or -1. */
int gs_mig_profile_find(const struct gs_mig_table *t, const char *name);

/*
 * The smallest profile of t (fewest compute slices, then fewest memory
 * slices) that covers a request of gpu_milli thousandths of the GPU and
 * gpu_mem_mib MiB: compute >= ceil(gpu_milli x 7 / 1000) and memory >=
 * gpu_mem_mib. Returns its index, or -1 when no profile covers it.
 */
static inline int gs_mig_profile_cover(const struct gs_mig_table *t, int32_t gpu_milli,
				       int64_t gpu_mem_mib)
{
	/* ceil(gpu_milli x 7 / 1000) compute slices, at least one. */
	int32_t need = (gpu_milli * GS_MIG_COMPUTE_SLICES + 999) / 1000;
	int i;

	if (need < 1)
		need = 1;
	/* The table is sorted by (compute, memory): the first match is the smallest. */
	for (i = 0; i < t->n; i++)
		if (t->p[i].compute >= need && t->p[i].mem_mib >= gpu_mem_mib)
			return i;
	return -1;
}

/* Milli-GPU an instance of p reserves: floor(compute x 1000 / 7), 1000 for 7 slices. */
static inline int32_t gs_mig_profile_milli(const struct gs_mig_profile *p)
{
	if (p->compute >= GS_MIG_COMPUTE_SLICES)
		return 1000;
	return p->compute * 1000 / GS_MIG_COMPUTE_SLICES;
}

/* An instance of p's share of the whole GPU's SMs: p->sm / t->sm_full, in (0, 1]. */
double gs_mig_profile_sm_share(const struct gs_mig_table *t, const struct gs_mig_profile *p);

/* An instance of p's share of the GPU's memory bandwidth: mem_slices / 8, in (0, 1]. */
double gs_mig_profile_bw_share(const struct gs_mig_profile *p);

/* One instance on a GPU. */
struct gs_mig_instance {
	uint8_t profile;            /* index into the GPU's table */
	uint8_t start;              /* first memory slice */
	uint8_t busy;               /* 1 while a pod runs in it */
};

/*
 * One GPU's geometry. `fixed` layouts come from the cluster file and keep
 * their instances for the whole run; otherwise an instance is created for
 * a pod when it lands and destroyed when it leaves. The struct is plain
 * data (copied with the cluster).
 */
struct gs_mig_gpu {
	uint8_t mem_used;           /* bit s: memory slice s belongs to an instance */
	uint8_t compute_used;       /* compute slices of all instances */
	uint8_t n;                  /* instances */
	uint8_t fixed;              /* 1: layout from the cluster file */
	struct gs_mig_instance inst[GS_MIG_MAX_INSTANCES];
};

/* An empty GPU (no instances, not fixed). */
void gs_mig_gpu_init(struct gs_mig_gpu *g);

/*
 * The valid start at which profile `prof` can be created in g's free
 * slices, trying the highest start first (so the low slices stay free for
 * the 4g and 7g profiles, which can only start at 0). Returns the start or
 * -1 when it does not fit. Inline: the allocator asks it for every profile
 * on every change of a MIG GPU.
 */
static inline int gs_mig_find_start(const struct gs_mig_table *t, const struct gs_mig_gpu *g,
				    int prof)
{
	const struct gs_mig_profile *p;
	unsigned free_slices, run;
	int k;

	if (prof < 0 || prof >= t->n)
		return -1;
	p = &t->p[prof];
	if (g->compute_used + p->compute > GS_MIG_COMPUTE_SLICES || g->n >= GS_MIG_MAX_INSTANCES)
		return -1;
	/*
	 * Every start at once: bit s of run is set when slices s .. s +
	 * mem_slices - 1 are free and on the card.
	 */
	free_slices = ~(unsigned)g->mem_used & ((1u << GS_MIG_MEM_SLICES) - 1u);
	run = (p->mem_slices ? free_slices : (1u << GS_MIG_MEM_SLICES) - 1u) & p->starts;
	for (k = 1; k < p->mem_slices && run; k++)
		run &= free_slices >> k;
	return run ? 31 - __builtin_clz(run) : -1;
}

/*
 * Whether an instance of `prof` can be created at `start` (what
 * gs_mig_create() would do without creating it): a valid start of the
 * profile, slices free, compute slices and instances to spare.
 */
static inline bool gs_mig_fits_at(const struct gs_mig_table *t, const struct gs_mig_gpu *g,
				  int prof, int start)
{
	const struct gs_mig_profile *p;

	if (prof < 0 || prof >= t->n || start < 0 || start >= GS_MIG_MEM_SLICES)
		return false;
	p = &t->p[prof];
	if (!((p->starts >> start) & 1u) || start + p->mem_slices > GS_MIG_MEM_SLICES)
		return false;
	if (g->compute_used + p->compute > GS_MIG_COMPUTE_SLICES || g->n >= GS_MIG_MAX_INSTANCES)
		return false;
	return (g->mem_used & (((1u << p->mem_slices) - 1u) << start)) == 0;
}

/*
 * Creates an instance of `prof` at `start`. Returns its index in g->inst,
 * GS_EINVAL for an invalid start or profile, GS_ENOFIT when the slices
 * overlap another instance or the GPU's slices would be exceeded.
 */
int gs_mig_create(const struct gs_mig_table *t, struct gs_mig_gpu *g, int prof, int start);

/* Destroys the instance at index i of g, a GPU of table t (later ones move down). */
void gs_mig_destroy(const struct gs_mig_table *t, struct gs_mig_gpu *g, int i);

/* Index of the instance starting at memory slice start, or -1. */
static inline int gs_mig_instance_at(const struct gs_mig_gpu *g, int start)
{
	int i;

	for (i = 0; i < g->n; i++)
		if (g->inst[i].start == start)
			return i;
	return -1;
}

/*
 * Where a pod needing profile `prof` (from gs_mig_profile_cover) would go:
 * in a fixed layout the smallest idle instance whose profile is at least
 * prof (ties to the lowest start); otherwise a new instance of the
 * smallest profile >= prof that fits, at gs_mig_find_start()'s position.
 * Returns 0 and the instance's profile and start, or GS_ENOFIT.
 */
int gs_mig_choose(const struct gs_mig_table *t, const struct gs_mig_gpu *g, int prof,
		  int *prof_out, int *start_out);

/*
 * Parses a layout, profile names joined by '+' ("3g.40gb+2g.20gb+1g.10gb"),
 * and creates it in g (which must be empty), each instance at its highest
 * free valid start, in the order given. On success marks g fixed and
 * returns 0; GS_EINVAL with a message in err for an unknown profile or
 * one that does not fit next to the ones before it.
 */
int gs_mig_layout_parse(const struct gs_mig_table *t, const char *layout, struct gs_mig_gpu *g,
			char *err, size_t err_len);

/* Writes g's instances as "name@start+name@start" into buf. Returns buf. */
char *gs_mig_layout_format(const struct gs_mig_table *t, const struct gs_mig_gpu *g, char *buf,
			   size_t len);

#endif
