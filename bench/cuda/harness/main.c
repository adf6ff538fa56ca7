/* SPDX-License-Identifier: Apache-2.0 */
/*
 * main.c - gpusim-bench: runs benchmark scenarios on this host's GPUs in
 * the sharing modes they list, and writes the results as text for
 * `gpusim bench-import`.
 *
 * For each scenario: find the GPUs (the CUDA driver, loaded at run time),
 * place the clients on them with the simulator's own allocator and policy
 * (the host is one node, its GPUs the node's GPUs, each client a one-GPU
 * pod asking for gpu_milli and gpu_mem_mib), run `repeat` rounds of every
 * mode (exclusive first in each), derive slowdown, achieved share and
 * overhead against the exclusive runs, and write the records. Nothing is
 * written to the output file until it is complete: results go to FILE.tmp
 * and are renamed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"
#include "core/error.h"
#include "policies/policy.h"
#include "policies/sched.h"

#define EXIT_FAIL 1
#define EXIT_USAGE 2
#define EXIT_NODEV 77
#define EXIT_STOPPED -1 /* a signal asked to stop (internal) */

static char out_tmp[PATH_MAX + 8], csv_tmp[PATH_MAX + 8];

/* Async-signal-safe: a flag and a line; the run in progress does the rest. */
static void on_signal(int sig)
{
	gs_bench_request_stop(sig);
}

/* After a stop: no half-written results, then die of the signal as asked. */
static void finish_stopped(FILE *out, FILE *csv)
{
	int sig = gs_bench_stop_requested();

	gs_bench_abort();
	if (out && out != stdout)
		fclose(out);
	if (csv)
		fclose(csv);
	if (out_tmp[0])
		unlink(out_tmp);
	if (csv_tmp[0])
		unlink(csv_tmp);
	signal(sig, SIG_DFL);
	raise(sig);
	exit(128 + sig);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gpusim-bench [OPTIONS] SCENARIO.json...\n\n"
		"Runs CUDA sharing benchmarks on this host's GPUs: each scenario's clients are\n"
		"placed with a gpusim placement policy, then run as separate processes in the\n"
		"scenario's modes (exclusive always first, as the baseline).\n\n"
		"Options:\n"
		"  -o, --out FILE          results file (key=value text for gpusim bench-import);\n"
		"                          default: standard output\n"
		"      --slowdown-csv FILE the slowdown table (kernel x co-located x mode) as CSV\n"
		"      --client-dir DIR    where vecadd, mnist, launch and memprobe are\n"
		"                          (default: gpusim-bench's own directory)\n"
		"      --hook PATH         libgpushare.so for the hook mode (default: in DIR)\n"
		"      --work-dir DIR      client logs and private MPS/shm directories\n"
		"                          (default: a new /tmp/gpusim-bench-XXXXXX)\n"
		"      --duration-s S      override every scenario's duration\n"
		"      --warmup-s S        override every scenario's warm-up\n"
		"      --repeat N          override every scenario's repeat count\n"
		"      --modes LIST        only these modes, e.g. timeslice,hook (exclusive always runs)\n"
		"      --startup-s S       time allowed for a client's start-up before the common\n"
		"                          start (default 3, more for co-located clients)\n"
		"      --dry-run           check the scenarios and show the placement; run nothing\n"
		"      --list-devices      show the GPUs found and exit\n"
		"  -h, --help              this text\n\n"
		"Modes: exclusive (one at a time), timeslice (all at once, no controls), mps (a\n"
		"private MPS daemon per run, its directories in /tmp/gpusim-mps-XXXXXX,\n"
		"CUDA_MPS_ACTIVE_THREAD_PERCENTAGE from gpu_milli), hook (LD_PRELOAD\n"
		"libgpushare.so with the client's memory and compute limits). GPU compute modes\n"
		"are read, never changed: a mode they forbid is skipped, saying why.\n"
		"Exit status: 0 ok, 1 a client failed or a baseline could not run, 2 bad input,\n"
		"77 no GPU; on SIGINT/SIGTERM it stops its clients and MPS daemon and dies of it.\n"
		"GPUSIM_BENCH_LIBCUDA names the driver library to load (default libcuda.so.1);\n"
		"GPUSIM_BENCH_MPS_DIR the directory of the MPS daemons' directories (default /tmp).\n"
		"See bench/cuda/README.md.\n");
}

static char *find_in_path(const char *prog)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];

	while (path && *path) {
		const char *colon = strchr(path, ':');
		size_t n = colon ? (size_t)(colon - path) : strlen(path);

		if (n && n + strlen(prog) + 2 < sizeof(buf)) {
			snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, path, prog);
			if (!access(buf, X_OK))
				return strdup(buf);
		}
		path = colon ? colon + 1 : NULL;
	}
	return NULL;
}

