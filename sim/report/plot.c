/* SPDX-License-Identifier: Apache-2.0 */
/*
 * plot.c - drawing `gpusim plot`'s figures: runs gnuplot on the scripts
 * under scripts/ with the data files that store/plot_data.c wrote.
 */
#include <errno.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>


#include "core/error.h"
#include "report/plot.h"

extern char **environ;

#ifndef GS_SCRIPTS_DIR
#define GS_SCRIPTS_DIR "scripts"
#endif

const char *gs_plot_scripts_dir(void)
{
	static char installed[4096];
	const char *env = getenv("GPUSIM_SCRIPTS");
	char exe[4096], *slash;
	struct stat sb;
	ssize_t n;

	if (env && *env)
		return env;
	/* <prefix>/bin/gpusim -> <prefix>/share/gpusim/scripts */
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = 0;
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = 0;
			n = snprintf(installed, sizeof(installed),
				     "%.3900s/../share/gpusim/scripts/plot_common.gp", exe);
			if (n > 0 && (size_t)n < sizeof(installed) && stat(installed, &sb) == 0) {
				*strrchr(installed, '/') = 0;
				return installed;
			}
		}
	}
	return GS_SCRIPTS_DIR;
}

/* Buckets kept per run: arrived 0..GS_PLOT_PCT_MAX percent. */

bool gs_plot_quotable(const char *s)
{
	return !strpbrk(s, "'\n");
}

static int check_paths(const char *scripts_dir, const char *data_dir, const char *out_dir,
		       char *err, size_t err_len)
{
	if (gs_plot_quotable(data_dir) && gs_plot_quotable(out_dir) &&
	    gs_plot_quotable(scripts_dir))
		return 0;
	gs_errf(err, err_len, "paths with a single quote cannot be passed to gnuplot");
	return GS_EINVAL;
}

/*
 * Removes the figures a failed gnuplot may have left, empty or cut short:
 * every out...='PATH' of vars, as PATH.png, .svg and .pdf. vars is ours,
 * so its form is known: NAME='VALUE' assignments separated by "; ".
 */
static void remove_outputs(const char *vars)
{
	static const char *const ext[] = { "png", "svg", "pdf" };
	const char *s = vars;

	while ((s = strstr(s, "out")) != NULL) {
		const char *q, *end;
		char path[4096];
		size_t i;

		if (s != vars && s[-1] != ' ' && s[-1] != ';') {
			s += 3;
			continue;
		}
		q = strstr(s, "='");
		if (!q || strcspn(s, ";") < (size_t)(q - s))
			break;
		end = strchr(q + 2, '\'');
		if (!end)
			break;
		for (i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
			int n = snprintf(path, sizeof(path), "%.*s.%s", (int)(end - q - 2), q + 2,
					 ext[i]);

			if (n > 0 && (size_t)n < sizeof(path))
				unlink(path);
		}
		s = end + 1;
	}
}

int gs_plot_gnuplot(const char *vars, const char *script, char *err, size_t err_len)
{
	char *argv[] = { "gnuplot", "-e", (char *)vars, (char *)script, NULL };
	struct stat sb;
	pid_t pid;
	int rc, status;

	if (stat(script, &sb)) {
		gs_errf(err, err_len, "%s: cannot read the gnuplot script: %s", script,
			strerror(errno));
		return GS_ENOENT;
	}
	rc = posix_spawnp(&pid, "gnuplot", NULL, NULL, argv, environ);
	if (rc) {
		gs_errf(err, err_len, "cannot run gnuplot: %s; install it (apt-get install gnuplot-nox)",
			strerror(rc));
		return GS_ENOENT;
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			gs_errf(err, err_len, "waiting for gnuplot: %s", strerror(errno));
			return GS_EIO;
		}
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
		gs_errf(err, err_len, "cannot run gnuplot; install it (apt-get install gnuplot-nox)");
		return GS_ENOENT;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		gs_errf(err, err_len, "gnuplot failed on %s (status %d)", script,
			WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		remove_outputs(vars);
		return GS_EIO;
	}
	return 0;
}

