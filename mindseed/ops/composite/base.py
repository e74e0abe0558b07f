"""MindSpore's `ops.composite.base` module: the higher-order composites (`GradOperation`, `HyperMap`, `Map`,
`MultitypeFuncGraph`, ...), the same objects as `ops.composite`'s (GradOperation is registered there by the top level,
so the names are looked up there when asked for)."""
from mindseed.ops import composite as _composite

__all__ = ["core"]


def core(fn=None, **flags):
    """Mark `fn` as a core function of a graph: `fn._func_graph_flags` is `{'core': True, **flags}`; returns fn.
    Without `fn`, a decorator."""
    def deco(f):
        f._func_graph_flags = {"core": True, **flags}
        return f
    return deco if fn is None else deco(fn)


def __getattr__(name):
    try:
        return getattr(_composite, name)
    except AttributeError:
        raise AttributeError(f"module 'mindspore.ops.composite.base' has no attribute '{name}'") from None
