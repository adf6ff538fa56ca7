/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz.h - what every fuzz target shares: the libFuzzer entry point and
 * the checks that make a target more than "no crash".
 *
 * Each target (fuzz_*.c) defines LLVMFuzzerTestOneInput(). Built with
 * -DGS_FUZZ=ON and clang, libFuzzer drives it under ASan and UBSan
 * (`make fuzz`); in the normal build replay.c gives it a main() that runs
 * it over the corpus files, so every seed and every input that ever found
 * a bug is replayed by `make test` without clang (tests/fuzz/README.md).
 * A broken property aborts, which both drivers report as a failure.
 */
#ifndef GS_FUZZ_H
#define GS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Aborts with a message when cond is false: the input broke a property. */
#define FUZZ_CHECK(cond, ...)                                                          \
	do {                                                                           \
		if (!(cond)) {                                                         \
			fprintf(stderr, "fuzz: %s:%d: property '%s' broken: ", __FILE__, \
				__LINE__, #cond);                                      \
			fprintf(stderr, __VA_ARGS__);                                  \
			fputc('\n', stderr);                                           \
			abort();                                                       \
		}                                                                      \
	} while (0)

/*
 * A refused input must say why, naming the input: a message that starts
 * with "NAME:" (then a line, or a space and the place), never empty.
 */
static inline void fuzz_check_refusal(const char *name, const char *err)
{
	size_t n = strlen(name);

	FUZZ_CHECK(err[0] != '\0', "a refusal with an empty message");
	FUZZ_CHECK(strncmp(err, name, n) == 0 && err[n] == ':',
		   "the message '%s' does not start with '%s:'", err, name);
	FUZZ_CHECK(strlen(err) > n + 2, "the message '%s' says nothing", err);
	FUZZ_CHECK(strchr(err, '\n') == NULL, "the message '%s' spans lines", err);
}

#endif
