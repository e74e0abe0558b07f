"""Small functional helpers of MindSpore's ops namespace: depend, assign, partial, norm clipping, stft."""
import functools
import sys

import numpy as np

from mindseed import _backend as B
from mindseed._backend.kernels import core as K
from mindseed._utils import _state
from mindseed.common import dtype as mstype
from mindseed.common.parameter import Parameter
from mindseed.common.tensor import Tensor
from mindseed.ops.functional import _core as C
from mindseed.ops._api import G
from mindseed.ops._prims import core as P

__all__ = ["depend", "assign", "assign_add", "assign_sub", "print_", "partial", "clip_by_norm", "clip_by_global_norm",
           "stft"]

TENSOR_METHODS = {}


def depend(value, expr):
    """`value`, evaluated after `expr` (PyNative runs in order, so this is `value`)."""
    return value


def check_written_dtype(variable, value):
    """A value written into a Parameter (or an in-place operand) is converted to its dtype only when that dtype
    holds the value's (their promotion is the variable's dtype): MindSpore's TypeError otherwise."""
    promoted = mstype.promote_types(variable.dtype, value.dtype)
    if promoted != variable.dtype:
        raise TypeError(f"Data type conversion is not supported for a 'Parameter', nor for the input tensor of an "
                        f"in-place operator, so data type {variable.dtype}, which cannot be converted to data type "
                        f"{promoted} automatically.")


def assign(variable, value):
    """variable <- value (a Parameter, or a Tensor written in place); returns `variable` (a Parameter as a Tensor of
    its new value, as MindSpore).

    Nothing flows back through the assignment (as MindSpore): later gradients see the new value as a constant.

    A value of another dtype is converted to the variable's (MindSpore's implicit conversion of a written operand).

    Raises:
        TypeError: `variable` is not a Tensor/Parameter.
        ValueError: `value` has another shape than `variable`.
    """
    if not isinstance(variable, Tensor):
        raise TypeError(f"For 'Assign', the 'variable' must be a Parameter or Tensor, but got "
                        f"{type(variable).__name__}.")
    if not isinstance(value, Tensor):
        value = Tensor(value, variable.dtype)
    if value.shape != variable.shape:
        if value.ndim != variable.ndim:
            raise ValueError(f"For 'Assign','value' must have the same rank as 'variable'. But got 'value' rank: "
                             f"{value.ndim}, 'variable' rank: {variable.ndim}.")
        raise ValueError(f"For 'Assign','value' must have the same shape as 'variable'. But got 'value' shape: "
                         f"{value.shape}, 'variable' shape: {variable.shape}.")
    if value.dtype != variable.dtype:
        check_written_dtype(variable, value)
        # MindSpore's implicit conversion of a written operand: the value takes the variable's dtype
        value = P.cast_p(value, dtype=variable.dtype.name)
    if isinstance(variable, Parameter):
        variable.set_data(value)
    else:
        if _state.tracing is not None and _state.param_undo:
            _Written.remember(variable._data)
        P.assign_p(variable, value)  # writes the buffer in place (a side-effect node when traced)
    return C.inplace_result(variable)


class _Written:
    """A tensor buffer written in place while traced code that does not run now is traced (a branch not taken):
    the trace's undo (compiler.trace.speculating) gives it its contents back by setting `_data`."""

    __slots__ = ("raw",)

    def __init__(self, raw):
        self.raw = raw

    @classmethod
    def remember(cls, raw):
        for undo in _state.param_undo:
            undo.setdefault(("buffer", id(raw)), (cls(raw), B.clone(raw)))

    @property
    def _data(self):
        return self.raw

    @_data.setter
    def _data(self, saved):
        K.assign(self.raw, saved)


