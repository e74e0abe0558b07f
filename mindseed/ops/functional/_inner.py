"""The inner functions of MindSpore's ops namespace that its graph compiler emits for Python syntax (`t[i]` on a
tuple is `tuple_getitem`, `x += y` is `augassign_add`, `a and b` on bools is `bool_and`, ...) and the gradient
engine uses (environments, broadcast reduction axes). Here they are the Python operations they stand for, so code
that calls them by name runs as in MindSpore; graph mode traces through them like any Python.
"""
import inspect
import operator

import numpy as np

from mindseed._utils import _state
from mindseed.common import dtype as mstype
from mindseed.common._dynamic_seq import DynamicSequence, abstract_of, is_variable
from mindseed.common._mutable import _Mutable
from mindseed.common.tensor import Tensor
from mindseed.ops.functional._hybrid import kernel, ms_kernel  # noqa: F401  (public here, as MindSpore)

__all__ = ["tuple_setitem", "list_setitem", "dict_setitem", "make_tuple", "make_list", "make_dict", "make_range",
           "make_slice", "tuple_reversed", "tuple_div", "shape_mul", "in_dict", "not_in_dict", "bool_and", "bool_or",
           "bool_not", "typeof", "hastype", "tail", "zip_operation", "environ_create", "environ_set", "environ_get",
           "environ_add", "env_get", "array_to_scalar", "broadcast_gradient_args", "reduced_shape", "isconstant",
           "hyper_add", "mixed_precision_cast", "switch", "tensordump", "move_to", "add_flags", "op_info_register",
           "custom_info_register", "kernel", "ms_kernel", "ms_hasnext", "ms_next", "iter_converter", "switch_layer",
           "is_sequence_value_unknown", "is_sequence_shape_unknown", "is_dynamic_sequence_element_unknown"]

TENSOR_METHODS = {}



def _named(name, op, doc):
    """`op` as a Python function called `name` (MindSpore's names are functions, not builtins)."""
    try:
        arity = len(inspect.signature(op).parameters)
    except ValueError:
        arity = 2               # getattr: (object, name)

    def fn(*args):
        if len(args) != arity:
            raise TypeError(f"For '{name}', {arity} arguments are required, but got {len(args)}.")
        return op(*args)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


_OPERATORS = {
    "tuple_getitem": (operator.getitem, "data[index] of a tuple."),
    "list_getitem": (operator.getitem, "data[index] of a list."),
    "dict_getitem": (operator.getitem, "data[key] of a dict."),
    "tuple_len": (len, "The length of a tuple."), "list_len": (len, "The length of a list."),
    "tuple_equal": (operator.eq, "Whether two tuples are equal."),
    "list_equal": (operator.eq, "Whether two lists are equal."),
    "string_eq": (operator.eq, "Whether two strings are equal."),
    "bool_eq": (operator.eq, "Whether two bools are equal."),
    "is_": (operator.is_, "x is y."), "is_not": (operator.is_not, "x is not y."),
    "string_concat": (operator.add, "The concatenation of two strings."),
    "augassign_add": (operator.iadd, "x += y."), "augassign_sub": (operator.isub, "x -= y."),
    "augassign_mul": (operator.imul, "x *= y."), "augassign_div": (operator.itruediv, "x /= y."),
    "augassign_floordiv": (operator.ifloordiv, "x //= y."), "augassign_mod": (operator.imod, "x %= y."),
    "SliceGetItem": (getattr, "An attribute ('start', 'stop' or 'step') of a slice."),
}
globals().update({_name: _named(_name, _op, _doc) for _name, (_op, _doc) in _OPERATORS.items()})
__all__ += list(_OPERATORS)


_SEQ = ((tuple, list), "a tuple or list")
_INT = ((int,), "an int")
_DICT = ((dict,), "a dict")


def _arg(op, name, value, kinds):
    """`value` when it is of one of `kinds` (types, words), else MindSpore's TypeError naming the op and argument."""
    types, words = kinds
    if not isinstance(value, types) or (bool not in types and isinstance(value, bool) and int in types):
        raise TypeError(f"For '{op}', the '{name}' must be {words}, but got {type(value).__name__}.")
    return value


def _index(op, data, index):
    """A valid int index into the sequence `data`."""
    _arg(op, "index", index, _INT)
    if not -len(data) <= index < len(data):
        raise IndexError(f"For '{op}', the 'index' {index} is out of range for a sequence of length {len(data)}.")
    return index


def tuple_setitem(data, index, value):
    """A copy of the tuple `data` with item `index` replaced by `value`."""
    items = list(_arg("tuple_setitem", "data", data, _SEQ))
    index = _index("tuple_setitem", items, index)
    items[index] = value
    return tuple(items)


