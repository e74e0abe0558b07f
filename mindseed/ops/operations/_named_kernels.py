"""Kernels MindSpore's backend has by name without a frontend class: code declares its own `PrimitiveWithInfer`
of that name (``class Shift(PrimitiveWithInfer)`` with `prim_attr_register`) and calls it; the base Primitive's
`__call__` runs the kernel registered here under the primitive's name, reading the attributes the declaration
recorded. Each kernel is written with mindseed ops, so it compiles and differentiates like any composite."""
from mindseed.common.tensor import Tensor
from mindseed.ops import functional as F
from mindseed.ops.functional._array_shape import tensor_identity
from mindseed.ops.operations import _base


def _shift(prim, x, fill_value):
    """Shift(periods=1, axis=-1)(x, fill_value): x moved `periods` places along `axis` (towards the end when
    positive), the places left empty filled with `fill_value`."""
    periods, axis = prim.attrs.get("periods", 1), prim.attrs.get("axis", -1)
    if not isinstance(x, Tensor):
        raise TypeError(f"For 'Shift', 'x' must be a Tensor, but got {type(x).__name__}.")
    if not -x.ndim <= axis < x.ndim:
        raise ValueError(f"For 'Shift', 'axis' must be in [{-x.ndim}, {x.ndim}), but got {axis}.")
    axis %= x.ndim
    n = x.shape[axis]
    p = max(-n, min(n, periods))
    if p == 0:
        return tensor_identity(x)
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    fill_shape = x.shape[:axis] + (abs(p),) + x.shape[axis + 1:]
    fill = F.fill(x.dtype, fill_shape, fill_value)
    if p > 0:
        return F.concat((fill, F.narrow(x, axis, 0, n - p)), axis)
    return F.concat((F.narrow(x, axis, -p, n + p), fill), axis)


_base.NAMED_KERNELS.update(Shift=_shift)
