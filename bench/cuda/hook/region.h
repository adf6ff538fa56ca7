/* SPDX-License-Identifier: Apache-2.0 */
/*
 * region.h - the shared-memory regions through which libgpushare's
 * processes see each other.
 *
 * Two kinds of region, both a file in POSIX shared memory (shm_open) or,
 * with GPUSHARE_SHM_DIR, in a directory that several containers mount:
 *
 *   pod region  "gpushare.pod.<pod id>": the pod's limits, as whoever set
 *               the pod up (gpushare-pod) or its first process wrote them,
 *               so that every process that joins the pod is held to them,
 *               and the memory each process of the pod holds on each
 *               device, so that the limit covers all of its processes.
 *   node region "gpushare.node.<node id>": one slot per process and device
 *               that launches kernels, with its pod, its compute share and
 *               when it last launched, so that a pod can tell whether
 *               others compete for the same GPU.
 *
 * Layout rules. Every region starts with struct gs_region_hdr: a magic
 * number, a layout version, the size of the whole region and its kind. A
 * process that finds any of them different from its own refuses the
 * region (GS_ESCHEMA and a message saying what to do): two library builds
 * that disagree on the layout must never share one. GS_REGION_VERSION is
 * bumped on every change to the structs below.
 *
 * Concurrency. The header holds a robust, process-shared mutex: a process
 * that dies holding it does not wedge the others (the next locker gets
 * EOWNERDEAD and carries on; nothing in the region is derived, so nothing
 * needs repair). Each process also holds an open-file-description lock on
 * one byte per slot it owns (fcntl F_OFD_SETLK, past the end of the file).
 * The kernel drops it when the process dies, however it dies, so a dead
 * process's slot, and the memory it held, is reclaimed exactly. This works
 * across PID namespaces, where kill(pid, 0) would lie.
 *
 * Failing closed. Someone may delete, replace, truncate or zero a region
 * while processes use it (`rm /dev/shm/gpushare.pod.x`, a cleanup job, a
 * full tmpfs). gs_region_check() tells, without touching the mapping
 * beyond what fstat says exists, whether the region is still the one this
 * process opened: the same file at its path, of its full size, with its
 * header and the epoch (a random number drawn at each initialisation)
 * unchanged. The hook checks before every accounting step and never
 * grants memory it could not account (hook.c).
 *
 * Ownership: struct gs_region is caller-owned (_open/_close); it owns its
 * descriptor and its mapping.
 */
#ifndef GS_SHARE_REGION_H
#define GS_SHARE_REGION_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#define GS_REGION_MAGIC 0x50485347u /* "GSHP" */
#define GS_REGION_VERSION 3u
#define GS_REGION_MAX_DEVS 16
#define GS_REGION_MAX_PROCS 128
#define GS_REGION_NODE_SLOTS 256
#define GS_REGION_POD_ID_MAX 64
#define GS_REGION_PATH_MAX 384

enum gs_region_kind {
	GS_REGION_POD = 1,
	GS_REGION_NODE = 2,
};

struct gs_region_hdr {
	uint32_t magic;
	uint32_t version;
	uint64_t size_bytes;      /* of the whole region */
	uint32_t kind;            /* enum gs_region_kind */
	uint32_t ready;           /* 1 once the creator finished */
	uint32_t pad;
	uint64_t epoch;           /* random, drawn at each initialisation; never 0 */
	pthread_mutex_t lock;     /* robust, process-shared */
};

/* Who wrote a pod's limits (struct gs_pod_limits.by). */
enum gs_pod_limits_by {
	GS_LIMITS_UNSET = 0,      /* nobody yet */
	GS_LIMITS_PROCESS = 1,    /* the first process of the pod, from its variables */
	GS_LIMITS_SETUP = 2,      /* whoever set the pod up (gpushare-pod) */
};

/* The families of limits a process may give with its variables, as bits. */
enum {
	GS_LIMITS_MEM = 1,        /* memory, on every device and per device */
	GS_LIMITS_COMPUTE = 2,    /* the compute share, on every device and per device */
	GS_LIMITS_RESERVE = 4,    /* what each context is charged */
	GS_LIMITS_ALL = 7,
};

/*
 * A pod's limits. Per-device values are by CUDA ordinal, as HAMi's
 * variables give them, and 0 means "the value for every device".
 */
struct gs_pod_limits {
	uint32_t by;                                  /* enum gs_pod_limits_by */
	uint32_t compute_pct;                         /* 1..100, 100 = none */
	uint64_t mem_bytes;                           /* per device, 0 = none */
	uint64_t dev_mem_bytes[GS_REGION_MAX_DEVS];
	uint32_t dev_compute_pct[GS_REGION_MAX_DEVS];
	uint64_t ctx_reserve_bytes;
	char mem_source[48];                          /* the variable that gave the memory limit */
};

