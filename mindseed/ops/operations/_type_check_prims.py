"""Three of MindSpore's inner checking primitives (`ops.operations._inner_ops`): `SameTypeShape`, `IsInstance` and
`IsSubClass`."""
from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.ops.operations._base import Primitive

__all__ = ["SameTypeShape", "IsInstance", "IsSubClass"]


class SameTypeShape(Primitive):
    """`SameTypeShape()(x, y)`: x, after checking that y has its dtype (TypeError) and shape (ValueError)."""

    def __init__(self):
        super().__init__("SameTypeShape")

    def __call__(self, x, y):
        for name, v in (("x", x), ("y", y)):
            if not isinstance(v, Tensor):
                raise TypeError(f"For 'SameTypeShape', the '{name}' must be a Tensor, but got {type(v).__name__}.")
        if x.dtype != y.dtype:
            raise TypeError(f"For 'SameTypeShape', the 'y' dtype must be the 'x' dtype {x.dtype}, but got {y.dtype}.")
        if tuple(x.shape) != tuple(y.shape):
            raise ValueError(f"For 'SameTypeShape', the 'y' shape must be the 'x' shape {tuple(x.shape)}, but got "
                             f"{tuple(y.shape)}.")
        return x


# a Python value's MindSpore type in a graph (bool before int: a bool is an int too)
_PY_TYPES = ((bool, mstype.bool_), (int, mstype.int64), (float, mstype.float32), (list, mstype.list_),
             (tuple, mstype.tuple_))


def _type_of(obj):
    """The MindSpore type a graph gives a Python object: bool, Int64, Float32, List, Tuple or the Tensor type."""
    if isinstance(obj, Tensor):
        return mstype.tensor_type
    return next((t for py, t in _PY_TYPES if isinstance(obj, py)), None)


class IsInstance(Primitive):
    """`IsInstance()(inst, type_)`: whether the MindSpore type of `inst` is `type_` (a Python int is Int64, a float
    Float32, a Tensor the tensor type)."""

    def __init__(self):
        super().__init__("IsInstance")

    def __call__(self, inst, type_):
        if not (isinstance(type_, mstype.Type) or type_ is mstype.tensor_type):
            raise TypeError(f"For 'IsInstance', the 'type_' must be a mindspore type, but got "
                            f"{type(type_).__name__}.")
        return _type_of(inst) == type_


def _is_type(t):
    return isinstance(t, mstype.Type) or t is mstype.tensor_type


class IsSubClass(Primitive):
    """`IsSubClass()(sub_type, type_)`: whether the MindSpore type `sub_type` is `type_` or one of its kinds (every
    numeric and bool type is a `mstype.number`).

    Raises:
        TypeError: `sub_type` or `type_` not a MindSpore type.
    """

    def __init__(self):
        super().__init__("IsSubClass")

    def __call__(self, sub_type, type_):
        for name, v in (("sub_type", sub_type), ("type_", type_)):
            if not _is_type(v):
                raise TypeError(f"For 'IsSubClass', the type of '{name}' should be 'Type', but got type "
                                f"'{type(v).__name__}'.")
        if sub_type == type_:
            return True
        return type_ == mstype.number and isinstance(sub_type, mstype.Number)
