# SPDX-License-Identifier: Apache-2.0
"""A stand-in for PyTorch in gpu-check's fake-driver test (tests/gpucheck/fakegpu.py):
only the torch and torch.cuda names bench/cuda/gpucheck/torch_check.py uses,
with PyTorch's names and behaviour, over the fake CUDA driver."""

import os
import sys
import types

import fakegpu

__version__ = "0.0+fakegpu"


class OutOfMemoryError(RuntimeError):
    """torch.OutOfMemoryError (and torch.cuda.OutOfMemoryError)."""


class dtype:  # noqa: N801 - PyTorch's name
    def __init__(self, name, itemsize):
        self.name, self.itemsize = name, itemsize


uint8, float16, bfloat16, float32 = (dtype("uint8", 1), dtype("float16", 2),
                                     dtype("bfloat16", 2), dtype("float32", 4))

_dev = fakegpu.Device(OutOfMemoryError)
_conf = os.environ.get("PYTORCH_ALLOC_CONF") or os.environ.get("PYTORCH_CUDA_ALLOC_CONF") or ""
if "backend:cudaMallocAsync" in _conf:
    _dev.use("cudaMallocAsync")
elif "expandable_segments:True" in _conf:
    _dev.use("expandable")


class _Scalar:
    def __init__(self, v):
        self.v = v

    def item(self):
        return self.v


class Tensor(fakegpu.Array):
    def __matmul__(self, other):
        return self.matmul(other)

    def __add__(self, other):
        return self.add(other)

    def sum(self):
        return _Scalar(self.total())


def _shape(size):
    return size if isinstance(size, tuple) else (size,)


def empty(size, dtype=float32, device="cuda"):
    return Tensor(_dev, _shape(size), dtype.itemsize, 0.0)


def full(size, value, dtype=float32, device="cuda"):
    t = Tensor(_dev, _shape(size), dtype.itemsize, float(value))
    _dev.launch(float(t.numel()))
    return t


def matmul(a, b):
    return a @ b


class _Stream:
    def __init__(self, handle=None):
        self.handle = handle

    def wait_stream(self, other):
        pass


class _StreamContext:
    def __init__(self, s):
        self.s = s

    def __enter__(self):
        self.saved, _dev.stream = _dev.stream, self.s.handle

    def __exit__(self, *exc):
        _dev.stream = self.saved


class CUDAGraph:
    def __init__(self):
        self.g = fakegpu.Graph(_dev)

    def replay(self):
        self.g.replay()


class _GraphContext:
    def __init__(self, g):
        self.g = g.g

    def __enter__(self):
        self.g.begin()

    def __exit__(self, *exc):
        self.g.end()


def _new_stream():
    return _Stream(fakegpu.new_stream())


cuda = types.ModuleType("torch.cuda")
cuda.OutOfMemoryError = OutOfMemoryError
cuda.is_available = lambda: _dev.ok and _dev.count() > 0
cuda.get_device_name = lambda device=0: _dev.name()
cuda.mem_get_info = lambda device=None: _dev.mem_info()
cuda.memory_reserved = lambda device=None: _dev.held
cuda.empty_cache = _dev.empty_cache
cuda.synchronize = lambda device=None: fakegpu.check(fakegpu.cuCtxSynchronize(), "sync")
cuda.get_allocator_backend = lambda: "cudaMallocAsync" if _dev.backend == "cudaMallocAsync" \
    else "native"
cuda.Stream = _new_stream
cuda.stream = _StreamContext
cuda.current_stream = lambda device=None: _Stream(_dev.stream)
cuda.CUDAGraph = CUDAGraph
cuda.graph = _GraphContext
sys.modules["torch.cuda"] = cuda
