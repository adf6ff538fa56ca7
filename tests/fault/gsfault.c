/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gsfault.c - a fault injector for gpusim's store, loaded with LD_PRELOAD
 * (tests/fault/check_faults.sh): it fails the Nth write, sync or memory
 * allocation of the process, the way SQLite's own test suite fails each
 * I/O and malloc in turn, so that every failure path runs once.
 *
 * Configured by the environment, read once:
 *   GS_FAULT_OPS    the kinds counted and failed: a comma list of
 *                   "write" (write, pwrite, pwrite64, writev), "sync"
 *                   (fsync, fdatasync) and "alloc" (malloc, calloc,
 *                   realloc); default "write,sync"
 *   GS_FAULT_AT     fail the Nth counted call (1-based); 0 or unset:
 *                   count only
 *   GS_FAULT_ERRNO  ENOSPC (default), EIO or EDQUOT, for writes and syncs
 *   GS_FAULT_STICKY 1: after the first failure every later counted call
 *                   fails too, as a full disk stays full
 *   GS_FAULT_PATH   writes and syncs count only on regular files whose
 *                   path starts with this prefix (stdout, stderr and the
 *                   rest of the file system are left alone); default: any
 *                   regular file
 *   GS_FAULT_REPORT a file that receives, at exit, "calls N failed M"
 *
 * Allocations are counted only between the first counted write or sync and
 * exit when GS_FAULT_OPS also names write or sync; with "alloc" alone every
 * allocation of the process counts. The interposed malloc family calls
 * glibc's __libc_* entry points, so no dlsym is needed before the first
 * allocation.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t size);

enum { OP_WRITE = 1, OP_SYNC = 2, OP_ALLOC = 4 };

static struct {
	atomic_int ready; /* 0 not read, 1 reading, 2 read */
	unsigned ops;
	long long at;
	int err;
	bool sticky;
	char path[PATH_MAX];
	size_t path_len;
	char report[PATH_MAX];
} cfg;

static atomic_llong calls, failed;
static atomic_bool tripped, io_seen;
static __thread int busy; /* inside the injector: its own calls do not count */

static void write_report(void)
{
	char buf[96];
	int fd, n;

	if (!cfg.report[0])
		return;
	fd = open(cfg.report, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return;
	n = snprintf(buf, sizeof(buf), "calls %lld failed %lld\n", (long long)calls,
		     (long long)failed);
	if (n > 0 && write(fd, buf, (size_t)n) < 0)
		n = 0;
	close(fd);
}

static void configure(void)
{
	int expect = 0;
	const char *s;

	if (atomic_load(&cfg.ready) == 2)
		return;
	if (!atomic_compare_exchange_strong(&cfg.ready, &expect, 1)) {
		while (atomic_load(&cfg.ready) != 2)
			;
		return;
	}
	busy++;
	s = getenv("GS_FAULT_OPS");
	if (!s || !*s)
		s = "write,sync";
	cfg.ops = (strstr(s, "write") ? OP_WRITE : 0) | (strstr(s, "sync") ? OP_SYNC : 0) |
		  (strstr(s, "alloc") ? OP_ALLOC : 0);
	s = getenv("GS_FAULT_AT");
	cfg.at = s ? strtoll(s, NULL, 10) : 0;
	s = getenv("GS_FAULT_ERRNO");
	cfg.err = !s ? ENOSPC : !strcmp(s, "EIO") ? EIO : !strcmp(s, "EDQUOT") ? EDQUOT : ENOSPC;
	s = getenv("GS_FAULT_STICKY");
	cfg.sticky = s && *s == '1';
	s = getenv("GS_FAULT_PATH");
	if (s && strlen(s) < sizeof(cfg.path)) {
		strcpy(cfg.path, s);
		cfg.path_len = strlen(s);
	}
	s = getenv("GS_FAULT_REPORT");
	if (s && strlen(s) < sizeof(cfg.report))
		strcpy(cfg.report, s);
	if (cfg.report[0])
		atexit(write_report);
	busy--;
	atomic_store(&cfg.ready, 2);
}

/* Whether fd is a regular file under GS_FAULT_PATH. */
static bool watched_fd(int fd)
{
	char link[64], target[PATH_MAX];
	struct stat sb;
	ssize_t n;

	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode))
		return false;
	if (!cfg.path_len)
		return true;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, target, sizeof(target) - 1);
	if (n <= 0)
		return false;
	target[n] = '\0';
	return strncmp(target, cfg.path, cfg.path_len) == 0;
}

/* Counts one call of kind op; true when this one must fail. */
static bool hit(unsigned op)
{
	long long n;

	if (!(cfg.ops & op))
		return false;
	n = atomic_fetch_add(&calls, 1) + 1;
	if (atomic_load(&tripped) && cfg.sticky) {
		atomic_fetch_add(&failed, 1);
		return true;
	}
	if (cfg.at > 0 && n == cfg.at) {
		atomic_store(&tripped, true);
		atomic_fetch_add(&failed, 1);
		return true;
	}
	return false;
}

/* An I/O call on fd: counted when fd is watched. */
static bool io_fails(int fd, unsigned op)
{
	bool f;

	configure();
	if (busy || !(cfg.ops & op))
		return false;
	busy++;
	f = watched_fd(fd);
	busy--;
	if (!f)
		return false;
	atomic_store(&io_seen, true);
	return hit(op);
}

/* An allocation: counted once the process has done I/O, when I/O ops are counted too. */
static bool alloc_fails(void)
{
	if (busy || atomic_load(&cfg.ready) != 2 || !(cfg.ops & OP_ALLOC))
		return false;
	if ((cfg.ops & (OP_WRITE | OP_SYNC)) && !atomic_load(&io_seen))
		return false;
	return hit(OP_ALLOC);
}

#define REAL(name, type) ((type)dlsym(RTLD_NEXT, #name))

ssize_t write(int fd, const void *buf, size_t n)
{
	if (io_fails(fd, OP_WRITE)) {
		errno = cfg.err;
		return -1;
	}
	return REAL(write, ssize_t (*)(int, const void *, size_t))(fd, buf, n);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	if (io_fails(fd, OP_WRITE)) {
		errno = cfg.err;
		return -1;
	}
	return REAL(pwrite, ssize_t (*)(int, const void *, size_t, off_t))(fd, buf, n, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off64_t off)
{
	if (io_fails(fd, OP_WRITE)) {
		errno = cfg.err;
		return -1;
	}
	return REAL(pwrite64, ssize_t (*)(int, const void *, size_t, off64_t))(fd, buf, n, off);
}

ssize_t writev(int fd, const struct iovec *iov, int n)
{
	if (io_fails(fd, OP_WRITE)) {
		errno = cfg.err;
		return -1;
	}
	return REAL(writev, ssize_t (*)(int, const struct iovec *, int))(fd, iov, n);
}

int fsync(int fd)
{
	if (io_fails(fd, OP_SYNC)) {
		errno = cfg.err == ENOSPC ? EIO : cfg.err;
		return -1;
	}
	return REAL(fsync, int (*)(int))(fd);
}

int fdatasync(int fd)
{
	if (io_fails(fd, OP_SYNC)) {
		errno = cfg.err == ENOSPC ? EIO : cfg.err;
		return -1;
	}
	return REAL(fdatasync, int (*)(int))(fd);
}

void *malloc(size_t size)
{
	if (alloc_fails()) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_malloc(size);
}

void *calloc(size_t n, size_t size)
{
	if (alloc_fails()) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_calloc(n, size);
}

void *realloc(void *p, size_t size)
{
	if (size && alloc_fails()) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_realloc(p, size);
}