/* A device of the pod, named by its UUID (ordinals differ between processes). */
struct gs_pod_dev {
	uint8_t uuid[16];
	uint32_t in_use;
	uint32_t pad;
	uint64_t limit_bytes;     /* the pod's limit on this device, 0 = none */
};

/* A process of the pod and the bytes it holds on each device. */
struct gs_pod_proc {
	int32_t pid;              /* in its own PID namespace: for messages only */
	uint32_t in_use;
	uint32_t dev_mask;        /* bit i: this process uses device entry i */
	uint32_t pad;
	uint64_t used_bytes[GS_REGION_MAX_DEVS];
};

struct gs_pod_region {
	struct gs_region_hdr hdr;
	struct gs_pod_limits limits;
	struct gs_pod_dev dev[GS_REGION_MAX_DEVS];
	struct gs_pod_proc proc[GS_REGION_MAX_PROCS];
};

/* A process launching kernels on one device. */
struct gs_node_slot {
	char pod_id[GS_REGION_POD_ID_MAX];
	uint8_t uuid[16];
	int32_t pid;
	uint32_t in_use;
	uint32_t share_pct;       /* requested compute share, 100 = none asked */
	uint32_t gen;             /* bumped on every claim */
	uint64_t last_active_ns;  /* CLOCK_MONOTONIC of the last launch; atomic */
};

struct gs_node_region {
	struct gs_region_hdr hdr;
	struct gs_node_slot slot[GS_REGION_NODE_SLOTS];
};

struct gs_region {
	int fd;
	void *map;
	size_t size_bytes;
	enum gs_region_kind kind;
	char path[GS_REGION_PATH_MAX];   /* for messages, e.g. /dev/shm/gpushare.pod.x */
	uint8_t held[GS_REGION_NODE_SLOTS / 8]; /* slots this process holds through fd */
	uint64_t epoch;                  /* the header's epoch when opened */
	uint64_t st_dev, st_ino;         /* the file opened, to tell it from a replacement */
};

/*
 * Opens (creating if needed) the region of this kind named id, in dir or,
 * when dir is NULL or "", in POSIX shared memory. id must already be
 * checked (config.c). Returns 0, GS_ESCHEMA when the region exists with
 * another magic, version, size or kind, GS_EIO for system errors; err
 * then holds a message naming the file.
 */
int gs_region_open(struct gs_region *r, const char *dir, enum gs_region_kind kind,
		   const char *id, char *err, size_t err_len);

/*
 * The same for a region that must exist already: GS_ENOENT (with a message
 * naming the file) when there is none, nothing created.
 */
int gs_region_open_existing(struct gs_region *r, const char *dir, enum gs_region_kind kind,
			    const char *id, char *err, size_t err_len);

/* Unmaps and closes. Drops every slot lock this process holds through r. */
void gs_region_close(struct gs_region *r);

/*
 * Whether r is still the region this process opened and intact: its path
 * names the same file, the file has the region's full size (so touching
 * the mapping cannot raise SIGBUS), and magic, version, kind, size and
 * epoch are unchanged (a zeroed or re-initialised region has another
 * epoch). Returns 0, or GS_ENOENT (deleted or replaced) or GS_ESCHEMA
 * (truncated, zeroed, re-initialised) with a message in why. A few
 * system calls, no lock; the mapping is read only when the size is right.
 */
int gs_region_check(struct gs_region *r, char *why, size_t why_len);

/* Removes the region's name (what `rm /dev/shm/gpushare.pod.x` does). */
int gs_region_unlink(const char *dir, enum gs_region_kind kind, const char *id);

/* The region's path for this dir, kind and id, as gs_region_open uses it. */
void gs_region_path(char *buf, size_t len, const char *dir, enum gs_region_kind kind,
		    const char *id);

/*
 * Takes the region's mutex. Returns 0; when the previous holder died with
 * it, marks it consistent and returns 0 too. GS_EIO only when the mutex is
 * unrecoverable.
 */
int gs_region_lock(struct gs_region *r);
/* Releases the region's mutex, which the caller holds (gs_region_lock). */
void gs_region_unlock(struct gs_region *r);

/*
 * Slot liveness: a slot is alive while an open file description holds the
 * lock on its byte, which the kernel drops when the holder dies.
 * Takes r's lock on slot i (and records it in r->held). Returns 0, or GS_EIO
 * when another open file description holds it or fcntl fails.
 */
int gs_region_hold(struct gs_region *r, int i);
/*
 * 1 when slot i's lock is held: by r itself (r->held), by another open
 * file description, or when it cannot be tested (assumed alive, so that a
 * slot is never reclaimed wrongly); 0 when nobody holds it.
 */
int gs_region_slot_alive(struct gs_region *r, int i);
/* Drops r's lock on slot i and forgets it in r->held; never fails. */
void gs_region_release_slot(struct gs_region *r, int i);

/* The pod layout of r's mapping (r opened as GS_REGION_POD); valid while r is open. */
static inline struct gs_pod_region *gs_region_pod(struct gs_region *r)
{
	return (struct gs_pod_region *)r->map;
}