def list_setitem(data, index, value):
    """A copy of the list `data` with item `index` replaced by `value`."""
    items = list(_arg("list_setitem", "data", data, _SEQ))
    index = _index("list_setitem", items, index)
    items[index] = value
    return items


def dict_setitem(data, key, value):
    """A copy of the dict `data` with `key` set to `value`."""
    return {**_arg("dict_setitem", "data", data, _DICT), _hashable("dict_setitem", key): value}


def make_tuple(*elements):
    """The tuple of the arguments."""
    return elements


def make_list(*elements):
    """The list of the arguments."""
    return list(elements)


def make_dict(keys, values):
    """The dict of `keys` paired with `values`."""
    keys, values = _arg("make_dict", "keys", keys, _SEQ), _arg("make_dict", "values", values, _SEQ)
    return dict(zip((_hashable("make_dict", k) for k in keys), values))


def make_range(start, stop=None, step=1):
    """The tuple of range(start, stop, step) (one argument: range(start)); a tuple, as MindSpore's, so it passes
    where an axis tuple is expected."""
    for name, v in (("start", start), ("stop", stop), ("step", step)):
        if v is not None or name == "start":
            _arg("make_range", name, v, _INT)
    if step == 0:
        raise ValueError("For 'make_range', the 'step' must not be 0.")
    return tuple(range(start) if stop is None else range(start, stop, step))


def make_slice(start, stop, step):
    """slice(start, stop, step)."""
    return slice(start, stop, step)


def tuple_reversed(data):
    """The tuple in reverse order."""
    return tuple(reversed(_arg("tuple_reversed", "data", data, _SEQ)))


