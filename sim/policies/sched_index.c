/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sched_index.c - the scheduler's node index (see sched_index.h).
 *
 * Groups. Every node belongs to the group of its state: its struct
 * gs_node but the pod count (the fields the others do not determine),
 * the policy's node_key(), and with GPU sharing modes its struct
 * gs_node_share_key (configs and the largest MIG profile each GPU can
 * still place: what the filter reads, not the MIG instances' layout nor
 * the pods per GPU, which would make most states of a MIG node new),
 * packed into a struct group_key and compared byte for byte. A group keeps,
 * for each request shape, the filter's verdict and the policy's score,
 * computed once on the first node of that state the index looks at. Groups
 * nobody is in stay cached (a node often goes back to an earlier state,
 * the empty one above all) until their slot is needed, oldest first; there
 * are at least n + 1 slots, so a node always finds one.
 *
 * Shapes. A shape is a request (CPU, memory, GPU count and share, GPU
 * memory, model set); a pod's times do not matter. Per shape the index
 * holds each node's filter verdict in visit order, the number of nodes per
 * verdict (the scheduler's "0/N nodes are available" counts) and, for
 * policies with node_score, a max-tree over the visit order whose leaves
 * are the scores of the nodes that fit and -infinity elsewhere. The
 * scheduler keeps the first node in visit order among those with the best
 * score; that is the leftmost leaf equal to the root, reached by taking
 * at each level the first child that holds the maximum. The same doubles
 * are compared as in the scan, so the choice is the scan's to the bit.
 * The tree has eight children per node, eight doubles in a cache line: a
 * leaf's path to the root is a third as long as in a binary tree, which
 * on a large cluster is a third of the cache misses of an update.
 *
 * Laziness. A bind or unbind appends its node to a change log; a shape
 * replays the log from its own cursor when it is next asked for, skipping
 * all but each node's last entry, so shapes that are rare cost nothing in
 * between. A shape too far behind (the log is compacted) or never built is
 * rebuilt from scratch in O(nodes). The cluster's version counter catches
 * changes that did not come through the scheduler: then every node is
 * regrouped and every shape rebuilt.
 */
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/grow.h"
#include "core/mem.h"
#include "core/rng.h"
#include "policies/sched_index.h"

_Static_assert(GS_FIT_OK == 0, "nth_fitting() counts the zero bytes of the verdicts");

/* Children per node of a score tree, and the most levels it can have (8^11 > INT32_MAX). */
#define TREE_FAN_SHIFT 3
#define TREE_FAN (1 << TREE_FAN_SHIFT)
#define TREE_MAX_LEVELS 12

/* Visit positions per count of fitting nodes, for best_of policies (nth_fitting()). */
#define RANK_BLOCK_SHIFT 8
#define RANK_BLOCK (1 << RANK_BLOCK_SHIFT)

/* Memory the per-shape arrays may take in all; shapes beyond it are scanned. */
#define INDEX_MAX_SHAPE_BYTES (512u << 20)
#define INDEX_MAX_SHAPES 4096

/* One GPU of a node state: free share and memory, and with sharing modes config and MIG cap. */
struct key_gpu {
	int32_t free_milli;
	uint8_t cfg;
	int8_t mig_cap;
	uint8_t zero[2];
	int64_t mem_free_mib;
};

/*
 * A node state: the node's entry but its pod count and the fields that
 * follow from the others, the policy's key and, with sharing modes, the
 * node's struct gs_node_share_key, packed so that a node of g GPUs takes
 * its first key_bytes(g) bytes, compared and hashed as bytes (padding is
 * zero). A group slot is written for every new state, and under vGPU
 * most binds make one (cachegrind: the index's misses were half of
 * vGPU's extra ones): the node's entry and sharing key whole would take
 * five cache lines, the packed state of an 8-GPU node takes three.
 */
struct group_key {
	uint64_t pkey;
	int64_t mem_mib, mem_free_mib;
	int32_t cpu_milli, cpu_free_milli;
	int32_t num_gpu, model, group;
	uint8_t mode, cfg, combo;
	int8_t mig_table, mig_cap_max;
	uint8_t zero[7];
	struct key_gpu gpu[GS_MAX_GPUS];
};

_Static_assert(offsetof(struct group_key, gpu) == 56 && sizeof(struct key_gpu) == 16,
	       "a group key has no padding but its zero bytes");

/* Bytes of a key that a node of num_gpu GPUs uses: whole words. */
static size_t key_bytes(int32_t num_gpu)
{
	return offsetof(struct group_key, gpu) + (size_t)num_gpu * sizeof(struct key_gpu);
}

/* Bytes between group slots: a key of the most GPUs, in whole cache lines. */
#define KEY_STRIDE ((sizeof(struct group_key) + 63) & ~(size_t)63)

/*
 * The verdicts of all shapes for a group sit in one row, a byte per shape
 * (VERDICT_UNKNOWN until computed), rows vstride bytes apart. The shapes
 * apply the same log entries one after another, so the row of a group a
 * node just entered is looked up by one shape after another: one cache
 * line for all of them, where a verdict array per shape made it a cache
 * miss per shape on a large cluster (perf, 12,500 nodes: 79% of the log
 * replay waited on it). A group slot that takes a new state clears its
 * row. Scores, needed only where a pod fits, stay an array per shape.
 */
#define VERDICT_UNKNOWN 0xff
_Static_assert(GS_FIT__COUNT < VERDICT_UNKNOWN, "a verdict is a byte, VERDICT_UNKNOWN apart");

struct shape {
	struct gs_pod req;        /* the request; times are -1 */
	int32_t id;               /* its column in the verdict rows */
	double *g_score;          /* [cap_groups] scored: the score where the verdict is GS_FIT_OK */
	uint8_t *fit;             /* [n], by visit position */
	double *tree;             /* [tree_size]: level l at level_at[l], leaf i at i, root last */
	int32_t *blk;             /* best_of: fitting nodes per RANK_BLOCK positions */
	/* Sharing modes: the request's demand per (config, model) combination, once each. */
	struct gs_share_demand *dem; /* [n_dem] */
	uint64_t dem_known;       /* bit k: dem[k] is worked out */
	int32_t count[GS_FIT__COUNT];
	int64_t cursor;           /* the log is applied up to here */
	bool built;
};

/*
 * A change: the node, its visit position and the group it entered, so that
 * a shape catching up reads the log in order and looks nothing up per node
 * (each shape would miss the caches on pos_of, group_of and last_log for
 * every entry). An entry that a later one of the same node supersedes has
 * pos -1; the node's group is then no longer the one written here.
 */
struct log_entry {
	int32_t node, pos, group;
};

/*
 * A slot of the groups' hash table: the group (-1: empty) and the low
 * bits of its hash, which give its home slot (the table has fewer than
 * 2^32 slots) and turn away most other states without reading the group.
 * Under vGPU most binds make a state not seen before or one not seen for
 * long, whose group is not in the caches: reading each probed group's
 * hash would cost a miss per slot probed before the one on its key.
 */
struct table_slot {
	int32_t group;
	uint32_t hash;
};

struct gs_sched_index {
	const struct gs_cluster *c;
	const struct gs_policy *pol;
	void *pol_state;
	bool scored;              /* pol->node_score: keep score trees */
	bool ranked;              /* pol->best_of: keep counts of fitting nodes per block */
	int32_t n;
	/* The tree's levels, leaves first: level l has level_len[l] entries (a multiple of 8). */
	int32_t levels;
	int32_t level_at[TREE_MAX_LEVELS], level_len[TREE_MAX_LEVELS];
	size_t tree_size;
	const int32_t *order;     /* borrowed: visit position -> node */
	int32_t *pos_of;          /* node -> visit position */
	uint64_t version;         /* c->version when the index last saw the cluster */

	/* Groups, and a hash table of their ids (open addressing, -1 empty). */
	unsigned char *keys;      /* [cap_groups * KEY_STRIDE] the states, line-aligned */
	bool share;               /* the cluster has sharing modes: keys hold sharing keys */
	uint64_t *ghash;
	int32_t *refs;            /* nodes in the group */
	uint8_t *verdicts;        /* [cap_groups * vstride] the rows of verdicts */
	size_t vstride;           /* bytes per row: a power of two >= shapes, >= 64 */
	int32_t *prev, *next;     /* the unreferenced groups, oldest first */
	int32_t idle_head, idle_tail;
	int32_t n_groups, cap_groups;
	struct table_slot *table;
	size_t table_mask;
	int32_t *group_of;        /* [n] */

	/* The change log: nodes in order of change, absolute positions. */
	struct log_entry *log;
	int64_t log_base, log_end, log_cap;
	int64_t *last_log;        /* [n] position of the node's latest entry, -1 */

	/* Shapes, and a hash table of their ids. */
	struct shape *shapes;
	int32_t n_shapes;
	size_t cap_shapes;
	int32_t *shape_table;
	size_t shape_mask;
	int32_t last_shape;
	size_t shape_bytes;       /* what one shape's arrays take */
};

/* --- hashing ----------------------------------------------------------------- */

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v;
	h *= 0x100000001b3ull;
	return h ^ (h >> 29);
}

