"""mindspore.ops.composite.multitype_ops: the operators of Python's syntax as MultitypeFuncGraph objects (`add` is
what `x + y` runs, `getitem` `x[i]`, ...), each also in its module `<name>_impl` (`multitype_ops.add_impl.add`).

Called directly they compute what the Python operator computes on the values given (numbers, strings, sequences,
Tensors), as MindSpore's do; `register` adds implementations for other types as on any MultitypeFuncGraph.
"""
import operator
import sys

from mindseed.common.tensor import Tensor
from mindseed.ops.functional import _core as _F
from mindseed.ops.functional import logical_and as _tensor_logical_and
from mindseed.ops.functional import logical_not as _tensor_logical_not
from mindseed.ops.functional import logical_or as _tensor_logical_or
from mindseed.ops.functional._inner import (augassign_add, augassign_div, augassign_floordiv,  # noqa: F401
                                            augassign_mod, augassign_mul, augassign_sub)
from mindseed.ops.operations._composite import MultitypeFuncGraph
from mindseed._utils._lazy import made_module


def _logical(tensor_fn, py_fn):
    def fn(*args):
        return tensor_fn(*args) if any(isinstance(a, Tensor) for a in args) else py_fn(*args)
    return fn


def _setitem(obj, index, value):
    obj[index] = value
    return obj


def _like(tensor_fn, value):
    def fn(x):
        return tensor_fn(x) if isinstance(x, Tensor) else value
    return fn


# MindSpore's name of each operator -> what it computes, and its module
_OPERATORS = {
    "add": operator.add, "sub": operator.sub, "mul": operator.mul, "div": operator.truediv,
    "floordiv": operator.floordiv, "mod": operator.mod, "pow_": operator.pow, "equal": operator.eq,
    "not_equal": operator.ne, "less": operator.lt, "less_equal": operator.le, "greater": operator.gt,
    "greater_equal": operator.ge, "bitwise_and": operator.and_, "bitwise_or": operator.or_,
    "bitwise_xor": operator.xor, "left_shift": operator.lshift, "right_shift": operator.rshift,
    "negative": operator.neg, "uadd": operator.pos, "invert": operator.invert, "getitem": operator.getitem,
    "setitem": _setitem, "in_": lambda x, y: x in y, "not_in_": lambda x, y: x not in y,
    "logical_and": _logical(_tensor_logical_and, lambda x, y: bool(x and y)),
    "logical_or": _logical(_tensor_logical_or, lambda x, y: bool(x or y)),
    "logical_not": _logical(_tensor_logical_not, operator.not_),
    "zeros_like": _like(_F.zeros_like, 0), "ones_like": _like(_F.ones_like, 1),
}
_MODULE_NAMES = {"pow_": "pow", "in_": "in", "not_in_": "not_in"}

__all__ = sorted(_OPERATORS) + ["augassign_add", "augassign_sub", "augassign_mul", "augassign_div",
                                "augassign_floordiv", "augassign_mod"]


def _make(name, fn):
    graph = MultitypeFuncGraph(name, True)
    graph.default_func = fn
    return graph


for _name, _fn in _OPERATORS.items():
    globals()[_name] = _make(_name, _fn)
    _module_name = f"{__name__}.{_MODULE_NAMES.get(_name, _name)}_impl"
    _module = made_module(_module_name, f"MindSpore's `multitype_ops.{_name}` operator.")
    setattr(_module, _name, globals()[_name])
    _module.__all__ = [_name]
    sys.modules.setdefault(_module_name, _module)
    globals()[_module_name.rsplit(".", 1)[1]] = _module
