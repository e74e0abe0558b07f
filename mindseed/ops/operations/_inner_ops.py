"""mindspore.ops.operations._inner_ops: inner primitives, by MindSpore's module layout (the same classes as
`mindspore.ops.operations`; `SiLU` and the view primitives are the generated ones MindSpore imports there), and
`Dequant` / `AntiQuant`, the dequantizations Golden Stick's quantized layers use."""
import numpy as np

from mindseed._utils import _state
from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.ops import functional as F
from mindseed.ops.functional._array_shape import tensor_identity
from mindseed.ops.operations import (  # noqa: F401
    Cast, CopyWithSlice, Cummin, ExtractImagePatches, SelectView, SiLU)
from mindseed.ops.operations._base import AttrPrimitive, Primitive
from mindseed.ops.operations._table import _bind_inputs
from mindseed.ops.operations._type_check_prims import IsInstance, IsSubClass, SameTypeShape  # noqa: F401

__all__ = [
    "Cast", "CopyWithSlice", "Cummin", "ExtractImagePatches", "SelectView", "SiLU", "SameTypeShape", "IsInstance",
    "IsSubClass", "ConvertToDynamic", "ClipByNorm", "TensorCopySlices", "Dequant", "AntiQuant", "MixedPrecisionCast",
    "TopTypeof"]


class ConvertToDynamic(Primitive):
    """`ConvertToDynamic(is_dynamic_rank=False)(x)`: `x` unchanged (its gradient too). MindSpore's compiler sees
    the output's shape (or rank) as unknown, to test how the ops after it handle dynamic shapes; mindseed's graphs
    handle any shape, so the value simply passes.

    Raises:
        TypeError: `is_dynamic_rank` not a bool, or `input` not a Tensor.
    """

    def __init__(self, is_dynamic_rank=False):
        super().__init__("ConvertToDynamic")
        if not isinstance(is_dynamic_rank, bool):
            raise TypeError(f"For 'ConvertToDynamic', the 'is_dynamic_rank' must be bool, but got "
                            f"{type(is_dynamic_rank).__name__}.")
        self.add_prim_attr("is_dynamic_rank", is_dynamic_rank)
        self.init_prim_io_names(inputs=["input"], outputs=["output"])

    def __call__(self, input):  # noqa: A002 -- MindSpore's argument name
        if not isinstance(input, Tensor):
            raise TypeError(f"For 'ConvertToDynamic', the 'input' must be a Tensor, but got {type(input).__name__}.")
        return tensor_identity(input)


class ClipByNorm(Primitive):
    """`ClipByNorm(axis=None)(x, clip_norm)`: `x * clip_norm / max(||x||_2, clip_norm)`, the L2 norm taken over
    `axis` (all dims when None), in float32 (MindSpore's deprecated inner primitive; `ops.clip_by_norm` is the
    public one).

    Raises:
        TypeError: `axis` not None, an int or a tuple/list of ints; `x` or `clip_norm` not float16 / float32.
        ValueError: an axis out of range.
    """

    def __init__(self, axis=None):
        super().__init__("ClipByNorm")
        axis = () if axis is None else axis
        items = axis if isinstance(axis, (tuple, list)) else (axis,)
        if not isinstance(axis, (int, tuple, list)) or isinstance(axis, bool) or \
                any(isinstance(a, bool) or not isinstance(a, int) for a in items):
            raise TypeError(f"For 'ClipByNorm', the 'axis' must be None, an int or a tuple/list of ints, but got "
                            f"{axis!r}.")
        self.axis = axis
        self.add_prim_attr("axis", axis)
        self.init_prim_io_names(inputs=["x", "clip_norm"], outputs=["output"])

    def __call__(self, x, clip_norm):
        for name, t in (("x", x), ("clip_norm", clip_norm)):
            if not isinstance(t, Tensor) or t.dtype not in (mstype.float16, mstype.float32):
                got = t.dtype if isinstance(t, Tensor) else type(t).__name__
                raise TypeError(f"For primitive[ClipByNorm], the input argument[{name}] must be a type of "
                                f"{{Float16, Float32}}, but got {got}.")
        items = self.axis if isinstance(self.axis, (tuple, list)) else (self.axis,)
        for a in items:
            if not -x.ndim <= a < x.ndim:
                raise ValueError(f"For 'ClipByNorm', the 'axis' must be in [{-x.ndim}, {x.ndim}), but got {a}.")
        axes = tuple(a % x.ndim for a in items) or tuple(range(x.ndim))
        x32, clip = F.cast(x, mstype.float32), F.cast(clip_norm, mstype.float32)
        l2 = F.sqrt(F.sum(x32 * x32, axes, keepdim=True))
        return x32 * clip / F.maximum(l2, clip)