static uint64_t key_hash(const struct group_key *k)
{
	const unsigned char *b = (const unsigned char *)k;
	size_t i, len = key_bytes(k->num_gpu);
	uint64_t h = 0xcbf29ce484222325ull;

	for (i = 0; i < len; i += 8) {
		uint64_t v;

		memcpy(&v, b + i, 8);
		h = mix(h, v);
	}
	return gs_rng_mix(h);
}

static bool key_eq(const struct group_key *a, const struct group_key *b)
{
	return a->num_gpu == b->num_gpu && memcmp(a, b, key_bytes(a->num_gpu)) == 0;
}

static uint64_t shape_hash(const struct gs_pod *p)
{
	uint64_t h = 0x84222325cbf29ce4ull;

	h = mix(h, (uint64_t)(uint32_t)p->cpu_milli);
	h = mix(h, (uint64_t)p->mem_mib);
	h = mix(h, (uint64_t)(uint32_t)p->num_gpu << 32 | (uint32_t)p->gpu_milli);
	h = mix(h, (uint64_t)p->gpu_mem_mib);
	h = mix(h, (uint64_t)p->model_mask << 16 | p->sel);
	return gs_rng_mix(h);
}

static bool shape_eq(const struct gs_pod *a, const struct gs_pod *b)
{
	return a->cpu_milli == b->cpu_milli && a->mem_mib == b->mem_mib &&
	       a->num_gpu == b->num_gpu && a->gpu_milli == b->gpu_milli &&
	       a->gpu_mem_mib == b->gpu_mem_mib && a->model_mask == b->model_mask &&
	       a->sel == b->sel;
}

/* --- groups ------------------------------------------------------------------ */

