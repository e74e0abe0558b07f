"""Primitives of ops.Custom(func_type="pyfunc"): the user's function is the kernel, the user's bprop the rule.

Both are attributes, so a traced graph calls the same kernel with them bound (an opaque call into Python).
"""
from mindseed._backend.kernels import custom as K
from mindseed.ops._infer import Abstract
from mindseed.ops._registry import Prim

custom_p = Prim("Custom", K.pyfunc)
custom_multi_p = Prim("CustomMultiOutput", K.pyfunc, multi_output=True)


def _custom_bprop(*args, func, out_shapes, out_dtypes, multi, bprop=None):
    *xs, out, dout = args
    if bprop is None:
        raise ValueError(f"For 'Custom', the pyfunc '{getattr(func, '__name__', func)}' has no bprop: pass "
                         f"'bprop' to ops.Custom to differentiate it.")
    grads = bprop(*xs, out, dout)
    if not isinstance(grads, (tuple, list)):
        grads = (grads,)
    if len(grads) != len(xs):
        raise ValueError(f"For 'Custom', the bprop must return {len(xs)} gradients (one per input), but got "
                         f"{len(grads)}.")
    return tuple(grads)


def _custom_infer(*args, func, out_shapes, out_dtypes, multi, bprop=None):
    """The outputs the user declared (the kernel checks them)."""
    outs = tuple(Abstract(tuple(s), d) for s, d in zip(out_shapes, out_dtypes))
    return outs if multi else outs[0]


for _p in (custom_p, custom_multi_p):
    _p.def_bprop(_custom_bprop)
    _p.def_infer(_custom_infer)
