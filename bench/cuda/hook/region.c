/* SPDX-License-Identifier: Apache-2.0 */
/*
 * region.c - creating, checking and locking libgpushare's shared regions.
 */
#define _GNU_SOURCE /* F_OFD_SETLK */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/error.h"
#include "region.h"

/* Slot i's liveness lock is byte LIVE_BASE + i, past the end of the file. */
#define LIVE_BASE ((off_t)1 << 30)

static const char *kind_name(enum gs_region_kind kind)
{
	return kind == GS_REGION_POD ? "pod" : "node";
}

static size_t kind_size(enum gs_region_kind kind)
{
	return kind == GS_REGION_POD ? sizeof(struct gs_pod_region)
				     : sizeof(struct gs_node_region);
}

void gs_region_path(char *buf, size_t len, const char *dir, enum gs_region_kind kind,
		    const char *id)
{
	if (dir && *dir)
		snprintf(buf, len, "%s/gpushare.%s.%s", dir, kind_name(kind), id);
	else
		snprintf(buf, len, "/dev/shm/gpushare.%s.%s", kind_name(kind), id);
}

static int open_fd(const char *dir, enum gs_region_kind kind, const char *id, const char *path,
		   int create)
{
	char name[GS_REGION_PATH_MAX];
	int flags = O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0);

	if (dir && *dir)
		return open(path, flags, 0660);
	snprintf(name, sizeof(name), "/gpushare.%s.%s", kind_name(kind), id);
	return shm_open(name, flags, 0660);
}

int gs_region_unlink(const char *dir, enum gs_region_kind kind, const char *id)
{
	char path[GS_REGION_PATH_MAX];
	char name[GS_REGION_PATH_MAX];

	gs_region_path(path, sizeof(path), dir, kind, id);
	if (dir && *dir)
		return unlink(path) ? GS_EIO : 0;
	snprintf(name, sizeof(name), "/gpushare.%s.%s", kind_name(kind), id);
	return shm_unlink(name) ? GS_EIO : 0;
}

static int init_mutex(pthread_mutex_t *m)
{
	pthread_mutexattr_t a;
	int rc;

	if (pthread_mutexattr_init(&a))
		return GS_EIO;
	rc = pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED) ||
	     pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST) ||
	     pthread_mutex_init(m, &a);
	pthread_mutexattr_destroy(&a);
	return rc ? GS_EIO : 0;
}

