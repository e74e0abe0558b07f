"""Dict displays and methods of Python's builtin containers as MindSpore's graph has them, for converted code:
`{k: v}` checks its keys (`ms_dict`), and `obj.name(...)` for the names of `GRAPH_METHODS` goes through `ms_method`,
which gives a builtin dict/tuple/list the graph's version (`has_key`; `count`/`index` comparing values of different
types as different and tensors by value, giving variables of the graph for variable inputs; `pop`/`insert` taking
int indices only) and any other object its own attribute. `x << y` / `x >> y` on Python scalars are `ms_shift`."""
import operator
import os

import numpy as np

from mindseed._utils import _state
from mindseed.common import dtype as mstype
from mindseed.common.context import STRICT, get_context
from mindseed.common._dynamic_seq import DynamicSequence, is_variable
from mindseed.common._mutable import _Mutable, variable
from mindseed.common.tensor import Tensor
from mindseed.compiler.trace import user_location

__all__ = ["dict_key", "ms_augassign", "ms_dict", "ms_member_item", "ms_method", "ms_shift", "ms_setitem_attr",
           "strict_syntax", "GRAPH_METHOD_NAMES"]


def _dict_key_error(k):
    """What MindSpore's graph names a value that cannot key a dict (None when it can): keys are strings, numbers,
    None, MindSpore types, constant tensors and tuples."""
    b = _state.tracing
    if b is not None and isinstance(k, Tensor) and b.is_traced(k):
        return "ValueAny"
    if isinstance(k, (list, dict, set)):
        return repr(k)
    if isinstance(k, type) and not isinstance(k, mstype.Type):
        return f"class '{k.__name__}'"
    return None


class _KeyTuple(tuple):
    """A tuple key holding lists (`{(3, [1, 2]): v}`), which MindSpore's graph dicts take: hashed by its frozen
    value, equal to the plain tuple it shows."""

    __slots__ = ()

    def __hash__(self):
        return hash(_frozen(self))


def _frozen(v):
    return tuple(_frozen(e) for e in v) if isinstance(v, (tuple, list)) else v


def _holds_list(v):
    return isinstance(v, list) or isinstance(v, tuple) and any(_holds_list(e) for e in v)


def dict_key(k):
    """k as a key of a graph's dict: a tuple holding lists becomes hashable."""
    return _KeyTuple(k) if isinstance(k, tuple) and _holds_list(k) else k


def ms_dict(keys, values):
    """A dict display `{k: v, ...}` of converted code, with MindSpore's check of its keys."""
    for k in keys:
        bad = _dict_key_error(k)
        if bad is not None:
            raise RuntimeError(f"make_dict evaluator key only supports string, number, type, none, constant tensor "
                               f"and tuple, but got {bad} (at {user_location()}).")
    return dict(zip((dict_key(k) for k in keys), values))


def _graph_equal(a, b):
    """Equality of MindSpore's sequence count/index: a bool and a number differ, a constant tensor equals only a
    tensor of the same shape, dtype and values."""
    if is_variable(a) or is_variable(b):
        # a tensor of the graph: compared by value when the graph runs
        return a is b or bool((a == b).all()) if isinstance(a, Tensor) or isinstance(b, Tensor) else a == b
    if isinstance(a, Tensor) or isinstance(b, Tensor):
        if not (isinstance(a, Tensor) and isinstance(b, Tensor)):
            return False
        return a is b or a.shape == b.shape and a.dtype == b.dtype and bool((a == b).all())
    if isinstance(a, bool) != isinstance(b, bool):
        return False
    return a == b


def _varying(seq, value):
    return isinstance(seq, _Mutable) or is_variable(value) or any(is_variable(e) for e in seq)


def _traced(x):
    b = _state.tracing
    return b is not None and isinstance(x, Tensor) and b.is_traced(x)


def _equal_in_graph(a, b):
    """a == b as a bool tensor of the graph (a or b a tensor computed in it), or a constant bool when their kinds,
    shapes or dtypes already decide it."""
    if isinstance(a, Tensor) and isinstance(b, Tensor):
        if a.shape != b.shape or a.dtype != b.dtype:
            return False
    elif not isinstance(a if isinstance(b, Tensor) else b, (int, float)):
        return False
    return (a == b).all()