/* Whether name can be a word of a gnuplot list, in either quotes: no quote, no line break. */
static bool list_word(const char *name)
{
	return !strpbrk(name, "'\"\n");
}

/* Refuses name, which is no list_word(): GS_EINVAL with a message in err. */
static int refuse_word(const char *name, char *err, size_t err_len)
{
	gs_errf(err, err_len, "'%s' has a quote or a line break; gnuplot cannot be given it", name);
	return GS_EINVAL;
}

/*
 * names as one space-separated gnuplot word list, each in double quotes
 * when quote is set (gnuplot's word() keeps a quoted word whole). Returns
 * 0, or GS_EINVAL with a message when a name cannot go between the single
 * quotes of a gnuplot string or the list does not fit in len.
 */
static int word_list(char *const *names, size_t n, bool quote, char *buf, size_t len, char *err,
		     size_t err_len)
{
	const char *q = quote ? "\"" : "";
	size_t i, used = 0;
	int w;

	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		if (!list_word(names[i]))
			return refuse_word(names[i], err, err_len);
		w = snprintf(buf + used, len - used, "%s%s%s%s", i ? " " : "", q, names[i], q);
		if (w < 0 || (size_t)w >= len - used) {
			gs_errf(err, err_len, "too many names to pass to gnuplot (%zu)", n);
			return GS_EINVAL;
		}
		used += (size_t)w;
	}
	return 0;
}

static void log_files(FILE *log, const char *out_dir, const char *base)
{
	if (log)
		fprintf(log, "%s/%s.png\n%s/%s.svg\n%s/%s.pdf\n", out_dir, base, out_dir, base,
			out_dir, base);
}

/* 1 when a trace of the family has a bound at 100 % (the bars then show it), else 0. */
static int family_bound(const struct gs_plot_index *ix, const char *family)
{
	size_t t, len = strlen(family);

	for (t = 0; ix->bound_at100 && t < ix->n_traces; t++)
		if (!strncmp(ix->traces[t], family, len) && ix->traces[t][len] >= '0' &&
		    ix->traces[t][len] <= '9' && !isnan(ix->bound_at100[t]))
			return 1;
	return 0;
}

/*
 * Runs gnuplot on scripts_dir/script with the variables vars set; on
 * success lists base's files in log (none for a NULL base).
 */
static int draw(const char *scripts_dir, const char *script, const char *vars, FILE *log,
		const char *out_dir, const char *base, char *err, size_t err_len)
{
	char path[4096];
	int rc;

	snprintf(path, sizeof(path), "%s/%s", scripts_dir, script);
	rc = gs_plot_gnuplot(vars, path, err, err_len);
	if (!rc && base)
		log_files(log, out_dir, base);
	return rc;
}

/* "10 seeds", "1 seed" or "8-10 seeds" for the titles. */
static void seeds_text(size_t lo, size_t hi, char *buf, size_t len)
{
	if (lo == hi)
		snprintf(buf, len, "%zu seed%s", hi, hi == 1 ? "" : "s");
	else
		snprintf(buf, len, "%zu-%zu seeds", lo, hi);
}