/* The state of node into k (every byte of its key_bytes() written). */
static void key_of(const struct gs_sched_index *x, const struct gs_cluster *c, int32_t node,
		   struct group_key *k)
{
	const struct gs_node *n = &c->nodes[node];
	struct gs_node_share_key sk;
	int32_t i;

	memset(k, 0, offsetof(struct group_key, gpu));
	k->pkey = x->pol->node_key ? x->pol->node_key(x->pol_state, c, node) : 0;
	k->mem_mib = n->mem_mib;
	k->mem_free_mib = n->mem_free_mib;
	k->cpu_milli = n->cpu_milli;
	k->cpu_free_milli = n->cpu_free_milli;
	k->num_gpu = n->num_gpu;
	k->model = n->model;
	k->group = n->group;
	if (x->share) {
		gs_cluster_share_key(c, node, &sk);
		k->mode = sk.mode;
		k->cfg = sk.cfg;
		k->combo = sk.combo;
		k->mig_table = sk.mig_table;
		k->mig_cap_max = sk.mig_cap_max;
	}
	for (i = 0; i < n->num_gpu; i++) {
		struct key_gpu *kg = &k->gpu[i];

		kg->free_milli = n->gpu_free_milli[i];
		kg->cfg = x->share ? sk.gpu_cfg[i] : 0;
		kg->mig_cap = x->share ? sk.gpu_mig_cap[i] : 0;
		kg->zero[0] = kg->zero[1] = 0;
		kg->mem_free_mib = n->gpu_mem_free_mib[i];
	}
}

/* Group g's state. */
static inline const struct group_key *group_key(const struct gs_sched_index *x, int32_t g)
{
	return (const struct group_key *)(x->keys + (size_t)g * KEY_STRIDE);
}

/* Whether group g is the state k. */
static bool group_is(const struct gs_sched_index *x, int32_t g, uint64_t h,
		     const struct group_key *k)
{
	return x->ghash[g] == h && key_eq(group_key(x, g), k);
}

static int32_t group_find(const struct gs_sched_index *x, uint64_t h, const struct group_key *k)
{
	size_t i = (size_t)h & x->table_mask;
	int32_t g;

	for (; (g = x->table[i].group) >= 0; i = (i + 1) & x->table_mask)
		if (x->table[i].hash == (uint32_t)h && key_eq(group_key(x, g), k))
			return g;
	return -1;
}

static void table_insert(struct gs_sched_index *x, int32_t g)
{
	size_t i = (size_t)x->ghash[g] & x->table_mask;

	while (x->table[i].group >= 0)
		i = (i + 1) & x->table_mask;
	x->table[i].group = g;
	x->table[i].hash = (uint32_t)x->ghash[g];
}

/* Deletes group g from the table, shifting later entries of its run back (linear probing). */
static void table_remove(struct gs_sched_index *x, int32_t g)
{
	size_t i = (size_t)x->ghash[g] & x->table_mask, j;

	while (x->table[i].group != g)
		i = (i + 1) & x->table_mask;
	for (j = i;;) {
		size_t home;

		j = (j + 1) & x->table_mask;
		if (x->table[j].group < 0)
			break;
		home = (size_t)x->table[j].hash & x->table_mask;
		/* Move j into the hole at i unless its home lies cyclically in (i, j]. */
		if (i <= j ? (i < home && home <= j) : (i < home || home <= j))
			continue;
		x->table[i] = x->table[j];
		i = j;
	}
	x->table[i].group = -1;
}

static void idle_unlink(struct gs_sched_index *x, int32_t g)
{
	if (x->prev[g] >= 0)
		x->next[x->prev[g]] = x->next[g];
	else
		x->idle_head = x->next[g];
	if (x->next[g] >= 0)
		x->prev[x->next[g]] = x->prev[g];
	else
		x->idle_tail = x->prev[g];
	x->prev[g] = x->next[g] = -1;
}

static void idle_append(struct gs_sched_index *x, int32_t g)
{
	x->prev[g] = x->idle_tail;
	x->next[g] = -1;
	if (x->idle_tail >= 0)
		x->next[x->idle_tail] = g;
	else
		x->idle_head = g;
	x->idle_tail = g;
}

static void group_ref(struct gs_sched_index *x, int32_t g)
{
	if (x->refs[g]++ == 0)
		idle_unlink(x, g);
}

static void group_unref(struct gs_sched_index *x, int32_t g)
{
	if (--x->refs[g] == 0)
		idle_append(x, g);
}

/* A slot for a new state: a fresh one, or the group unreferenced longest. */
static int32_t group_new(struct gs_sched_index *x, uint64_t h, const struct group_key *k)
{
	int32_t g;

	if (x->n_groups < x->cap_groups) {
		g = x->n_groups++;
		x->prev[g] = x->next[g] = -1;
	} else {
		/* At most n groups are referenced and there are more slots than that. */
		g = x->idle_head;
		idle_unlink(x, g);
		table_remove(x, g);
	}
	/* What the shapes computed for the slot's old state is stale now. */
	memset(x->verdicts + (size_t)g * x->vstride, VERDICT_UNKNOWN, x->vstride);
	memcpy(x->keys + (size_t)g * KEY_STRIDE, k, key_bytes(k->num_gpu));
	x->ghash[g] = h;
	x->refs[g] = 0;
	idle_append(x, g);
	table_insert(x, g);
	return g;
}

