"""The backend's helpers on torch: the names of the `mindseed._backend` package (a face of this module, imported
with torch on first use: see `_lazy`).

The package keeps to itself: importing or running mindseed changes none of torch's process or thread
state (grad mode, inference mode), so torch code in the same process trains as it would alone. No kernel
needs grad mode off: an op whose inputs do not require grad records nothing, whatever the mode.
"""
import ctypes
import operator
import os
import sys

import numpy as np
import torch

from mindseed._backend import _rng
from mindseed._backend.errors import kernel_error  # noqa: F401 -- re-exported for the registry


def _tune_malloc():
    """Keep freed activation buffers in glibc's heap instead of returning them to the OS after every step.

    A training step allocates and frees the same few-MB buffers over and over; with glibc's default
    (dynamic mmap threshold, 128 KB trim threshold) many of them are fresh mmaps that page-fault on first
    touch, which costs up to a third of a small CNN step on CPU. Raising the thresholds makes steady-state
    steps reuse warm memory. Opt out with MINDSEED_MALLOC_TUNING=0.
    """
    if not sys.platform.startswith("linux") or os.environ.get("MINDSEED_MALLOC_TUNING", "1") == "0":
        return
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:  # not glibc (musl, ...): nothing to tune
        return
    m_trim_threshold, m_top_pad, m_mmap_threshold = -1, -2, -3
    libc.mallopt(m_mmap_threshold, 32 << 20)  # glibc's maximum: allocations above 32 MB still use mmap
    libc.mallopt(m_trim_threshold, 256 << 20)
    libc.mallopt(m_top_pad, 16 << 20)


_tune_malloc()

Array = torch.Tensor

class _DtypeTable(dict):
    """MindSpore dtype name -> torch dtype; a MindSpore dtype torch has no type for (hifloat8) has no kernels: any
    use of it is a TypeError naming it."""

    def __missing__(self, name):
        raise TypeError(f"the dtype {name} has no CPU/GPU kernels (only Ascend computes it); use float8_e4m3fn, "
                        f"float8_e5m2, float16 or int8 instead.")


# MindSpore dtype name -> torch dtype; the common.dtype module owns the user-visible objects.
_TORCH_DTYPES = _DtypeTable({
    "Bool": torch.bool,
    "Int8": torch.int8, "Int16": torch.int16, "Int32": torch.int32, "Int64": torch.int64,
    "UInt8": torch.uint8, "UInt16": torch.uint16, "UInt32": torch.uint32, "UInt64": torch.uint64,
    "Float16": torch.float16, "BFloat16": torch.bfloat16, "Float32": torch.float32, "Float64": torch.float64,
    "Complex64": torch.complex64, "Complex128": torch.complex128,
    "Float8E4M3FN": torch.float8_e4m3fn, "Float8E5M2": torch.float8_e5m2,
    # MindSpore's qint4x2: one byte per element, each holding two packed 4-bit integers (a quantized weight's
    # storage). torch's int4 is a byte-sized storage type without kernels: such a tensor is made, copied, saved and
    # read back as its bytes (int8), and reaches arithmetic only unpacked (`unpack_int4`).
    "Int4": torch.int4,
})
_INT4 = torch.int4
_NAMES_BY_TORCH = {v: k for k, v in _TORCH_DTYPES.items()}


def torch_dtype(name):
    return _TORCH_DTYPES[name]


def dtype_name(x):
    """MindSpore dtype name of a backend tensor."""
    return _NAMES_BY_TORCH[x.dtype]


def is_array(x):
    return isinstance(x, torch.Tensor)


def describe(x):
    """`x` for a message: a backend tensor as its shape and MindSpore dtype (never torch's repr), containers
    element by element."""
    if isinstance(x, torch.Tensor):
        return f"Tensor(shape={list(x.shape)}, dtype={_NAMES_BY_TORCH.get(x.dtype, x.dtype)})"
    if isinstance(x, (tuple, list)):
        inner = ", ".join(describe(v) for v in x)
        return f"({inner}{',' if len(x) == 1 else ''})" if isinstance(x, tuple) else f"[{inner}]"
    if isinstance(x, dict):
        return "{" + ", ".join(f"{k!r}: {describe(v)}" for k, v in x.items()) + "}"
    return repr(x)


