/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cel.h - the subset of the Common Expression Language that DRA device
 * selectors are written in (DeviceClass and ResourceClaim selectors).
 *
 * What drivers and their examples use, and nothing more:
 *   device.driver, device.attributes["domain"].name,
 *   device.capacity["domain"].name, device.allowMultipleAllocations;
 *   the same with ["name"] for .name; has(x.name) and "name" in map;
 *   literals: integers, strings ('...' or "..."), true, false, null, lists;
 *   == != < <= > >= (integers, strings, booleans), in (lists, maps),
 *   ! && || and ( );
 *   quantity("10Gi") with .compareTo(q), .isGreaterThan(q),
 *   .isLessThan(q), .asInteger(), .isInteger(); semver("1.2.3") with
 *   .compareTo(v), .isGreaterThan(v), .isLessThan(v), .major(),
 *   .minor(), .patch(); version attributes are semvers, capacities
 *   quantities; strings' .startsWith(s), .endsWith(s), .contains(s),
 *   .lowerAscii(), .size();
 *   cel.bind(name, value, expr).
 * Anything else (arithmetic, regular expressions, comprehensions, other
 * functions) is refused when the expression is compiled, with a message
 * that quotes the expression and names what is not supported. At
 * evaluation, as in Kubernetes, a missing attribute or a type mismatch is
 * a runtime error, not a false.
 *
 * Ownership: gs_cel_compile() returns a heap object the caller frees with
 * gs_cel_free().
 */
#ifndef GS_K8S_CEL_H
#define GS_K8S_CEL_H

#include <stdbool.h>
#include <stddef.h>

#include "io/k8s/model.h"

struct gs_cel;

/* The device a selector looks at. */
struct gs_cel_device {
	const char *driver;
	const struct gs_k8s_device *dev;   /* attributes and capacities are fully qualified */
};

/*
 * Compiles expr. Returns the compiled expression, or NULL with the reason
 * in err ("unsupported: the function 'matches' ...", "syntax error at
 * column 12: ..."); *oom (may be NULL) is set when the failure was memory.
 */
struct gs_cel *gs_cel_compile(const char *expr, char *err, size_t err_len, bool *oom);

/* Frees a compiled expression; NULL is allowed. */
void gs_cel_free(struct gs_cel *e);

/*
 * Evaluates e on device d. Returns 1 (selected), 0 (not selected), or -1
 * with the runtime error in err (a missing attribute, a result that is not
 * a boolean, a type mismatch).
 */
int gs_cel_eval(const struct gs_cel *e, const struct gs_cel_device *d, char *err, size_t err_len);

/*
 * Compares two semantic versions (semver.org 2.0.0 precedence, build
 * metadata ignored). Returns -1, 0 or 1, or -2 when either is not a version.
 */
int gs_cel_semver_cmp(const char *a, const char *b);

#endif