/* Puts node into the group of its current state; false if that did not change. */
static bool regroup(struct gs_sched_index *x, const struct gs_cluster *c, int32_t node)
{
	struct group_key k;
	uint64_t h;
	int32_t g = x->group_of[node];

	key_of(x, c, node, &k);
	h = key_hash(&k);
	if (g >= 0 && group_is(x, g, h, &k))
		return false;
	if (g >= 0)
		group_unref(x, g);
	g = group_find(x, h, &k);
	if (g < 0)
		g = group_new(x, h, &k);
	group_ref(x, g);
	x->group_of[node] = g;
	return true;
}

/* --- the change log ---------------------------------------------------------- */

/* Makes room by dropping entries every built shape has applied; far-behind shapes get rebuilt. */
static void log_compact(struct gs_sched_index *x)
{
	int64_t keep_from = x->log_end - x->log_cap / 2, base = x->log_end;
	int32_t s;

	for (s = 0; s < x->n_shapes; s++) {
		struct shape *sh = &x->shapes[s];

		if (sh->built && sh->cursor < keep_from)
			sh->built = false;
		if (sh->built && sh->cursor < base)
			base = sh->cursor;
	}
	memmove(x->log, x->log + (base - x->log_base),
		(size_t)(x->log_end - base) * sizeof(*x->log));
	x->log_base = base;
}

/* Logs that node entered group_of[node], superseding its earlier entry. */
static void log_append(struct gs_sched_index *x, int32_t node)
{
	struct log_entry *e;
	int64_t last;

	if (x->log_end - x->log_base == x->log_cap)
		log_compact(x);
	last = x->last_log[node];
	if (last >= x->log_base)
		x->log[last - x->log_base].pos = -1;
	e = &x->log[x->log_end - x->log_base];
	e->node = node;
	e->pos = x->pos_of[node];
	e->group = x->group_of[node];
	x->last_log[node] = x->log_end++;
}

/* Regroups every node and forgets every shape's tree (the cluster changed behind us). */
static void resync_all(struct gs_sched_index *x, const struct gs_cluster *c)
{
	int32_t i;

	for (i = 0; i < x->n; i++)
		regroup(x, c, i);
	for (i = 0; i < x->n_shapes; i++) {
		x->shapes[i].built = false;
		x->shapes[i].dem_known = 0;
	}
	x->version = c->version;
}

void gs_sched_index_touch(struct gs_sched_index *x, const struct gs_cluster *c, int32_t node)
{
	if (!x || c != x->c || node < 0 || node >= x->n)
		return;
	if (c->version != x->version + 1) {
		/* Not one change since we last looked: something bypassed the scheduler. */
		resync_all(x, c);
		return;
	}
	x->version = c->version;
	if (regroup(x, c, node))
		log_append(x, node);
}

/* --- shapes ------------------------------------------------------------------ */

static void shape_free(struct shape *sh)
{
	GS_MEM_FREE(sh->g_score, sh->fit, sh->tree, sh->blk, sh->dem);
}

static int shapes_rehash(struct gs_sched_index *x, size_t size)
{
	int32_t *t = malloc(size * sizeof(*t)), s;

	if (!t)
		return -1;
	memset(t, 0xff, size * sizeof(*t));
	free(x->shape_table);
	x->shape_table = t;
	x->shape_mask = size - 1;
	for (s = 0; s < x->n_shapes; s++) {
		size_t i = (size_t)shape_hash(&x->shapes[s].req) & x->shape_mask;

		while (t[i] >= 0)
			i = (i + 1) & x->shape_mask;
		t[i] = s;
	}
	return 0;
}

/* The number of RANK_BLOCK blocks of visit positions. */
static size_t rank_blocks(const struct gs_sched_index *x)
{
	return ((size_t)x->n + RANK_BLOCK - 1) >> RANK_BLOCK_SHIFT;
}

/* Doubles the rows of verdicts; the new columns are unknown. Returns 0 or -1 (no memory). */
static int verdicts_widen(struct gs_sched_index *x)
{
	size_t stride = 2 * x->vstride, g;
	uint8_t *v = malloc((size_t)x->cap_groups * stride);

	if (!v)
		return -1;
	memset(v, VERDICT_UNKNOWN, (size_t)x->cap_groups * stride);
	for (g = 0; g < (size_t)x->n_groups; g++)
		memcpy(v + g * stride, x->verdicts + g * x->vstride, x->vstride);
	free(x->verdicts);
	x->verdicts = v;
	x->vstride = stride;
	return 0;
}