/*
 * Places the clients on the host's GPUs with the scenario's policy. The
 * host is one node of one GPU model (the first GPU's; a mixed host is
 * placed as if every GPU had the smallest memory). An overhead scenario
 * runs its clients one at a time, so each is placed on the empty host.
 * Returns 0, or 2 with a message on stderr when the policy is unknown or
 * a client does not fit.
 */
static int place(const struct gs_bench_host *h, const struct gs_scenario *s, int *placement)
{
	static int warned;
	const struct gs_policy *pol = gs_policy_find(s->policy);
	struct gs_policy_env penv;
	struct gs_cluster c;
	struct gs_sched sched;
	char model[GS_MODEL_NAME_MAX], why[512];
	int64_t mem = h->gpu[0].mem_mib;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int i, rc = 0;

	if (!pol) {
		fprintf(stderr, "%s: policy: '%s' is not a placement policy ('gpusim policies' "
				"lists them)\n", s->path, s->policy);
		return EXIT_USAGE;
	}
	for (i = 1; i < h->n_gpus; i++) {
		if (strcmp(h->gpu[i].name, h->gpu[0].name) && !warned++)
			fprintf(stderr, "gpusim-bench: warning: GPU %d is a %s, GPU 0 a %s; placing "
					"as if all were the same model\n", i, h->gpu[i].name,
				h->gpu[0].name);
		if (h->gpu[i].mem_mib < mem)
			mem = h->gpu[i].mem_mib;
	}
	snprintf(model, sizeof(model), "%.*s", GS_MODEL_NAME_MAX - 1, h->gpu[0].name);
	gs_cluster_init(&c);
	if (gs_models_set(&c.models, model, mem) < 0 ||
	    gs_cluster_add_node(&c, h->hostname, (int32_t)(cpus > 0 ? cpus * 1000 : 1000), 0,
				h->n_gpus, model) < 0) {
		fprintf(stderr, "gpusim-bench: cannot model this host as a node\n");
		gs_cluster_release(&c);
		return EXIT_FAIL;
	}
	memset(&penv, 0, sizeof(penv));
	penv.cluster = &c;
	penv.seed = 1;
	if (gs_sched_init(&sched, pol, &penv)) {
		gs_cluster_release(&c);
		return EXIT_FAIL;
	}
	for (i = 0; i < s->n_clients && !rc; i++) {
		const struct gs_scenario_client *cl = &s->clients[i];
		struct gs_pod pod;
		struct gs_placement pl;
		struct gs_nofit nf;

		memset(&pod, 0, sizeof(pod));
		pod.num_gpu = 1;
		pod.gpu_milli = cl->gpu_milli;
		pod.gpu_mem_mib = cl->gpu_mem_mib;
		pod.t_create_s = pod.t_delete_s = -1;
		if (gs_sched_pick(&sched, &c, &pod, &pl, &nf)) {
			fprintf(stderr, "%s:%d: client %s (gpu_milli %d, gpu_mem_mib %lld) does not "
					"fit on this host: %s\n", s->path, cl->line, cl->name,
				cl->gpu_milli, (long long)cl->gpu_mem_mib,
				gs_nofit_format(&nf, why, sizeof(why)));
			rc = EXIT_USAGE;
		} else if (gs_sched_bind(&sched, &c, &pod, &pl)) {
			fprintf(stderr, "gpusim-bench: the allocator refused a placement it chose\n");
			rc = EXIT_FAIL;
		} else {
			placement[i] = pl.gpu[0];
			/* Overhead clients run one at a time: each gets the host to itself. */
			if (s->measure == GS_MEASURE_OVERHEAD && gs_sched_unbind(&sched, &c, &pod, &pl))
				rc = EXIT_FAIL;
		}
	}
	gs_sched_release(&sched);
	gs_cluster_release(&c);
	return rc;
}

/* The placement as a table, in the manner of `kubectl inspect gpushare`. */
static void show_placement(const struct gs_bench_host *h, const struct gs_scenario *s,
			   const int *placement)
{
	int g, i;

	printf("%s (%s, policy %s)\n", s->name, gs_bench_measure_name(s->measure), s->policy);
	printf("%-4s %-28s %-24s %-9s %10s %12s\n", "GPU", "MODEL", "CLIENT", "KERNEL",
	       "GPU_MILLI", "GPU_MEM_MIB");
	for (g = 0; g < h->n_gpus; g++) {
		int milli = 0;
		long long mem = 0;

		for (i = 0; i < s->n_clients; i++) {
			if (placement[i] != g)
				continue;
			printf("%-4d %-28.28s %-24.24s %-9s %10d %12lld\n", g, h->gpu[g].name,
			       s->clients[i].name, s->clients[i].kernel, s->clients[i].gpu_milli,
			       (long long)s->clients[i].gpu_mem_mib);
			milli += s->clients[i].gpu_milli;
			mem += s->clients[i].gpu_mem_mib;
		}
		if (milli)
			printf("%-4d %-28s %-24s %-9s %10d %12lld\n", g, "", "(allocated)", "", milli,
			       mem);
	}
}

