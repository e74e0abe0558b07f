"""mindspore.ops.primitive: the base classes of the Primitive-class API and `constexpr` (same objects as in
`mindspore.ops`)."""
from mindseed.ops.operations._base import (Primitive, PrimitiveWithCheck, PrimitiveWithInfer,  # noqa: F401
                                           constexpr, prim_attr_register)

__all__ = ["Primitive", "PrimitiveWithCheck", "PrimitiveWithInfer", "constexpr", "prim_attr_register"]
