/* SPDX-License-Identifier: Apache-2.0 */
/*
 * snapshot_internal.h - shared by the snapshot readers (read_core.c,
 * read_dra.c, link.c, snapshot.c): the context of the object being read,
 * refusals that name it, and readers of the field types every kind uses.
 */
#ifndef GS_K8S_SNAPSHOT_INTERNAL_H
#define GS_K8S_SNAPSHOT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/grow.h"
#include "io/k8s/doc.h"
#include "io/k8s/snapshot.h"

/* The object being read. */
struct gs_k8s_rctx {
	struct gs_k8s_snapshot *s;
	struct gs_k8s_origin o;
	char *err;
	size_t err_len;
};

/*
 * A field's path ("spec.containers[2].resources") as a chain of steps that
 * live on the reader's stack: written out only when a message names the
 * field, so reading a well-formed object formats nothing. Built with the
 * GS_K8S_* macros below; a step's strings must outlive the path.
 */
enum gs_k8s_step {
	GS_K8S_STEP_DOT,     /* up ".name"; "name" alone at the root */
	GS_K8S_STEP_KEY,     /* up "[name]": a map key that is data (a resource name, a label) */
	GS_K8S_STEP_INDEX,   /* up "[index]" */
	GS_K8S_STEP_SELF,    /* up itself: given to a getter as the parent, the getter names it */
};

struct gs_k8s_path {
	const struct gs_k8s_path *up;   /* the parent's path, NULL at the root */
	const char *name;               /* DOT and KEY steps */
	int64_t index;                  /* INDEX steps */
	int step;                       /* enum gs_k8s_step */
};

/* A root path given as text ("spec.template.spec"). */
#define GS_K8S_PATH(text) (&(const struct gs_k8s_path){ NULL, (text), 0, GS_K8S_STEP_DOT })
/* up.name */
#define GS_K8S_DOT(up, name) (&(const struct gs_k8s_path){ (up), (name), 0, GS_K8S_STEP_DOT })
/* up[name] */
#define GS_K8S_KEY(up, name) (&(const struct gs_k8s_path){ (up), (name), 0, GS_K8S_STEP_KEY })
/* up[i] */
#define GS_K8S_INDEX(up, i) (&(const struct gs_k8s_path){ (up), NULL, (i), GS_K8S_STEP_INDEX })
/* p, also as a getter's parent: the getter's messages name p, not p.key. */
#define GS_K8S_SELF(p) (&(const struct gs_k8s_path){ (p), NULL, 0, GS_K8S_STEP_SELF })

/*
 * Writes path p (NULL: "") into buf of len bytes, cut to fit: a long path
 * in a message is cut, never an error. Returns buf.
 */
char *gs_k8s_path_format(const struct gs_k8s_path *p, char *buf, size_t len);

/*
 * Writes "file:line: Kind ns/name: field: message" into the context's
 * error buffer (the line of `at` when it has one, else the object's) and
 * returns GS_EPARSE. field NULL or empty: no field in the message.
 */
