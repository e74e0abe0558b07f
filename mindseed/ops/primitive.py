"""mindspore.ops.primitive: the base classes of the Primitive-class API and `constexpr` (same objects as in
`mindspore.ops`), and MindSpore's internal `_primexpr`."""
from mindseed.ops.operations._base import (Primitive, PrimitiveWithCheck, PrimitiveWithInfer,  # noqa: F401
                                           constexpr, prim_attr_register)

__all__ = ["Primitive", "PrimitiveWithCheck", "PrimitiveWithInfer", "constexpr", "prim_attr_register"]


def _primexpr(fn=None, get_instance=True, name=None, reuse_result=True):
    """MindSpore's internal `constexpr` that also accepts variables: a function of shapes and other values the
    compiler evaluates when it can. mindseed runs it as a plain call in both modes (graph mode traces through it):
    it returns `fn` (or a decorator when called without one)."""
    if fn is None:
        return lambda f: f
    return fn
