"""MindSpore's `ops._grad_experimental.grad_base`: the registries of bprop (and Taylor-rule) getters per Primitive
class or name, as tools register them (`@bprop_getters.register(MyPrim)`), and their look-ups (`get_bprop_fn`).

A Primitive subclass whose `__call__` runs mindseed ops is differentiated through those ops; the registered getter is
what `get_bprop_fn` returns for it."""
from mindseed.ops._register_for_op import Registry
from mindseed.ops.primitive import Primitive

__all__ = ["BpropRegistry", "TaylorFpropRegistry", "bprop_getters", "bprops", "taylor_fprop_getters",
           "taylor_fprops", "get_bprop_fn", "get_taylor_fprop_fn"]


class BpropRegistry(Registry):
    """Functions per Primitive class (kept under the class and its name) or per primitive name."""

    def register(self, prim):
        def deco(fn):
            Registry.register(self, prim)(fn)
            if isinstance(prim, type) and issubclass(prim, Primitive):
                self[prim.__name__] = fn
            return fn
        return deco


class TaylorFpropRegistry(BpropRegistry):
    """The Taylor-rule forward functions, registered as the bprops are."""


bprop_getters = BpropRegistry()
bprops = BpropRegistry()
taylor_fprop_getters = TaylorFpropRegistry()
taylor_fprops = TaylorFpropRegistry()


def get_bprop_fn(prim, get_closure=False):
    """The bprop of a Primitive (instance or name): the registered getter called on it (the getter itself with
    `get_closure`), else a registered bprop, else None."""
    out = bprop_getters.get(prim, None)
    if out is None:
        return bprops.get(prim, None)
    return out if get_closure else out(prim)


def get_taylor_fprop_fn(prim):
    """The Taylor-rule function of a Primitive (instance or name), or None."""
    out = taylor_fprop_getters.get(prim, None)
    if out:
        return out(prim)
    return taylor_fprops.get(prim, None)
