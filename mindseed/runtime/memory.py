"""Pluggable allocators and memory pools (`mindspore.runtime.PluggableAllocator`, `MemPool`, `use_mem_pool`).

A `PluggableAllocator` loads its alloc and free functions from a shared library with ctypes
(`void* alloc(size_t size, int device, void* stream)`, `void free(void* ptr, size_t size, int device,
void* stream)`), as MindSpore's does; a `MemPool` owns one and counts what is allocated through it. The kernels'
own buffers come from torch's allocator; `use_mem_pool` selects the pool that `MemPool.allocate` /
`current_pool()` users draw from within its block.
"""
import contextlib
import csv
import ctypes
import os

from mindseed import _backend as B

__all__ = ["PluggableAllocator", "MemPool", "use_mem_pool", "current_pool", "memory_replay"]


class PluggableAllocator:
    """Alloc and free functions loaded from `path_to_so_file`.

    Raises:
        TypeError: an argument that is not a str.
        OSError: the library cannot be loaded (a missing file included).
        AttributeError: the library lacks one of the functions.
    """

    def __init__(self, path_to_so_file, alloc_fn_name, free_fn_name):
        for name, value in (("path_to_so_file", path_to_so_file), ("alloc_fn_name", alloc_fn_name),
                            ("free_fn_name", free_fn_name)):
            if not isinstance(value, str):
                raise TypeError(f"For 'PluggableAllocator', the argument '{name}' must be str, but got {type(value)}.")
        # as MindSpore: the library loaded by the path as given, a missing file is ctypes' OSError
        lib = ctypes.CDLL(path_to_so_file)
        self.alloc_fn = getattr(lib, alloc_fn_name)
        self.free_fn = getattr(lib, free_fn_name)
        self.alloc_fn.restype, self.alloc_fn.argtypes = ctypes.c_void_p, [ctypes.c_size_t, ctypes.c_int,
                                                                            ctypes.c_void_p]
        self.free_fn.restype = None
        self.free_fn.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_void_p]
        self.path = path_to_so_file


class MemPool:
    """A memory pool drawing from `allocator`; `allocate(n)` / `free(ptr)` go through it and are counted."""

    def __init__(self, allocator):
        if not isinstance(allocator, PluggableAllocator):
            raise TypeError(f"For 'MemPool', the argument 'allocator' must be PluggableAllocator, but got "
                            f"{type(allocator)}.")
        self.allocator = allocator
        self._live = {}

    def allocate(self, size):
        """Allocate `size` bytes; returns the address (an int)."""
        if isinstance(size, bool) or not isinstance(size, int) or size <= 0:
            raise ValueError(f"For 'MemPool.allocate', the argument 'size' must be a positive int, but got {size!r}.")
        ptr = self.allocator.alloc_fn(size, 0, None)
        if not ptr:
            raise MemoryError(f"For 'MemPool.allocate', the allocator returned NULL for {size} bytes.")
        self._live[ptr] = size
        return ptr

    def free(self, ptr):
        """Free an address returned by `allocate`."""
        if ptr not in self._live:
            raise ValueError(f"For 'MemPool.free', the address {ptr} was not allocated by this pool.")
        self.allocator.free_fn(ptr, self._live.pop(ptr), 0, None)

    def memory_allocated(self):
        """Bytes allocated through this pool and not yet freed."""
        return sum(self._live.values())


_pools = []


def current_pool():
    """The pool selected by the innermost `use_mem_pool` block, or None."""
    return _pools[-1] if _pools else None


@contextlib.contextmanager
def use_mem_pool(pool):
    """Within the `with` block, `current_pool()` is `pool`."""
    if not isinstance(pool, MemPool):
        raise TypeError(f"For 'use_mem_pool', the argument 'pool' must be MemPool, but got {type(pool)}.")
    _pools.append(pool)
    try:
        yield pool
    finally:
        _pools.pop()


def memory_replay(file_path):
    """Replay the allocations and frees of a memory-tracker `memory_block.csv` (columns ``start_time_stamp``,
    ``end_time_stamp``, ``size``, ...) in time order on the device allocator: each block is allocated at its start
    and released at its end. Returns the peak of bytes held during the replay.

    Raises:
        FileNotFoundError: no such file.
        ValueError: a file without those columns.
    """
    path = os.path.realpath(file_path)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"For 'memory_replay', the file '{file_path}' does not exist.")
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    need = ("start_time_stamp", "end_time_stamp", "size")
    if rows and any(k not in rows[0] for k in need):
        raise ValueError(f"For 'memory_replay', '{file_path}' must have the columns {list(need)}, but has "
                         f"{list(rows[0])}.")
    events = []
    for i, r in enumerate(rows):
        start, end, size = int(r["start_time_stamp"]), int(r["end_time_stamp"]), int(r["size"])
        events.append((start, 1, i, size))
        events.append((end, 0, i, size))      # at one time stamp, frees come before allocations
    live, held, peak = {}, 0, 0
    for _, is_alloc, i, size in sorted(events):
        if is_alloc:
            live[i] = B.empty([size], "UInt8")
            held += size
            peak = max(peak, held)
        elif i in live:
            del live[i]
            held -= size
    return peak
