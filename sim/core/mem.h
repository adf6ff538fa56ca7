/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mem.h - handing several blocks back in one statement. A struct's
 * _release or _free function returns every array it owns; GS_MEM_FREE()
 * names them once in a list instead of one free() a line:
 *
 *   GS_MEM_FREE(d->gen, d->run_s, d->end_s);
 *   memset(d, 0, sizeof(*d));
 *
 * GS_MEM_EACH() is the loop under it, for other release functions of one
 * argument (the store's GS_DB_FINALIZE() passes sqlite3_finalize).
 * Plain C, libc only (the CUDA harness links core/).
 */
#ifndef GS_MEM_H
#define GS_MEM_H

#include <stddef.h>
#include <stdlib.h>

/*
 * Calls fn on each of the remaining arguments, in order, each converted to
 * type. A statement; the arguments are all evaluated before the first call.
 */
#define GS_MEM_EACH(fn, type, ...)                                                     \
	do {                                                                           \
		type const each_[] = { __VA_ARGS__ };                                  \
		size_t each_i_;                                                        \
		for (each_i_ = 0; each_i_ < sizeof(each_) / sizeof(*each_); each_i_++) \
			(void)fn(each_[each_i_]);                                      \
	} while (0)

/*
 * Frees each argument, a block from the C allocator or NULL. The pointers
 * themselves are left as they were.
 */
#define GS_MEM_FREE(...) GS_MEM_EACH(free, void *, __VA_ARGS__)

#endif