def tuple_div(x, y):
    """Elementwise division of two shapes; each element must divide exactly.

    Raises:
        TypeError: x or y is not a tuple/list of ints.
        RuntimeError: the tuples differ in length, an element is not an int, a divisor is 0 or does not divide
            (MindSpore's messages of its tuple_div).
    """
    _arg("tuple_div", "x", x, _SEQ)
    _arg("tuple_div", "y", y, _SEQ)
    if len(x) != len(y):
        raise RuntimeError(f"The size of inputs of 'tuple_div' operator must be the same, but the size of divisor "
                           f"tuple is {len(y)}, the size of dividend tuple is {len(x)}.")
    for a, b in zip(x, y):
        for v in (a, b):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
                shown = int(v) if isinstance(v, float) and v.is_integer() else v
                raise RuntimeError(f"The data type of inputs of 'tuple_div' operator should be an int64 number, but "
                                   f"got a {mstype.graph_scalar_dtype(v)} number {shown}.")
        if b == 0:
            raise RuntimeError("The divisor value should not be 0!")
        if a % b:
            raise RuntimeError(f"The inputs of 'tuple_div' operator should be divisible, but they are not divisible "
                               f"now, the dividend is {a}, the divisor is {b}.")
    return tuple(a // b for a, b in zip(x, y))


def shape_mul(shape):
    """The product of the elements of a shape (1 for ())."""
    for s_ in _arg("shape_mul", "shape", shape, _SEQ):
        _arg("shape_mul", "elements of shape", s_, _INT)
    return int(np.prod(shape, dtype=np.int64)) if shape else 1


def in_dict(key, data):
    """Whether `key` is a key of `data`."""
    return _hashable("in_dict", key) in _arg("in_dict", "data", data, _DICT)


def not_in_dict(key, data):
    """Whether `key` is not a key of `data`."""
    return _hashable("not_in_dict", key) not in _arg("not_in_dict", "data", data, _DICT)


def bool_and(x, y):
    """x and y, of two bools."""
    return bool(x) and bool(y)


def bool_or(x, y):
    """x or y, of two bools."""
    return bool(x) or bool(y)


def bool_not(x):
    """not x."""
    return not x


def typeof(*args):
    """The MindSpore type of a value: `TensorType[Float32]` for a float32 Tensor, `Int64` for an int, `Float32`
    for a float (a graph's scalar), ...; exactly one argument (RuntimeError otherwise, as MindSpore)."""
    if len(args) != 1:
        raise RuntimeError(f"The Typeof operator must requires 1 argument, but the size of arguments is {len(args)}.")
    return mstype.graph_scalar_dtype(args[0])


def hastype(x, type_):
    """Whether `x` is of MindSpore type `type_` (a Tensor type matches `mstype.tensor_type`)."""
    t = typeof(x)
    return t == type_ or (isinstance(type_, type) and isinstance(t, type_))


def tail(data):
    """All items of a tuple but the first."""
    return tuple(_arg("tail", "data", data, _SEQ)[1:])


def zip_operation(*sequences):
    """The tuple of tuples zipping the sequences."""
    return tuple(zip(*sequences))


def _hashable(op, key):
    try:
        hash(key)
    except TypeError:
        raise TypeError(f"For '{op}', the 'key' must be hashable, but got {type(key).__name__}.") from None
    return key


def environ_create():
    """A new empty gradient environment (key -> value)."""
    return {}


def environ_set(env, key, value):
    """A copy of `env` with `key` set to `value`."""
    return {**_arg("environ_set", "env", env, _DICT), _hashable("environ_set", key): value}


def environ_get(env, key, default):
    """The value of `key` in `env`, or `default`."""
    return _arg("environ_get", "env", env, _DICT).get(_hashable("environ_get", key), default)


env_get = environ_get


def environ_add(env1, env2):
    """The environment of both: values of keys in both are added."""
    out = dict(_arg("environ_add", "env1", env1, _DICT))
    for k, v in _arg("environ_add", "env2", env2, _DICT).items():
        out[k] = hyper_add(out[k], v) if k in out else v
    return out


def hyper_add(x, y):
    """x + y of two values of one structure (tensors, numbers, or nested tuples/lists/dicts of them)."""
    if isinstance(x, (tuple, list)):
        return type(x)(hyper_add(a, b) for a, b in zip(x, y))
    if isinstance(x, dict):
        return {k: hyper_add(x[k], y[k]) for k in x}
    try:
        return x + y
    except TypeError:
        raise TypeError(f"For 'hyper_add', the inputs must be Tensors, numbers or sequences of them of one structure, "
                        f"but got {type(x).__name__} and {type(y).__name__}.") from None


def array_to_scalar(x):
    """The Python scalar of a one-element Tensor."""
    if not isinstance(x, Tensor):
        raise TypeError(f"For 'array_to_scalar', the 'x' must be a Tensor, but got {type(x).__name__}.")
    return x.item()


def broadcast_gradient_args(shape_x, shape_y):
    """The axes along which the gradients of x and y must be summed after an op broadcast them together."""
    _arg("broadcast_gradient_args", "shape_x", shape_x, _SEQ)
    _arg("broadcast_gradient_args", "shape_y", shape_y, _SEQ)
    n = max(len(shape_x), len(shape_y))
    px, py = (1,) * (n - len(shape_x)) + tuple(shape_x), (1,) * (n - len(shape_y)) + tuple(shape_y)
    rx, ry = [], []
    for i, (a, b) in enumerate(zip(px, py)):
        if a == b:
            continue
        if a != 1 and b != 1:
            raise ValueError(f"For 'broadcast_gradient_args', the shapes {tuple(shape_x)} and {tuple(shape_y)} cannot "
                             f"be broadcast.")
        (rx if a == 1 else ry).append(i)
    return tuple(rx), tuple(ry)


def reduced_shape(shape, axis):
    """`shape` with the reduced `axis` (an int, tuple, or () for all) set to 1."""
    _arg("reduced_shape", "shape", shape, _SEQ)
    axes = range(len(shape)) if axis in ((), None) else (axis,) if isinstance(axis, int) else axis
    for a in _arg("reduced_shape", "axis", axes, ((tuple, list, range), "an int or a tuple of ints")):
        _arg("reduced_shape", "elements of axis", a, _INT)
    if not shape:
        return ()
    axes = {a % len(shape) for a in axes}
    return tuple(1 if i in axes else s for i, s in enumerate(shape))


def isconstant(x):
    """Whether `x` is a compile-time constant: any value but a Tensor and, in a graph, a mutable value (a variable
    scalar or sequence)."""
    return not isinstance(x, Tensor) and not (_state.tracing is not None and isinstance(x, _Mutable))


def mixed_precision_cast(dst_dtype, x):
    """x with every floating Tensor in it (nested tuples, lists, dicts too) cast to `dst_dtype`."""
    if isinstance(x, Tensor):
        return x.astype(dst_dtype) if mstype.is_float(x.dtype) else x
    if isinstance(x, (tuple, list)):
        return type(x)(mixed_precision_cast(dst_dtype, v) for v in x)
    if isinstance(x, dict):
        return {k: mixed_precision_cast(dst_dtype, v) for k, v in x.items()}
    return x


def switch(cond, true_branch, false_branch):
    """`true_branch` when `cond` holds, else `false_branch`."""
    return true_branch if cond else false_branch


def tensordump(file_name, tensor, mode="out"):
    """Save `tensor` to the numpy file `file_name` (".npy" added when missing); `mode` ('out', 'in', 'all') names
    which side of an op the dump stands for and is recorded in MindSpore's file-name scheme."""
    if not isinstance(file_name, str):
        raise TypeError(f"For 'TensorDump', the 'file_name' must be a str, but got {type(file_name).__name__}.")
    if not isinstance(tensor, Tensor):
        raise TypeError(f"For 'TensorDump', the 'tensor' must be a Tensor, but got {type(tensor).__name__}.")
    if mode not in ("out", "in", "all"):
        raise ValueError(f"For 'TensorDump', the 'mode' must be one of 'out', 'in', 'all', but got {mode!r}.")
    np.save(file_name if file_name.endswith(".npy") else file_name + ".npy", tensor.asnumpy())


def move_to(input, to="CPU", blocking=True):  # noqa: A002 -- MindSpore's argument name
    """`input` on device `to` ('CPU', 'GPU', 'Ascend', 'Disk'); one device per process here, so the same data."""
    if to not in ("CPU", "GPU", "Ascend", "Disk"):
        raise ValueError(f"For 'move_to', the 'to' must be one of 'CPU', 'GPU', 'Ascend', 'Disk', but got {to!r}.")
    if not isinstance(input, Tensor):
        raise TypeError(f"For 'move_to', the 'input' must be a Tensor, but got {type(input).__name__}.")
    return input


def _function(op, name, f):
    """`f` when it is a function (or a Cell, or any object taking attributes), else a TypeError naming the op."""
    if not callable(f) or not hasattr(f, "__dict__"):
        raise TypeError(f"For '{op}', the '{name}' must be a function or a Cell, but got {type(f).__name__}.")
    return f


def add_flags(fn=None, **flags):
    """Set compile flags on a function or Cell (`fn._mindspore_flags`); returns it. As a decorator without `fn`."""
    def mark(f):
        _function("add_flags", "fn", f)
        f.__dict__.setdefault("_mindspore_flags", {}).update(flags)
        return f
    return mark if fn is None else mark(fn)


def _register_info(attr):
    def register(*infos):
        def decorator(func):
            getattr(func, attr, None) or setattr(func, attr, [])
            getattr(func, attr).extend(infos)
            return func
        return decorator
    return register


op_info_register = _register_info("reg_info")
op_info_register.__doc__ = "Decorator attaching operator registration info to a kernel function (`func.reg_info`)."
custom_info_register = _register_info("reg_info")
custom_info_register.__doc__ = "Decorator attaching Custom-op registration info (`func.reg_info`), as MindSpore."




def iter_converter(x):
    """The sequence a `for` loop walks: the items of a tuple/list, the keys of a dict, the rows of a Tensor."""
    if isinstance(x, dict):
        return tuple(x.keys())
    if not isinstance(x, (tuple, list, range, str, Tensor)):
        raise TypeError(f"For 'iter_converter', the 'x' must be a tuple, list, dict or Tensor, but got "
                        f"{type(x).__name__}.")
    return tuple(x)


def ms_hasnext(xs):
    """Whether a sequence being iterated has items left."""
    return len(_arg("ms_hasnext", "xs", xs, _SEQ)) > 0


def ms_next(xs):
    """(first item, the rest) of a sequence being iterated."""
    if not _arg("ms_next", "xs", xs, _SEQ):
        raise ValueError("For 'ms_next', the sequence 'xs' is empty.")
    return xs[0], xs[1:]


def switch_layer(index, branches):
    """The branch (a function or Cell) of the tuple `branches` at `index` (an int or 0-D int Tensor)."""
    _arg("switch_layer", "branches", branches, _SEQ)
    if isinstance(index, Tensor):
        index = index.item() if index.ndim == 0 and mstype.is_integral(index.dtype) else index
    return branches[_index("switch_layer", branches, index)]


def _sequence(name, x):
    if not isinstance(x, (tuple, list)):
        raise TypeError(f"The input of {name} should be tuple or list but got {abstract_of(x)}")
    return x


def _value_unknown(x):
    return isinstance(x, _Mutable) or is_variable(x) or \
        isinstance(x, (tuple, list)) and any(_value_unknown(e) for e in x)


def is_sequence_value_unknown(x):
    """Whether the values of the sequence `x` are unknown when the graph is compiled: a mutable sequence, or one
    holding variables (tensors of the graph, mutable scalars); False outside a graph."""
    return _state.tracing is not None and _value_unknown(_sequence("IsSequenceValueUnknown", x))


def is_sequence_shape_unknown(x):
    """Whether the length of the sequence `x` is unknown when the graph is compiled (a dynamic-length sequence)."""
    return _state.tracing is not None and isinstance(_sequence("IsShapeUnKnown", x), DynamicSequence)


def is_dynamic_sequence_element_unknown(x):
    """Whether the element type of the dynamic-length sequence `x` is still unknown (it is empty)."""
    if not isinstance(x, DynamicSequence):
        raise TypeError("The input of IsElementUnknown should be variable length sequence.")
    return len(x) == 0
