"""mindspore.ops.operations._inner_ops: inner primitives, by MindSpore's module layout (the same classes as
`mindspore.ops.operations`; `SiLU` and the view primitives are the generated ones MindSpore imports there)."""
from mindseed.common.tensor import Tensor
from mindseed.ops import functional as F
from mindseed.ops.operations import (  # noqa: F401
    Cast, CopyWithSlice, Cummin, ExtractImagePatches, SelectView, SiLU)
from mindseed.ops.operations._base import Primitive
from mindseed.ops.operations._type_check_prims import IsInstance, SameTypeShape  # noqa: F401

__all__ = [
    "Cast", "CopyWithSlice", "Cummin", "ExtractImagePatches", "SelectView", "SiLU", "SameTypeShape", "IsInstance",
    "ConvertToDynamic"]


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
        return F.identity(input)
