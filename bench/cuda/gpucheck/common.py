# SPDX-License-Identifier: Apache-2.0
"""common.py - what torch_check.py and cupy_check.py share: the one result
line gpucheck.py reads, and filling a pod up to its limit."""

import importlib
import json
import sys

MIB = 1 << 20


def emit(check, ok, detail, **figures):
    """Prints the result line: {"check", "ok", "detail", figures...}."""
    out = {"check": check, "ok": bool(ok), "detail": detail}
    out.update(figures)
    print(json.dumps(out, sort_keys=True), flush=True)


def fill(alloc, oom, limit_bytes):
    """Blocks of halving sizes from alloc(bytes) until none fits (it raises oom).

    Returns the blocks (to hold them), their bytes and the name of the
    error's type, or None when nothing was refused.
    """
    held, total, chunk, last = [], 0, 256 * MIB, None
    while chunk >= 2 * MIB:
        try:
            held.append(alloc(chunk))
            total += chunk
        except oom as e:
            last = type(e).__name__
            chunk //= 2
        if total > limit_bytes + 256 * MIB:
            break  # far past the limit: nothing holds it
    return held, total, last


def require(name, has_device):
    """The module name imported, when it is there and has_device(module) is
    true; else None, having said why on stderr (the check exits 77)."""
    try:
        mod = importlib.import_module(name)
    except ImportError as e:
        print("%s is not installed here (%s)" % (name, e), file=sys.stderr)
        return None
    try:
        if has_device(mod):
            return mod
        why = "none found"
    except Exception as e:  # noqa: BLE001 - each library has its own errors for a missing driver
        why = "%s: %s" % (type(e).__name__, e)
    print("%s sees no CUDA device (%s)" % (name, why), file=sys.stderr)
    return None