int gs_plot_render(const struct gs_plot_index *ix, const char *scripts_dir, const char *data_dir,
		   const char *out_dir, FILE *log, char *err, size_t err_len)
{
	char seeds[64];
	size_t lo, hi;
	char words[2048], vars[8192];
	size_t t, f;
	int rc;

	rc = check_paths(scripts_dir, data_dir, out_dir, err, err_len);
	if (!rc)
		rc = word_list(ix->policies, ix->n_policies, false, words, sizeof(words), err,
			       err_len);
	if (rc)
		return rc;
	for (t = 0; t < ix->n_traces; t++) {
		const char *tr = ix->traces[t];
		/* A figure without a point to draw is skipped; gpusim plot says why. */
		bool alloc = !ix->alloc_points || ix->alloc_points[t];
		bool frag = !ix->frag_points || ix->frag_points[t];

		lo = ix->seeds_min ? ix->seeds_min[t] : 0;
		hi = ix->seeds_max ? ix->seeds_max[t] : 0;
		seeds_text(lo, hi, seeds, sizeof(seeds));
		snprintf(vars, sizeof(vars),
			 "scriptdir='%s/'; datadir='%s'; trace='%s'; policies='%s';"
			 " out='%s/unalloc_%s'; seeds='%s'; maxseeds=%zu; scoring='%s'; bound=%d",
			 scripts_dir, data_dir, tr, words, out_dir, tr, seeds, hi,
			 ix->scoring ? ix->scoring : "", ix->bound && ix->bound[t] ? 1 : 0);
		rc = alloc ? draw(scripts_dir, "plot_alloc.gp", vars, log, out_dir, NULL, err, err_len)
			   : 0;
		if (rc)
			return rc;
		snprintf(vars, sizeof(vars),
			 "scriptdir='%s/'; datadir='%s'; trace='%s'; policies='%s';"
			 " out_ratio='%s/frag_ratio_%s'; out_amount='%s/frag_amount_%s';"
			 " seeds='%s'; maxseeds=%zu; scoring='%s'",
			 scripts_dir, data_dir, tr, words, out_dir, tr, out_dir, tr, seeds, hi,
			 ix->scoring ? ix->scoring : "");
		rc = frag ? draw(scripts_dir, "plot_frag.gp", vars, log, out_dir, NULL, err, err_len)
			  : 0;
		if (rc)
			return rc;
		if (log) {
			char base[512];

			snprintf(base, sizeof(base), "unalloc_%s", tr);
			if (alloc)
				log_files(log, out_dir, base);
			snprintf(base, sizeof(base), "frag_ratio_%s", tr);
			if (frag)
				log_files(log, out_dir, base);
			snprintf(base, sizeof(base), "frag_amount_%s", tr);
			if (frag)
				log_files(log, out_dir, base);
		}
	}
	for (f = 0; f < ix->n_families; f++) {
		char base[256];

		snprintf(base, sizeof(base), "bars_%s", ix->families[f]);
		/* The seeds of the family's traces. */
		lo = 0;
		hi = 0;
		for (t = 0; t < ix->n_traces && ix->seeds_min; t++) {
			size_t len = strlen(ix->families[f]);
			char next = ix->traces[t][strncmp(ix->traces[t], ix->families[f], len) ? 0 : len];

			/* As store/plot_data.c groups them: the family's name, then digits. */
			if (strncmp(ix->traces[t], ix->families[f], len) || next < '0' || next > '9')
				continue;
			if (!lo || ix->seeds_min[t] < lo)
				lo = ix->seeds_min[t];
			if (ix->seeds_max[t] > hi)
				hi = ix->seeds_max[t];
		}
		seeds_text(lo, hi, seeds, sizeof(seeds));
		snprintf(vars, sizeof(vars),
			 "scriptdir='%s/'; datafile='%s/%s.dat'; family='%s'; policies='%s';"
			 " out='%s/%s'; seeds='%s'; maxseeds=%zu; scoring='%s'; bound=%d",
			 scripts_dir, data_dir, base, ix->families[f], words, out_dir, base, seeds,
			 hi, ix->scoring ? ix->scoring : "", family_bound(ix, ix->families[f]));
		rc = draw(scripts_dir, "plot_bars.gp", vars, log, out_dir, base, err, err_len);
		if (rc)
			return rc;
	}
	return 0;
}

/*
 * The policies of trace t whose flag is set, as a word list, and their
 * line types (index in the index's policy list, from 1) as another.
 */
