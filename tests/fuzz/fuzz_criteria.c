/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_criteria.c - fuzz target: the texts of `gpusim advise --require`
 * and `--objective` (report/criteria.h). The first byte picks the parser
 * (even: a condition, odd: an objective), the rest is the text.
 *
 * Properties: a refusal is GS_EINVAL (or GS_ERANGE for a bound no run can
 * meet) with a message; an accepted condition has a known metric and
 * operator and a finite bound in the metric's range, and its printed form
 * parses back to the same metric and operator and prints the same again;
 * an accepted objective has 1 to GS_OBJ_TERMS_MAX terms of positive
 * finite weight, and its name parses back to the same terms and prints
 * the same again. Printing into a short buffer stays inside it.
 */
#include <math.h>

#include "core/error.h"
#include "fuzz.h"
#include "report/criteria.h"

static void check_cond(const char *text)
{
	struct gs_cond c, again;
	char err[512] = "", buf[160], buf2[160], tiny[8];
	int rc = gs_cond_parse(text, &c, err, sizeof(err));

	if (rc) {
		FUZZ_CHECK(rc == GS_EINVAL || rc == GS_ERANGE, "status %s for '%s'",
			   gs_strerror(rc), text);
		FUZZ_CHECK(err[0] != '\0', "a refusal of '%s' without a message", text);
		return;
	}
	FUZZ_CHECK((unsigned)c.metric < GS_N_METRICS, "metric %d for '%s'", (int)c.metric, text);
	FUZZ_CHECK(c.op == '<' || c.op == 'l' || c.op == '>' || c.op == 'g', "op %d for '%s'",
		   c.op, text);
	FUZZ_CHECK(isfinite(c.value) && c.value >= 0, "bound %g for '%s'", c.value, text);
	FUZZ_CHECK(strcmp(gs_metric_unit(c.metric), "%") || c.value <= 100,
		   "a share of %g %% for '%s'", c.value, text);
	FUZZ_CHECK(!gs_cond_holds(&c, NAN), "NaN meets '%s'", text);
	gs_cond_format(&c, buf, sizeof(buf));
	err[0] = '\0';
	rc = gs_cond_parse(buf, &again, err, sizeof(err));
	FUZZ_CHECK(rc == 0, "'%s', printed as '%s', is refused: %s", text, buf, err);
	FUZZ_CHECK(again.metric == c.metric && again.op == c.op,
		   "'%s', printed as '%s', reads back as another condition", text, buf);
	gs_cond_format(&again, buf2, sizeof(buf2));
	FUZZ_CHECK(strcmp(buf, buf2) == 0, "'%s' prints as '%s', then as '%s'", text, buf, buf2);
	gs_cond_format(&c, tiny, sizeof(tiny));
	FUZZ_CHECK(strlen(tiny) < sizeof(tiny), "a condition overran its buffer");
}

static void check_objective(const char *text)
{
	struct gs_objective o, again;
	char err[512] = "", name[512], name2[512], tiny[8], line[512];
	size_t i;
	int rc = gs_objective_parse(text, &o, err, sizeof(err));

	if (rc) {
		FUZZ_CHECK(rc == GS_EINVAL, "status %s for '%s'", gs_strerror(rc), text);
		FUZZ_CHECK(err[0] != '\0', "a refusal of '%s' without a message", text);
		return;
	}
	if (o.score) {
		FUZZ_CHECK(o.n_terms >= 1 && o.n_terms <= GS_OBJ_TERMS_MAX, "%zu terms for '%s'",
			   o.n_terms, text);
		for (i = 0; i < o.n_terms; i++) {
			FUZZ_CHECK((unsigned)o.term[i] < GS_N_METRICS, "term %d for '%s'",
				   (int)o.term[i], text);
			FUZZ_CHECK(isfinite(o.weight[i]) && o.weight[i] > 0, "weight %g for '%s'",
				   o.weight[i], text);
		}
	} else {
		FUZZ_CHECK((unsigned)o.metric < GS_N_METRICS, "metric %d for '%s'", (int)o.metric,
			   text);
	}
	gs_objective_name(&o, name, sizeof(name));
	err[0] = '\0';
	rc = gs_objective_parse(name, &again, err, sizeof(err));
	FUZZ_CHECK(rc == 0, "'%s', named '%s', is refused: %s", text, name, err);
	FUZZ_CHECK(again.score == o.score && again.n_terms == o.n_terms &&
			   (o.score || again.metric == o.metric),
		   "'%s', named '%s', reads back as another objective", text, name);
	for (i = 0; i < o.n_terms; i++)
		FUZZ_CHECK(again.term[i] == o.term[i], "'%s', named '%s': term %zu differs", text,
			   name, i);
	gs_objective_name(&again, name2, sizeof(name2));
	FUZZ_CHECK(strcmp(name, name2) == 0, "'%s' is named '%s', then '%s'", text, name, name2);
	gs_objective_name(&o, tiny, sizeof(tiny));
	FUZZ_CHECK(strlen(tiny) < sizeof(tiny), "an objective's name overran its buffer");
	gs_objective_format(&o, tiny, sizeof(tiny));
	FUZZ_CHECK(strlen(tiny) < sizeof(tiny), "an objective's sentence overran its buffer");
	gs_objective_format(&o, line, sizeof(line));
	FUZZ_CHECK(line[0] != '\0', "'%s' has no sentence", text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char text[512];

	if (size < 1 || size > sizeof(text))
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	if (data[0] & 1)
		check_objective(text);
	else
		check_cond(text);
	return 0;
}