/* A new epoch: random, never 0 (a zeroed header reads 0). */
static uint64_t new_epoch(void)
{
	struct timespec ts;
	uint64_t e = 0;

	if (getrandom(&e, sizeof(e), GRND_NONBLOCK) != (ssize_t)sizeof(e)) {
		clock_gettime(CLOCK_REALTIME, &ts);
		e = ((uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec) ^
		    ((uint64_t)getpid() << 32);
	}
	return e ? e : 1;
}

/*
 * Checks an existing region's header against this build. The messages say
 * what to do, because the fix is always outside this process.
 */
static int check_header(const struct gs_region_hdr *h, size_t file_bytes,
			enum gs_region_kind kind, const char *path, char *err, size_t len)
{
	if (h->magic != GS_REGION_MAGIC) {
		snprintf(err, len,
			 "%s is not a gpushare region (magic 0x%08x, expected 0x%08x): "
			 "remove it or choose another GPUSHARE_POD_ID/GPUSHARE_NODE_ID",
			 path, h->magic, GS_REGION_MAGIC);
		return GS_ESCHEMA;
	}
	if (h->version != GS_REGION_VERSION) {
		snprintf(err, len,
			 "%s has layout version %u but this libgpushare uses version %u: "
			 "refusing to share it; run every process of the pod with one "
			 "library build, or stop them all and remove the file",
			 path, h->version, GS_REGION_VERSION);
		return GS_ESCHEMA;
	}
	if (h->kind != (uint32_t)kind || h->size_bytes != kind_size(kind) ||
	    file_bytes != kind_size(kind)) {
		snprintf(err, len,
			 "%s is a %zu-byte file holding a %llu-byte region of kind %u, this "
			 "library expects a %zu-byte %s region: refusing to share it; stop "
			 "every process using it and remove the file",
			 path, file_bytes, (unsigned long long)h->size_bytes, h->kind,
			 kind_size(kind), kind_name(kind));
		return GS_ESCHEMA;
	}
	return 0;
}

static int region_open(struct gs_region *r, const char *dir, enum gs_region_kind kind,
		       const char *id, int create, char *err, size_t err_len)
{
	size_t want = kind_size(kind);
	struct gs_region_hdr *h;
	struct stat st;
	void *map;
	int fd, rc;

	memset(r, 0, sizeof(*r));
	r->fd = -1;
	gs_region_path(r->path, sizeof(r->path), dir, kind, id);
	fd = open_fd(dir, kind, id, r->path, create);
	if (fd < 0) {
		int e = errno;
		struct stat ds;

		/* The usual mistake: GPUSHARE_SHM_DIR names a directory nobody made or mounted. */
		if (e == ENOENT && create && dir && *dir && stat(dir, &ds))
			snprintf(err, err_len, "cannot open %s: the directory %s does not exist "
				 "(GPUSHARE_SHM_DIR: create it, or mount the node's directory there)",
				 r->path, dir);
		else
			snprintf(err, err_len, "cannot open %s: %s", r->path, strerror(e));
		return e == ENOENT && !create ? GS_ENOENT : GS_EIO;
	}
	/*
	 * flock serialises creation: only one process sizes and initialises a
	 * new region, and nobody reads a half-initialised header.
	 */
	while (flock(fd, LOCK_EX) && errno == EINTR)
		;
	if (fstat(fd, &st)) {
		snprintf(err, err_len, "cannot stat %s: %s", r->path, strerror(errno));
		rc = GS_EIO;
		goto out_close;
	}
	if (st.st_size == 0 && ftruncate(fd, (off_t)want)) {
		snprintf(err, err_len, "cannot size %s to %zu bytes: %s", r->path, want,
			 strerror(errno));
		rc = GS_EIO;
		goto out_close;
	}
	if (st.st_size != 0 && (size_t)st.st_size < sizeof(*h)) {
		snprintf(err, err_len,
			 "%s is %lld bytes, too short for a gpushare region: remove it",
			 r->path, (long long)st.st_size);
		rc = GS_ESCHEMA;
		goto out_close;
	}
	map = mmap(NULL, st.st_size ? (size_t)st.st_size : want, PROT_READ | PROT_WRITE,
		   MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		snprintf(err, err_len, "cannot map %s: %s", r->path, strerror(errno));
		rc = GS_EIO;
		goto out_close;
	}
	h = map;
	if (st.st_size == 0 || (h->magic == 0 && !__atomic_load_n(&h->ready, __ATOMIC_ACQUIRE))) {
		/* New, or its creator died before finishing: (re)initialise. */
		memset(map, 0, want);
		h->magic = GS_REGION_MAGIC;
		h->version = GS_REGION_VERSION;
		h->size_bytes = want;
		h->kind = kind;
		h->epoch = new_epoch();
		if (init_mutex(&h->lock)) {
			snprintf(err, err_len, "cannot initialise the mutex of %s", r->path);
			rc = GS_EIO;
			goto out_unmap;
		}
		__atomic_store_n(&h->ready, 1, __ATOMIC_RELEASE);
	} else {
		rc = check_header(h, (size_t)st.st_size, kind, r->path, err, err_len);
		if (rc)
			goto out_unmap;
	}
	flock(fd, LOCK_UN);
	r->fd = fd;
	r->map = map;
	r->size_bytes = want;
	r->kind = kind;
	r->epoch = h->epoch;
	r->st_dev = (uint64_t)st.st_dev;
	r->st_ino = (uint64_t)st.st_ino;
	return 0;

out_unmap:
	munmap(map, st.st_size ? (size_t)st.st_size : want);
out_close:
	close(fd);
	return rc;
}

int gs_region_open(struct gs_region *r, const char *dir, enum gs_region_kind kind,
		   const char *id, char *err, size_t err_len)
{
	return region_open(r, dir, kind, id, 1, err, err_len);
}

int gs_region_open_existing(struct gs_region *r, const char *dir, enum gs_region_kind kind,
			    const char *id, char *err, size_t err_len)
{
	return region_open(r, dir, kind, id, 0, err, err_len);
}

int gs_region_check(struct gs_region *r, char *why, size_t why_len)
{
	const struct gs_region_hdr *h = r->map;
	struct stat at_path, ours;

	if (fstat(r->fd, &ours)) {
		snprintf(why, why_len, "cannot stat %s: %s", r->path, strerror(errno));
		return GS_EIO;
	}
	if (stat(r->path, &at_path) || (uint64_t)at_path.st_dev != r->st_dev ||
	    (uint64_t)at_path.st_ino != r->st_ino) {
		snprintf(why, why_len, "%s was deleted or replaced while this process used it",
			 r->path);
		return GS_ENOENT;
	}
	/* Checked before the mapping is read: pages past the end raise SIGBUS. */
	if ((size_t)ours.st_size < r->size_bytes) {
		snprintf(why, why_len, "%s was truncated to %lld bytes (of %zu) while this "
			 "process used it", r->path, (long long)ours.st_size, r->size_bytes);
		return GS_ESCHEMA;
	}
	if (__atomic_load_n(&h->epoch, __ATOMIC_ACQUIRE) != r->epoch ||
	    h->magic != GS_REGION_MAGIC || h->version != GS_REGION_VERSION ||
	    h->kind != (uint32_t)r->kind || h->size_bytes != r->size_bytes ||
	    (size_t)ours.st_size != r->size_bytes) {
		snprintf(why, why_len, "%s was zeroed or re-initialised while this process used it",
			 r->path);
		return GS_ESCHEMA;
	}
	return 0;
}

void gs_region_close(struct gs_region *r)
{
	if (r->map)
		munmap(r->map, r->size_bytes);
	if (r->fd >= 0)
		close(r->fd);
	r->map = NULL;
	r->fd = -1;
}

int gs_region_lock(struct gs_region *r)
{
	struct gs_region_hdr *h = r->map;
	int rc = pthread_mutex_lock(&h->lock);

	if (rc == EOWNERDEAD) {
		/*
		 * The holder died inside a critical section. Every update in the
		 * region is a single store of a value that is right on its own
		 * (no totals are kept), so the state is usable as it is.
		 */
		pthread_mutex_consistent(&h->lock);
		return 0;
	}
	return rc ? GS_EIO : 0;
}

void gs_region_unlock(struct gs_region *r)
{
	struct gs_region_hdr *h = r->map;

	pthread_mutex_unlock(&h->lock);
}

static int slot_lock(int fd, int cmd, short type, int i, struct flock *out)
{
	struct flock fl;

	memset(&fl, 0, sizeof(fl));
	fl.l_type = type;
	fl.l_whence = SEEK_SET;
	fl.l_start = LIVE_BASE + i;
	fl.l_len = 1;
	if (fcntl(fd, cmd, &fl))
		return GS_EIO;
	if (out)
		*out = fl;
	return 0;
}

int gs_region_hold(struct gs_region *r, int i)
{
	if (slot_lock(r->fd, F_OFD_SETLK, F_WRLCK, i, NULL))
		return GS_EIO;
	r->held[i / 8] |= (uint8_t)(1u << (i % 8));
	return 0;
}

void gs_region_release_slot(struct gs_region *r, int i)
{
	slot_lock(r->fd, F_OFD_SETLK, F_UNLCK, i, NULL);
	r->held[i / 8] &= (uint8_t)~(1u << (i % 8));
}

int gs_region_slot_alive(struct gs_region *r, int i)
{
	struct flock fl;

	/* Our own locks never conflict with our own test: look them up. */
	if (r->held[i / 8] & (1u << (i % 8)))
		return 1;
	/* On error assume alive: wrongly reclaiming would break the limit. */
	if (slot_lock(r->fd, F_OFD_GETLK, F_WRLCK, i, &fl))
		return 1;
	return fl.l_type != F_UNLCK;
}

/* --- pod ------------------------------------------------------------------ */

static void free_proc(struct gs_pod_region *p, int i)
{
	memset(&p->proc[i], 0, sizeof(p->proc[i]));
}

int gs_pod_reclaim_locked(struct gs_region *r, int self)
{
	struct gs_pod_region *p = gs_region_pod(r);
	int i, n = 0;

	for (i = 0; i < GS_REGION_MAX_PROCS; i++) {
		if (i == self || !p->proc[i].in_use)
			continue;
		if (!gs_region_slot_alive(r, i)) {
			free_proc(p, i);
			n++;
		}
	}
	return n;
}

int gs_pod_attach(struct gs_region *r, int32_t pid, int *slot_out, char *err, size_t err_len)
{
	struct gs_pod_region *p = gs_region_pod(r);
	int i, slot = -1, rc;

	rc = gs_region_lock(r);
	if (rc) {
		snprintf(err, err_len, "the mutex of %s is unrecoverable: remove the file", r->path);
		return rc;
	}
	gs_pod_reclaim_locked(r, -1);
	for (i = 0; i < GS_REGION_MAX_PROCS && slot < 0; i++)
		if (!p->proc[i].in_use)
			slot = i;
	if (slot < 0) {
		snprintf(err, err_len, "%s: all %d process slots are taken by live processes",
			 r->path, GS_REGION_MAX_PROCS);
		gs_region_unlock(r);
		return GS_ENOMEM;
	}
	if (gs_region_hold(r, slot)) {
		snprintf(err, err_len, "cannot lock slot %d of %s: %s", slot, r->path,
			 strerror(errno));
		gs_region_unlock(r);
		return GS_EIO;
	}
	free_proc(p, slot);
	p->proc[slot].pid = pid;
	p->proc[slot].in_use = 1;
	gs_region_unlock(r);
	*slot_out = slot;
	return 0;
}

/* Whether family (GS_LIMITS_*) is the same in a and b. */
static int limits_equal(const struct gs_pod_limits *a, const struct gs_pod_limits *b,
			unsigned family)
{
	switch (family) {
	case GS_LIMITS_MEM:
		return a->mem_bytes == b->mem_bytes &&
		       !memcmp(a->dev_mem_bytes, b->dev_mem_bytes, sizeof(a->dev_mem_bytes));
	case GS_LIMITS_COMPUTE:
		return a->compute_pct == b->compute_pct &&
		       !memcmp(a->dev_compute_pct, b->dev_compute_pct, sizeof(a->dev_compute_pct));
	default:
		return a->ctx_reserve_bytes == b->ctx_reserve_bytes;
	}
}

/* Copies family (GS_LIMITS_*) from src into dst. */
static void limits_copy(struct gs_pod_limits *dst, const struct gs_pod_limits *src,
			unsigned family)
{
	if (family == GS_LIMITS_MEM) {
		dst->mem_bytes = src->mem_bytes;
		memcpy(dst->dev_mem_bytes, src->dev_mem_bytes, sizeof(dst->dev_mem_bytes));
		memcpy(dst->mem_source, src->mem_source, sizeof(dst->mem_source));
	} else if (family == GS_LIMITS_COMPUTE) {
		dst->compute_pct = src->compute_pct;
		memcpy(dst->dev_compute_pct, src->dev_compute_pct, sizeof(dst->dev_compute_pct));
	} else {
		dst->ctx_reserve_bytes = src->ctx_reserve_bytes;
	}
}

static const char *const family_name[] = { "", "memory limit", "compute share", "",
					   "context reserve" };

const char *gs_pod_limits_text(const struct gs_pod_limits *l, unsigned family, char *buf,
			       size_t len)
{
	size_t n;
	int i;

	if (family == GS_LIMITS_RESERVE) {
		snprintf(buf, len, "%llu MiB", (unsigned long long)(l->ctx_reserve_bytes >> 20));
		return buf;
	}
	if (family == GS_LIMITS_MEM)
		snprintf(buf, len, l->mem_bytes ? "%llu MiB" : "none",
			 (unsigned long long)(l->mem_bytes >> 20));
	else
		snprintf(buf, len, l->compute_pct < 100 ? "%u %%" : "none", l->compute_pct);
	for (i = 0; i < GS_REGION_MAX_DEVS; i++) {
		n = strlen(buf);
		if (family == GS_LIMITS_MEM && l->dev_mem_bytes[i])
			snprintf(buf + n, len - n, ", device %d: %llu MiB", i,
				 (unsigned long long)(l->dev_mem_bytes[i] >> 20));
		else if (family == GS_LIMITS_COMPUTE && l->dev_compute_pct[i])
			snprintf(buf + n, len - n, ", device %d: %u %%", i, l->dev_compute_pct[i]);
	}
	return buf;
}

/* Whether a live process other than self holds a slot of the pod. */
static int others_live_locked(struct gs_region *r, int self)
{
	const struct gs_pod_region *p = gs_region_pod(r);
	int i;

	gs_pod_reclaim_locked(r, self);
	for (i = 0; i < GS_REGION_MAX_PROCS; i++)
		if (i != self && p->proc[i].in_use)
			return 1;
	return 0;
}

int gs_pod_limits_settle(struct gs_region *r, struct gs_pod_limits *mine, unsigned given,
			 int setup, int self, char *err, size_t err_len)
{
	struct gs_pod_limits *pod = &gs_region_pod(r)->limits;
	char ours[256], theirs[256];
	unsigned f;
	int rc = 0;

	if (gs_region_lock(r)) {
		snprintf(err, err_len, "the mutex of %s is unrecoverable: remove the file", r->path);
		return GS_EIO;
	}
	for (f = GS_LIMITS_MEM; f <= GS_LIMITS_RESERVE && pod->by && (setup || given); f <<= 1) {
		if ((!setup && !(given & f)) || limits_equal(mine, pod, f))
			continue;
		if (setup && !others_live_locked(r, self))
			break;
		snprintf(err, err_len,
			 "%s: %s %s %s, but the pod's is %s (%s): %s", r->path,
			 setup ? "setting the pod's" : "this process asks for the", family_name[f],
			 gs_pod_limits_text(mine, f, ours, sizeof(ours)),
			 gs_pod_limits_text(pod, f, theirs, sizeof(theirs)),
			 pod->by == GS_LIMITS_SETUP ? "set up by gpushare-pod"
						    : "written by its first process",
			 setup ? "refusing while processes of the pod run under them; stop them "
				 "first"
			       : "refusing to run, since a process cannot change its pod's "
				 "limits; give it the pod's (or none: it takes them from the "
				 "pod), or stop every process of the pod and set it up again");
		rc = setup ? GS_EEXIST : GS_EINVAL;
		break;
	}
	if (!rc && (setup || !pod->by)) {
		if (!setup && !given) {
			snprintf(err, err_len, "%s holds no limits for the pod", r->path);
			rc = GS_ENOENT;
		} else {
			*pod = *mine;
			pod->by = setup ? GS_LIMITS_SETUP : GS_LIMITS_PROCESS;
		}
	}
	for (f = GS_LIMITS_MEM; !rc && f <= GS_LIMITS_RESERVE; f <<= 1)
		if (!(given & f) && !setup)
			limits_copy(mine, pod, f);
	if (!rc)
		mine->by = pod->by;
	gs_region_unlock(r);
	return rc;
}

void gs_pod_limits_get(struct gs_region *r, struct gs_pod_limits *out)
{
	memset(out, 0, sizeof(*out));
	if (gs_region_lock(r))
		return;
	*out = gs_region_pod(r)->limits;
	gs_region_unlock(r);
}

/* Whether a live process other than self marks device entry i as used. */
static int dev_used_locked(const struct gs_pod_region *p, int i, int self)
{
	int k;

	for (k = 0; k < GS_REGION_MAX_PROCS; k++)
		if (k != self && p->proc[k].in_use && (p->proc[k].dev_mask & (1u << i)))
			return 1;
	return 0;
}

int gs_pod_dev_index(struct gs_region *r, int proc, const uint8_t uuid[16],
		     uint64_t limit_bytes)
{
	struct gs_pod_region *p = gs_region_pod(r);
	int i, found = -1, free_i = -1, rc;

	if (gs_region_lock(r))
		return GS_EIO;
	for (i = 0; i < GS_REGION_MAX_DEVS; i++) {
		if (p->dev[i].in_use && !memcmp(p->dev[i].uuid, uuid, 16)) {
			found = i;
			break;
		}
		if (!p->dev[i].in_use && free_i < 0)
			free_i = i;
	}
	if (proc < 0) {
		gs_region_unlock(r);
		return found >= 0 ? found : GS_ENOENT;
	}
	if (found < 0 && free_i < 0) {
		/* Full: free the entries that no live process uses any more. */
		gs_pod_reclaim_locked(r, proc);
		for (i = 0; i < GS_REGION_MAX_DEVS; i++) {
			if (!(p->proc[proc].dev_mask & (1u << i)) && !dev_used_locked(p, i, -1)) {
				memset(&p->dev[i], 0, sizeof(p->dev[i]));
				if (free_i < 0)
					free_i = i;
			}
		}
	}
	if (found >= 0 && p->dev[found].limit_bytes != limit_bytes) {
		/* A new limit only once nobody else runs under the old one. */
		gs_pod_reclaim_locked(r, proc);
		if (dev_used_locked(p, found, proc)) {
			gs_region_unlock(r);
			return GS_EINVAL;
		}
		p->dev[found].limit_bytes = limit_bytes;
	}
	if (found < 0 && free_i >= 0) {
		memcpy(p->dev[free_i].uuid, uuid, 16);
		p->dev[free_i].limit_bytes = limit_bytes;
		p->dev[free_i].in_use = 1;
		found = free_i;
	}
	rc = found >= 0 ? found : GS_ENOMEM;
	if (found >= 0)
		p->proc[proc].dev_mask |= 1u << found;
	gs_region_unlock(r);
	return rc;
}

static uint64_t used_locked(const struct gs_pod_region *p, int dev)
{
	uint64_t sum = 0;
	int i;

	for (i = 0; i < GS_REGION_MAX_PROCS; i++)
		if (p->proc[i].in_use)
			sum += p->proc[i].used_bytes[dev];
	return sum;
}

uint64_t gs_pod_used(struct gs_region *r, int dev)
{
	uint64_t used;

	if (gs_region_lock(r))
		return 0;
	gs_pod_reclaim_locked(r, -1);
	used = used_locked(gs_region_pod(r), dev);
	gs_region_unlock(r);
	return used;
}

int gs_pod_reserve(struct gs_region *r, int proc, int dev, uint64_t bytes, uint64_t limit_bytes)
{
	struct gs_pod_region *p = gs_region_pod(r);
	uint64_t used;

	if (gs_region_lock(r))
		return GS_EIO;
	used = used_locked(p, dev);
	if (limit_bytes && (bytes > limit_bytes || used > limit_bytes - bytes)) {
		if (gs_pod_reclaim_locked(r, proc))
			used = used_locked(p, dev);
		if (bytes > limit_bytes || used > limit_bytes - bytes) {
			gs_region_unlock(r);
			return GS_ENOMEM;
		}
	}
	p->proc[proc].used_bytes[dev] += bytes;
	gs_region_unlock(r);
	return 0;
}

void gs_pod_unreserve(struct gs_region *r, int proc, int dev, uint64_t bytes)
{
	struct gs_pod_region *p = gs_region_pod(r);
	uint64_t *u = &p->proc[proc].used_bytes[dev];

	if (gs_region_lock(r))
		return;
	*u = *u > bytes ? *u - bytes : 0;
	gs_region_unlock(r);
}

/* --- node ----------------------------------------------------------------- */

int gs_node_claim(struct gs_region *r, const char *pod_id, const uint8_t uuid[16], int32_t pid,
		  int share_pct, uint64_t now_ns, uint32_t *gen_out)
{
	struct gs_node_region *n = gs_region_node(r);
	struct gs_node_slot *s;
	int i, slot = -1;

	if (gs_region_lock(r))
		return GS_EIO;
	for (i = 0; i < GS_REGION_NODE_SLOTS; i++) {
		if (!n->slot[i].in_use || !gs_region_slot_alive(r, i)) {
			slot = i;
			break;
		}
	}
	if (slot < 0 || gs_region_hold(r, slot)) {
		gs_region_unlock(r);
		return GS_ENOMEM;
	}
	s = &n->slot[slot];
	memset(s->pod_id, 0, sizeof(s->pod_id));
	snprintf(s->pod_id, sizeof(s->pod_id), "%s", pod_id);
	memcpy(s->uuid, uuid, 16);
	s->pid = pid;
	s->share_pct = (uint32_t)share_pct;
	s->gen++;
	s->in_use = 1;
	__atomic_store_n(&s->last_active_ns, now_ns, __ATOMIC_RELAXED);
	*gen_out = s->gen;
	gs_region_unlock(r);
	return slot;
}

void gs_node_beat(struct gs_region *r, int slot, uint64_t now_ns)
{
	__atomic_store_n(&gs_region_node(r)->slot[slot].last_active_ns, now_ns, __ATOMIC_RELAXED);
}

int gs_node_slot_current(struct gs_region *r, int slot, uint32_t gen)
{
	struct gs_node_slot *s = &gs_region_node(r)->slot[slot];

	return __atomic_load_n(&s->gen, __ATOMIC_RELAXED) == gen &&
	       __atomic_load_n(&s->in_use, __ATOMIC_RELAXED);
}

int gs_node_peers(struct gs_region *r, const uint8_t uuid[16], struct gs_peer *out, int cap)
{
	struct gs_node_region *n = gs_region_node(r);
	int i, k = 0;

	if (gs_region_lock(r))
		return GS_EIO;
	for (i = 0; i < GS_REGION_NODE_SLOTS && k < cap; i++) {
		struct gs_node_slot *s = &n->slot[i];

		if (!s->in_use || memcmp(s->uuid, uuid, 16) || !gs_region_slot_alive(r, i))
			continue;
		memcpy(out[k].pod_id, s->pod_id, sizeof(out[k].pod_id));
		out[k].pod_id[sizeof(out[k].pod_id) - 1] = 0;
		out[k].share_pct = (int)s->share_pct;
		out[k].last_active_ns = __atomic_load_n(&s->last_active_ns, __ATOMIC_RELAXED);
		k++;
	}
	gs_region_unlock(r);
	return k;
}