def _update_operand(op, variable, value):
    """The value of AssignAdd / AssignSub: of the variable's rank (a one-item vector updates a scalar)."""
    if isinstance(variable, Tensor) and isinstance(value, Tensor) and value.ndim != variable.ndim:
        if variable.ndim == 0 and value.shape == (1,):
            return value.reshape(())
        raise ValueError(f"For '{op}','value' must have the same rank as 'variable'. But got 'value' rank: "
                         f"{value.ndim}, 'variable' rank: {variable.ndim}.")
    return value


def assign_add(variable, value):
    """variable <- variable + value for a Parameter; returns the Parameter."""
    return assign(variable, C.add(variable, _update_operand("AssignAdd", variable, value)))


def assign_sub(variable, value):
    """variable <- variable - value for a Parameter; returns the Parameter."""
    return assign(variable, C.sub(variable, _update_operand("AssignSub", variable, value)))


def _print_values(*values):
    # a Parameter prints as its value; anything else as str() (MindSpore's PyNative Print)
    print("\n".join(repr(Tensor._from_raw(v._data)) if isinstance(v, Tensor) else str(v) for v in values),
          flush=True)


def _graph_tensor_str(t):
    """A Tensor as MindSpore's graph-mode Print writes it: numpy's layout without commas (floats in scientific
    notation), a 0-d tensor as its bare value (a bool as 1 or 0)."""
    a = Tensor._from_raw(t._data)
    arr = a.asnumpy() if a.dtype != mstype.bfloat16 else a.astype(mstype.float32).asnumpy()
    if arr.ndim == 0:
        v = arr.item()
        return str(int(v)) if isinstance(v, bool) else f"{v:g}" if isinstance(v, float) else str(v)
    prec = {"Float16": 4, "Float32": 8, "Float64": 8}.get(a.dtype.name)
    fmt = None if prec is None else {"float_kind": lambda v: f"{v: .{prec}e}"}
    body = np.array2string(arr, separator=" ", formatter=fmt, threshold=sys.maxsize, max_line_width=sys.maxsize)
    body = "\n".join(line for line in body.split("\n") if line.strip())
    return f"Tensor(shape={list(a.shape)}, dtype={a.dtype}, value={chr(10) if arr.ndim > 1 else ''}{body})"


def _print_graph_values(*values):
    print("\n".join(_graph_tensor_str(v) if isinstance(v, Tensor) else str(int(v)) if isinstance(v, bool)
                    else str(v) for v in values), flush=True)


def print_(*input_x):
    """Print the inputs, one per line; returns None. A Tensor prints with its shape and dtype (in a compiled graph
    as MindSpore's graph printer does: no commas, a 0-d tensor as its value), anything else as str() (in a graph
    a tuple or list with Tensors item by item).

    In a compiled graph it prints at every call, with that call's values.
    """
    if _state.tracing is not None:     # the graph prints the items of a tuple or list holding Tensors one per line
        flat = [item for x in input_x for item in
                (x if isinstance(x, (tuple, list)) and any(isinstance(i, Tensor) for i in x) else (x,))]
        _state.opaque_call(_print_graph_values, tuple(flat))
        return
    _state.opaque_call(_print_values, input_x)


def partial(func, *args):
    """func with its first arguments bound (functools.partial)."""
    if not callable(func):
        raise TypeError(f"For 'partial', the 'func' must be callable, but got {type(func).__name__}.")
    return functools.partial(func, *args)


def _l2(x):
    return G.sqrt(C.sum(C.mul(x, x)))


