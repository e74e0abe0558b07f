"""mindspore.ops.operations._inner_ops: inner primitives, by MindSpore's module layout (the same classes as
`mindspore.ops.operations`; `SiLU` and the view primitives are the generated ones MindSpore imports there), and
`Dequant`, the int32-accumulator dequantization Golden Stick's quantized layers use."""
import numpy as np

from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.ops import functional as F
from mindseed.ops.operations import (  # noqa: F401
    Cast, CopyWithSlice, Cummin, ExtractImagePatches, SelectView, SiLU)
from mindseed.ops.operations._base import AttrPrimitive
from mindseed.ops.operations._type_check_prims import IsInstance, SameTypeShape  # noqa: F401

__all__ = [
    "Cast", "CopyWithSlice", "Cummin", "ExtractImagePatches", "SelectView", "SiLU", "SameTypeShape", "IsInstance",
    "Dequant"]


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