/* The id of p's shape, added if new; -1 when the index is full or out of memory. */
static int32_t shape_of(struct gs_sched_index *x, const struct gs_pod *p)
{
	struct shape *sh;
	size_t i;
	int32_t s;

	if (x->last_shape >= 0 && shape_eq(&x->shapes[x->last_shape].req, p))
		return x->last_shape;
	i = (size_t)shape_hash(p) & x->shape_mask;
	for (; (s = x->shape_table[i]) >= 0; i = (i + 1) & x->shape_mask)
		if (shape_eq(&x->shapes[s].req, p))
			return x->last_shape = s;

	if (x->n_shapes >= INDEX_MAX_SHAPES ||
	    (size_t)(x->n_shapes + 1) * x->shape_bytes > INDEX_MAX_SHAPE_BYTES)
		return -1;
	sh = gs_grow(x->shapes, &x->cap_shapes, (size_t)x->n_shapes, sizeof(*sh), 64);
	if (!sh)
		return -1;
	x->shapes = sh;
	if ((size_t)(x->n_shapes + 1) * 2 > x->shape_mask + 1 &&
	    shapes_rehash(x, 2 * (x->shape_mask + 1)))
		return -1;
	sh = &x->shapes[x->n_shapes];
	memset(sh, 0, sizeof(*sh));
	sh->req.cpu_milli = p->cpu_milli;
	sh->req.mem_mib = p->mem_mib;
	sh->req.num_gpu = p->num_gpu;
	sh->req.gpu_milli = p->gpu_milli;
	sh->req.gpu_mem_mib = p->gpu_mem_mib;
	sh->req.model_mask = p->model_mask;
	sh->req.sel = p->sel;
	sh->req.t_create_s = sh->req.t_delete_s = -1;
	if ((size_t)x->n_shapes == x->vstride && verdicts_widen(x))
		return -1;
	sh->id = x->n_shapes;
	if (x->scored)
		sh->g_score = malloc((size_t)x->cap_groups * sizeof(*sh->g_score));
	sh->fit = malloc((size_t)x->n + 1);
	if (x->scored)
		sh->tree = malloc(x->tree_size * sizeof(*sh->tree));
	if (x->ranked)
		sh->blk = malloc(rank_blocks(x) * sizeof(*sh->blk));
	if (x->share)
		sh->dem = malloc(GS_MAX_SHARE_COMBOS * sizeof(*sh->dem));
	if (!sh->fit || (x->scored && (!sh->tree || !sh->g_score)) ||
	    (x->ranked && !sh->blk) || (x->share && !sh->dem)) {
		shape_free(sh);
		return -1;
	}
	s = x->n_shapes++;
	i = (size_t)shape_hash(p) & x->shape_mask;
	while (x->shape_table[i] >= 0)
		i = (i + 1) & x->shape_mask;
	x->shape_table[i] = s;
	return x->last_shape = s;
}

/*
 * With sharing modes, the demand of sh's request on node's (config, model)
 * combination, as the scan in sched.c works it out per pick: here once per
 * shape, since it depends on nothing that binds change (new verdicts are
 * frequent with MIG, whose every instance makes a new node state). NULL on
 * mixed and CPU nodes, which have no combination, and without sharing.
 */
static inline const struct gs_share_demand *shape_demand(struct gs_sched_index *x,
							 struct shape *sh, int32_t node)
{
	int k;

	if (!sh->dem)
		return NULL;
	k = gs_cluster_share_combo(x->c, node);
	if (k < 0)
		return NULL;
	if (!((sh->dem_known >> k) & 1u)) {
		gs_cluster_share_demand(x->c, x->c->share_combo_node[k], &sh->req, &sh->dem[k]);
		sh->dem_known |= 1ull << k;
	}
	return &sh->dem[k];
}

/*
 * The score of group g for shape sh, which fits there, computed on node
 * (which is in g now) for what the scan passes the policy: the demand d of
 * the node's combination, or the node's own translation of the request
 * (the request itself without sharing modes). A score that is not above
 * -infinity is kept as the lowest finite number, so that -infinity in a
 * tree means "does not fit" (the scan takes such a node if nothing better
 * fits, and so does the tree).
 */
static void score_new(struct gs_sched_index *x, struct shape *sh, int32_t g, int32_t node,
		      const struct gs_share_demand *d)
{
	struct gs_pod tmp;
	double (*score)(void *, const struct gs_cluster *, int32_t, const struct gs_pod *) =
		x->pol->score_once ? x->pol->score_once : x->pol->score;
	const struct gs_pod *pn = d && d->why == GS_FIT_OK ?
					  &d->eff :
					  gs_cluster_node_pod(x->c, node, &sh->req, &tmp);
	double v = score(x->pol_state, x->c, node, pn);

	sh->g_score[g] = v > -INFINITY ? v : -DBL_MAX;
}

/*
 * The verdict of group g for shape sh, computed on node (which is in g
 * now) the first time, and the score where the pod fits. Inline, the
 * score apart: most new verdicts are of pods that do not fit (98% in the
 * FGD matrix, where every bind makes a new state), which need no score
 * and none of score_new()'s scratch.
 */
static inline uint8_t verdict_new(struct gs_sched_index *x, struct shape *sh, int32_t g,
				  int32_t node)
{
	const struct gs_share_demand *d = shape_demand(x, sh, node);
	uint8_t f = (uint8_t)(d ? gs_cluster_fits_demand(x->c, node, &sh->req, d) :
				  gs_cluster_fits(x->c, node, &sh->req));

	if (x->scored && f == GS_FIT_OK)
		score_new(x, sh, g, node, d);
	x->verdicts[(size_t)g * x->vstride + (size_t)sh->id] = f;
	return f;
}

/* verdict_new() unless the shape already holds g's verdict (the common case is kept small). */
static inline uint8_t verdict(struct gs_sched_index *x, struct shape *sh, int32_t g, int32_t node)
{
	uint8_t f = x->verdicts[(size_t)g * x->vstride + (size_t)sh->id];

	if (f != VERDICT_UNKNOWN)
		return f;
	return verdict_new(x, sh, g, node);
}

/* The larger of a and b, b when neither is (one SSE maxsd, where a >= b ? a : b takes four). */
static double max2(double a, double b)
{
	return a > b ? a : b;
}