# ---------------------------------------------------------------- device
_device = torch.device("cpu")


def set_device(target, device_id=None):
    global _device
    target = target.upper()
    if target in ("GPU", "CUDA"):
        if not torch.cuda.is_available():
            raise RuntimeError("For 'set_device', device_target 'GPU' was asked for but no CUDA device is available.")
        _device = torch.device("cuda", device_id or 0)
    else:
        _device = torch.device("cpu")


def device():
    return _device


def to_device(x, target):
    """x on the device named `target` ("CPU", "GPU"/"cuda", with an optional ":<id>"); None when this machine has
    no such device."""
    name, _, idx = target.partition(":")
    name = name.upper()
    if name == "CPU":
        return x.cpu()
    if name in ("GPU", "CUDA") and torch.cuda.is_available():
        return x.to(torch.device("cuda", int(idx) if idx.isdigit() else 0))
    return None


def device_target():
    return "GPU" if _device.type == "cuda" else "CPU"


def gpu_available():
    return torch.cuda.is_available()


def synchronize():
    """Wait for the current device's queued work (nothing is queued on the CPU)."""
    if _device.type == "cuda":
        torch.cuda.synchronize(_device)


def memory_counters():
    """{allocated, reserved, max_allocated, max_reserved} bytes of the device's caching allocator (CUDA); the
    CPU has no device memory pool: zeros."""
    if _device.type != "cuda":
        return {"allocated": 0, "reserved": 0, "max_allocated": 0, "max_reserved": 0}
    return {"allocated": torch.cuda.memory_allocated(_device), "reserved": torch.cuda.memory_reserved(_device),
            "max_allocated": torch.cuda.max_memory_allocated(_device),
            "max_reserved": torch.cuda.max_memory_reserved(_device)}


def reset_peak_memory():
    if _device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(_device)


def empty_cache():
    if _device.type == "cuda":
        torch.cuda.empty_cache()


def available_memory():
    """Bytes a new buffer can take now: the device's free memory (CUDA) or the host's available physical memory."""
    if _device.type == "cuda":
        return torch.cuda.mem_get_info(_device)[0]
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES")
    except (ValueError, OSError, AttributeError):     # no sysconf (Windows): unknown, assume enough
        return float("inf")


def check_allocation(nbytes, op):
    """RuntimeError (MindSpore's failed allocation) when `nbytes` for an output of `op` exceed what is available,
    rather than letting the process be killed for memory."""
    avail = available_memory()
    if nbytes > avail:
        raise RuntimeError(f"For '{op}', Allocate workspace memory failed, alloc size:{int(nbytes)}B (available: "
                           f"{int(avail)}B).")


def limit_device_memory(nbytes):
    """Cap the CUDA caching allocator at `nbytes` (no-op on the CPU, which has no device pool)."""
    if _device.type == "cuda":
        total = torch.cuda.get_device_properties(_device).total_memory
        torch.cuda.set_per_process_memory_fraction(min(1.0, nbytes / total), _device)


def set_deterministic(flag):
    torch.use_deterministic_algorithms(bool(flag), warn_only=True)


def set_num_threads(n):
    torch.set_num_threads(int(n))


def set_flush_denormal(flag):
    """Flush subnormal floats to zero on CPU (x86 FTZ/DAZ); True if the CPU supports it.

    Training on CPU can produce subnormal gradients (e.g. softmax of confident logits) that make
    conv/matmul kernels many times slower."""
    return bool(torch.set_flush_denormal(bool(flag)))


# ---------------------------------------------------------------- reading and copying backend tensors
# The layers above never call a method of a backend tensor themselves (tests/test_layering.py checks it): they
# ask these. Most are torch's own unbound methods, so the PyNative hot path pays no extra Python frame.
shape_of = operator.attrgetter("shape")         # a tuple (torch.Size) of ints
dtype_of = operator.attrgetter("dtype")         # a backend dtype, the value of torch_dtype(its MindSpore name)
ndim = torch.Tensor.dim
numel = torch.Tensor.numel
itemsize = torch.Tensor.element_size            # bytes per element
strides_of = torch.Tensor.stride                # in elements
is_contiguous = torch.Tensor.is_contiguous
storage_offset = torch.Tensor.storage_offset
data_ptr = torch.Tensor.data_ptr
item = torch.Tensor.item                        # the one element as a Python number
tolist = torch.Tensor.tolist