class TensorCopySlices(Primitive):
    """`TensorCopySlices()(x, value, begin, end, strides)`: a copy of `x` with the slice
    x[begin[0]:end[0]:strides[0], ...] (the dims past len(begin) whole) replaced by `value` (broadcast to the slice).
    Differentiable in `x` and `value`.

    Raises:
        TypeError: `x` / `value` not Tensors, or `begin` / `end` / `strides` not tuples of ints.
        ValueError: `begin`, `end` and `strides` of different lengths, or longer than the rank of `x`.
    """

    def __init__(self):
        super().__init__("TensorCopySlices")
        self.init_prim_io_names(inputs=["x", "value", "begin", "end", "strides"], outputs=["output"])

    def __call__(self, x, value, begin, end, strides):
        for name, t in (("x", x), ("value", value)):
            if not isinstance(t, Tensor):
                raise TypeError(f"For 'TensorCopySlices', the '{name}' must be a Tensor, but got {type(t).__name__}.")
        for name, seq in (("begin", begin), ("end", end), ("strides", strides)):
            if not isinstance(seq, (tuple, list)) or any(isinstance(v, bool) or not isinstance(v, int) for v in seq):
                raise TypeError(f"For 'TensorCopySlices', the '{name}' must be a tuple of ints, but got {seq!r}.")
        if not len(begin) == len(end) == len(strides) or len(begin) > x.ndim:
            raise ValueError(f"For 'TensorCopySlices', 'begin', 'end' and 'strides' must have one length, at most "
                             f"the rank {x.ndim} of 'x', but got {len(begin)}, {len(end)} and {len(strides)}.")
        index = tuple(slice(b, e, s) for b, e, s in zip(begin, end, strides))
        out = tensor_identity(x)
        out[index] = F.cast(value, x.dtype)
        return out


class Dequant(AttrPrimitive):
    """`Dequant(sqrt_mode=False, relu_flag=False, dtype=float16)(x, deq_scale)`: the int32 `x` times `deq_scale`
    (twice with `sqrt_mode`), ReLU'd with `relu_flag`, as float16. A uint64 `deq_scale` carries each float32 scale's
    bits in its low 32 bits (Ascend's layout, which Golden Stick writes)."""
    _params = (("sqrt_mode", False), ("relu_flag", False), ("dtype", mstype.float16))

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name in ("sqrt_mode", "relu_flag"):
            if not isinstance(getattr(self, name), bool):
                raise TypeError(f"For 'Dequant', the '{name}' must be bool, but got "
                                f"{type(getattr(self, name)).__name__}.")

    def __call__(self, x, deq_scale):
        if x.dtype != mstype.int32:
            raise TypeError(f"For 'Dequant', the 'x' should be Int32, but got {x.dtype}.")
        if deq_scale.dtype == mstype.uint64:
            bits = np.asarray(deq_scale.asnumpy(), np.uint64) & np.uint64(0xFFFFFFFF)
            scale = Tensor(bits.astype(np.uint32).view(np.float32))
        elif deq_scale.dtype == mstype.float16:
            scale = F.cast(deq_scale, mstype.float32)
        else:
            raise TypeError(f"For 'Dequant', the 'deq_scale' should be one of [Float16, UInt64], but got "
                            f"{deq_scale.dtype}.")
        y = F.cast(x, mstype.float32) * scale
        if self.sqrt_mode:
            y = y * scale
        if self.relu_flag:
            y = F.relu(y)
        return F.cast(y, mstype.float16)