int gs_k8s_refuse(const struct gs_k8s_rctx *c, const struct gs_kdoc *at,
		  const struct gs_k8s_path *field, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Out of memory while reading: says so in the error buffer, returns GS_ENOMEM. */
int gs_k8s_oom(const struct gs_k8s_rctx *c);

/* An interned copy of s (NULL stays NULL); NULL when out of memory. */
const char *gs_k8s_str(struct gs_k8s_rctx *c, const char *s);

/* n zeroed elements of size bytes from the snapshot's arena, or NULL. */
void *gs_k8s_alloc(struct gs_k8s_rctx *c, size_t n, size_t size);

/*
 * The getters below read the child key of map m (m NULL: no child) and
 * name it parent.key in a refusal (key alone when parent is NULL; parent
 * itself when parent is a GS_K8S_SELF path).
 */

/*
 * The scalar child key of map m into *out (interned), NULL when absent or
 * null. Refuses a map or list there. Returns 0 or an error.
 */
int gs_k8s_get_str(struct gs_k8s_rctx *c, const struct gs_kdoc *m, const char *key,
		   const struct gs_k8s_path *parent, const char **out);

/* A child that must be a map (absent and null are fine: *out NULL). Returns 0 or an error. */
int gs_k8s_get_map(struct gs_k8s_rctx *c, const struct gs_kdoc *m, const char *key,
		   const struct gs_k8s_path *parent, const struct gs_kdoc **out);

/* A child that must be a list (absent and null: *out NULL). Returns 0 or an error. */
int gs_k8s_get_seq(struct gs_k8s_rctx *c, const struct gs_kdoc *m, const char *key,
		   const struct gs_k8s_path *parent, const struct gs_kdoc **out);

/* A string child that must be there and not empty ("missing" otherwise). Returns 0 or an error. */
int gs_k8s_need_str(struct gs_k8s_rctx *c, const struct gs_kdoc *m, const char *key,
		    const struct gs_k8s_path *parent, const char **out);

/* A map child that must be there ("missing" when absent or null). Returns 0 or an error. */
int gs_k8s_need_map(struct gs_k8s_rctx *c, const struct gs_kdoc *m, const char *key,
		    const struct gs_k8s_path *parent, const struct gs_kdoc **out);

/*
 * Reads one item of a list into elem (zeroed, of the list's element
 * type); field is the item's path ("spec.devices[3]"), arg the reader's.
 * Returns 0 or an error.
 */
typedef int (*gs_k8s_item_fn)(struct gs_k8s_rctx *c, const struct gs_kdoc *item,
			      const struct gs_k8s_path *field, void *elem, void *arg);

/*
 * Reads every item of list seq (NULL or empty: none) into a new array of
 * size-byte elements from the snapshot's arena, *out and *n_out (NULL and
 * 0 when there are none): each item must be a map ("is a list, not
 * <what>" otherwise; what NULL: any item goes to fn, whose getters find
 * nothing in a scalar) and is read by fn. Returns 0, fn's error, or an
 * error of its own.
 */
int gs_k8s_read_items(struct gs_k8s_rctx *c, const struct gs_kdoc *seq,
		      const struct gs_k8s_path *field,
		      const char *what, size_t size, gs_k8s_item_fn fn, void *arg, void **out,
		      int32_t *n_out);

/* An integer child in [lo, hi]; *out untouched when absent. Returns 0 or an error. */
int gs_k8s_get_int(struct gs_k8s_rctx *c, const struct gs_kdoc *m, const char *key,
		   const struct gs_k8s_path *parent, int64_t lo, int64_t hi, int64_t *out);

/* A boolean child (true/false); *out untouched when absent. Returns 0 or an error. */
int gs_k8s_get_bool(struct gs_k8s_rctx *c, const struct gs_kdoc *m, const char *key,
		    const struct gs_k8s_path *parent, bool *out);

/*
 * Parses scalar v (the field at path field) as a quantity; refuses what
 * Kubernetes would refuse. Returns 0 or an error.
 */
int gs_k8s_quantity(struct gs_k8s_rctx *c, const struct gs_kdoc *v,
		    const struct gs_k8s_path *field, struct gs_quantity *out);

/*
 * Reads a map of string values (labels, nodeSelector) into *kv_out and
 * *n_out. Returns 0 or an error.
 */
int gs_k8s_get_kv(struct gs_k8s_rctx *c, const struct gs_kdoc *m, const char *key,
		  const struct gs_k8s_path *parent, struct gs_k8s_kv **kv_out, int32_t *n_out);

/*
 * Reads a core/v1 NodeSelector's nodeSelectorTerms (seq) into *out. A term
 * with matchFields is refused (unsupported) unless allow_fields; the
 * operators are In, NotIn, Exists, DoesNotExist, Gt and Lt. Returns 0 or
 * an error.
 */
int gs_k8s_read_terms(struct gs_k8s_rctx *c, const struct gs_kdoc *terms,
		      const struct gs_k8s_path *field, struct gs_k8s_selector *out);

/* Reads tolerations (pod or DRA request) into *out and *n_out. Returns 0 or an error. */
int gs_k8s_read_tolerations(struct gs_k8s_rctx *c, const struct gs_kdoc *seq,
			    const struct gs_k8s_path *field, struct gs_k8s_toleration **out,
			    int32_t *n_out);

/* Reads taints (node or device; dra allows the None effect). Returns 0 or an error. */
int gs_k8s_read_taints(struct gs_k8s_rctx *c, const struct gs_kdoc *seq,
		       const struct gs_k8s_path *field, bool dra, struct gs_k8s_taint **out,
		       int32_t *n_out);

/* An RFC 3339 time ("2024-05-01T12:00:00Z", "...+02:00", fractions) in Unix seconds, or -1. */
int64_t gs_k8s_time(const char *s);

/* A zeroed element at the end of one of the snapshot's arrays (GS_GROW_PUSH), or out NULL. */
#define GS_K8S_PUSH(s, arr, out) GS_GROW_PUSH((s)->arr, (s)->n_##arr, (s)->cap_##arr, 64, out)

/* --- the kinds (read_core.c, read_dra.c) ------------------------------------ */

/* Each reads one object of its kind into the snapshot. Returns 0 or an error. */
int gs_k8s_read_node(struct gs_k8s_rctx *c, const struct gs_kdoc *obj);
/* A Pod. */
int gs_k8s_read_pod(struct gs_k8s_rctx *c, const struct gs_kdoc *obj);
/* A Deployment, StatefulSet, ReplicaSet or Job. */
int gs_k8s_read_workload(struct gs_k8s_rctx *c, const struct gs_kdoc *obj);
/* A ConfigMap (kept when a data key is an NVIDIA device plugin configuration). */
int gs_k8s_read_configmap(struct gs_k8s_rctx *c, const struct gs_kdoc *obj);
/* A ResourceSlice. */
int gs_k8s_read_slice(struct gs_k8s_rctx *c, const struct gs_kdoc *obj);
/* A DeviceClass. */
int gs_k8s_read_class(struct gs_k8s_rctx *c, const struct gs_kdoc *obj);
/* A ResourceClaim. */
int gs_k8s_read_claim(struct gs_k8s_rctx *c, const struct gs_kdoc *obj);
/* A ResourceClaimTemplate. */
int gs_k8s_read_template(struct gs_k8s_rctx *c, const struct gs_kdoc *obj);

/*
 * Reads a pod spec (a Pod's, or a workload's template) into p, whose
 * origin is already set. Returns 0 or an error.
 */
int gs_k8s_read_pod_spec(struct gs_k8s_rctx *c, const struct gs_kdoc *spec,
			 const struct gs_k8s_path *field, struct gs_k8s_pod *p);

#endif
