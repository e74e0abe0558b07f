"""MindSpore's overloading and mapping helpers: MultitypeFuncGraph, HyperMap, Map.

They are plain Python: called inside `@jit`, the trace sees the primitives the chosen function calls.
A registered signature is a tuple of type names ("Tensor", "Number", "Tuple", ...) or mindspore dtypes;
a call picks the first registration (in registration order) whose types all match the arguments.
"""
import functools

import numpy as np

from mindseed.common import dtype as mstype
from mindseed.common.tensor import COOTensor, CSRTensor, RowTensor, Tensor
from mindseed._utils._jit_forbidden import jit_forbidden_class

__all__ = ["MultitypeFuncGraph", "HyperMap", "Map"]

# type name -> test on a Python object (MindSpore's type lattice: Bool < Number, Int64 < Int < Number, ...)
_SCALAR_BITS = {"Int": (int, np.signedinteger), "UInt": (np.unsignedinteger,), "Float": (float, np.floating),
                "Complex": (complex, np.complexfloating)}


def _is_bool(x):
    return isinstance(x, (bool, np.bool_))


def _scalar_kind(x):
    """(family, exact type names) of a Python/numpy scalar, e.g. ('Int', 'Int64'); None if not a number. A Python
    float is MindSpore's Float32 scalar and matches a Float64 registration too."""
    if _is_bool(x):
        return "Bool", "Bool"
    if isinstance(x, int):
        return "Int", "Int64"
    if isinstance(x, float) and not isinstance(x, np.floating):
        return "Float", "Float32", "Float64"
    if isinstance(x, complex):
        return "Complex", "Complex128"
    if isinstance(x, np.generic):
        t = mstype.np_to_dtype(x.dtype)
        for family, kinds in _SCALAR_BITS.items():
            if isinstance(x, kinds[-1]):
                return family, t.name
    return None


def _match_number(x, name):
    kind = _scalar_kind(x)
    if kind is None:
        return False
    return name == "Number" or name in kind


def _match_tensor(x, elem):
    return isinstance(x, Tensor) and (elem is None or x.dtype.name == elem)


_SIMPLE = {
    "Tuple": lambda x: isinstance(x, tuple),
    "List": lambda x: isinstance(x, list),
    "String": lambda x: isinstance(x, str),
    "None": lambda x: x is None,
    "Function": lambda x: callable(x) and not isinstance(x, (type, mstype.Type)),
    "Dictionary": lambda x: isinstance(x, dict),
    "Slice": lambda x: isinstance(x, slice),
    "Ellipsis": lambda x: x is Ellipsis,
    "TypeType": lambda x: isinstance(x, mstype.Type) or x is mstype.TensorType,
    "RowTensor": lambda x: isinstance(x, RowTensor),
    "COOTensor": lambda x: isinstance(x, COOTensor),
    "CSRTensor": lambda x: isinstance(x, CSRTensor),
}
_NUMBER_NAMES = {"Number", "Bool", "Int", "UInt", "Float", "Complex"} | {t.name for t in mstype.all_types}


def _checker(type_input):
    """A predicate for one registered type (a name such as "Tensor[Float32]" or a mindspore dtype)."""
    if isinstance(type_input, str):
        name = type_input
    elif type_input is mstype.TensorType:
        name = "Tensor"
    elif isinstance(type_input, mstype.Type):
        name = "Tensor" if type_input.name == "TensorType" else type_input.name
    else:
        raise TypeError(f"For 'MultitypeFuncGraph', register only support str or {mstype.Type}, but got "
                        f"'type_input': {type_input}.")
    if name == "Tensor":
        return name, lambda x: isinstance(x, Tensor)
    if name.startswith("Tensor[") and name.endswith("]"):
        elem = name[7:-1]
        if elem not in _NUMBER_NAMES:
            raise ValueError(f"Unsupported type name: {name}!")
        return name, functools.partial(_match_tensor, elem=elem)
    if name in _NUMBER_NAMES:
        return name, functools.partial(_match_number, name=name)
    if name in _SIMPLE:
        return name, _SIMPLE[name]
    if name == "Func":
        return name, _SIMPLE["Function"]
    raise ValueError(f"Unsupported type name: {name}!")


def _type_name(x):
    """MindSpore's name of an argument's type, for error messages."""
    if isinstance(x, Tensor):
        return f"Tensor[{x.dtype}]"
    kind = _scalar_kind(x)
    if kind is not None:
        return kind[1]
    for name, test in _SIMPLE.items():
        if test(x):
            return name
    return type(x).__name__


