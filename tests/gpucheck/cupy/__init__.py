# SPDX-License-Identifier: Apache-2.0
"""A stand-in for CuPy in gpu-check's fake-driver test (tests/gpucheck/fakegpu.py):
only the names bench/cuda/gpucheck/cupy_check.py uses, with CuPy's names and
behaviour, over the fake CUDA driver."""

import types

import fakegpu

__version__ = "0.0+fakegpu"


class OutOfMemoryError(MemoryError):
    """cupy.cuda.memory.OutOfMemoryError."""


_dev = fakegpu.Device(OutOfMemoryError)
uint8, float32 = 1, 4


_workspace = []  # held for good from the first product on, as cuBLAS's is


class ndarray(fakegpu.Array):  # noqa: N801 - CuPy's name
    def __matmul__(self, other):
        if not _workspace:
            _workspace.append(fakegpu.Array(_dev, (96 << 20,), 1, 0.0))
        return self.matmul(other)

    def sum(self):
        return self.total()


def empty(shape, dtype=float32):
    return ndarray(_dev, shape if isinstance(shape, tuple) else (shape,), dtype, 0.0)


def ones(shape, dtype=float32):
    a = ndarray(_dev, shape if isinstance(shape, tuple) else (shape,), dtype, 1.0)
    _dev.launch(float(a.numel()))
    return a


class _DefaultPool:
    def free_all_blocks(self):
        _dev.empty_cache()

    def total_bytes(self):
        return _dev.held


class MemoryAsyncPool:
    def malloc(self, size):
        raise NotImplementedError("only passed to set_allocator")

    def free_all_blocks(self):
        _dev.empty_cache()

    def total_bytes(self):
        return _dev.held


def set_allocator(malloc):
    _dev.use("cudaMallocAsync" if isinstance(getattr(malloc, "__self__", None),
                                             MemoryAsyncPool) else "native")


class Device:
    def __init__(self, i=0):
        self.i = i

    @property
    def mem_info(self):
        return _dev.mem_info()


_pool = _DefaultPool()
get_default_memory_pool = lambda: _pool  # noqa: E731 - CuPy's function
runtime = types.SimpleNamespace(memGetInfo=_dev.mem_info, getDeviceCount=_dev.count)
memory = types.SimpleNamespace(OutOfMemoryError=OutOfMemoryError)
cuda = types.SimpleNamespace(runtime=runtime, memory=memory, Device=Device,
                             MemoryAsyncPool=MemoryAsyncPool, set_allocator=set_allocator)
