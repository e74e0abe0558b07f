"""MindSpore's Hybrid DSL run as Python: `@kernel` functions called directly compute on numpy arrays, with the
DSL's intrinsics (output_tensor, allocate, block_realize, the loop kinds, the math functions) bound to numpy."""
import functools
import itertools
import json
import math
import types

import numpy as np

__all__ = ["kernel", "ms_kernel"]


def _allocate(shape, dtype="float32", scope="global"):
    """A zero buffer of `shape` (output_tensor / allocate); the storage scope means nothing on the host."""
    del scope
    return np.zeros(shape).astype(dtype)


def _grid(extents):
    return itertools.product(*(range(e) for e in extents))


def _erf(x):
    x = np.asarray(x, np.float64)
    return np.vectorize(math.erf)(x) if x.ndim else math.erf(float(x))


class _Scope:
    """`with block_realize(c):` / `with attr(...):` — scopes of the device code, nothing to do on the host."""

    def __call__(self, *args, **kwargs):
        return self

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


_INTRINSICS = {
    "allocate": _allocate, "output_tensor": _allocate,
    "range": range, "serial": range, "vectorize": range, "parallel": range, "reduce": range, "grid": _grid,
    "attr": _Scope(), "block_realize": _Scope(),
    "sqrt": np.sqrt, "sign": np.sign, "log": np.log, "tanh": np.tanh, "exp": np.exp, "abs": np.abs,
    "power": np.power, "rsqrt": lambda x: np.ones_like(x) / np.sqrt(x), "erf": _erf, "isnan": np.isnan,
    "isinf": np.isinf, "isfinite": np.isfinite, "sin": np.sin, "cos": np.cos, "atan": np.arctan,
    "atan2": np.arctan2, "expm1": np.expm1, "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc,
    "round": np.round, "ceil_div": lambda a, b: (a + b - 1) // b,
    "int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64, "float16": np.float16,
    "float32": np.float32, "float64": np.float64,
}


def kernel(fn=None, reg_info=None, compile_attrs=None):
    """Mark a function written in MindSpore's Hybrid DSL as a kernel for `ops.Custom`. Called directly, it runs as
    Python on numpy arrays with the DSL's intrinsics (`output_tensor`, `block_realize`, `parallel`, `sqrt`, ...)
    defined for it.

    Args:
        fn (function): the DSL function. Default: ``None`` (a decorator is returned).
        reg_info (Union[str, dict, tuple]): registration information. Default: ``None``.
        compile_attrs (dict): compile flags keyed by str. Default: ``None``.

    Raises:
        TypeError: `compile_attrs` is not a dict of str keys, or `reg_info` is not a str, dict or tuple.

    >>> import numpy as np
    >>> from mindseed.ops import kernel
    >>> @kernel
    ... def add_one(a):
    ...     b = output_tensor(a.shape, a.dtype)
    ...     for i in range(a.shape[0]):
    ...         b[i] = a[i] + 1.0
    ...     return b
    >>> add_one(np.zeros(2, np.float32)).tolist()
    [1.0, 1.0]
    """
    compile_attrs = {} if compile_attrs is None else compile_attrs
    if not isinstance(compile_attrs, dict):
        raise TypeError(f"The input 'compile_attrs' of @kernel must be a dict, but get a {type(compile_attrs)}")
    for key in compile_attrs:
        if not isinstance(key, str):
            raise TypeError(f"The key of 'compile_attrs' of @kernel must be a str, but get a {type(key)}")
    if reg_info is not None and not isinstance(reg_info, (str, dict, tuple)):
        raise TypeError(f"The input 'reg_info' of @kernel should be one of str, dict and tuple, but get a "
                        f"{type(reg_info)}")

    def mark(func):
        if not isinstance(func, types.FunctionType):
            raise TypeError(f"For 'kernel', the 'fn' must be a function, but got {type(func).__name__}.")

        @functools.wraps(func)
        def run(*args):
            # the intrinsics shadow the function's globals for this call only (the caller's module is untouched)
            scope = dict(func.__globals__)
            scope.update(_INTRINSICS)
            return types.FunctionType(func.__code__, scope, func.__name__, func.__defaults__, func.__closure__)(*args)

        run.ms_kernel = run.ms_kernel_flag = True
        run.compile_attrs = json.dumps(compile_attrs)
        if reg_info is not None:
            run.reg_info = reg_info
        return run
    return mark if fn is None else mark(fn)


ms_kernel = kernel