/* The largest of the TREE_FAN entries from t: the value of their parent. */
static inline double max_fan(const double *t)
{
	_Static_assert(TREE_FAN == 8, "max_fan() takes eight entries");
	/*
	 * Pairwise, not one after another: fewer dependent steps. The value is
	 * the same largest double; of two equal to it (0 and -0) it may keep
	 * the other, which no comparison here tells apart (all are ==, <, >).
	 */
	return max2(max2(max2(t[0], t[1]), max2(t[2], t[3])),
		    max2(max2(t[4], t[5]), max2(t[6], t[7])));
}

static void shape_build(struct gs_sched_index *x, struct shape *sh)
{
	int32_t pos, i, l;

	memset(sh->count, 0, sizeof(sh->count));
	if (x->ranked)
		memset(sh->blk, 0, rank_blocks(x) * sizeof(*sh->blk));
	for (pos = 0; pos < x->n; pos++) {
		int32_t node = x->order[pos];
		int32_t g = x->group_of[node];
		uint8_t f = verdict(x, sh, g, node);

		sh->fit[pos] = f;
		sh->count[f]++;
		if (x->ranked && f == GS_FIT_OK)
			sh->blk[pos >> RANK_BLOCK_SHIFT]++;
		if (x->scored)
			sh->tree[pos] = f == GS_FIT_OK ? sh->g_score[g] : -INFINITY;
	}
	if (x->scored) {
		for (i = x->n; i < x->level_len[0]; i++)
			sh->tree[i] = -INFINITY;
		for (l = 1; l < x->levels; l++) {
			double *below = sh->tree + x->level_at[l - 1], *t = sh->tree + x->level_at[l];
			int32_t n_below = x->level_len[l - 1] >> TREE_FAN_SHIFT;

			for (i = 0; i < n_below; i++)
				t[i] = max_fan(below + ((size_t)i << TREE_FAN_SHIFT));
			for (; i < x->level_len[l]; i++)
				t[i] = -INFINITY;
		}
	}
	sh->cursor = x->log_end;
	sh->built = true;
}

/*
 * Sets leaf pos of shape sh's tree to v and the maxima above it. Going up,
 * an entry changes from was to v; its parent p changes only if v > p (to
 * v), or if was held p's value and v is below it (to the largest of its
 * children); otherwise nothing above changes. Only that last case reads
 * the siblings.
 */
static void leaf_set(struct gs_sched_index *x, struct shape *sh, int32_t pos, double v)
{
	double was = sh->tree[pos];
	int32_t i = pos, l;

	sh->tree[pos] = v;
	for (l = 1; l < x->levels; l++) {
		double *t = sh->tree + x->level_at[l], p;

		i >>= TREE_FAN_SHIFT;
		p = t[i];
		if (v > p) {
			t[i] = v;
		} else if (was >= p && v < p) {
			double m = max_fan(sh->tree + x->level_at[l - 1] +
					   ((size_t)i << TREE_FAN_SHIFT));

			if (m == p)
				return;
			t[i] = m;
			v = m;
		} else {
			return;
		}
		was = p;
	}
}

/* Moves node's verdict in shape sh from was to f, with the counts. */
static inline void fit_set(struct gs_sched_index *x, struct shape *sh, int32_t pos, uint8_t was,
			   uint8_t f)
{
	sh->count[was]--;
	sh->count[f]++;
	sh->fit[pos] = f;
	if (x->ranked && (f == GS_FIT_OK || was == GS_FIT_OK))
		sh->blk[pos >> RANK_BLOCK_SHIFT] += f == GS_FIT_OK ? 1 : -1;
}

/*
 * Brings node's verdict and leaf in shape sh up to date. A scored leaf is
 * -infinity exactly where the node does not fit, so a node that fits now
 * reads its leaf and not its verdict byte unless it did not fit before: on
 * a large cluster every array read here is a cache miss, and most updates
 * are of nodes that fit before and after, or neither.
 */
static inline void shape_update(struct gs_sched_index *x, struct shape *sh,
				const struct log_entry *e)
{
	int32_t pos = e->pos, g = e->group;
	uint8_t f = verdict(x, sh, g, e->node), was;

	if (x->scored && f == GS_FIT_OK) {
		double v = sh->g_score[g], leaf = sh->tree[pos];

		if (leaf == -INFINITY)
			fit_set(x, sh, pos, sh->fit[pos], f);
		if (leaf != v)
			leaf_set(x, sh, pos, v);
		return;
	}
	was = sh->fit[pos];
	if (f == was)
		return;
	fit_set(x, sh, pos, was, f);
	if (x->scored && was == GS_FIT_OK)
		leaf_set(x, sh, pos, -INFINITY);
}

/*
 * How many log entries ahead shape_sync() asks the memory for what the
 * update of a node will read in the shape's arrays: the score of its
 * group, its verdict, its leaf and the leaf's parent and grandparent, on
 * clusters of at least SYNC_PREFETCH_NODES nodes. The shapes' arrays then
 * outgrow the caches (58 shapes of 12,500 nodes: 16 MB) and each update
 * waits on them (perf: the verdict and the score, 70% of the catch-up at
 * 12,500 nodes; the parent, half of the tree updates at 100,000); asked
 * for early, the misses of successive entries overlap. The log entry
 * holds the position and the group, so asking costs no lookup.

 */
#define SYNC_AHEAD 12
#define SYNC_PREFETCH_NODES 4096