def clone(x):
    """A copy with its own storage."""
    if x.dtype is _INT4:        # torch has no copy kernel of its int4: the bytes are copied
        return x.view(torch.int8).clone().view(_INT4)
    return x.clone()


contiguous = torch.Tensor.contiguous
reshape = torch.Tensor.reshape                  # a view where the layout allows, else a copy


def is_inexact(x):
    """Whether x holds floating or complex numbers (a value gradients flow through)."""
    return x.is_floating_point() or x.is_complex()


def is_meta(x):
    """Whether x is a placeholder without data (shape and dtype only)."""
    return x.is_meta


def cast(x, dtype_name_):
    """x in dtype `dtype_name_` (MindSpore name); x itself when it already is (complex to real: the real part)."""
    return to_dtype(x, _TORCH_DTYPES[dtype_name_])


def to_dtype(x, dt):
    """x in the backend dtype `dt`; complex to real keeps the real part, as MindSpore's Cast (torch's own copy
    would warn that it discards the imaginary part)."""
    if dt is _INT4 or x.dtype is _INT4:
        return _int4_cast(x, dt)
    return (x.real if x.is_complex() and not dt.is_complex else x).to(dt)


def _int4_cast(x, dt):
    """Into Int4, the values as int8 bytes (MindSpore's conversion of data to a qint4x2 tensor: each value, cast to
    int8, is one byte of packed pairs); out of Int4 there is no cast (MindSpore has none either)."""
    if x.dtype is dt:
        return x
    if x.dtype is _INT4:
        raise TypeError(f"For 'Cast', a Tensor of dtype Int4 (packed int4 pairs) cannot be cast to "
                        f"{_NAMES_BY_TORCH.get(dt, dt)}: it has no conversion kernel.")
    return x.to(torch.int8, copy=True).view(_INT4)


def unpack_int4(x):
    """The int8 values of a packed Int4 tensor: each byte's low then high 4 bits, sign-extended, so the last
    dimension doubles."""
    b = x.view(torch.int8)
    low = torch.bitwise_right_shift(torch.bitwise_left_shift(b, 4), 4)
    high = torch.bitwise_right_shift(b, 4)
    return torch.stack((low, high), -1).reshape(*b.shape[:-1], b.shape[-1] * 2)


# ---------------------------------------------------------------- numpy interchange
def from_numpy(a, dtype_name_=None, copy=True):
    """numpy array -> backend tensor on the current device; shares memory when copy=False on CPU."""
    if copy or not a.flags.c_contiguous:
        a = np.array(a, copy=True, order="C")
    if a.dtype.byteorder not in ("=", "|"):
        a = a.astype(a.dtype.newbyteorder("="))
    if a.dtype.kind in "iu" and a.dtype.char != np.dtype(a.dtype.str).char:
        a = a.view(np.dtype(a.dtype.str))   # a platform alias (np.ulonglong) as the canonical type torch knows
    bf16 = a.dtype == _np_bfloat16() if a.dtype.kind == "V" else False
    t = torch.from_numpy(a.view(np.int16)).view(torch.bfloat16) if bf16 else torch.from_numpy(a)
    if dtype_name_ is not None and t.dtype != _TORCH_DTYPES[dtype_name_]:
        t = _e4m3fn_from(t) if dtype_name_ == "Float8E4M3FN" else to_dtype(t, _TORCH_DTYPES[dtype_name_])
    if _device.type != "cpu":
        t = t.to(_device)
    return t


def _e4m3fn_from(t):
    """Data converted to float8_e4m3fn as MindSpore's Tensor does it: a value rounding past the largest (448),
    infinities too, becomes NaN (the type has no infinity; torch's conversion saturates to 448)."""
    src = t.real.float() if t.is_complex() else t.float()
    over = src.abs() >= 464     # halfway from 448 to the next step (480), which only NaN encodes
    return torch.where(over, torch.copysign(torch.full_like(src, float("nan")), src), src).to(torch.float8_e4m3fn)


def as_strided(x, size, stride, offset):
    """A view of x's storage with the given sizes, strides and storage offset (in elements)."""
    return torch.as_strided(x, tuple(size), tuple(stride), offset)