static size_t time_words(const struct gs_plot_time *ix, size_t t, const bool *flags, char *words,
			 char *lts, size_t len)
{
	size_t p, n = 0, used = 0, lused = 0;

	words[0] = lts[0] = '\0';
	for (p = 0; p < ix->n_policies; p++) {
		if (!flags[t * ix->n_policies + p])
			continue;
		used += (size_t)snprintf(words + used, len - used, "%s%s", n ? " " : "",
					 ix->policies[p]);
		lused += (size_t)snprintf(lts + lused, len - lused, "%s%zu", n ? " " : "", p + 1);
		if (used >= len || lused >= len)
			return 0;
		n++;
	}
	return n;
}

int gs_plot_time_render(const struct gs_plot_time *ix, const char *scripts_dir,
			const char *data_dir, const char *out_dir, FILE *log, char *err,
			size_t err_len)
{
	static const struct {
		const char *prefix, *script;
	} figs[] = {
		{ "time_series", "plot_time_series.gp" },
		{ "time_cdf", "plot_time_cdf.gp" },
		{ "time_load", "plot_time_load.gp" },
		{ "time_idle", "plot_time_idle.gp" },
	};
	char words[2048], lts[1024], vars[8192], base[512];
	size_t t, f;
	int rc;

	rc = check_paths(scripts_dir, data_dir, out_dir, err, err_len);
	for (t = 0; !rc && t < ix->n_traces; t++) {
		if (!list_word(ix->traces[t]) || !list_word(ix->setting[t]))
			return refuse_word(ix->traces[t], err, err_len);
		for (f = 0; !rc && f < sizeof(figs) / sizeof(figs[0]); f++) {
			const bool *flags = f == 0 || f == 3 ? ix->series
					    : f == 1 ? ix->cdf : ix->load;
			bool frag = false;
			size_t p;

			if (!time_words(ix, t, flags, words, lts, sizeof(lts)))
				continue;
			/* The idle figure adds a fragmentation panel when some run tracked it. */
			for (p = 0; p < ix->n_policies; p++)
				frag |= ix->frag[t * ix->n_policies + p];
			snprintf(base, sizeof(base), "%s_%s", figs[f].prefix, ix->traces[t]);
			snprintf(vars, sizeof(vars),
				 "scriptdir='%s/'; datadir='%s'; trace='%s'; policies='%s';"
				 " lts='%s'; out='%s/%s'; setting='%s'; frag=%d",
				 scripts_dir, data_dir, ix->traces[t], words, lts, out_dir, base,
				 ix->setting[t], frag ? 1 : 0);
			rc = draw(scripts_dir, figs[f].script, vars, log, out_dir, base,
				  err, err_len);
		}
	}
	return rc;
}

/*
 * The mechanisms of trace t with a set flag (cdf per policy p, or coloc
 * when p is SIZE_MAX), as a quoted word list, and their line types (index
 * in the mechanism list, from 1, so a mechanism keeps its colour across
 * the figures). Returns how many, 0 also when the lists do not fit.
 */
static size_t sharing_words(const struct gs_plot_sharing *ix, size_t t, size_t p, char *words,
			    char *slugs, char *lts, size_t len)
{
	size_t m, n = 0, used = 0, sused = 0, lused = 0;
	char slug[256];
	bool on;

	words[0] = slugs[0] = lts[0] = '\0';
	for (m = 0; m < ix->n_sharings; m++) {
		on = p == SIZE_MAX ? ix->coloc[t * ix->n_sharings + m]
				   : ix->cdf[(t * ix->n_sharings + m) * ix->n_policies + p];
		if (!on)
			continue;
		gs_plot_sharing_slug(ix->sharings[m], slug, sizeof(slug));
		if (p == SIZE_MAX)
			used += (size_t)snprintf(words + used, len - used, "%s\"%s\"", n ? " " : "",
						 ix->sharings[m]);
		else
			used += (size_t)snprintf(words + used, len - used, "%s\"%s (%zu)\"",
						 n ? " " : "", ix->sharings[m],
						 ix->n_done[(t * ix->n_sharings + m) * ix->n_policies + p]);
		sused += (size_t)snprintf(slugs + sused, len - sused, "%s%s", n ? " " : "", slug);
		lused += (size_t)snprintf(lts + lused, len - lused, "%s%zu", n ? " " : "", m + 1);
		if (used >= len || sused >= len || lused >= len)
			return 0;
		n++;
	}
	return n;
}

