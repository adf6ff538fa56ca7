/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ptrmap.c - open-addressing map of live allocations.
 */
#include <stdlib.h>

#include "core/error.h"
#include "ptrmap.h"

static size_t slot_of(const struct gs_ptrmap *m, uint64_t key)
{
	/* Fibonacci hashing: device pointers share their low bits. */
	return (size_t)((key * 0x9e3779b97f4a7c15ull) >> 17) & (m->cap - 1);
}

void gs_ptrmap_init(struct gs_ptrmap *m)
{
	m->e = NULL;
	m->cap = 0;
	m->n = 0;
}

void gs_ptrmap_release(struct gs_ptrmap *m)
{
	free(m->e);
	gs_ptrmap_init(m);
}

static void insert(struct gs_ptrmap *m, const struct gs_ptrmap_entry *ent)
{
	size_t i = slot_of(m, ent->key);

	while (m->e[i].key && m->e[i].key != ent->key)
		i = (i + 1) & (m->cap - 1);
	if (!m->e[i].key)
		m->n++;
	m->e[i] = *ent;
}

static int grow(struct gs_ptrmap *m)
{
	struct gs_ptrmap old = *m;
	size_t i, cap = old.cap ? old.cap * 2 : 64;

	m->e = calloc(cap, sizeof(*m->e));
	if (!m->e) {
		*m = old;
		return GS_ENOMEM;
	}
	m->cap = cap;
	m->n = 0;
	for (i = 0; i < old.cap; i++)
		if (old.e[i].key)
			insert(m, &old.e[i]);
	free(old.e);
	return 0;
}

struct gs_ptrmap_entry *gs_ptrmap_find(struct gs_ptrmap *m, uint64_t key)
{
	size_t i;

	if (!key || !m->cap)
		return NULL;
	for (i = slot_of(m, key); m->e[i].key; i = (i + 1) & (m->cap - 1))
		if (m->e[i].key == key)
			return &m->e[i];
	return NULL;
}

int gs_ptrmap_put_entry(struct gs_ptrmap *m, const struct gs_ptrmap_entry *ent)
{
	struct gs_ptrmap_entry *old;

	if (!ent->key)
		return GS_EINVAL;
	old = gs_ptrmap_find(m, ent->key);
	if (old) {
		*old = *ent;
		return 0;
	}
	/* Keep the load factor under 1/2: probes stay short. */
	if ((m->n + 1) * 2 > m->cap && grow(m))
		return GS_ENOMEM;
	insert(m, ent);
	return 0;
}

int gs_ptrmap_put(struct gs_ptrmap *m, uint64_t key, uint64_t bytes, int32_t dev)
{
	struct gs_ptrmap_entry ent = { key, bytes, dev, 0, 0, 0 };

	return gs_ptrmap_put_entry(m, &ent);
}

int gs_ptrmap_take(struct gs_ptrmap *m, uint64_t key, struct gs_ptrmap_entry *out)
{
	size_t i, j, k;

	if (!key || !m->cap)
		return GS_ENOENT;
	i = slot_of(m, key);
	while (m->e[i].key != key) {
		if (!m->e[i].key)
			return GS_ENOENT;
		i = (i + 1) & (m->cap - 1);
	}
	*out = m->e[i];
	/*
	 * Backward-shift deletion: move later entries of the probe run into
	 * the hole when their home slot allows it.
	 */
	j = i;
	for (;;) {
		j = (j + 1) & (m->cap - 1);
		if (!m->e[j].key)
			break;
		k = slot_of(m, m->e[j].key);
		/* Entry j may move to i if its home k is not in (i, j]. */
		if ((j > i && (k <= i || k > j)) || (j < i && (k <= i && k > j))) {
			m->e[i] = m->e[j];
			i = j;
		}
	}
	m->e[i].key = 0;
	m->n--;
	return 0;
}
