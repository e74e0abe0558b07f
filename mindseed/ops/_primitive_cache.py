"""`mindspore.ops._primitive_cache._get_cache_prim`: one Primitive instance per class and arguments.

Functional wrappers written against MindSpore's Primitive-class API (mindnlp's `core.nn.functional`, older
MindSpore code) call `_get_cache_prim(P.Xxx)(*attrs)(inputs)` at every call; the cache makes the construction
happen once. The key is MindSpore's: the class and the `str` of each argument. mindseed's graph mode traces
through the call, so the same cached instance serves both modes (MindSpore builds a new one when compiling).
"""
__all__ = ["_get_cache_prim"]

_PRIM_CACHE = {}


def _get_cache_prim(cls):
    """A function that returns the `cls` instance built from its arguments, made at the first call with them."""

    def _get_cache_prim_for_pynative(*args, **kwargs):
        key = (str(cls),) + tuple(str(arg) for arg in args)
        key += tuple(f"{name}:{value}" for name, value in kwargs.items())
        key = str(key)
        prim = _PRIM_CACHE.get(key)
        if prim is None:
            prim = _PRIM_CACHE[key] = cls(*args, **kwargs)
        return prim

    return _get_cache_prim_for_pynative