@jit_forbidden_class
class MultitypeFuncGraph:
    """A function overloaded on the types of its arguments.

    Register implementations with ``@f.register("Tensor", "Number")``; a call runs the first registration whose
    types all match (``"Number"`` matches bool/int/float/complex, ``"Int"`` int, ``"Tensor"`` any Tensor,
    ``"Tensor[Float32]"`` a float32 Tensor, also ``"Tuple" "List" "String" "None" "Function" "Dictionary"``).

    Args:
        name (str): the operator's name.
        read_value (bool): accepted for compatibility (arguments are always passed by value). Default: ``False``.

    Raises:
        ValueError: no registration matches the arguments.

    >>> import mindseed as ms
    >>> add = ms.ops.MultitypeFuncGraph('add')
    >>> @add.register("Number", "Number")
    ... def _(x, y):
    ...     return x + y
    >>> add(1, 2)
    3
    """

    def __init__(self, name, read_value=False):
        self.name = name
        self.read_value = read_value
        self.entries = []
        self.default_func = None
        self._checks = []

    def __call__(self, *args):
        if callable(self.default_func):
            return self.default_func(*args)
        for arg in args:
            if isinstance(arg, np.ndarray):
                raise TypeError("For 'MultitypeFuncGraph', the input can not be numpy.ndarray")
        if len(self.entries) == 1:
            return self.entries[0][1](*args)
        n = len(args)
        for checks, (_, fn) in zip(self._checks, self.entries):
            if len(checks) == n and all(c(a) for c, a in zip(checks, args)):
                return fn(*args)
        got = ", ".join(_type_name(a) for a in args)
        raise ValueError(f"For 'MultitypeFuncGraph', cannot find fn match given args. Got (sigs, fn): "
                         f"{[(sig, getattr(fn, '__name__', fn)) for sig, fn in self.entries]}, and (dtype, args): "
                         f"({got}).")

    def register(self, *type_names):
        """A decorator registering a function for arguments of the given types (names or mindspore dtypes)."""
        def deco(fn):
            named = [_checker(t) for t in type_names]
            self.entries.append((tuple(n for n, _ in named), fn))
            self._checks.append(tuple(c for _, c in named))
            return fn
        return deco

    def _register_default(self, convert_to_interpret=True):
        def deco(fn):
            self.default_func = fn
            return fn
        return deco

    def set_doc_url(self, doc_url):
        self.doc_url = doc_url

    def set_need_raise(self):
        return None

    def __repr__(self):
        return f"MultitypeFuncGraph({self.name!r})"


class _MapBase:
    """The shared constructor of HyperMap and Map: a fixed operation, or ``None`` to take it from each call."""

    def __init__(self, ops=None, reverse=False):
        if ops is not None and not callable(ops):
            raise TypeError(f"For '{type(self).__name__}', the 'ops' must be a MultitypeFuncGraph, a function or None, "
                            f"but got {type(ops).__name__}.")
        self.ops = ops
        self.reverse = reverse

    def _func_args(self, args):
        """(operation, sequences) of one call."""
        return (args[0], args[1:]) if self.ops is None else (self.ops, args)


class HyperMap(_MapBase):
    """Apply an operation to the leaves of (nested) tuples/lists, element by element.

    Args:
        ops (Union[MultitypeFuncGraph, callable, None]): the operation; when ``None`` it is the first input of each
            call. Default: ``None``.
        reverse (bool): accepted for compatibility (only the order of evaluation differs). Default: ``False``.

    Inputs:
        args: sequences of the same structure (or leaves); leaf `i` of each is passed to the operation.

    Outputs:
        The results, as tuples nested like the inputs (a leaf when the inputs are leaves).

    >>> import mindseed as ms
    >>> ms.ops.HyperMap()(lambda x, y: x * y, ((1, 2), (3,)), ((4, 5), (6,)))
    ((4, 10), (18,))
    """

    def __call__(self, *args):
        return _hyper(*self._func_args(args))


def _hyper(func, args_list):
    if not args_list or not isinstance(args_list[0], (tuple, list)):
        return func(*args_list)
    return tuple(_hyper(func, items) for items in zip(*args_list))


class Map(_MapBase):
    """Apply an operation to the elements of sequences (one level, no recursion into nested sequences).

    Args:
        ops (Union[MultitypeFuncGraph, callable, None]): the operation; when ``None`` it is the first input of each
            call. Default: ``None``.
        reverse (bool): accepted for compatibility. Default: ``False``.

    Outputs:
        tuple: ``ops(args[0][i], args[1][i], ...)`` for each ``i``.

    >>> import mindseed as ms
    >>> ms.ops.Map()(lambda x: x * 2, [1, 2])
    (2, 4)
    """

    def __call__(self, *args):
        func, args_list = self._func_args(args)
        return tuple(map(func, *args_list))