/* Applies the log to shape sh, or rebuilds it when that is cheaper or needed. */
static void shape_sync(struct gs_sched_index *x, struct shape *sh)
{
	const struct log_entry *log;
	int64_t j, end = x->log_end, ahead_end;

	/*
	 * Skipping an entry costs a few instructions, rebuilding about n
	 * verdict lookups and about 1.15n tree steps: a shape more than 2n
	 * entries behind is rebuilt (the log holds twice that).
	 */
	if (!sh->built || end - sh->cursor > 2 * (int64_t)x->n + 64) {
		shape_build(x, sh);
		return;
	}
	log = x->log - x->log_base;
	/* One loop, one call site: shape_update() stays inline. */
	ahead_end = x->scored && x->n >= SYNC_PREFETCH_NODES ? end - SYNC_AHEAD : sh->cursor;
	for (j = sh->cursor; j < end; j++) {
		if (j < ahead_end) {
			const struct log_entry *a = &log[j + SYNC_AHEAD];

			if (a->pos >= 0) {
				__builtin_prefetch(&sh->g_score[a->group]);
				__builtin_prefetch(&sh->fit[a->pos]);
				__builtin_prefetch(&sh->tree[a->pos]);
				__builtin_prefetch(&sh->tree[x->level_at[1] + (a->pos >> TREE_FAN_SHIFT)]);
				__builtin_prefetch(
					&sh->tree[x->level_at[2] + (a->pos >> (2 * TREE_FAN_SHIFT))]);
			}
		}
		if (log[j].pos >= 0)
			shape_update(x, sh, &log[j]);
	}
	sh->cursor = end;
}

/* --- picking ----------------------------------------------------------------- */

/*
 * The visit position of the fitting node with j fitting nodes before it
 * (0 <= j < the shape's count of them): the block that holds it from the
 * counts per block, then eight verdicts at a time within the block.
 * GS_FIT_OK is 0, and the bit trick below sets the top bit of exactly the
 * zero bytes of a word, so the word's fitting nodes are counted without a
 * branch.
 */
static int32_t nth_fitting(const struct gs_sched_index *x, const struct shape *sh, int32_t j)
{
	const uint64_t low7 = 0x7f7f7f7f7f7f7f7full;
	const uint8_t *fit = sh->fit;
	int32_t b = 0, pos, end;

	while (j >= sh->blk[b])
		j -= sh->blk[b++];
	pos = b << RANK_BLOCK_SHIFT;
	end = pos + RANK_BLOCK < x->n ? pos + RANK_BLOCK : x->n;
	for (; pos + 8 <= end; pos += 8) {
		uint64_t w, zero;
		int32_t k;

		memcpy(&w, fit + pos, sizeof(w));
		zero = ~(((w & low7) + low7) | w | low7);
		k = (int32_t)(((zero >> 7) * 0x0101010101010101ull) >> 56);
		if (j < k)
			break;
		j -= k;
	}
	for (;; pos++)
		if (fit[pos] == GS_FIT_OK && j-- == 0)
			return pos;
}

/*
 * The shape of p's request, its fits brought up to date with cluster c;
 * NULL when the index cannot answer for c (not the cluster it was built
 * on, resized, or with sharing switched on or off) or for p (a pod that
 * claims devices, or a new shape when the index is full or out of
 * memory): then the caller scans.
 */
static struct shape *synced_shape(struct gs_sched_index *x, const struct gs_cluster *c,
				  const struct gs_pod *p)
{
	struct shape *sh;
	int32_t s;

	if (!x || c != x->c || c->n_nodes != x->n || !c->share != !x->share)
		return NULL;
	/* Claimed devices are not part of a node's state here: filter every node. */
	if (gs_pod_claims(c, p))
		return NULL;
	if (c->version != x->version)
		resync_all(x, c);
	s = shape_of(x, p);
	if (s < 0)
		return NULL;
	sh = &x->shapes[s];
	shape_sync(x, sh);
	return sh;
}

int gs_sched_index_pick(struct gs_sched_index *x, const struct gs_cluster *c,
			const struct gs_pod *p, int32_t *node_out, struct gs_nofit *why)
{
	struct shape *sh = synced_shape(x, c, p);
	int32_t i;

	if (!sh)
		return GS_SCHED_INDEX_SCAN;
	if (sh->count[GS_FIT_OK] == 0) {
		if (why) {
			why->nodes = x->n;
			memcpy(why->count, sh->count, sizeof(why->count));
		}
		return GS_ENOFIT;
	}
	if (x->scored) {
		double m = sh->tree[x->tree_size - 1];
		int32_t l;

		/* From the root down, the first child that holds the maximum. */
		for (i = 0, l = x->levels - 2; l >= 0; l--) {
			const double *t = sh->tree + x->level_at[l] + ((size_t)i << TREE_FAN_SHIFT);
			int32_t child = 0;

			while (!(t[child] == m))
				child++;
			i = (i << TREE_FAN_SHIFT) + child;
		}
		*node_out = x->order[i];
		return 0;
	}
	/* A policy whose draws need not see the nodes: the place of the best among the fitting. */
	if (x->pol->best_of) {
		int32_t j = x->pol->best_of(x->pol_state, sh->count[GS_FIT_OK]);

		*node_out = x->order[nth_fitting(x, sh, j)];
		return 0;
	}
	/* A policy whose score is not a function of the node: score the fitting nodes in order. */
	{
		double best_score = -INFINITY;
		int32_t best = -1, pos;

		for (pos = 0; pos < x->n; pos++) {
			int32_t node = x->order[pos];
			double score;

			if (sh->fit[pos] != GS_FIT_OK)
				continue;
			score = x->pol->score(x->pol_state, c, node, p);
			if (best < 0 || score > best_score) {
				best = node;
				best_score = score;
			}
		}
		*node_out = best;
		return 0;
	}
}