def _count(seq, value):
    if _traced(value) or any(_traced(e) for e in seq):
        # compared when the graph runs: a Python int of the graph (MindSpore's SequenceCount)
        from mindseed.compiler.helpers import _scalar  # noqa: PLC0415 -- helpers import this module
        total = variable(0)
        for e in seq:
            # compared as values when the graph runs: a bool equals the number it is (True == 1)
            eq = _equal_in_graph(e, value) if isinstance(e, Tensor) or isinstance(value, Tensor) else e == value
            total = total + (eq.astype(mstype.int64) if isinstance(eq, Tensor) else int(eq))
        if not isinstance(total, Tensor):
            return total
        return _scalar(total, mstype.int64, int, "count")
    n = sum(1 for e in seq if _graph_equal(e, value))
    return variable(n) if _varying(seq, value) else n


def _index(seq, value, start=0, stop=None):
    for i in range(*slice(start, stop).indices(len(seq))):
        if _graph_equal(seq[i], value):
            return variable(i) if _varying(seq, value) else i
    raise ValueError(f"{value} is not in {tuple(seq) if isinstance(seq, tuple) else list(seq)}")


def _imm(v):
    """MindSpore's name of a scalar constant's type and its value, for messages."""
    if isinstance(v, bool):
        return "BoolImm", str(v).lower()
    if isinstance(v, int):
        return "Int64Imm", v
    if isinstance(v, float):
        return "FP32Imm", f"{v:g}"
    return ("StringImm" if isinstance(v, str) else type(v).__name__), v


def _int_index(v):
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError("Integer argument expected, but got {} type value: {}".format(*_imm(v)))
    return v


_SHIFTS = {"BitLeftShift": operator.lshift, "BitRightShift": operator.rshift}

_AUG = {name: (getattr(operator, "i" + fn.rstrip("_")), getattr(operator, fn)) for name, fn in (
    ("Add", "add"), ("Sub", "sub"), ("Mult", "mul"), ("Div", "truediv"), ("FloorDiv", "floordiv"), ("Mod", "mod"),
    ("Pow", "pow"), ("LShift", "lshift"), ("RShift", "rshift"), ("BitAnd", "and_"), ("BitOr", "or_"),
    ("BitXor", "xor"), ("MatMult", "matmul"))}


_SCALARS = (int, float, bool)


def ms_arith(op, x, y):
    """`x op y` of converted code (+ - * / // % **). Two Python numbers giving a float compute as MindSpore's graph
    computes scalars: in float32 (`0.1 + 0.2` is 0.30000001192092896, `3 / 7` is 0.4285714328289032); ints stay
    ints, and everything else is Python's operator."""
    fn = _AUG[op][1]
    if type(x) not in _SCALARS or type(y) not in _SCALARS or op not in _FLOAT32_OPS:
        return fn(x, y)
    if op in _DIVISIONS and y == 0:
        raise ValueError("Cannot perform modulo operation on zero." if op == "Mod" else
                         "The divisor could not be zero. But the divisor is zero now.")
    if op != "Div" and float not in (type(x), type(y)):
        return fn(x, y)
    with np.errstate(all="ignore"):
        return float(fn(np.float32(x), np.float32(y)))


_FLOAT32_OPS = frozenset(("Add", "Sub", "Mult", "Div", "FloorDiv", "Mod", "Pow"))
_DIVISIONS = frozenset(("Div", "FloorDiv", "Mod"))


def ms_augassign(op, target, value, users_code=True):
    """`x op= v` of converted code: Python's in-place operator, except on a numpy array, which MindSpore's graph
    updates as `x = x op v` (its dtype may change: `y = np.array(0); y += 1.1`), and on two Python numbers of the
    user's code, which compute as `ms_arith` (a library's code runs in the interpreter, as its `x op y` does)."""
    if users_code and type(target) in _SCALARS and type(value) in _SCALARS:
        return ms_arith(op, target, value)
    inplace, plain = _AUG[op]
    return (plain if isinstance(target, np.ndarray) else inplace)(target, value)


def ms_shift(name, x, y):
    """`x << y` / `x >> y` of converted code: on Python scalars, ints only and a non-negative count (MindSpore's
    BitLeftShift / BitRightShift); anything else as Python does it."""
    if isinstance(x, Tensor) or isinstance(y, Tensor) or not all(isinstance(v, (int, float)) for v in (x, y)):
        return _SHIFTS[name](x, y)
    if any(isinstance(v, (bool, float)) for v in (x, y)):
        (tx, vx), (ty, vy) = _imm(x), _imm(y)
        raise TypeError(f"Unsupported input type. For {name}, only integer types are supported, but got type of x:"
                        f"{tx}, value of x:{vx}, type of y:{ty}, value of y:{vy}")
    if y < 0:
        raise ValueError("For shift operator, shift count must be a non-negative integer.")
    return _SHIFTS[name](x, y)


