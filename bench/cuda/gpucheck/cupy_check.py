# SPDX-License-Identifier: Apache-2.0
"""cupy_check.py - CuPy under libgpushare, run in a process of its own.

gpucheck.py starts it under LD_PRELOAD=libgpushare.so with a pod's limit
(--limit-mib) and reads the JSON object it prints on its last line, as for
torch_check.py. It checks that CuPy's memory information is the pod's,
that its default pool fills the pod up to the limit and then raises
cupy.cuda.memory.OutOfMemoryError, and that the stream-ordered pool
(cupy.cuda.MemoryAsyncPool) does the same, the process working after each.
Exit status 0 when the check ran, 77 when CuPy or a CUDA device is missing.
"""

import argparse
import sys

from common import MIB, emit, fill, require


def works(cp):
    a = cp.ones((256, 256), dtype=cp.float32)
    return float((a @ a).sum()) == 256.0 * 256 * 256


def one_pool(cp, limit, name, release):
    """Fills the pod with the current allocator, then frees it (release): (ok, text)."""
    held, filled, oom = fill(lambda n: cp.empty(n, dtype=cp.uint8),
                             cp.cuda.memory.OutOfMemoryError, limit)
    del held
    release()
    after = works(cp)
    ok = limit - 64 * MIB <= filled <= limit and oom == "OutOfMemoryError" and after
    return ok, "%s pool filled %d MiB, then %s, works after: %s" % (name, filled // MIB, oom,
                                                                   after)


def main():
    p = argparse.ArgumentParser(description="CuPy under libgpushare")
    p.add_argument("--limit-mib", type=int, default=4096)
    args = p.parse_args()
    cp = require("cupy", lambda c: c.cuda.runtime.getDeviceCount() > 0)
    if cp is None:
        return 77
    limit = args.limit_mib * MIB
    free, total = cp.cuda.runtime.memGetInfo()
    dev_free, dev_total = cp.cuda.Device(0).mem_info
    ok_info = total == limit and dev_total == limit and free <= limit
    ok_default, text_default = one_pool(cp, limit, "default",
                                        cp.get_default_memory_pool().free_all_blocks)
    pool = cp.cuda.MemoryAsyncPool()
    cp.cuda.set_allocator(pool.malloc)
    ok_async, text_async = one_pool(cp, limit, "async", pool.free_all_blocks)
    ok = ok_info and ok_default and ok_async
    emit("cupy", ok, "memGetInfo total %d MiB (pod limit %d); %s; %s" %
         (total // MIB, args.limit_mib, text_default, text_async), total_mib=total // MIB)
    return 0


if __name__ == "__main__":
    sys.exit(main())