def clip_by_norm(x, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """x (or each tensor of a tuple) scaled so that its L2 norm is at most max_norm."""
    if isinstance(x, (tuple, list)):
        return type(x)(clip_by_norm(t, max_norm) for t in x)
    if not isinstance(x, Tensor):
        raise TypeError(f"For 'clip_by_norm', the 'x' must be a Tensor or a tuple of Tensors, but got "
                        f"{type(x).__name__}.")
    norm = _l2(x)
    scale = C.div(max_norm, C.maximum(norm, max_norm))
    return C.mul(x, C.cast(scale, x.dtype))


def clip_by_global_norm(x, clip_norm=1.0, use_norm=None):
    """Tensors scaled together so that their global L2 norm is at most clip_norm.

    >>> import mindseed as ms
    >>> out = ms.ops.clip_by_global_norm((ms.Tensor([3.0]), ms.Tensor([4.0])), 1.0)
    """
    if isinstance(x, Tensor):
        return clip_by_global_norm((x,), clip_norm, use_norm)[0]
    if not isinstance(x, (tuple, list)) or not x or not all(isinstance(t, Tensor) for t in x):
        raise TypeError(f"For 'clip_by_global_norm', the 'x' must be a Tensor or a non-empty tuple of Tensors, but "
                        f"got {x!r:.80}.")
    xs = tuple(x)
    if use_norm is None:
        total = C.sum(C.stack([C.sum(C.mul(t, t)).astype(xs[0].dtype) for t in xs]))
        use_norm = G.sqrt(total)
    scale = C.div(clip_norm, C.maximum(use_norm, clip_norm))
    return tuple(C.mul(t, C.cast(scale, t.dtype)) for t in xs)


def stft(x, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="REFLECT",
         normalized=False, onesided=None, return_complex=None):
    """Short-time Fourier transform of a (batch of) 1-D signal(s) (MindSpore's `ops.stft`).

    Args:
        x (Tensor): (L,) or (B, L), real or complex.
        n_fft (int): frame length (the FFT size).
        hop_length (int): frame step; n_fft // 4 by default.
        win_length (int): window length (<= n_fft, centred in the frame); n_fft by default.
        window (Tensor): (win_length,); all ones by default.
        center (bool): pad n_fft // 2 on both sides (pad_mode 'REFLECT' or 'CONSTANT') so frame t is centred at
            t * hop_length.
        normalized (bool): scale by 1 / sqrt(n_fft).
        onesided (bool): keep n_fft // 2 + 1 frequencies; True by default for real x and window.
        return_complex (bool): complex output, or (..., 2) real and imaginary parts; by default complex for complex
            x or window.

    Returns:
        Tensor (B, n_fft // 2 + 1 or n_fft, frames) (+ a last dim of 2 when not return_complex).
    """
    from mindseed.common import dtype as mstype  # noqa: PLC0415
    from mindseed.ops import functional as F  # noqa: PLC0415 -- the package imports this module
    from mindseed.ops.operations._prims_more import STFT  # noqa: PLC0415 -- the class API sits above F
    if not isinstance(x, Tensor):
        raise TypeError(f"For 'stft', the 'x' must be a Tensor, but got {type(x).__name__}.")
    if isinstance(n_fft, bool) or not isinstance(n_fft, int) or n_fft <= 0:
        raise ValueError(f"For 'stft', 'n_fft' must be a positive int, but got {n_fft}.")
    hop_length = n_fft // 4 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    if window is None:
        window = F.ones((win_length,), mstype.float32 if x.dtype not in (mstype.float64, mstype.complex128)
                      else mstype.float64)
    is_complex = mstype.is_complex(x.dtype) or mstype.is_complex(window.dtype)
    onesided = not is_complex if onesided is None else onesided
    return_complex = is_complex if return_complex is None else return_complex
    if pad_mode.upper() not in ("REFLECT", "CONSTANT"):
        raise ValueError(f"For 'stft', 'pad_mode' must be 'REFLECT' or 'CONSTANT', but got {pad_mode}.")
    if center:
        signal = x.reshape((1,) + x.shape) if x.ndim == 1 else x
        signal = F.pad(signal.reshape((1,) + signal.shape), (n_fft // 2, n_fft // 2), mode=pad_mode.lower())[0]
        x = signal[0] if x.ndim == 1 else signal
    return STFT(n_fft, hop_length, win_length, normalized, onesided, return_complex)(x, window)