int gs_sched_index_check(struct gs_sched_index *x, const struct gs_cluster *c,
			 const struct gs_pod *p)
{
	struct shape *sh = synced_shape(x, c, p);
	int32_t pos, count[GS_FIT__COUNT] = { 0 };

	if (!sh)
		return GS_SCHED_INDEX_SCAN;
	for (pos = 0; pos < x->n; pos++) {
		enum gs_fit f = gs_cluster_fits(c, x->order[pos], p);

		if (sh->fit[pos] != f)
			return GS_ECHECK;
		count[f]++;
	}
	return memcmp(count, sh->count, sizeof(count)) ? GS_ECHECK : 0;
}

/* --- lifecycle --------------------------------------------------------------- */

/*
 * Lays out the score trees: leaves for the n visit positions rounded up to
 * whole nodes of TREE_FAN, then each level a TREE_FAN-th of the one below,
 * rounded up alike, until one entry, the root, is left (the last entry).
 */
static void tree_levels(struct gs_sched_index *x)
{
	int32_t len = x->n > 0 ? x->n : 1, l = 0;
	size_t at = 0;

	for (;;) {
		int32_t whole = len > 1 ? (len + TREE_FAN - 1) & ~(TREE_FAN - 1) : 1;

		x->level_at[l] = (int32_t)at;
		x->level_len[l] = whole;
		at += (size_t)whole;
		l++;
		if (whole == 1)
			break;
		len = whole >> TREE_FAN_SHIFT;
	}
	x->levels = l;
	x->tree_size = at;
}

void gs_sched_index_free(struct gs_sched_index *x)
{
	int32_t s;

	if (!x)
		return;
	for (s = 0; s < x->n_shapes; s++)
		shape_free(&x->shapes[s]);
	GS_MEM_FREE(x->shapes, x->shape_table, x->pos_of, x->keys, x->ghash, x->refs,
		    x->verdicts, x->prev, x->next, x->table, x->group_of, x->log, x->last_log);
	free(x);
}

struct gs_sched_index *gs_sched_index_new(const struct gs_cluster *c, const int32_t *order,
					  const struct gs_policy *pol, void *pol_state)
{
	struct gs_sched_index *x;
	size_t n, cap, tsize;
	int32_t i;

	/*
	 * With sharing modes a policy scores what a pod costs on the node, not
	 * the pod: only a node_score() or best_of() policy can be indexed then.
	 */
	if (c->share && !pol->node_score && !pol->best_of)
		return NULL;
	x = calloc(1, sizeof(*x));
	if (!x)
		return NULL;
	n = (size_t)c->n_nodes;
	x->c = c;
	x->pol = pol;
	x->pol_state = pol_state;
	x->scored = pol->node_score;
	x->ranked = !pol->node_score && pol->best_of;
	x->n = c->n_nodes;
	x->order = order;
	x->version = c->version;
	x->last_shape = -1;
	x->idle_head = x->idle_tail = -1;
	tree_levels(x);
	/* More slots than nodes, so a new state always finds one; the rest cache old states. */
	cap = n + n / 2 + 64;
	x->cap_groups = (int32_t)cap;
	for (tsize = 16; tsize < 2 * cap; tsize *= 2)
		;
	/* A slot's 32 bits of hash name its home slot. */
	if (tsize - 1 > UINT32_MAX) {
		gs_sched_index_free(x);
		return NULL;
	}
	x->log_cap = (int64_t)(4 * n + 1024);
	x->pos_of = malloc((n + 1) * sizeof(*x->pos_of));
	x->group_of = malloc((n + 1) * sizeof(*x->group_of));
	x->last_log = malloc((n + 1) * sizeof(*x->last_log));
	x->share = c->share != NULL;
	x->keys = aligned_alloc(64, cap * KEY_STRIDE);
	x->ghash = malloc(cap * sizeof(*x->ghash));
	x->refs = malloc(cap * sizeof(*x->refs));
	x->vstride = 64;
	x->verdicts = malloc(cap * x->vstride);
	x->prev = malloc(cap * sizeof(*x->prev));
	x->next = malloc(cap * sizeof(*x->next));
	x->table = malloc(tsize * sizeof(*x->table));
	x->log = malloc((size_t)x->log_cap * sizeof(*x->log));
	if (!x->pos_of || !x->group_of || !x->last_log || !x->keys || !x->ghash || !x->refs ||
	    !x->verdicts || !x->prev || !x->next || !x->table || !x->log || shapes_rehash(x, 64)) {
		gs_sched_index_free(x);
		return NULL;
	}
	memset(x->table, 0xff, tsize * sizeof(*x->table));
	x->table_mask = tsize - 1;
	/* A shape's column of verdicts counts twice: the rows double their width as shapes come. */
	x->shape_bytes = cap * (2 + (x->scored ? sizeof(double) : 0)) + n + 1 +
			 (x->scored ? x->tree_size * sizeof(double) : 0) +
			 (x->ranked ? rank_blocks(x) * sizeof(int32_t) : 0) +
			 (c->share ? GS_MAX_SHARE_COMBOS * sizeof(struct gs_share_demand) : 0);
	for (i = 0; i < x->n; i++) {
		x->pos_of[order[i]] = i;
		x->group_of[i] = -1;
		x->last_log[i] = -1;
	}
	for (i = 0; i < x->n; i++)
		regroup(x, c, i);
	return x;
}
