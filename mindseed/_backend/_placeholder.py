"""Data-less arrays before torch loads: what `meta` makes while torch is not loaded (a shapes-only recording)."""
import math

_ITEMSIZE = {"Bool": 1, "Int8": 1, "UInt8": 1, "Int16": 2, "UInt16": 2, "Float16": 2, "BFloat16": 2, "Int32": 4,
             "UInt32": 4, "Float32": 4, "Int64": 8, "UInt64": 8, "Float64": 8, "Complex64": 8, "Complex128": 16,
             "Float8E4M3FN": 1, "Float8E5M2": 1}


class Placeholder:
    """A shape and a MindSpore dtype name, no data."""

    __slots__ = ("shape", "dtype")
    is_meta = True

    def __init__(self, shape, dtype):
        self.shape, self.dtype = tuple(int(s) for s in shape), dtype


# what the backend's readers answer for a Placeholder (`mindseed._backend` uses them until torch loads)
READERS = {
    "shape_of": lambda x: x.shape, "dtype_of": lambda x: x.dtype, "dtype_name": lambda x: x.dtype,
    "ndim": lambda x: len(x.shape), "numel": lambda x: math.prod(x.shape), "itemsize": lambda x: _ITEMSIZE[x.dtype],
    "is_meta": lambda x: True, "is_inexact": lambda x: x.dtype.startswith(("Float", "BFloat", "Complex")),
    "clone": lambda x: x, "contiguous": lambda x: x,     # a placeholder is never written to
}
