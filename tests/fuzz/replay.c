/* SPDX-License-Identifier: Apache-2.0 */
/*
 * replay.c - a main() for a fuzz target without libFuzzer: runs
 * LLVMFuzzerTestOneInput() once on every file named on the command line
 * (a directory: on every file in it, in name order). This is how `make
 * test` replays the seed corpus and the regression inputs of every target
 * with the ordinary compiler; a broken property aborts and fails the test.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/grow.h"
#include "fuzz.h"

static int run_file(const char *path)
{
	struct stat st;
	uint8_t *buf;
	size_t n;
	FILE *f = fopen(path, "rb");

	if (!f || fstat(fileno(f), &st) != 0) {
		fprintf(stderr, "fuzz replay: %s: cannot open\n", path);
		if (f)
			fclose(f);
		return -1;
	}
	/* A copy of exactly the file's size, as libFuzzer passes it: no NUL after it. */
	buf = malloc(st.st_size > 0 ? (size_t)st.st_size : 1);
	n = buf ? fread(buf, 1, (size_t)st.st_size, f) : 0;
	fclose(f);
	if (!buf || n != (size_t)st.st_size) {
		fprintf(stderr, "fuzz replay: %s: cannot read\n", path);
		free(buf);
		return -1;
	}
	LLVMFuzzerTestOneInput(buf, n);
	free(buf);
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Runs every regular file in dir, in name order; returns how many, or -1. */
static int run_dir(const char *dir)
{
	struct dirent *e;
	char **names = NULL, path[4096];
	size_t n = 0, cap = 0, i;
	int done = 0;
	DIR *d = opendir(dir);

	if (!d) {
		fprintf(stderr, "fuzz replay: %s: cannot open\n", dir);
		return -1;
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char **more = gs_grow(names, &cap, n, sizeof(*names), 64);

		if (!more)
			break;
		names = more;
		names[n] = strdup(e->d_name);
		if (names[n])
			n++;
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_names);
	for (i = 0; i < n; i++) {
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			if (run_file(path))
				done = -1;
			else if (done >= 0)
				done++;
		}
		free(names[i]);
	}
	free(names);
	return done;
}

int main(int argc, char **argv)
{
	int i, total = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
		return 2;
	}
	for (i = 1; i < argc; i++) {
		struct stat st;
		int n;

		if (stat(argv[i], &st) != 0) {
			fprintf(stderr, "fuzz replay: %s: no such file or directory\n", argv[i]);
			return 1;
		}
		n = S_ISDIR(st.st_mode) ? run_dir(argv[i]) : run_file(argv[i]) ? -1 : 1;
		if (n < 0)
			return 1;
		total += n;
	}
	printf("fuzz replay: %d inputs, every property held\n", total);
	return 0;
}
