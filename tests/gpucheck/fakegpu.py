# SPDX-License-Identifier: Apache-2.0
"""fakegpu.py - the little of a GPU array library that gpu-check's Python
checks use (bench/cuda/gpucheck/), over the fake CUDA driver through
ctypes, so that the checks run end to end under libgpushare without a GPU.
The packages torch/ and cupy/ beside it are thin faces of it; the test
gpu_check_fake puts this directory first in PYTHONPATH.

It asks the driver as the real libraries do: libcuda.so.1 opened with
dlopen and its functions found with dlsym (which libgpushare answers with
its wrappers), allocations as PyTorch's allocators make them (cuMemAlloc
with a cache; cuMemAllocAsync from the default pool with an unlimited
release threshold; cuMemCreate and cuMemMap in 20 MiB pages for expandable
segments), stream capture in global mode with allocations in relaxed mode,
and kernels whose time on the fake's simulated GPU follows their flops
(100 TFLOP/s). Values are modelled, not computed: a tensor is a constant
fill, which is what the checks build their inputs from.
"""

import ctypes
import os

MIB = 1 << 20
PAGE = 20 * MIB               # an expandable segment's page, as PyTorch maps them
FLOPS_PER_US = 1e8            # 100 TFLOP/s on the fake's timeline (1 block = 1 us)

_cu = ctypes.CDLL("libcuda.so.1")
_P = ctypes.c_void_p
_U64 = ctypes.c_uint64


def _fn(name, *argtypes):
    f = getattr(_cu, name)
    f.argtypes = list(argtypes)
    f.restype = ctypes.c_int
    return f


cuInit = _fn("cuInit", ctypes.c_uint)
cuDeviceGetCount = _fn("cuDeviceGetCount", ctypes.POINTER(ctypes.c_int))
cuDeviceGetName = _fn("cuDeviceGetName", ctypes.c_char_p, ctypes.c_int, ctypes.c_int)
cuMemGetInfo = _fn("cuMemGetInfo_v2", ctypes.POINTER(ctypes.c_size_t),
                   ctypes.POINTER(ctypes.c_size_t))
cuMemAlloc = _fn("cuMemAlloc_v2", ctypes.POINTER(_U64), ctypes.c_size_t)
cuMemFree = _fn("cuMemFree_v2", _U64)
cuMemAllocAsync = _fn("cuMemAllocAsync", ctypes.POINTER(_U64), ctypes.c_size_t, _P)
cuMemFreeAsync = _fn("cuMemFreeAsync", _U64, _P)
cuDeviceGetDefaultMemPool = _fn("cuDeviceGetDefaultMemPool", ctypes.POINTER(_P), ctypes.c_int)
cuMemPoolSetAttribute = _fn("cuMemPoolSetAttribute", _P, ctypes.c_int, _P)
cuMemPoolTrimTo = _fn("cuMemPoolTrimTo", _P, ctypes.c_size_t)
cuMemCreate = _fn("cuMemCreate", ctypes.POINTER(_U64), ctypes.c_size_t, _P, ctypes.c_ulonglong)
cuMemMap = _fn("cuMemMap", _U64, ctypes.c_size_t, ctypes.c_size_t, _U64, ctypes.c_ulonglong)
cuMemUnmap = _fn("cuMemUnmap", _U64, ctypes.c_size_t)
cuMemRelease = _fn("cuMemRelease", _U64)
cuLaunchKernel = _fn("cuLaunchKernel", _P, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint,
                     ctypes.c_uint, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint, _P, _P, _P)
cuCtxSynchronize = _fn("cuCtxSynchronize")
cuStreamCreate = _fn("cuStreamCreate", ctypes.POINTER(_P), ctypes.c_uint)
cuStreamBeginCapture = _fn("cuStreamBeginCapture_v2", _P, ctypes.c_int)
cuStreamEndCapture = _fn("cuStreamEndCapture", _P, ctypes.POINTER(_P))
cuThreadExchangeStreamCaptureMode = _fn("cuThreadExchangeStreamCaptureMode",
                                        ctypes.POINTER(ctypes.c_int))
cuGraphInstantiate = _fn("cuGraphInstantiateWithFlags", ctypes.POINTER(_P), _P,
                         ctypes.c_ulonglong)
cuGraphLaunch = _fn("cuGraphLaunch", _P, _P)
cuGraphExecDestroy = _fn("cuGraphExecDestroy", _P)
cuGraphDestroy = _fn("cuGraphDestroy", _P)