class AntiQuant(Primitive):
    """`AntiQuant(sqrt_mode=False, dtype=float16)(x, scale, offset)`: the int8 `x` dequantized, `scale * (x +
    offset)` (`scale * scale * (x + offset)` with `sqrt_mode`), as `dtype`. `scale` and `offset` are float Tensors
    (broadcast) or numbers.

    Raises:
        TypeError: `sqrt_mode` not a bool; `x` not an int8 Tensor; inputs given by keyword inside a graph (MindSpore
            passes this primitive's inputs by position only: a keyword input reaches its type check as a keyword).
    """

    def __init__(self, sqrt_mode=False, dtype=mstype.float16):
        super().__init__("AntiQuant")
        if not isinstance(sqrt_mode, bool):
            raise TypeError(f"For 'AntiQuant', the 'sqrt_mode' must be bool, but got {type(sqrt_mode).__name__}.")
        self.sqrt_mode, self.dtype = sqrt_mode, dtype
        self.add_prim_attr("sqrt_mode", sqrt_mode)
        self.add_prim_attr("dtype", dtype)
        self.init_prim_io_names(inputs=["x", "scale", "offset"], outputs=["y"])

    def __call__(self, *args, **kwargs):
        if kwargs and _state.tracing is not None:
            key = next(iter(kwargs))
            value = kwargs[key]
            shown = f"Tensor[{value.dtype}]" if isinstance(value, Tensor) else type(value).__name__
            raise TypeError(f"The primitive[AntiQuant]'s input arguments[input_x] must be all tensor and those type "
                            f"must be same. But got input argument[input_x]:Keyword[key : {key}, value : {shown}]\n"
                            f"Valid type list: {{Tensor[Int8]}}.")
        x, scale, offset = _bind_inputs("AntiQuant", ("x", "scale", "offset"), args, kwargs)
        if not isinstance(x, Tensor) or x.dtype != mstype.int8:
            got = f"Tensor[{x.dtype}]" if isinstance(x, Tensor) else type(x).__name__
            raise TypeError(f"For 'AntiQuant', the 'x' must be a Tensor of int8, but got {got}.")
        for name, v in (("scale", scale), ("offset", offset)):
            if not isinstance(v, (Tensor, float, int)) or isinstance(v, bool):
                raise TypeError(f"For 'AntiQuant', the '{name}' must be a Tensor or a number, but got "
                                f"{type(v).__name__}.")
        scale = F.cast(scale, mstype.float32) if isinstance(scale, Tensor) else float(scale)
        offset = F.cast(offset, mstype.float32) if isinstance(offset, Tensor) else float(offset)
        y = (F.cast(x, mstype.float32) + offset) * scale
        if self.sqrt_mode:
            y = y * scale
        return F.cast(y, self.dtype)

# more names MindSpore's module holds (its imports and classes), the same objects as in ops.operations
from mindseed.ops.operations._base import PrimitiveWithCheck, PrimitiveWithInfer  # noqa: E402,F401
from mindseed.common.parameter import Parameter  # noqa: E402,F401


class MixedPrecisionCast(Primitive):
    """`MixedPrecisionCast()(dst_dtype, x)`: `ops.mixed_precision_cast` — every float Tensor of `x` (nested tuples,
    lists and dicts too) cast to `dst_dtype`, the rest unchanged. Its constructor takes no argument (MindSpore's
    example that passes them gets a TypeError, as there)."""

    def __init__(self):
        super().__init__("MixedPrecisionCast")
        self.init_prim_io_names(inputs=["dst_dtype", "input_x"], outputs=["output"])

    def __call__(self, dst_dtype, x):
        return F.mixed_precision_cast(dst_dtype, x)


_TOP_TYPES = {list: mstype.list_, tuple: mstype.tuple_, type(None): mstype.type_none, str: mstype.string,
              slice: mstype._Misc("Slice"), type(...): mstype._Misc("Ellipsis"), dict: mstype._Misc("Dictionary")}


class TopTypeof(Primitive):
    """The top MindSpore type of a value (what `ops.typeof` gives, without a tensor's element type): `TensorType`
    for a Tensor, `List`, `Tuple`, `None`, `Slice`, `Ellipsis`, `Dictionary`, `String`, the number types for
    Python numbers, `External` for any other object."""

    def __init__(self):
        super().__init__("TopTypeof")

    def __call__(self, x):
        if isinstance(x, Tensor):
            return mstype.TensorType()
        top = _TOP_TYPES.get(type(x))
        if top is not None:
            return top
        if isinstance(x, (bool, int, float)):
            return F.typeof(x)
        return _EXTERNAL


_EXTERNAL = mstype._Misc("External")