/*
 * The utilisation figure's lists for trace t, as <trace>.sharing_util.dat
 * has its columns and rows: the policies with runs (words) and their line
 * types (index in the index's policy list, from 1, so a policy keeps its
 * colour from one trace to the next), and the mechanisms with runs (quoted
 * words). Returns 0, GS_EINVAL (a name gnuplot cannot be given, or too
 * many) or GS_ENOMEM.
 */
static int util_words(const struct gs_plot_sharing *ix, size_t t, char *policies, char *lts,
		      char *sharings, size_t len, char *err, size_t err_len)
{
	size_t n = ix->n_policies > ix->n_sharings ? ix->n_policies : ix->n_sharings;
	char **sel = malloc((n ? n : 1) * sizeof(*sel));
	size_t m, p, n_sel = 0, used = 0;
	int rc;

	if (!sel) {
		gs_errf(err, err_len, "out of memory");
		return GS_ENOMEM;
	}
	lts[0] = '\0';
	for (p = 0; p < ix->n_policies; p++) {
		if (!gs_plot_sharing_util_any(ix, t, p, true))
			continue;
		sel[n_sel++] = ix->policies[p];
		used += (size_t)snprintf(lts + used, len - used, "%s%zu", used ? " " : "", p + 1);
		if (used >= len) {
			free(sel);
			gs_errf(err, err_len, "too many policies to pass to gnuplot (%zu)", n_sel);
			return GS_EINVAL;
		}
	}
	rc = word_list(sel, n_sel, false, policies, len, err, err_len);
	n_sel = 0;
	for (m = 0; !rc && m < ix->n_sharings; m++)
		if (gs_plot_sharing_util_any(ix, t, m, false))
			sel[n_sel++] = ix->sharings[m];
	if (!rc)
		rc = word_list(sel, n_sel, true, sharings, len, err, err_len);
	free(sel);
	return rc;
}