CUDA_ERROR_OUT_OF_MEMORY = 2
CAPTURE_GLOBAL, CAPTURE_RELAXED = 0, 2
RELEASE_THRESHOLD = 4         # CU_MEMPOOL_ATTR_RELEASE_THRESHOLD
KERNEL = ctypes.c_void_p(0x4242)


class DriverError(RuntimeError):
    """A driver call that failed other than for memory."""


def check(rc, what):
    if rc:
        raise DriverError("%s failed: CUDA error %d" % (what, rc))


class _MemProp(ctypes.Structure):
    """CUmemAllocationProp: pinned device memory on device 0."""
    _fields_ = [("type", ctypes.c_int), ("handle_types", ctypes.c_int),
                ("loc_type", ctypes.c_int), ("loc_id", ctypes.c_int),
                ("win32", ctypes.c_void_p), ("compression", ctypes.c_ubyte),
                ("gpu_direct", ctypes.c_ubyte), ("usage", ctypes.c_ushort),
                ("reserved", ctypes.c_ubyte * 4)]


class Device:
    """The fake GPU 0 as one library sees it: its allocator and streams."""

    def __init__(self, oom):
        self.oom = oom               # the library's out-of-memory exception class
        self.backend = "native"
        self.cache = {}              # native: size -> freed blocks kept
        self.live = 0                # bytes handed out
        self.held = 0                # bytes held from the driver (live and cached)
        self.seg_base = 0x7e0000000000  # the expandable segment: its range,
        self.seg_used = self.seg_mapped = 0  # what is handed out and what is mapped,
        self.pages = []              # and the handles of its pages
        self.stream = None           # the current stream (None: the default one)
        self.capturing = None        # the graph being captured into, or None
        self.pool = _P()
        self.ok = cuInit(0) == 0

    def use(self, backend):
        self.backend = backend
        if backend == "cudaMallocAsync":
            keep = _U64(2 ** 64 - 1)  # PyTorch keeps everything it frees in the pool
            check(cuDeviceGetDefaultMemPool(ctypes.byref(self.pool), 0), "default pool")
            check(cuMemPoolSetAttribute(self.pool, RELEASE_THRESHOLD, ctypes.byref(keep)),
                  "release threshold")

    def _driver_alloc(self, size):
        """(rc, block): a block is (address, how it was made, handle, bytes)."""
        p = _U64()
        if self.backend == "cudaMallocAsync":
            rc = cuMemAllocAsync(ctypes.byref(p), size, self.stream)
            return rc, (p.value, "async", None, size)
        if self.backend == "expandable":
            return self._segment_alloc(size)
        # PyTorch's caching allocator makes its cudaMalloc legal during a capture.
        mode = ctypes.c_int(CAPTURE_RELAXED)
        cuThreadExchangeStreamCaptureMode(ctypes.byref(mode))
        rc = cuMemAlloc(ctypes.byref(p), size)
        cuThreadExchangeStreamCaptureMode(ctypes.byref(mode))
        return rc, (p.value, "plain", None, size)

    def _segment_alloc(self, size):
        """Expandable segments: one range that grows by mapping 20 MiB pages."""
        while self.seg_mapped < self.seg_used + size:
            h, prop = _U64(), _MemProp(type=1, loc_type=1, loc_id=0)
            rc = cuMemCreate(ctypes.byref(h), PAGE, ctypes.byref(prop), 0)
            if rc:
                return rc, None
            check(cuMemMap(self.seg_base + self.seg_mapped, PAGE, 0, h.value, 0), "cuMemMap")
            self.pages.append(h.value)
            self.seg_mapped += PAGE
            self.held += PAGE
        va = self.seg_base + self.seg_used
        self.seg_used += size
        return 0, (va, "segment", None, 0)

    def _driver_free(self, block):
        va, kind, _, size = block
        if kind == "async":
            check(cuMemFreeAsync(va, self.stream), "cuMemFreeAsync")
        elif kind == "plain":
            check(cuMemFree(va), "cuMemFree")
        self.held -= size

    def alloc(self, nbytes):
        """A block of at least nbytes, or the library's out-of-memory error."""
        size = max(512, (nbytes + 511) // 512 * 512)
        if size > MIB:
            size = (size + 2 * MIB - 1) // (2 * MIB) * (2 * MIB)
        if self.cache.get(size):
            block = self.cache[size].pop()
        else:
            rc, block = self._driver_alloc(size)
            if rc == CUDA_ERROR_OUT_OF_MEMORY:
                self.empty_cache()  # as PyTorch and CuPy do, before giving up
                rc, block = self._driver_alloc(size)
            if rc == CUDA_ERROR_OUT_OF_MEMORY:
                raise self.oom("out of memory allocating %d bytes" % nbytes)
            check(rc, "allocation")
            self.held += block[3]
        self.live += size
        return block + (size,)

    def free(self, block):
        self.live -= block[4]
        if block[1] == "plain":
            self.cache.setdefault(block[3], []).append(block[:4])
        elif block[1] == "async":
            self._driver_free(block[:4])
        elif self.live == 0:
            self.seg_used = 0  # a segment's space comes back once it is all free

    def empty_cache(self):
        for blocks in self.cache.values():
            for b in blocks:
                self._driver_free(b)
        self.cache = {}
        if self.backend == "expandable" and self.live == 0:
            if self.seg_mapped:
                check(cuMemUnmap(self.seg_base, self.seg_mapped), "cuMemUnmap")
            for h in self.pages:
                check(cuMemRelease(h), "cuMemRelease")
            self.held -= self.seg_mapped
            self.pages, self.seg_mapped = [], 0
        if self.backend == "cudaMallocAsync":
            check(cuCtxSynchronize(), "cuCtxSynchronize")
            check(cuMemPoolTrimTo(self.pool, 0), "cuMemPoolTrimTo")

    def launch(self, flops):
        """A kernel of flops on the current stream, timed on the fake's GPU timeline."""
        blocks = max(1, int(flops / FLOPS_PER_US))
        check(cuLaunchKernel(KERNEL, blocks, 1, 1, 32, 1, 1, 0, self.stream, None, None),
              "cuLaunchKernel")

    def mem_info(self):
        free, total = ctypes.c_size_t(), ctypes.c_size_t()
        check(cuMemGetInfo(ctypes.byref(free), ctypes.byref(total)), "cuMemGetInfo")
        return free.value, total.value

    def name(self):
        buf = ctypes.create_string_buffer(256)
        check(cuDeviceGetName(buf, 256, 0), "cuDeviceGetName")
        return buf.value.decode()

    def count(self):
        n = ctypes.c_int(0)
        return n.value if cuDeviceGetCount(ctypes.byref(n)) == 0 else 0


def new_stream():
    """A stream of its own, as cuStreamCreate makes it."""
    s = _P()
    check(cuStreamCreate(ctypes.byref(s), 0), "cuStreamCreate")
    return s


class Array:
    """A device array: a block, a shape, and the constant its elements all hold."""

    def __init__(self, dev, shape, itemsize, value):
        self.dev, self.shape, self.itemsize, self.value = dev, tuple(shape), itemsize, value
        self.block = None
        self.block = dev.alloc(max(1, self.numel()) * itemsize)

    def numel(self):
        n = 1
        for s in self.shape:
            n *= s
        return n

    def __del__(self):
        if self.block is not None:
            self.dev.free(self.block)
            self.block = None

    def matmul(self, other):
        n, k = self.shape[0], self.shape[-1]
        m = other.shape[-1]
        self.dev.launch(2.0 * n * k * m)
        return type(self)(self.dev, (n, m), self.itemsize, self.value * other.value * k)

    def add(self, other):
        self.dev.launch(float(self.numel()))
        return type(self)(self.dev, self.shape, self.itemsize, self.value + other.value)

    def total(self):
        self.dev.launch(float(self.numel()))
        return self.value * self.numel()


class Graph:
    """A graph captured from the current stream, in global mode, and its instantiation."""

    def __init__(self, dev):
        self.dev, self.graph, self.exec = dev, _P(), _P()
        self.stream = _P()

    def begin(self):
        self.stream = new_stream()
        self.saved, self.dev.stream = self.dev.stream, self.stream
        check(cuStreamBeginCapture(self.stream, CAPTURE_GLOBAL), "cuStreamBeginCapture")

    def end(self):
        rc = cuStreamEndCapture(self.stream, ctypes.byref(self.graph))
        self.dev.stream = self.saved
        check(rc, "cuStreamEndCapture")
        check(cuGraphInstantiate(ctypes.byref(self.exec), self.graph, 0), "instantiate")

    def replay(self):
        check(cuGraphLaunch(self.exec, self.stream), "cuGraphLaunch")

    def __del__(self):
        if self.exec:
            cuGraphExecDestroy(self.exec)
        if self.graph:
            cuGraphDestroy(self.graph)
