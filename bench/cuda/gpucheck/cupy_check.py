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
import math
import sys

from common import MIB, emit, fill, require


def works(cp):
    a = cp.ones((256, 256), dtype=cp.float32)
    return float((a @ a).sum()) == 256.0 * 256 * 256


def pool_held(pool_bytes):
    """What a pool holds from the device, or NaN where this CuPy cannot say."""
    try:
        return pool_bytes()
    except (AttributeError, RuntimeError):  # an older CuPy: say so, check the rest
        return float("nan")


def one_pool(cp, limit, name, release, pool_bytes):
    """Fills the pod with the current allocator, then frees it (release): (ok, text).

    The pool must fill what the pod has free when it starts, to within 64
    MiB, and pass neither the limit nor that free memory plus what the pool
    already held. Free, not the limit: what the process already holds
    counts against its pod, cuBLAS's workspace from the first matrix
    product included (on the first H200 the async pool filled 4030 of 4096
    MiB and the pod then had 1.4 MiB free: 64.6 MiB held outside it).
    """
    free_before = cp.cuda.runtime.memGetInfo()[0]
    pool_before = pool_held(pool_bytes)
    held, filled, oom = fill(lambda n: cp.empty(n, dtype=cp.uint8),
                             cp.cuda.memory.OutOfMemoryError, limit)
    # What the pod had left by the library's count when the pool gave up,
    # and what the pool held: they tell a pool's own reserve from a leak.
    free_at_oom = cp.cuda.runtime.memGetInfo()[0]
    pool_total = pool_held(pool_bytes)
    del held
    release()
    after = works(cp)
    # The pool may hand out again what it held already (the pod pays for it).
    most = min(limit, free_before + (0 if math.isnan(pool_before) else pool_before))
    ok = free_before - 64 * MIB <= filled <= most and oom == "OutOfMemoryError" and after
    return ok, ("%s pool filled %d of %.1f MiB free, then %s (pod free %.1f MiB, pool held "
                "%.1f MiB), works after: %s" % (name, filled // MIB, free_before / MIB, oom,
                                               free_at_oom / MIB, pool_total / MIB, after))


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
    default = cp.get_default_memory_pool()
    ok_default, text_default = one_pool(cp, limit, "default", default.free_all_blocks,
                                        default.total_bytes)
    pool = cp.cuda.MemoryAsyncPool()
    cp.cuda.set_allocator(pool.malloc)
    ok_async, text_async = one_pool(cp, limit, "async", pool.free_all_blocks, pool.total_bytes)
    ok = ok_info and ok_default and ok_async
    emit("cupy", ok, "memGetInfo total %d MiB (pod limit %d); %s; %s" %
         (total // MIB, args.limit_mib, text_default, text_async), total_mib=total // MIB)
    return 0


if __name__ == "__main__":
    sys.exit(main())
