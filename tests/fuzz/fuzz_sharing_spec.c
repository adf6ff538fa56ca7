/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_sharing_spec.c - fuzz target: the sharing-spec parser (--sharing,
 * cluster files' sharing column; core/sharing.h) and the check of a spec
 * against a cluster (gs_cluster_share_check()).
 *
 * Properties: a refused spec says why in one line; an accepted spec
 * formats to a canonical text that parses back to the same settings and
 * formats the same again; a spec that gs_cluster_share_check() accepts on
 * a cluster of H100, A100 and T4 nodes is applied to it by
 * gs_cluster_share_default() without an error, and one it refuses names
 * a node or the layout.
 */
#include "core/cluster.h"
#include "core/error.h"
#include "core/sharing.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gs_share_cfg cfg, again;
	struct gs_cluster c;
	char spec[512], text[GS_SHARE_SPEC_MAX], text2[GS_SHARE_SPEC_MAX], err[512];
	int rc;

	if (size >= sizeof(spec))
		return 0;
	memcpy(spec, data, size);
	spec[size] = '\0';
	err[0] = '\0';
	rc = gs_share_parse(spec, &cfg, err, sizeof(err));
	if (rc) {
		FUZZ_CHECK(rc == GS_EINVAL, "status %s for '%s'", gs_strerror(rc), spec);
		FUZZ_CHECK(err[0] != '\0', "a refusal of '%s' without a message", spec);
		return 0;
	}
	gs_share_format(&cfg, text, sizeof(text));
	FUZZ_CHECK(gs_share_parse(text, &again, err, sizeof(err)) == 0,
		   "the canonical form '%s' of '%s' is refused: %s", text, spec, err);
	FUZZ_CHECK(gs_share_cfg_equal(&cfg, &again), "'%s' and its canonical form '%s' differ",
		   spec, text);
	gs_share_format(&again, text2, sizeof(text2));
	FUZZ_CHECK(strcmp(text, text2) == 0, "'%s' formats as '%s', then as '%s'", spec, text,
		   text2);
	if (cfg.mode == GS_SHARE_DEFAULT)
		return 0;

	gs_cluster_init(&c);
	if (gs_cluster_add_node(&c, "h", 64000, 524288, 2, "H100") < 0 ||
	    gs_cluster_add_node(&c, "a", 64000, 524288, 1, "A100-40G") < 0 ||
	    gs_cluster_add_node(&c, "t", 64000, 524288, 1, "T4") < 0) {
		gs_cluster_release(&c);
		return 0;
	}
	err[0] = '\0';
	rc = gs_cluster_share_check(&c, &cfg, err, sizeof(err));
	if (rc) {
		FUZZ_CHECK(rc == GS_EINVAL, "check: status %s for '%s'", gs_strerror(rc), spec);
		FUZZ_CHECK(strstr(err, "node ") || strstr(err, "layout"),
			   "the check of '%s' names no node nor layout: '%s'", spec, err);
	} else {
		rc = gs_cluster_share_default(&c, &cfg, NULL, err, sizeof(err));
		FUZZ_CHECK(rc == 0 || rc == GS_ENOMEM,
			   "'%s' passed the check but could not be applied: %s", spec, err);
	}
	gs_cluster_release(&c);
	return 0;
}
