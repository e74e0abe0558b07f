"""Kernels torch lacks for a dtype, computed in a wider one.

torch's CPU kernels cover uint16/32/64 only for copies and a few bitwise ops, and many float16/bfloat16 ones
(special functions, distances, gamma sampling) not at all, where MindSpore's CPU kernels take them. A kernel
that failed with torch's "not implemented for '<dtype>'" is run again with those operands widened (uint16 ->
int32, uint32/uint64 -> int64, float16/bfloat16 -> float32) and each output cast to the dtype the kernel gives
for the original operands (read from the same kernel run on meta tensors: an index stays int64, a comparison
bool). The primitive layer calls it after a failure only, so supported dtypes pay nothing.
"""
import re

import torch

_WIDER = {torch.uint16: torch.int32, torch.uint32: torch.int64, torch.uint64: torch.int64,
          torch.float16: torch.float32, torch.bfloat16: torch.float32}
_MISSING = re.compile(r"not implemented for '(UInt16|UInt32|UInt64|Half|BFloat16)'")


def lacks_dtype(exc):
    """Did the kernel fail because torch has no kernel for a dtype that a wider one computes?"""
    return isinstance(exc, (RuntimeError, NotImplementedError)) and _MISSING.search(str(exc)) is not None


def _map(args, fn):
    return [type(a)(fn(x) for x in a) if isinstance(a, (tuple, list)) else fn(a) for a in args]


def _widened(x):
    if isinstance(x, torch.Tensor) and x.dtype in _WIDER:
        return x.to(_WIDER[x.dtype])
    return x


def _as_meta(x):
    return x.to("meta") if isinstance(x, torch.Tensor) else x


def _dtypes_of(out):
    if isinstance(out, torch.Tensor):
        return out.dtype
    if isinstance(out, (tuple, list)):
        return type(out)(_dtypes_of(o) for o in out)
    return None


class _Narrow:
    """The cast back when the kernel has no meta version: every output of dtype `wide` becomes `narrow`."""

    def __init__(self, wide, narrow):
        self.wide, self.narrow = wide, narrow


def _cast(out, dtypes):
    """out with each tensor cast to its dtype in `dtypes` (same nesting, or one `_Narrow` for all)."""
    if isinstance(out, torch.Tensor):
        if isinstance(dtypes, _Narrow):
            return out.to(dtypes.narrow) if out.dtype == dtypes.wide else out
        return out if dtypes is None or out.dtype == dtypes else out.to(dtypes)
    if isinstance(out, (tuple, list)):
        each = [dtypes] * len(out) if isinstance(dtypes, _Narrow) else dtypes
        return type(out)(_cast(o, d) for o, d in zip(out, each, strict=True))
    return out


def call_widened(kernel, args, attrs):
    """kernel(*args, **attrs) with the operands of dtypes torch lacks widened, outputs cast back."""
    try:
        dtypes = _dtypes_of(kernel(*_map(args, _as_meta), **attrs))
    except Exception:  # noqa: BLE001 -- no meta kernel: an output of the widened dtype goes back to the operand's
        narrow = next(x.dtype for a in args for x in (a if isinstance(a, (tuple, list)) else (a,))
                      if isinstance(x, torch.Tensor) and x.dtype in _WIDER)
        dtypes = _Narrow(_WIDER[narrow], narrow)
    return _cast(kernel(*_map(args, _widened), **attrs), dtypes)


def widening(kernel):
    """`kernel`, computing in a wider dtype where torch lacks the operands' one (for generated graph code)."""
    def run(*args, **attrs):
        try:
            return kernel(*args, **attrs)
        except (RuntimeError, NotImplementedError) as exc:
            if not lacks_dtype(exc):
                raise
            return call_widened(kernel, args, attrs)
    run.__name__ = getattr(kernel, "__name__", "kernel")
    return run