/* Places and runs one scenario (variant); returns 0, EXIT_FAIL or EXIT_USAGE. */
static int run_scenario(const struct gs_bench_env *env, const struct gs_bench_host *host,
			const struct gs_scenario *scen, unsigned mode_mask, int dry, FILE *out,
			FILE *csv)
{
	static struct gs_bench_run runs[GS_MODE__COUNT * 20];
	int placement[GS_SCENARIO_MAX_CLIENTS], n_runs = 0, m, r, i, status;

	status = place(host, scen, placement);
	if (status)
		return status;
	if (dry) {
		show_placement(host, scen, placement);
		return 0;
	}
	/*
	 * Round after round, each round every mode once, exclusive first: the
	 * host drifts (a launch-bound kernel alone wandered by a third within
	 * minutes on an H100's virtual machine), and a drift then reaches the
	 * baseline and the modes alike instead of whichever mode ran last.
	 */
	for (r = 0; r < scen->repeat; r++) {
		for (m = 0; m < scen->n_modes; m++) {
			enum gs_bench_mode mode = scen->modes[m];
			struct gs_bench_run *run;

			if (!(mode_mask & (1u << mode)))
				continue;
			run = &runs[n_runs++];

			fprintf(stderr, "gpusim-bench: %s: %s, run %d of %d: %d client(s), %g s\n",
				scen->name, gs_bench_mode_name(mode), r + 1, scen->repeat,
				scen->n_clients, scen->duration_s);
			gs_bench_run_mode(env, host, scen, placement, mode, r, run);
			if (gs_bench_stop_requested())
				return EXIT_STOPPED;
			if (run->skipped && mode == GS_MODE_EXCLUSIVE)
				status = EXIT_FAIL; /* no baseline: nothing is measured */
			if (run->skipped)
				fprintf(stderr, "gpusim-bench: %s: %s skipped: %s\n", scen->name,
					gs_bench_mode_name(mode), run->reason);
			for (i = 0; !run->skipped && i < run->n; i++) {
				const struct gs_bench_result *res = &run->res[i];

				if (strcmp(gs_bench_result_status(scen, res), "ok")) {
					fprintf(stderr, "gpusim-bench: %s: %s: client %s failed (exit %d); "
							"see %s\n", scen->name, gs_bench_mode_name(mode),
						scen->clients[i].name, res->exit_code, res->log_path);
					status = EXIT_FAIL;
				}
			}
		}
	}
	gs_bench_derive(scen, runs, n_runs);
	gs_bench_write(out, host, scen, runs, n_runs);
	if (csv)
		gs_bench_write_slowdown_csv(csv, host, scen, runs, n_runs);
	for (i = 0; i < n_runs; i++)
		gs_bench_run_release(&runs[i]);
	fflush(out);
	return status;
}

static int parse_modes(const char *list, unsigned *mask)
{
	char buf[128], *tok, *save = NULL;
	int m;

	snprintf(buf, sizeof(buf), "%s", list);
	*mask = 1u << GS_MODE_EXCLUSIVE;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (m = 0; m < GS_MODE__COUNT && strcmp(tok, gs_bench_mode_name((enum gs_bench_mode)m));
		     m++)
			;
		if (m == GS_MODE__COUNT) {
			fprintf(stderr, "--modes: '%s' is not one of exclusive, timeslice, mps, hook\n",
				tok);
			return -1;
		}
		*mask |= 1u << m;
	}
	return 0;
}

/* The options that take seconds, by getopt letter: their name and range. */
static const struct {
	int c;
	const char *name;
	double lo, hi;
} seconds_opts[] = {
	{ 'd', "--duration-s", 0.1, 3600 },
	{ 'w', "--warmup-s", 0, 600 },
	{ 'U', "--startup-s", 0.05, 600 },
};

