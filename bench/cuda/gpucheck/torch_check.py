# SPDX-License-Identifier: Apache-2.0
"""torch_check.py - one PyTorch check of libgpushare, run in a process of its own.

gpucheck.py starts it under LD_PRELOAD=libgpushare.so with the pod's
variables and reads the one JSON object it prints on its last line:
{"check": ..., "ok": true|false, "detail": "...", ...figures}. Exit status
0 when the check ran (ok or not), 2 for bad arguments, 77 when PyTorch or
a CUDA device is missing.

  limit --limit-mib L        mem_get_info says L MiB; tensors fill the pod up
                             to its limit, one more raises
                             torch.OutOfMemoryError, and the process goes on
                             working (any allocator backend: the caller sets
                             PYTORCH_CUDA_ALLOC_CONF)
  hold --mib M --ready FILE --until FILE
                             holds M MiB until FILE appears (a peer of the pod)
  peer --limit-mib L --held-mib M
                             sees what a peer of the pod holds
  graph --rounds R           captures torch.cuda.graph R times and replays it
  matmul --seconds S --size N [--start-at T] [--ready FILE]
                             bf16 matrix products for S seconds from time T
                             (FILE written once warmed up)
"""

import argparse
import os
import sys
import time

from common import MIB, emit, fill, require


def still_works(torch):
    """A matrix product after the refusals: the process goes on working."""
    a = torch.full((512, 512), 1.0, dtype=torch.float32, device="cuda")
    b = a @ a
    torch.cuda.synchronize()
    return float(b.sum().item()) == 512.0 * 512 * 512


def check_limit(torch, args):
    limit = args.limit_mib * MIB
    free, total = torch.cuda.mem_get_info()
    backend = torch.cuda.get_allocator_backend()
    held, filled, oom_type = fill(
        lambda n: torch.empty(n, dtype=torch.uint8, device="cuda"),
        torch.OutOfMemoryError,  # the type the issue asks for
        limit)
    reserved = torch.cuda.memory_reserved()
    del held
    torch.cuda.empty_cache()
    one_past = "fits"
    try:
        over = torch.empty(limit + MIB, dtype=torch.uint8, device="cuda")
        del over
    except torch.OutOfMemoryError:
        one_past = "refused"
    works = still_works(torch)
    # The allocator's granularity (2 MiB, 20 MiB segments) may leave a little unfilled.
    slack = 64 * MIB
    ok = (total == limit and limit - slack <= filled <= limit and reserved <= limit and
          oom_type == "OutOfMemoryError" and one_past == "refused" and works)
    emit("limit", ok,
         "total %d MiB (pod limit %d), filled %d MiB (reserved %d), one past: %s, "
         "OOM type %s, works after: %s, backend %s" %
         (total // MIB, args.limit_mib, filled // MIB, reserved // MIB, one_past, oom_type,
          works, backend),
         total_mib=total // MIB, free_mib=free // MIB, filled_mib=filled // MIB,
         reserved_mib=reserved // MIB, backend=backend)


def check_hold(torch, args):
    x = torch.empty(args.mib * MIB, dtype=torch.uint8, device="cuda")
    torch.cuda.synchronize()
    with open(args.ready, "w") as f:
        f.write("ready\n")
    deadline = time.time() + 120
    while not os.path.exists(args.until) and time.time() < deadline:
        time.sleep(0.05)
    del x
    emit("hold", True, "held %d MiB" % args.mib)


def check_peer(torch, args):
    limit = args.limit_mib * MIB
    free, total = torch.cuda.mem_get_info()
    expect = limit - args.held_mib * MIB
    # This process's own context and allocator start-up may take a few MiB.
    sees_peer = expect - 64 * MIB <= free <= expect
    too_much = "fits"
    try:
        x = torch.empty(expect + 128 * MIB, dtype=torch.uint8, device="cuda")
        del x
    except torch.OutOfMemoryError:
        too_much = "refused"
    torch.cuda.empty_cache()
    fits = "refused"
    try:
        y = torch.empty(expect - 128 * MIB, dtype=torch.uint8, device="cuda")
        fits = "fits"
        del y
    except torch.OutOfMemoryError:
        pass
    ok = total == limit and sees_peer and too_much == "refused" and fits == "fits"
    emit("peer", ok, "total %d MiB, free %d MiB with a peer holding %d: the peer's share "
         "past the rest %s, within it %s" %
         (total // MIB, free // MIB, args.held_mib, too_much, fits),
         free_mib=free // MIB, total_mib=total // MIB)


def check_graph(torch, args):
    n = 1024
    a = torch.full((n, n), 0.5, dtype=torch.float32, device="cuda")
    b = torch.full((n, n), 0.25, dtype=torch.float32, device="cuda")
    want = 0.5 * 0.25 * n * 4 * n * n  # four products, summed
    failures, replays = [], 0
    for r in range(args.rounds):
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):  # warm-up on a side stream, as the docs ask
            for _ in range(2):
                c = a @ b
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        try:
            with torch.cuda.graph(g):
                c = a @ b
                c = c + a @ b
                c = c + a @ b
                c = c + a @ b
            for _ in range(5):
                g.replay()
                replays += 1
            torch.cuda.synchronize()
            got = float(c.sum().item())
            if abs(got - want) > 1e-3 * want:
                failures.append("round %d: sum %g, expected %g" % (r, got, want))
        except Exception as e:  # noqa: BLE001 - any failure of the capture is the finding
            failures.append("round %d: %s: %s" % (r, type(e).__name__, e))
        del g
    emit("graph", not failures,
         "%d captures, %d replays, %d failed%s" %
         (args.rounds, replays, len(failures), ": " + failures[0] if failures else ""),
         captures=args.rounds, replays=replays, failed=len(failures))


def check_matmul(torch, args):
    n = args.size
    a = torch.full((n, n), 0.001, dtype=torch.bfloat16, device="cuda")
    b = torch.full((n, n), 0.001, dtype=torch.bfloat16, device="cuda")
    for _ in range(3):
        c = a @ b
    torch.cuda.synchronize()
    if args.ready:
        with open(args.ready, "w") as f:
            f.write("ready\n")
    if args.start_at:
        time.sleep(max(0.0, args.start_at - time.time()))
    count, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < args.seconds:
        for _ in range(10):
            c = a @ b
        count += 10
        torch.cuda.synchronize()
    dt = time.perf_counter() - t0
    del c
    tflops = 2.0 * n * n * n * count / dt / 1e12
    emit("matmul", count > 0, "%.1f TFLOP/s (%d products of %d^3 bf16 in %.2f s)" %
         (tflops, count, n, dt), tflops=tflops, products=count)


def main():
    p = argparse.ArgumentParser(description="one PyTorch check of libgpushare")
    p.add_argument("check", choices=["limit", "hold", "peer", "graph", "matmul"])
    p.add_argument("--limit-mib", type=int, default=4096)
    p.add_argument("--mib", type=int, default=0)
    p.add_argument("--held-mib", type=int, default=0)
    p.add_argument("--ready", default="")
    p.add_argument("--until", default="")
    p.add_argument("--rounds", type=int, default=10)
    p.add_argument("--seconds", type=float, default=5.0)
    p.add_argument("--size", type=int, default=4096)
    p.add_argument("--start-at", type=float, default=0.0)
    args = p.parse_args()
    torch = require("torch", lambda t: t.cuda.is_available())
    if torch is None:
        return 77
    {"limit": check_limit, "hold": check_hold, "peer": check_peer, "graph": check_graph,
     "matmul": check_matmul}[args.check](torch, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