/* The node layout of r's mapping (r opened as GS_REGION_NODE); valid while r is open. */
static inline struct gs_node_region *gs_region_node(struct gs_region *r)
{
	return (struct gs_node_region *)r->map;
}

/* --- the pod region ------------------------------------------------------ */

/*
 * Registers the calling process: takes a free or dead slot (reclaiming a
 * dead process's bytes) and holds its lock. Returns 0 and the slot in
 * *slot_out, GS_ENOMEM when every slot is taken by a live process (message
 * in err).
 */
int gs_pod_attach(struct gs_region *r, int32_t pid, int *slot_out, char *err, size_t err_len);

/*
 * Settles a process's limits (*mine) with its pod's, under the region's
 * lock; a pod has one set of limits, and the region holds them for as
 * long as it exists.
 *   setup: *mine become the pod's (by GS_LIMITS_SETUP), unless live
 *     processes of the pod other than slot self (-1: none) run under other
 *     limits (GS_EEXIST, message in err).
 *   a process (setup 0), when the pod has no limits yet: *mine become the
 *     pod's (by GS_LIMITS_PROCESS); with given 0 (it has none of its own)
 *     it is GS_ENOENT instead.
 *   a process, when the pod has limits: each family in given must equal
 *     the pod's (GS_EINVAL, message in err: a process cannot change its
 *     pod's limits), and the other families are copied into *mine.
 * Returns 0 or the code above.
 */
int gs_pod_limits_settle(struct gs_region *r, struct gs_pod_limits *mine, unsigned given,
			 int setup, int self, char *err, size_t err_len);

/* The pod's limits, copied under the lock (by GS_LIMITS_UNSET when none). */
void gs_pod_limits_get(struct gs_region *r, struct gs_pod_limits *out);

/*
 * One family of limits as text, for messages: "4096 MiB, device 1: 8192
 * MiB", "none", "30 %". Returns buf.
 */
const char *gs_pod_limits_text(const struct gs_pod_limits *l, unsigned family, char *buf,
			       size_t len);

/*
 * Finds or adds the device with this UUID for process slot proc (-1: look
 * only, add nothing, mark nothing) and marks it as used by proc. A new
 * entry records limit_bytes, the pod's limit on that device; an existing
 * entry with another limit is refused (GS_EINVAL) while a live process
 * other than proc uses it, and takes the new limit otherwise. When the
 * table is full, entries that no live process uses are freed first.
 * Returns the index, GS_ENOMEM (full of devices in use), GS_ENOENT (proc
 * -1 and no such device) or GS_EIO.
 */
int gs_pod_dev_index(struct gs_region *r, int proc, const uint8_t uuid[16],
		     uint64_t limit_bytes);

/*
 * Reserves bytes on device dev for process slot proc if the pod's total
 * stays within limit_bytes (0: no limit). Reclaims dead processes before
 * giving up. Returns 0 or GS_ENOMEM (nothing reserved).
 */
int gs_pod_reserve(struct gs_region *r, int proc, int dev, uint64_t bytes, uint64_t limit_bytes);

/* Returns bytes reserved by gs_pod_reserve(); clamps at zero. */
void gs_pod_unreserve(struct gs_region *r, int proc, int dev, uint64_t bytes);

/*
 * The pod's bytes on device dev, over live processes: the slots of dead
 * ones are reclaimed first, so a peer that died is not counted.
 */
uint64_t gs_pod_used(struct gs_region *r, int dev);

/*
 * With the mutex held: frees the slot of every process that died, with
 * its bytes. Returns how many were reclaimed. self is skipped (-1: none).
 */
int gs_pod_reclaim_locked(struct gs_region *r, int self);

/* --- the node region ----------------------------------------------------- */

/*
 * Claims a slot for (pod, device) for the calling process and holds its
 * lock. Returns the slot index and its generation in *gen_out, or
 * GS_ENOMEM when all slots belong to live processes.
 */
int gs_node_claim(struct gs_region *r, const char *pod_id, const uint8_t uuid[16], int32_t pid,
		  int share_pct, uint64_t now_ns, uint32_t *gen_out);

/* Records a launch in slot i now (one atomic store). */
void gs_node_beat(struct gs_region *r, int slot, uint64_t now_ns);

/* True while slot i still carries generation gen (nobody re-claimed it). */
int gs_node_slot_current(struct gs_region *r, int slot, uint32_t gen);

/* One process launching on a device, as the throttle sees it. */
struct gs_peer {
	char pod_id[GS_REGION_POD_ID_MAX];
	int share_pct;
	uint64_t last_active_ns;
};

/*
 * Copies the slots of live processes on the device with this UUID into
 * out (at most cap). Returns how many, or GS_EIO.
 */
int gs_node_peers(struct gs_region *r, const uint8_t uuid[16], struct gs_peer *out, int cap);

#endif
