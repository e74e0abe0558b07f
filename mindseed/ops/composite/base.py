"""MindSpore's `ops.composite.base` module: the higher-order composites (`GradOperation`, `HyperMap`, `Map`,
`MultitypeFuncGraph`, ...), the same objects as `ops.composite`'s (GradOperation is registered there by the top level,
so the names are looked up there when asked for)."""
from mindseed.ops import composite as _composite


def __getattr__(name):
    try:
        return getattr(_composite, name)
    except AttributeError:
        raise AttributeError(f"module 'mindspore.ops.composite.base' has no attribute '{name}'") from None
