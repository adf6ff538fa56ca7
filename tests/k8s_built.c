/* SPDX-License-Identifier: Apache-2.0 */
/*
 * k8s_built.c - a snapshot from texts, finished and built, for the
 * Kubernetes tests (k8s_built.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "k8s_built.h"

int k8s_built_make(struct k8s_built *b, char *err, size_t err_len, ...)
{
	const char *name, *text;
	va_list ap;
	int rc = 0;

	memset(b, 0, sizeof(*b));
	gs_cluster_init(&b->c);
	gs_trace_init(&b->q);
	b->s = gs_k8s_snapshot_new();
	assert_non_null(b->s);
	err[0] = '\0';
	va_start(ap, err_len);
	while (!rc && (name = va_arg(ap, const char *))) {
		text = va_arg(ap, const char *);
		rc = gs_k8s_snapshot_read_mem(b->s, name, text, strlen(text), err, err_len);
	}
	va_end(ap);
	if (!rc)
		rc = gs_k8s_snapshot_finish(b->s, err, err_len);
	if (!rc)
		rc = gs_k8s_build(b->s, &b->c, &b->q, &b->st, err, err_len);
	return rc;
}

void k8s_built_free(struct k8s_built *b)
{
	gs_k8s_state_free(b->st);
	gs_k8s_snapshot_free(b->s);
	gs_trace_release(&b->q);
	gs_cluster_release(&b->c);
}
