"""mindspore.ops.operations._inner_ops: inner primitives, by MindSpore's module layout (the same classes as
`mindspore.ops.operations`; `SiLU` and the view primitives are the generated ones MindSpore imports there)."""
from mindseed.ops.operations import (  # noqa: F401
    Cast, CopyWithSlice, Cummin, ExtractImagePatches, SelectView, SiLU)
from mindseed.ops.operations._type_check_prims import IsInstance, SameTypeShape  # noqa: F401

__all__ = [
    "Cast", "CopyWithSlice", "Cummin", "ExtractImagePatches", "SelectView", "SiLU", "SameTypeShape", "IsInstance"]