/* The value of seconds option c into *out; -1 with a message when it is not one in range. */
static int seconds_arg(int c, const char *arg, double *out)
{
	size_t i;
	char *end;
	double v = strtod(arg, &end);

	for (i = 0; seconds_opts[i].c != c; i++)
		;
	if (*end || !(v >= seconds_opts[i].lo && v <= seconds_opts[i].hi)) {
		fprintf(stderr, "%s '%s': expected seconds from %g to %g\n", seconds_opts[i].name, arg,
			seconds_opts[i].lo, seconds_opts[i].hi);
		return -1;
	}
	*out = v;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "slowdown-csv", required_argument, NULL, 'C' },
		{ "client-dir", required_argument, NULL, 'D' },
		{ "hook", required_argument, NULL, 'H' },
		{ "work-dir", required_argument, NULL, 'W' },
		{ "duration-s", required_argument, NULL, 'd' },
		{ "warmup-s", required_argument, NULL, 'w' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "modes", required_argument, NULL, 'm' },
		{ "startup-s", required_argument, NULL, 'U' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "list-devices", no_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct gs_scenario scen, var;
	static struct gs_bench_host host;
	const char *out_path = NULL, *csv_path = NULL, *client_dir = NULL, *hook = NULL;
	const char *work_dir = NULL;
	char self[PATH_MAX], dir_buf[PATH_MAX], hook_buf[PATH_MAX + 32], work_buf[64];
	char work_abs[PATH_MAX];
	char err[1024], *end;
	double duration = 0, warmup = -1, startup = 3.0;
	long repeat = 0;
	unsigned mode_mask = ~0u;
	int dry = 0, list = 0, c, i, a, status = 0;
	FILE *out = stdout, *csv = NULL;
	struct gs_bench_env env;
	ssize_t n;

	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': out_path = optarg; break;
		case 'C': csv_path = optarg; break;
		case 'D': client_dir = optarg; break;
		case 'H': hook = optarg; break;
		case 'W': work_dir = optarg; break;
		case 'd':
		case 'w':
		case 'U':
			if (seconds_arg(c, optarg,
					c == 'd' ? &duration : c == 'w' ? &warmup : &startup))
				return EXIT_USAGE;
			break;
		case 'r':
			repeat = strtol(optarg, &end, 10);
			if (*end || repeat < 1 || repeat > 20) {
				fprintf(stderr, "--repeat '%s': expected 1 to 20\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'm':
			if (parse_modes(optarg, &mode_mask))
				return EXIT_USAGE;
			break;
		case 'n': dry = 1; break;
		case 'L': list = 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (optind == argc && !list) {
		usage(stderr);
		return EXIT_USAGE;
	}

	/* Every scenario is checked before any GPU work starts. */
	for (a = optind; a < argc; a++) {
		if (gs_scenario_load(argv[a], &scen, err, sizeof(err))) {
			fprintf(stderr, "%s\n", err);
			return EXIT_USAGE;
		}
		if (!gs_policy_find(scen.policy)) {
			fprintf(stderr, "%s: policy: '%s' is not a placement policy ('gpusim "
					"policies' lists them)\n", argv[a], scen.policy);
			gs_scenario_release(&scen);
			return EXIT_USAGE;
		}
		gs_scenario_release(&scen);
	}

	if (gs_bench_host_discover(&host, err, sizeof(err))) {
		fprintf(stderr, "gpusim-bench: %s: this needs an NVIDIA GPU and its driver\n", err);
		return EXIT_NODEV;
	}
	if (!list) {
		/* Placement too, so that no scenario fails half-way through the suite. */
		for (a = optind; a < argc; a++) {
			int placement[GS_SCENARIO_MAX_CLIENTS], v;

			if (gs_scenario_load(argv[a], &scen, err, sizeof(err))) {
				fprintf(stderr, "%s\n", err);
				return EXIT_USAGE;
			}
			for (v = 0, c = 0; v < gs_scenario_variants(&scen) && !c; v++) {
				if (gs_scenario_variant(&scen, v, &var)) {
					c = EXIT_FAIL;
					break;
				}
				c = place(&host, &var, placement);
				gs_scenario_release(&var);
			}
			gs_scenario_release(&scen);
			if (c)
				return c;
		}
	}
	if (list) {
		printf("%-4s %-40s %10s  %-40s  %s\n", "GPU", "NAME", "MEM_MIB", "UUID",
		       "COMPUTE_MODE");
		for (i = 0; i < host.n_gpus; i++)
			printf("%-4d %-40s %10lld  %-40s  %s\n", i, host.gpu[i].name,
			       (long long)host.gpu[i].mem_mib, host.gpu[i].uuid,
			       gs_bench_compute_mode_name(host.gpu[i].compute_mode));
		printf("driver %s, CUDA %s, host %s\n", host.driver, host.cuda, host.hostname);
		return 0;
	}

	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (!client_dir) {
		if (n <= 0) {
			fprintf(stderr, "gpusim-bench: cannot find my own directory; use --client-dir\n");
			return EXIT_USAGE;
		}
		self[n] = 0;
		snprintf(dir_buf, sizeof(dir_buf), "%s", dirname(self));
		client_dir = dir_buf;
	}
	if (!hook) {
		snprintf(hook_buf, sizeof(hook_buf), "%s/libgpushare.so", client_dir);
		hook = hook_buf;
	}
	if (!work_dir && !dry) {
		snprintf(work_buf, sizeof(work_buf), "/tmp/gpusim-bench-XXXXXX");
		if (!mkdtemp(work_buf)) {
			fprintf(stderr, "gpusim-bench: cannot create a work directory: %s\n",
				strerror(errno));
			return EXIT_FAIL;
		}
		work_dir = work_buf;
	} else if (work_dir && mkdir(work_dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "gpusim-bench: --work-dir %s: %s\n", work_dir, strerror(errno));
		return EXIT_FAIL;
	}
	/* The clients run elsewhere and libgpushare takes only an absolute GPUSHARE_SHM_DIR. */
	if (work_dir && !dry && realpath(work_dir, work_abs))
		work_dir = work_abs;
	memset(&env, 0, sizeof(env));
	env.client_dir = client_dir;
	env.hook_path = hook;
	env.mps_control = find_in_path("nvidia-cuda-mps-control");
	env.work_dir = work_dir;
	env.startup_s = startup;

	if (!dry) {
		struct sigaction sa;

		/* No SA_RESTART: a wait is interrupted, sees the flag, and stops. */
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_signal;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		if (out_path) {
			snprintf(out_tmp, sizeof(out_tmp), "%s.tmp", out_path);
			out = fopen(out_tmp, "w");
			if (!out) {
				fprintf(stderr, "gpusim-bench: cannot write %s: %s\n", out_tmp,
					strerror(errno));
				return EXIT_FAIL;
			}
		}
		if (csv_path) {
			snprintf(csv_tmp, sizeof(csv_tmp), "%s.tmp", csv_path);
			csv = fopen(csv_tmp, "w");
			if (!csv) {
				fprintf(stderr, "gpusim-bench: cannot write %s: %s\n", csv_tmp,
					strerror(errno));
				return EXIT_FAIL;
			}
		}
		gs_bench_write_header(out, &host);
		fprintf(stderr, "gpusim-bench: %d GPU(s), %s; logs in %s\n", host.n_gpus,
			host.gpu[0].name, work_dir);
	}

	for (a = optind; a < argc && status != EXIT_USAGE; a++) {
		int v;

		if (gs_scenario_load(argv[a], &scen, err, sizeof(err))) {
			fprintf(stderr, "%s\n", err);
			status = EXIT_USAGE;
			break;
		}
		if (duration > 0)
			scen.duration_s = duration;
		if (warmup >= 0)
			scen.warmup_s = warmup;
		if (repeat > 0)
			scen.repeat = (int)repeat;
		for (v = 0; v < gs_scenario_variants(&scen); v++) {
			if (gs_scenario_variant(&scen, v, &var)) {
				status = EXIT_FAIL;
				break;
			}
			c = run_scenario(&env, &host, &var, mode_mask, dry, out, csv);
			gs_scenario_release(&var);
			if (c == EXIT_STOPPED) {
				gs_scenario_release(&scen);
				free((char *)env.mps_control);
				finish_stopped(out, csv);
			}
			if (c == EXIT_USAGE || (c && status == 0))
				status = c;
			if (c == EXIT_USAGE)
				break;
		}
		gs_scenario_release(&scen);
	}

	if (!dry && status == EXIT_USAGE) {
		/* A scenario that went bad mid-way: no half-written results. */
		if (out != stdout) {
			fclose(out);
			unlink(out_tmp);
		}
		if (csv) {
			fclose(csv);
			unlink(csv_tmp);
		}
	} else if (!dry) {
		if (out != stdout && (fclose(out) || rename(out_tmp, out_path))) {
			fprintf(stderr, "gpusim-bench: cannot write %s: %s\n", out_path,
				strerror(errno));
			status = EXIT_FAIL;
		}
		if (csv && (fclose(csv) || rename(csv_tmp, csv_path))) {
			fprintf(stderr, "gpusim-bench: cannot write %s: %s\n", csv_path,
				strerror(errno));
			status = EXIT_FAIL;
		}
		out_tmp[0] = csv_tmp[0] = 0;
	}
	free((char *)env.mps_control);
	return status;
}