# ---------------------------------------------------------------- sole ownership (updates written in place)
_storage_use_count = getattr(torch._C, "_storage_Use_Count", None)


def _references(x):
    return sys.getrefcount(x)


class _Holder:
    __slots__ = ("_data",)


def _calibrate():
    """What `sys.getrefcount(x)` reads in a function called as `f(holder._data)` when only `holder` holds x."""
    holder = _Holder()
    holder._data = torch.zeros(1)
    return _references(holder._data)


_SOLE_REFERENCES = _calibrate()


def sole_owner(x):
    """Whether the backend tensor x, read as `holder._data` by the caller, is held by that holder alone: no other
    reference to it (another Tensor wrapping it, a tape or an undo stack keeping it) and no other tensor or numpy
    array sharing its memory (a view, `asnumpy()`). An update of the holder may then write x in place, unseen.
    Call it as `sole_owner(holder._data)`: a local variable holding x counts as a second owner."""
    if _storage_use_count is None or not isinstance(x, torch.Tensor) or sys.getrefcount(x) > _SOLE_REFERENCES \
            or x._is_view():
        return False
    storage = x.untyped_storage()
    return _storage_use_count(storage._cdata) <= 2       # x's and the `storage` object's own


def _np_bfloat16():
    """ml_dtypes' numpy bfloat16, or None when that package is not installed."""
    try:
        from ml_dtypes import bfloat16
    except ImportError:
        return None
    return bfloat16


def to_numpy(x):
    if x.dtype is _INT4:        # its bytes, as MindSpore's asnumpy of a qint4x2 tensor
        x = x.view(torch.int8)
    if x.dtype == torch.bfloat16 and _np_bfloat16() is not None:
        return to_numpy(x.view(torch.int16)).view(_np_bfloat16())
    if x.dtype in (torch.bfloat16, torch.float8_e4m3fn, torch.float8_e5m2):
        name = {torch.bfloat16: "bfloat16", torch.float8_e4m3fn: "float8_e4m3fn"}.get(x.dtype, "float8_e5m2")
        raise TypeError(f"For 'asnumpy', numpy has no {name}: cast the tensor with astype(mindspore.float32) "
                        f"first.")
    if x.device.type != "cpu":
        x = x.cpu()
    return x.numpy()


def tensor(data, dtype_name_):
    if dtype_name_ == "Int4":
        return tensor(data, "Int8").view(_INT4)
    if dtype_name_ == "Float8E4M3FN":
        return _e4m3fn_from(torch.tensor(data, dtype=torch.float32)).to(_device)
    return torch.tensor(data, dtype=_TORCH_DTYPES[dtype_name_], device=_device)


def empty(shape, dtype_name_):
    return torch.empty(shape, dtype=_TORCH_DTYPES[dtype_name_], device=_device)


def full(shape, value, dtype_name_):
    if dtype_name_ == "Int4":
        return full(shape, value, "Int8").view(_INT4)
    return torch.full(tuple(shape), value, dtype=_TORCH_DTYPES[dtype_name_], device=_device)


def meta(shape, dtype_name_):
    return torch.empty(tuple(shape), dtype=_TORCH_DTYPES[dtype_name_], device="meta")


def bytes_of(x):
    """Raw little-endian bytes of a backend tensor (bfloat16 included)."""
    if x.dtype is _INT4:
        x = x.view(torch.int8)
    x = x.detach().contiguous().cpu()
    if x.dtype == torch.bfloat16:
        return x.view(torch.int16).numpy().tobytes()
    return x.numpy().tobytes()


def from_bytes(buf, shape, dtype_name_):
    dt = _TORCH_DTYPES[dtype_name_]
    if dt is _INT4:
        return from_bytes(buf, shape, "Int8").view(_INT4)
    if dt == torch.bfloat16:
        a = np.frombuffer(buf, dtype=np.int16).copy()
        return torch.from_numpy(a).view(torch.bfloat16).reshape(tuple(shape)).to(_device)
    a = np.frombuffer(buf, dtype=torch.empty(0, dtype=dt).numpy().dtype).copy()
    return torch.from_numpy(a).reshape(tuple(shape)).to(_device)


# ---------------------------------------------------------------- RNG
Generator = _rng.Generator  # torch-free until its first draw (the package face hands it out unloaded)


def manual_seed(seed):
    torch.manual_seed(int(seed))