def _pop(seq, index=-1):
    _int_index(index)
    if not -len(seq) <= index < len(seq):
        raise IndexError("The pop index out of range.")
    return seq.pop(index)


def _insert(seq, index, value):
    seq.insert(_int_index(index), value)


def _fromkeys(d, keys, value=None):
    if not isinstance(keys, (tuple, list, str, dict)):
        name = {bool: "Bool", int: "Int64", float: "Float32"}.get(type(keys), type(keys).__name__)
        raise RuntimeError(f"{name} object is not iterable")
    return dict.fromkeys(keys, value)


def _is_cell(v):
    """A Cell (the compiler sits below nn: recognized by its class's construct and its sub-cell table)."""
    return callable(getattr(type(v), "construct", None)) and isinstance(getattr(v, "_cells", None), dict)


def _format(text, *args, **kwargs):
    """str.format in a graph: a Cell is no value of the graph (MindSpore's TypeError), and a format that reads
    values of the graph runs when the graph runs without its keyword arguments (MindSpore's KeyError for the
    fields they name)."""
    if any(_is_cell(a) for a in (*args, *kwargs.values())):
        raise TypeError(f"Unsupported parameter type for python primitive, the parameter value is DeadNode "
                        f"(at {user_location()}).")
    if kwargs and any(is_variable(a) for a in (*args, *kwargs.values())):
        kwargs = {}
    return text.format(*args, **kwargs)


# {name: {type(s): implementation}}
GRAPH_METHODS = {"has_key": {dict: lambda d, key: key in d},
                 "count": {(tuple, list): _count}, "index": {(tuple, list): _index},
                 "pop": {list: _pop}, "insert": {list: _insert}, "fromkeys": {dict: _fromkeys},
                 "format": {str: _format}}
GRAPH_METHOD_NAMES = frozenset(GRAPH_METHODS)

_OWN_TYPES = ("builtins", _Mutable.__module__, DynamicSequence.__module__)


def ms_method(obj, name):
    """`obj.name` of a call `obj.name(...)` in converted code: the graph's method of a builtin container, else the
    attribute."""
    for cls, fn in GRAPH_METHODS.get(name, {}).items():
        if isinstance(obj, cls) and type(obj).__module__ in _OWN_TYPES:
            return lambda *args, **kwargs: fn(obj, *args, **kwargs)
    return getattr(obj, name)


def strict_syntax():
    """The context's jit_syntax_level is STRICT (or MindSpore's MS_DEV_JIT_SYNTAX_LEVEL=0)."""
    return get_context("jit_syntax_level") == STRICT or os.environ.get("MS_DEV_JIT_SYNTAX_LEVEL") == "0"


def ms_member_item(item, owner, name, target):
    """`item` (= `owner.name[i]`) of a call `owner.name[i].append(...)` in converted code: under STRICT syntax only
    a Parameter's items may be updated (MindSpore's TypeError), else the item itself."""
    if strict_syntax() and not isinstance(target, Tensor):
        raise TypeError(f"When JIT_SYNTAX_LEVEL is not set to LAX{owner}.{name} should be initialized as a "
                        f"'Parameter' in the '__init__' function to perform assign subscript, but got: {target}' "
                        f"with type '{type(target).__name__}'.")
    return item


def ms_setitem_attr(obj, owner, name, index, value):
    """`owner.name[index] = value` of converted code (`owner` the source text of obj): the attribute must exist,
    and under STRICT syntax only a Parameter's items may be assigned (MindSpore's TypeErrors)."""
    if not hasattr(obj, name):
        raise TypeError(f"'{owner}.{name}' should be initialized in the '__init__' function before subscript.")
    target = getattr(obj, name)
    if strict_syntax() and not isinstance(target, Tensor):
        raise TypeError(f"When JIT_SYNTAX_LEVEL is not set to LAX, {owner}.{name} should be initialized as a "
                        f"'Parameter' in the '__init__' function to perform assign subscript, but got: {target}' "
                        f"with type '{type(target).__name__}'.")
    target[index] = value