int gs_plot_sharing_render(const struct gs_plot_sharing *ix, const char *scripts_dir,
			   const char *data_dir, const char *out_dir, FILE *log, char *err,
			   size_t err_len)
{
	char words[2048], slugs[2048], lts[2048], policies[2048], sharings[2048], setting[64];
	char vars[16384], pvars[12288], panels[2048], base[512];
	size_t t, p, n_panels, pused;
	int rc;

	rc = check_paths(scripts_dir, data_dir, out_dir, err, err_len);
	for (t = 0; !rc && t < ix->n_traces; t++) {
		if (!list_word(ix->traces[t]))
			return refuse_word(ix->traces[t], err, err_len);
		if (isnan(ix->load[t]))
			snprintf(setting, sizeof(setting), "no --load");
		else
			snprintf(setting, sizeof(setting), "--load %g", ix->load[t]);
		/* Utilisation: the mechanisms and policies with runs of the trace. */
		rc = util_words(ix, t, policies, lts, sharings, sizeof(policies), err, err_len);
		if (rc)
			break;
		snprintf(base, sizeof(base), "sharing_util_%s", ix->traces[t]);
		snprintf(vars, sizeof(vars),
			 "scriptdir='%s/'; datadir='%s'; trace='%s'; policies='%s'; lts='%s';"
			 " sharings='%s'; out='%s/%s'; setting='%s'",
			 scripts_dir, data_dir, ix->traces[t], policies, lts, sharings, out_dir,
			 base, setting);
		rc = draw(scripts_dir, "plot_sharing_util.gp", vars, log, out_dir, base,
			  err, err_len);
		/* Completion-time CDFs: one panel per policy with data, its mechanisms. */
		n_panels = 0;
		pused = 0;
		panels[0] = pvars[0] = '\0';
		for (p = 0; !rc && p < ix->n_policies; p++) {
			if (!sharing_words(ix, t, p, words, slugs, lts, sizeof(words)))
				continue;
			n_panels++;
			pused += (size_t)snprintf(pvars + pused, sizeof(pvars) - pused,
						  "; w%zu='%s'; s%zu='%s'; l%zu='%s'", n_panels, words,
						  n_panels, slugs, n_panels, lts);
			snprintf(panels + strlen(panels), sizeof(panels) - strlen(panels), "%s%s",
				 n_panels > 1 ? " " : "", ix->policies[p]);
			if (pused >= sizeof(pvars)) {
				gs_errf(err, err_len, "too many mechanisms to pass to gnuplot");
				return GS_EINVAL;
			}
		}
		if (!rc && n_panels) {
			snprintf(base, sizeof(base), "sharing_cdf_%s", ix->traces[t]);
			snprintf(vars, sizeof(vars),
				 "scriptdir='%s/'; datadir='%s'; trace='%s'; out='%s/%s';"
				 " setting='%s'; panels='%s'%s",
				 scripts_dir, data_dir, ix->traces[t], out_dir, base, setting, panels,
				 pvars);
			rc = draw(scripts_dir, "plot_sharing_cdf.gp", vars, log, out_dir, base,
				  err, err_len);
		}
		/* Slowdown against co-located pods: one line per mechanism with data. */
		if (!rc && sharing_words(ix, t, SIZE_MAX, words, slugs, lts, sizeof(words))) {
			snprintf(base, sizeof(base), "sharing_coloc_%s", ix->traces[t]);
			snprintf(vars, sizeof(vars),
				 "scriptdir='%s/'; datadir='%s'; trace='%s'; sharings='%s'; slugs='%s';"
				 " lts='%s'; out='%s/%s'; setting='%s'",
				 scripts_dir, data_dir, ix->traces[t], words, slugs, lts, out_dir, base,
				 setting);
			rc = draw(scripts_dir, "plot_sharing_coloc.gp", vars, log, out_dir, base,
				  err, err_len);
		}
	}
	return rc;
}

int gs_plot_bench_render(const struct gs_plot_bench *b, const char *scripts_dir,
			 const char *data_dir, const char *out_dir, FILE *log, char *err,
			 size_t err_len)
{
	char kernels[2048], modes[512], devices[2048], vars[16384];
	int rc, fig;

	rc = check_paths(scripts_dir, data_dir, out_dir, err, err_len);
	if (!rc)
		rc = word_list(b->kernels, b->n_kernels, true, kernels, sizeof(kernels), err,
			       err_len);
	if (!rc)
		rc = word_list(b->modes, b->n_modes, true, modes, sizeof(modes), err, err_len);
	if (!rc)
		rc = word_list(b->devices, b->n_devices, true, devices, sizeof(devices), err,
			       err_len);
	for (fig = 0; !rc && fig < GS_PLOT_BENCH_N; fig++) {
		const struct gs_plot_bench_figure *f = &gs_plot_bench_figures[fig];

		if (!b->n_rows[fig])
			continue;
		snprintf(vars, sizeof(vars),
			 "scriptdir='%s/'; datafile='%s/%s'; out='%s/%s'; kernels='%s';"
			 " modes='%s'; devices='%s'",
			 scripts_dir, data_dir, f->csv, out_dir, f->name, kernels, modes, devices);
		rc = draw(scripts_dir, f->script, vars, log, out_dir, f->name, err, err_len);
	}
	return rc;
}
