"""A kernel's failure in MindSpore's words: the exception class and the message the layers above show the user.

torch words its errors for torch users (its function names, `ComplexFloat`, `c10::complex<float>`,
`DefaultCPUAllocator`, advice to report to PyTorch). The registry asks `kernel_error` for the class and text of a
kernel's failure and puts them after the primitive's name and inputs; nothing of torch's vocabulary reaches the user.
"""
import re

import torch

# torch's dtype spellings in messages -> MindSpore's names
_DTYPE_WORDS = {
    "ComplexFloat": "Complex64", "ComplexDouble": "Complex128", "ComplexHalf": "Complex32", "Float": "Float32",
    "Double": "Float64", "Half": "Float16", "Long": "Int64", "Int": "Int32", "Short": "Int16", "Char": "Int8",
    "Byte": "UInt8", "c10::complex<float>": "Complex64", "c10::complex<double>": "Complex128", "c10::Half": "Float16",
    "c10::BFloat16": "BFloat16",
}
_DTYPE_RE = re.compile(r"(?<![\w:<])(" + "|".join(sorted((re.escape(w) for w in _DTYPE_WORDS), key=len, reverse=True))
                       + r")(?![\w:>])")
_TENSOR_REPR = re.compile(r"torch\.\w+Tensor\{(\[[^\]]*\])\}")
_TORCH_NAME = re.compile(r"torch\.(\w+)")
_KERNEL_PREFIX = re.compile(r"^(?:torch\.[\w.]+(?:\(\))?|linalg\.\w+|special\.\w+|fft\.\w+|[\w.]+\([^:]*\))\s*:\s*")
_NOT_IMPLEMENTED = re.compile(r"\"(\w+?)\" not implemented for '([\w:<> ]+)'")
_INDEX_RANGE = re.compile(r"index -?\d+ is out of bounds for dimension|indices along dimension \d+ must be in|"
                          r"index out of range in self")
_DIM_RANGE = re.compile(r"Dimension out of range \(expected to be in range of \[(-?\d+), (-?\d+)\], but got (-?\d+)\)")
_ALLOC = re.compile(r"allocate (\d+) bytes")
_VOCABULARY = re.compile(r"torch|c10|aten|at::|PyTorch|Allocator|Variable|THP|SymInt|IntArrayRef|long long|"
                         r"invalid combination of arguments|object has no attribute",
                         re.IGNORECASE)
_DROPPED = (re.compile(r"\s*\(Could this error message be improved\?.*$", re.DOTALL),
            re.compile(r"^\[enforce fail at [^\]]*\]\s*(err == 0\.\s*)?"),
            re.compile(r"\s*\(Triggered internally at .*\)\.?", re.DOTALL),
            re.compile(r"\s*Exception raised from .*$", re.DOTALL),
            re.compile(r"\s*Please use .*$", re.DOTALL),     # torch's advice names torch's functions
            re.compile(r",?\s*Use the `.*$", re.DOTALL),
            re.compile(r"\s*If you are trying to .*$", re.DOTALL))


def _dtype_name(word):
    return _DTYPE_WORDS.get(word, word)


def _torch_name(m):
    obj = getattr(torch, m.group(1), None)
    if isinstance(obj, torch.dtype):
        from mindseed._backend._core import _NAMES_BY_TORCH
        return _NAMES_BY_TORCH.get(obj, m.group(1))
    return m.group(1)


def kernel_error(exc):
    """(exception class, message) saying in MindSpore's terms why a kernel failed with `exc`."""
    msg = str(exc)
    if isinstance(exc, MemoryError) or "can't allocate memory" in msg or "out of memory" in msg.lower():
        n = _ALLOC.search(msg)
        need = f" of {int(n.group(1))} bytes" if n else ""
        return RuntimeError, (f"Memory not enough: the allocation{need} for the output or workspace failed "
                              f"(Allocate memory failed).")
    if isinstance(exc, OverflowError) or "Overflow when unpacking" in msg or "value cannot be converted" in msg:
        return ValueError, "a value is out of the range the kernel accepts (a signed 64-bit integer)."
    m = _DIM_RANGE.search(msg)
    if m:   # an axis outside the rank: MindSpore's shape inference raises a ValueError
        lo, hi, got = (int(g) for g in m.groups())
        return ValueError, f"the 'axis' must be in range [{lo}, {hi + 1}), but got {got}."
    m = _NOT_IMPLEMENTED.search(msg)
    if m:
        return TypeError, f"the kernel '{m.group(1).removesuffix('_cpu').removesuffix('_cuda')}' does not support " \
                          f"inputs of dtype {_dtype_name(m.group(2))}."
    if msg.startswith("only integers, slices"):
        got = re.search(r"\(got (\w+)\)", msg)
        return IndexError, ("only integers, slices, ellipsis, None, bool and integer Tensors are valid indices"
                            + (f", but got {got.group(1)}." if got else "."))
    for pattern in _DROPPED:
        msg = pattern.sub("", msg)
    msg = msg.strip().split("\n")[0]
    msg = _KERNEL_PREFIX.sub("", msg)
    msg = _TENSOR_REPR.sub(r"Tensor of shape \1", msg)
    msg = _TORCH_NAME.sub(_torch_name, msg)
    msg = _DTYPE_RE.sub(lambda m: _dtype_name(m.group(1)), msg).replace("scalar type", "dtype")
    if _VOCABULARY.search(msg):
        msg = "the kernel does not accept these inputs."
    typed = isinstance(exc, (TypeError, AttributeError)) or "dtype" in msg or " bool " in msg
    if msg.startswith("The shape of the mask"):      # a bool index of the wrong length: MindSpore's ValueError
        return ValueError, msg
    if not typed and _INDEX_RANGE.search(msg):
        # an index value outside its dim, met by the kernel while it runs: MindSpore's kernels fail at launch
        return RuntimeError, msg
    kind = TypeError if typed or "type" in msg.split(" ")[:3] else IndexError if isinstance(exc, IndexError) \
        else ValueError
    return kind, msg
