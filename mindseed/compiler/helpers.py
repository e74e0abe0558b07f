"""The helpers of converted code: what the code parse.py rewrites calls, under the `__ms_*` names of `HELPERS`.

* Python builtins on graph values (`bool`, `int`, `float`, `any`, `all`, `min`, `max`), chained comparisons,
  and the items of a sequence a graph loop walks by index: MindSpore compiles these where they act on graph
  tensors; here they become graph operations instead of stopping the trace.
* `print` and `assert` on graph values: nodes that print / check at every run of the graph.
* The entry points of `if`, `while`, `for i in range(...)`, `and`/`or`/`not` and `a if c else b`: on a traced
  tensor the graph control flow of control.py (If) and loops.py (While), plus what converted code needs
  around it (Python-scalar results stay Python scalars, a branch that raises raises at run time).

Outside a trace (or on Python values) each does exactly what Python does.
"""
import operator
import sys

import numpy as np

from mindseed import _backend as B
from mindseed._utils import _state
from mindseed.common import dtype as mstype
from mindseed.common._dynamic_seq import DynamicSequence, abstract_of, dynamic_sequence, list_setitem
from mindseed.common._mutable import _Mutable, variable
from mindseed.common.parameter import Parameter
from mindseed.common.tensor import Tensor, _flat
from mindseed.compiler import control, loops
from mindseed.compiler.methods import (dict_key, ms_arith, ms_augassign, ms_dict, ms_member_item, ms_method,
                                       ms_setitem_attr, ms_shift)
from mindseed.compiler.opaque import speculative
from mindseed.compiler.switch import Switch, cells_of
from mindseed.compiler.trace import GraphBreak, add_user_trace, replaying, user_location, user_trace_here

__all__ = ["HELPERS"]

def load(local_vars, name):
    """A variable's current value for a branch or loop body's arguments (`__ms_ld`); UNDEF when unassigned."""
    return local_vars.get(name, control.UNDEF)


def load_after_return(local_vars, name):
    """A variable's value on a path that has just returned (`__ms_ldr`): an unassigned one is RETVAL, a value never
    read (the function returns), which an If merging it with the other branch's value makes zeros like it."""
    v = local_vars.get(name, control.UNDEF)
    return control.RETVAL if v is control.UNDEF else v


def as_sequence(it):
    """What a `for` walks by index: a list, tuple or range as is, a tensor's rows, any other iterable listed."""
    if isinstance(it, (list, tuple, range)):
        return it
    if isinstance(it, Tensor):
        return [it[i] for i in range(it.shape[0])]
    return list(it)


_AMBIGUOUS = "The truth value of an array with more than one element is ambiguous."


def _traced(x):
    b = _state.tracing
    return b is not None and isinstance(x, Tensor) and b.is_traced(x)


def _scalar(t, dtype, pytype, what):
    if t.size != 1:
        raise ValueError(_AMBIGUOUS if pytype is bool else
                         f"For '{what}', only a tensor with one element can be converted to a Python scalar, but "
                         f"got shape {t.shape}.")
    if t.ndim:
        t = t.reshape(())
    if t.dtype != dtype:
        t = t.astype(dtype)
    # a new value to mark, not x itself; and a Python number carries no gradient (as in PyNative)
    from mindseed.ops._prims.core import stop_gradient_p  # noqa: PLC0415
    return _state.tracing.mark_scalar(stop_gradient_p(t), pytype)


def _ms_bool(x=False):
    """bool(x); a graph tensor gives a bool scalar of the graph."""
    if _traced(x):
        return _scalar(x, mstype.bool_, bool, "bool")
    return bool(x)


def _ms_int(x=0, *base):
    """int(x); a graph tensor gives an int scalar of the graph (truncated toward zero)."""
    if not base and _traced(x):
        return _scalar(x, mstype.int64, int, "int")
    return int(x, *base)


def _ms_float(x=0.0):
    """float(x); a graph tensor gives a float scalar of the graph."""
    if _traced(x):
        return _scalar(x, mstype.float64 if x.dtype == mstype.float64 else mstype.float32, float, "float")
    return float(x)


def _reduce_bool(x, kind):
    from mindseed.ops import functional as F  # noqa: PLC0415 -- ops sit below; imported at use
    if _traced(x):
        r = x.astype(mstype.bool_)
        r = F.any(r) if kind == "any" else F.all(r)
        return _state.tracing.mark_scalar(r.reshape(()) if r.ndim else r, bool)
    if _state.tracing is None or not isinstance(x, (tuple, list)) or not any(_traced(e) for e in x):
        return any(x) if kind == "any" else all(x)
    acc = None
    for e in x:
        b = _ms_bool(e)
        if not isinstance(b, Tensor):
            if b == (kind == "any"):
                # decided by a constant item: True for any, False for all (a bool scalar of the graph after
                # graph items)
                return b if acc is None else _state.tracing.mark_scalar(
                    F.ones_like(acc) if b else F.zeros_like(acc), bool)
            continue
        acc = b if acc is None else (F.logical_or(acc, b) if kind == "any" else F.logical_and(acc, b))
    return (kind == "all") if acc is None else _state.tracing.mark_scalar(acc, bool)


def _ms_any(x):
    """any(x); on graph tensors a reduction in the graph."""
    return _reduce_bool(x, "any")


def _ms_all(x):
    """all(x); on graph tensors a reduction in the graph."""
    return _reduce_bool(x, "all")


_MISSING = object()
_GRAPH_STATE = (Parameter,)     # values a graph's attribute assignment may carry (a Parameter's update is a node)


def _ms_setattr(obj, name, value):
    """`obj.name = value` in converted code. In a trace, giving a Python attribute a new Python value or a plain
    Tensor is state the compiled graph cannot update at run time: the function runs in the interpreter (MindSpore's
    JIT fallback; under STRICT syntax a TypeError). Parameters are updated in the graph; a Parameter's own
    attributes cannot be set there. A Python number given to a cell's Parameter attribute (`self.step = 0`) is an
    Assign of the graph, the number cast to the Parameter's dtype (in PyNative the Cell raises a TypeError)."""
    params = getattr(obj, "__dict__", {}).get("_params")
    if params is not None and params.get(name) is not None and isinstance(value, (bool, int, float)):
        param = params[name]
        value = Tensor(np.full(param.shape, value), param.dtype)
    if _state.tracing is not None and params is not None and params.get(name) is not None and \
            isinstance(value, Tensor) and not isinstance(value, Parameter) and value.dtype != params[name].dtype:
        # an Assign of the graph: the value converts to the Parameter's dtype only when it holds the value's
        from mindseed.ops.functional._misc import check_written_dtype  # noqa: PLC0415
        check_written_dtype(params[name], value)
    if _state.tracing is not None and not isinstance(value, _GRAPH_STATE):
        if isinstance(obj, Parameter):
            raise ValueError(f"Do not support to set attribute for a parameter in graph mode, but got setting "
                             f"'{name}' of the parameter '{obj.name}'.")
        old = getattr(obj, name, _MISSING)
        params = getattr(obj, "__dict__", {}).get("_params")
        if old is not value and not (params is not None and name in params) and not _same_python_value(old, value):
            kind = type(value).__name__
            exc = GraphBreak(f"'{type(obj).__name__}.{name}' is assigned a new {kind} (at {user_location()})")
            exc.strict_error = TypeError(
                f"In JIT strict mode, if need to modify a member attribute of a class with {kind} type, the class "
                f"must be decorated with jit_class, or the attribute must be a Parameter; the attribute "
                f"'{type(obj).__name__}.{name}' was assigned at {user_location()}.")
            raise exc
    setattr(obj, name, value)


def _same_python_value(old, new):
    try:
        return type(old) is type(new) and not isinstance(new, Tensor) and bool(old == new)
    except Exception:  # noqa: BLE001 -- a value without a plain equality is a new value
        return False


def _static_length(name, args):
    if _state.tracing is not None and any(isinstance(a, DynamicSequence) for a in args):
        raise RuntimeError(f"For '{name}', the dynamic length input is unsupported in graph mode.")


def _ms_zip(*args, **kwargs):
    """zip(...); a graph's zip needs at least one sequence (MindSpore's ZipOperation) of static length."""
    if not args:
        raise RuntimeError("The zip operator must have at least 1 argument, but the size of arguments is 0.")
    _static_length("zip", args)
    return zip(*args, **kwargs)


def _graph_type_name(v):
    """MindSpore's name of a value's graph type in messages: Int64, Tensor[Float32], Dictionary[[a,],[Int64]]."""
    if isinstance(v, Tensor):
        return f"Tensor[{v.dtype}]"
    if isinstance(v, bool):
        return "Bool"
    if isinstance(v, int):
        return "Int64"
    if isinstance(v, float):
        return "Float32"
    if isinstance(v, str):
        return "String"
    if isinstance(v, dict):
        keys = "".join(f"{k}," for k in v)
        return f"Dictionary[[{keys}],[{','.join(_graph_type_name(x) for x in v.values())}]]"
    if v is None:
        return "None"
    return type(v).__name__


def _ms_map(fn, *seqs):
    """map(fn, *seqs). In a graph, MindSpore's Map: one or more lists (or tuples) of one length, mapped at once
    into a list (a tuple)."""
    if _state.tracing is None or any(isinstance(s, np.ndarray) for s in seqs):
        return map(fn, *seqs)       # a numpy array: the interpreter's map (MindSpore's JIT fallback)
    if not seqs:
        raise TypeError(f"The Map operator must have at least two arguments. But the size of arguments is "
                        f"{1 + len(seqs)}.")
    _static_length("map", seqs)
    kinds = {"scalar" if isinstance(s, (bool, int, float)) else type(s) if not isinstance(s, Tensor) else Tensor
             for s in seqs}
    if len(kinds) > 1:
        raise RuntimeError("The types of arguments in Map must be consistent, but the types of arguments are "
                           "inconsistent.")
    if not isinstance(seqs[0], (list, tuple)):
        raise RuntimeError(f"Map can only be applied to list, tuple, but got {_graph_type_name(seqs[-1])}.")
    kind = list if isinstance(seqs[0], list) else tuple
    if len({len(s) for s in seqs}) > 1:
        raise RuntimeError(f"For 'Map', the length of {'lists' if kind is list else 'tuples'} must be the same. ")
    return kind(map(fn, *seqs))


def _ms_enumerate(seq, start=0):
    """enumerate(...) of MindSpore's graph: an int start, an iterable of static length."""
    if isinstance(start, bool) or not isinstance(start, int):
        raise TypeError(f"For 'enumerate', the 'start' should be a const int number, but got {start}.")
    if not hasattr(seq, "__iter__") and not hasattr(seq, "__getitem__"):
        raise TypeError(f"For 'enumerate', the 'first input' should be tuple or list or tensor, but got {type(seq)}.")
    _static_length("enumerate", (seq,))
    return enumerate(seq, start)


def _graph_pytype(obj):
    """The Python type of a Python scalar of the graph (a mutable scalar argument, or computed from one); None for
    anything else."""
    var = _state.tracing.lookup(obj) if _state.tracing is not None and isinstance(obj, Tensor) else None
    return getattr(var, "pytype", None)


def _ms_isinstance(obj, classinfo):
    """isinstance(...) of converted code: a Python scalar of the graph (a mutable scalar argument) is its Python
    type; a second argument that is not a type or tuple of types is MindSpore's TypeError."""
    try:
        pytype = _graph_pytype(obj)
        return isinstance(obj if pytype is None else pytype(), classinfo)
    except TypeError as e:
        if not str(e).startswith("isinstance() arg 2 must be"):
            raise
        raise TypeError(f"isinstance() arg 2 must be a type or tuple of types, but got {classinfo!r} "
                        f"(at {user_location()}).") from None


def _ms_len(x):
    """len(x); the length of a dynamic-length sequence is a variable of the graph."""
    n = len(x)
    return variable(n) if isinstance(x, DynamicSequence) else n


_INT64 = (-2 ** 63, 2 ** 63 - 1)


def _check_range(args, tensors=False):
    """MindSpore's checks of range(...)'s arguments in a graph (its make_range): one to three int scalars (traced
    tensors too when `tensors`: a graph loop), a non-zero step, no int64 overflow stepping past the end."""
    if not 1 <= len(args) <= 3:
        raise RuntimeError(f"For 'make_range', the input size should within [1, 3] but got{len(args)} "
                           f"(at {user_location()}).")
    for i, a in enumerate(args):
        if tensors and isinstance(a, Tensor):
            continue
        if isinstance(a, Tensor) or not isinstance(a, (int, np.integer)):
            raise TypeError(f"For 'make_range', the {i}th input should be a int scalar but got {abstract_of(a)} "
                            f"(at {user_location()}).")
    if any(isinstance(a, Tensor) for a in args):
        return
    if len(args) == 3 and args[2] == 0:
        raise RuntimeError("For 'range', the argument 'step' could not be 0.")
    r = range(*args)
    if len(r) and not _INT64[0] <= r[-1] + r.step <= _INT64[1]:
        raise ValueError("Integer overflow error occurred when traversing the range. Please check the inputs of "
                         "range.")


def _ms_range(*args):
    """range(...) of MindSpore's graph: int bounds only; with a mutable bound, a dynamic-length tuple."""
    _check_range(args)
    r = range(*args)
    return dynamic_sequence(tuple(r)) if any(isinstance(a, _Mutable) for a in args) else r


def _converting(kind):
    def convert(*args):
        out = kind(*args)
        return dynamic_sequence(out) if args and isinstance(args[0], DynamicSequence) else out
    convert.__name__ = f"_ms_{kind.__name__}"
    convert.__doc__ = f"{kind.__name__}(...); of a dynamic-length sequence, a dynamic-length {kind.__name__}."
    return convert


def _minmax(kind, args, kwargs):
    import builtins  # noqa: PLC0415
    fn = builtins.min if kind == "min" else builtins.max
    if _state.tracing is None or kwargs:
        return fn(*args, **kwargs)
    items = args[0] if len(args) == 1 and isinstance(args[0], (tuple, list)) else args
    if not items:
        raise ValueError(f"{kind}() arg is an empty sequence.")
    if len(args) == 1 and any(isinstance(e, (tuple, list)) and any(isinstance(v, Tensor) for v in e) for e in items):
        raise TypeError(f"For '{kind}', cannot support tensor in list or tuple nested now.")
    if len(args) == 1:
        x = args[0]
        if _traced(x):
            if _graph_pytype(x) is not None:
                raise TypeError("The object is not iterable.")
            if x.ndim == 0:
                raise TypeError("Cannot iterate over a scalar tensor.")
            if x.ndim > 1:
                raise ValueError(_AMBIGUOUS)
            return x.min() if kind == "min" else x.max()
        if not (isinstance(x, (tuple, list)) and any(_traced(e) for e in x)):
            return fn(x)
        args = tuple(x)
    if not any(_traced(a) for a in args):
        return fn(*args)
    from mindseed.ops import functional as F  # noqa: PLC0415
    for a in args:
        if isinstance(a, Tensor) and a.size != 1:
            raise ValueError(_AMBIGUOUS)
    best = args[0]
    for a in args[1:]:
        x, y = (best if isinstance(best, Tensor) else Tensor(best), a if isinstance(a, Tensor) else Tensor(a))
        best = F.minimum(x, y) if kind == "min" else F.maximum(x, y)
    return best


def _ms_min(*args, **kwargs):
    """min(...); on graph tensors a reduction / minimum in the graph."""
    return _minmax("min", args, kwargs)


def _ms_max(*args, **kwargs):
    """max(...); on graph tensors a reduction / maximum in the graph."""
    return _minmax("max", args, kwargs)


# ---------------------------------------------------------------- print and assert: run-time nodes
def _print_text(obj):
    """One argument as MindSpore's graph-mode Print shows it."""
    if isinstance(obj, (np.ndarray, np.generic)):
        return str(obj)     # a numpy value of the graph (JIT Fallback) prints as numpy shows it
    if not isinstance(obj, Tensor) and hasattr(obj, "shape") and hasattr(obj, "dtype"):
        obj = Tensor._from_raw(obj)
    if isinstance(obj, Tensor):
        a = B.to_numpy(obj._data)
        if a.ndim == 0:
            v = a.item()
            return str(int(v)) if isinstance(v, (bool, int)) else f"{v:g}"
        return _tensor_text(obj)
    if isinstance(obj, bool):
        return str(int(obj))
    if isinstance(obj, float):
        return f"{obj:g}"
    if isinstance(obj, (tuple, list)):
        # a sequence of ints (or of floats) is one value of the graph: `(1, 2)`, `( 1.50000000e+00,  2.5...)`;
        # any other is printed item by item, nested ones flattened, each on its own line
        if all(type(o) is int for o in obj):
            return "(" + ", ".join(map(str, obj)) + ")"
        if all(type(o) is float for o in obj):
            return "(" + ", ".join(f"{o: .8e}" for o in obj) + ")"
        return "\n".join(_print_text(o) for o in _flat(obj))
    if type(obj) is dict:
        return "\n".join(_print_text(v) for v in obj.values())
    return str(obj)


def _tensor_text(t):
    """A tensor as the graph's constants show it: `Tensor(shape=[2], dtype=Int64, value=[1 2])`."""
    a = B.to_numpy(t._data)
    if a.ndim == 0:
        v = a.item()
        body = f"{v:g}" if isinstance(v, float) else str(v)
    elif a.dtype.kind == "f":
        body = np.array2string(a, separator=" ", max_line_width=10 ** 6, threshold=10 ** 9,
                               formatter={"float_kind": lambda v: f"{v: .8e}"})
    else:
        body = np.array2string(a, separator=" ", max_line_width=10 ** 6, threshold=10 ** 9)
    return f"Tensor(shape={list(a.shape)}, dtype={t.dtype}, value={chr(10) if a.ndim > 1 else ''}{body})"


def _ms_print(*args, sep=" ", end="\n", file=None, flush=False):
    """print(...); inside a graph a Print node: each argument on its own line, at every run of the graph."""
    import builtins  # noqa: PLC0415
    builder = _state.tracing
    if builder is None:
        if replaying[0]:
            return None
        if loops.running_loop[0]:
            builtins.print("\n".join(_print_text(v) for v in args), file=file, flush=True)
            return None
        return builtins.print(*args, sep=sep, end=end, file=file, flush=flush)
    if replaying[0]:
        return None        # forward code re-run for a gradient: the forward run prints
    leaves = []
    strings = [i for i, a in enumerate(args) if isinstance(a, _GraphStr)]
    tmpl = control._flatten(tuple(a.parts if isinstance(a, _GraphStr) else a for a in args), leaves)

    interpreted = any(isinstance(a, (np.ndarray, np.generic)) for a in args)
    # a dict of constants prints as Python prints it; one holding tensors shows its values (a Print node)
    python_print = strings or any(type(a) is dict and not any(isinstance(v, Tensor) for v in a.values()) for a in args)

    def run(*raw):
        if python_print:
            # a print of a run-time string or of a dict is Python's print, run by the interpreter (MindSpore's
            # PyExecute): str() of each value, on one line
            values = control._unflatten(tmpl, [Tensor._from_raw(r) for r in raw])
            builtins.print(*("".join(map(str, v)) if i in strings else v for i, v in enumerate(values)),
                           sep=sep, end=end, file=file, flush=True)
            return
        if interpreted:
            # a print of numpy values (JIT fallback) is Python's print, run by the interpreter: str() of each value
            values = control._unflatten(tmpl, [B.to_numpy(r) for r in raw])   # a Tensor's str() is its values
            builtins.print(*values, sep=sep, end=end, file=file, flush=True)
            return
        values = control._unflatten(tmpl, list(raw))
        builtins.print("\n".join(_print_text(v) for v in values), file=file, flush=True)
    from mindseed.ops._prims.core import py_call_p  # noqa: PLC0415
    builder.emit(py_call_p, [builder.operand(t) for t in leaves], {"fn": run}, [])
    if not speculative():
        pending = getattr(builder.root, "pending_prints", None)
        if pending is None:
            run(*[t._data for t in leaves])
        else:       # printed when the trace completes: a trace that falls back to the interpreter prints nothing
            pending.append((run, [t._data for t in leaves]))
    return None


class _GraphStr:
    """An f-string of converted code holding tensors of the graph: its text is known at run time. A Print node
    shows it; any other use (str(), returning it) needs the value, so the function runs in the interpreter."""

    def __init__(self, parts):
        self.parts = tuple(parts)

    def __add__(self, other):
        if isinstance(other, _GraphStr):
            return _GraphStr(self.parts + other.parts)
        if isinstance(other, str):
            return _GraphStr(self.parts + (other,))
        return NotImplemented

    def __radd__(self, other):
        if isinstance(other, str):
            return _GraphStr((other,) + self.parts)
        return NotImplemented

    def __str__(self):
        raise GraphBreak(f"a string formatted from tensors of the graph (at {user_location()}) is only known at "
                         f"run time")

    __format__ = __len__ = __iter__ = __hash__ = __eq__ = lambda self, *a: self.__str__()

    def now(self):
        """The text of the values the tensors hold in this trace (a trace is a real run): for a `raise`."""
        return "".join(map(str, self.parts))


def _ms_fstring(parts):
    """f"...": the parts joined as str() of each value (MindSpore's graph applies no conversion or format spec).
    A constant tensor shows as the graph's constant (`Tensor(shape=[2], dtype=Int64, value=[1 2])`), a numpy array
    as the interpreter's object; a tensor of the graph (or a Parameter) makes a string known at run time."""
    builder = _state.tracing

    def runtime(p):     # outside a trace (JIT fallback: the interpreter runs the function) every tensor is one
        return isinstance(p, Tensor) and (builder is None or isinstance(p, Parameter) or builder.lookup(p) is not None)

    texts = tuple(p if runtime(p) else _constant_text(p) for p in parts)
    if builder is not None and any(isinstance(t, Tensor) for t in texts):
        return _GraphStr(texts)
    return "".join(map(str, texts))


def _constant_text(value):
    """A constant of the graph in an f-string, as MindSpore's graph writes it."""
    if isinstance(value, Tensor):
        return _tensor_text(value)
    if isinstance(value, np.ndarray):
        return f"PythonObject(type: {type(value)}, value: {value})"
    return value if isinstance(value, str) else str(value)


def _ms_unpack(value, n):
    """The value of `t1, ..., tn = value` in a graph. MindSpore's compiler unpacks a tuple or list by index: items
    past the n-th are dropped (`a, b = f()` of a 3-tuple takes the first two), too few is its TupleGetItem error."""
    if isinstance(value, (tuple, list)):
        if len(value) > n:
            return value[:n]
        if len(value) < n:
            raise IndexError(f"TupleGetItem evaluator index should be in range[-{len(value)}, {len(value)}), but got "
                             f"{len(value)}.")
    return value


def _ms_assert(cond, msg_fn=None):
    """`assert cond, msg`; on a graph tensor a run-time check node raising AssertionError."""
    if not _traced(cond):
        if not cond:
            raise AssertionError(*(() if msg_fn is None else (msg_fn(),)))
        return
    if cond.size != 1:
        raise ValueError(_AMBIGUOUS)
    msg = "" if msg_fn is None else str(msg_fn())
    where = user_trace_here()     # the failure happens when the graph runs: name the assert's line now

    def check(c):
        if not bool(c.reshape(-1)[0]):
            exc = AssertionError(msg + where)
            exc.__ms_user_trace__ = bool(where)
            raise exc
        return ()
    from mindseed.ops._prims.core import py_call_p  # noqa: PLC0415
    builder = _state.tracing
    builder.emit(py_call_p, [builder.operand(cond)], {"fn": check}, [])
    if not speculative():
        check(cond._data)


# ---------------------------------------------------------------- control flow wrappers
def _scalar_flags(x):
    """Where x (a branch's or loop body's results, inspected while its trace is current) holds Python scalars:
    Python numbers, or graph scalars standing for them (`i + 1` of a loop counter)."""
    if isinstance(x, (tuple, list)):
        return tuple(_scalar_flags(e) for e in x)
    if isinstance(x, (bool, int, float)):
        return True
    v = _state.tracing.lookup(x) if isinstance(x, Tensor) and _state.tracing is not None else None
    return getattr(v, "pytype", None) is not None


_ANY = object()     # no value before (an If's results)


def _pytype_like(out, flags, init=_ANY):
    """Mark the 0-d tensors of `out` (an If's or a loop's results) that stand for Python scalars: where the taken
    branch / the loop body produced one (`flags`) and, for a loop, the value before it was one too (`init`; a
    loop that runs zero times gives it back). `s = 0; for ...: s = s + x[i]` is a Tensor, as in PyNative."""
    if isinstance(out, Tensor):
        if flags is True and _traced(out) and out.ndim == 0 and \
                (init is _ANY or _scalar_flags(init) is True):
            _state.tracing.mark_scalar(out)
        return
    if isinstance(out, (tuple, list)) and isinstance(flags, tuple) and len(out) == len(flags):
        if init is _ANY:
            init = (_ANY,) * len(out)
        elif not isinstance(init, (tuple, list)) or len(init) != len(out):
            return
        for o, f, i in zip(out, flags, init):
            _pytype_like(o, f, i)


def _flagging(fn, flags):
    """fn, recording the scalar flags of its results when traced (the last traced call's: an unrolled loop's
    last iteration, a graph loop's body trace; not the loop's eager run that follows)."""
    def run(*a):
        r = fn(*a)
        if _state.tracing is not None:
            flags[:] = [_scalar_flags(r)]
        return r
    return run


def _ms_if(cond, then_fn, else_fn, vals, returns=False, mutated=None, names=None):
    """`if` of converted code. On a graph tensor both branches are traced; a branch that raises when traced
    but is not taken now becomes a branch that raises at run time (MindSpore's `raise` in graphs)."""
    if not _traced(cond):
        return then_fn(*vals) if control.graph_bool(cond) else else_fn(*vals)
    control.no_container_changes(mutated)
    control.bool_cond(cond)
    taken_then = bool(B.item(cond._data))
    taken_results, taken_flags = [], []

    def run_taken(*a):
        r = (then_fn if taken_then else else_fn)(*a)
        taken_results.append(r)
        taken_flags.append(_scalar_flags(r))
        return r

    def run_other(*a):
        b = _state.tracing
        saved = getattr(b, "speculative", False)
        b.speculative = True
        try:
            return (else_fn if taken_then else then_fn)(*a)
        except GraphBreak:
            raise
        except Exception as exc:  # noqa: BLE001 -- raised at run time if this branch is ever taken
            if getattr(exc, "compile_time", False):
                raise
            return _raising_branch(b, exc, taken_results[-1] if taken_results else None)
        finally:
            b.speculative = saved
    out = control.if_(cond, run_taken if taken_then else run_other, run_other if taken_then else run_taken, vals,
                      returns, names)
    if taken_flags:
        _pytype_like(out, taken_flags[0])
    return out


def _raising_branch(builder, exc, like):
    from mindseed.ops import functional as F  # noqa: PLC0415
    from mindseed.ops._prims.core import py_call_p  # noqa: PLC0415

    add_user_trace(exc)   # raised when the graph runs: the message names the user's line

    def throw(*_):
        raise exc
    builder.emit(py_call_p, [], {"fn": throw}, [])

    def placeholder(x):
        # the branch's values after the raise never exist; they only match the other branch's structure
        if isinstance(x, Tensor):
            return F.zeros(x.shape, x.dtype)
        if isinstance(x, (tuple, list)):
            return type(x)(placeholder(e) for e in x)
        return x
    return placeholder(like)


def _loop(run, first, body_fn, vals, mutated):
    """A loop of converted code; Python numbers carried by a loop on a graph tensor stay Python scalars."""
    flags = []
    out = run(first, _flagging(body_fn, flags), vals, mutated)
    if _state.tracing is not None and flags:
        _pytype_like(out, flags[0], vals)
    return out


def _ms_while(cond_fn, body_fn, vals, mutated=None):
    """`while` of converted code."""
    return _loop(loops.while_, cond_fn, body_fn, vals, mutated)


def _ms_for_range(bounds, body_fn, vals, mutated=None):
    """`for i in range(...)` of converted code."""
    _check_range(bounds, tensors=True)
    return _loop(loops.for_range, bounds, body_fn, vals, mutated)


_REFUSED = {"try/except": "Try"}    # statements MindSpore's graph parser refuses (PIJit runs them in Python)


def _ms_unsupported(what, users_code=True, bytecode_traces=False):
    """Syntax the graph cannot express: the trace stops here. A statement MindSpore's parser refuses in the user's
    code is its RuntimeError (`refused`), except under jit(capture_mode="bytecode"), where the function runs in the
    interpreter, as the rest of such syntax and library code (`users_code` False) do; or, `bytecode_traces`, is
    traced as it runs there."""
    if _state.tracing is not None:
        if bytecode_traces and _state.tracing.root.bytecode:
            return
        exc = GraphBreak(f"{what} is not supported in graph mode (at {user_location()})")
        if what in _REFUSED and users_code:
            exc.refused = RuntimeError(f"Unsupported statement '{_REFUSED[what]}'.\nMore details please refer to "
                                       f"syntax support at https://www.mindspore.cn (at {user_location()})")
        raise exc


def _ms_undefined_name(name):
    """A name the function never binds (parse.py's check): MindSpore's compile-time NameError in graph mode (PIJit,
    capture_mode="bytecode", and the interpreter raise Python's when the line runs)."""
    if _state.tracing is not None and not _state.tracing.root.bytecode:
        raise NameError(f"The name '{name}' is not defined, or not supported in graph mode.")


def _ms_pass_breaks():
    """At the start of an `except` clause the trace runs: a graph break it caught goes on (the function runs in the
    interpreter, where the clause sees the exceptions it is written for)."""
    exc = sys.exc_info()[1]
    if isinstance(exc, GraphBreak):
        raise exc


def _ms_raise_types(name, caught=False):
    """A `raise` of an exception type a graph cannot raise (`parse.RAISE_TYPES`) is traced: MindSpore's RuntimeError
    when the graph is compiled, whether or not the `raise` would run. PIJit (capture_mode="bytecode") raises any
    type: in the body of a `try` with `except` clauses (`caught`) within its graph, elsewhere breaking the graph."""
    if _state.tracing is not None and not (caught and _state.tracing.root.bytecode):
        from mindseed.compiler.parse import RAISE_TYPES  # noqa: PLC0415 -- parse imports the helpers' names
        exc = RuntimeError(f"Unsupported exception type: {name}. Raise only support some Python standard exception "
                           f"types: {', '.join(RAISE_TYPES)}. (at {user_location()})")
        exc.compile_time = True     # not a run-time raise when traced in a branch not taken now
        exc.bytecode_break = True       # PIJit (capture_mode="bytecode") breaks the graph there instead
        raise exc


def _ms_syntax_error(kind, message):
    """Syntax MindSpore's graph refuses (a comprehension of several generators, a set comprehension): its error."""
    raise {"TypeError": TypeError, "RuntimeError": RuntimeError}[kind](f"{message} (at {user_location()})")


def _ms_in(x, seq):
    """`x in seq`. For a Tensor x in a tuple or list, MindSpore's graph semantics: an element matches when it is x,
    or a Tensor of x's shape whose values all equal x's (a graph result when either is a graph tensor); elements of
    another kind or shape do not match (Python's `==` would raise on multi-element tensors)."""
    if not isinstance(x, Tensor) or not isinstance(seq, (tuple, list)):
        return x in seq
    from mindseed.ops import functional as F  # noqa: PLC0415 -- ops sit below; imported at use
    result = False
    for e in seq:
        if e is x:
            return True
        if not isinstance(e, Tensor) or tuple(e.shape) != tuple(x.shape):
            continue
        same = F.all(F.equal(x, e))
        if not (_traced(same) or _traced(result)):
            if bool(same):
                return True
            continue
        result = same if result is False else F.logical_or(result, same)
    return result


def _ms_not_in(x, seq):
    from mindseed.ops import functional as F  # noqa: PLC0415
    r = _ms_in(x, seq)
    return F.logical_not(r) if isinstance(r, Tensor) else not r


_COMPARE = {"Lt": operator.lt, "LtE": operator.le, "Gt": operator.gt, "GtE": operator.ge, "Eq": operator.eq,
            "NotEq": operator.ne, "Is": operator.is_, "IsNot": operator.is_not,
            "In": _ms_in, "NotIn": _ms_not_in}


_NUMBERS = (int, float, bool)
_ORDER = {"Lt": "lt", "LtE": "le", "Gt": "gt", "GtE": "ge"}


def _runtime(v):
    """A value only known when the graph runs (a tensor, or an array from asnumpy() of one)."""
    return isinstance(v, (Tensor, np.ndarray))


def _ms_order(op, a, b):
    """`a op b`. Two tuples (lists) are ordered as MindSpore's graph compiles it: element by element, each a
    scalar, up to the first pair that differs (a tensor or a nested sequence there is a TypeError), except that
    sequences nesting run-time values (not led by a tensor) run as Python (MindSpore's PyExecute). Two Python
    numbers, one a float, compare as the graph's float32 scalars (`0.1 + 0.2 == 0.3`)."""
    if type(a) in _NUMBERS and type(b) in _NUMBERS and float in (type(a), type(b)):
        return _COMPARE[op](np.float32(a), np.float32(b)).item()
    if op not in _ORDER or type(a) is not type(b) or not isinstance(a, (tuple, list)):
        return _COMPARE[op](a, b)
    led_by_tensor = any(s and _runtime(s[0]) for s in (a, b))
    if not led_by_tensor and any(isinstance(e, (tuple, list)) and any(map(_runtime, e)) for s in (a, b) for e in s):
        return _COMPARE[op](a, b)
    name = f"{'list' if isinstance(a, list) else 'tuple'}_{_ORDER[op]}"
    for x, y in zip(a, b):
        for v in (x, y):
            if _runtime(v):
                raise TypeError(f"For primitive '{name}', the input element must be scalar, but got "
                                f"{type(v).__name__}(shape={list(v.shape)}, dtype={v.dtype}) (at {user_location()}).")
            if isinstance(v, (tuple, list)):
                raise TypeError(f"For op '{name}' input must be [int32, int64, float32, float64, bool], but got {v} "
                                f"(at {user_location()}).")
        if x != y:
            return _COMPARE[op](x, y)
    return _COMPARE[op](len(a), len(b))


def _variable_bound(v):
    return isinstance(v, (Tensor, _Mutable))


def _plain_lookup(d):
    """d looks keys up as a dict does: not a subclass with its own `__getitem__` (mindnlp's and transformers'
    ModelOutput also take an int position) or a `__missing__` (defaultdict)."""
    return type(d).__getitem__ is dict.__getitem__ and not hasattr(type(d), "__missing__")


def _ms_slice(start, stop, step):
    """`seq[start:stop:step]` of converted code: MindSpore's graph takes ints, bools, None or tensors as bounds (a
    slice object made with others is refused when it is used, see `_ms_getitem`)."""
    for b in (start, stop, step):
        if isinstance(b, float):
            raise TypeError("Slice indices must be integers or bool. But got a Float32 number.")
    return slice(start, stop, step)


def _ms_getitem(seq, index):
    """`seq[index]`. A tuple or list indexed by a tensor is read at run time in MindSpore's graph (PyExecute):
    what it gives carries no gradient; sliced with a variable bound it is a dynamic-length sequence. A key missing
    from a dict is MindSpore's ValueError."""
    if isinstance(index, Tensor):
        cells = cells_of(seq)      # a CellList indexed by a tensor: a sequence of its cells, as in MindSpore's graph
        if cells is not None:
            seq = tuple(cells)
        if isinstance(seq, (tuple, list)) and seq and _traced(index) and all(callable(c) for c in seq):
            return Switch(seq, index)     # picked at run time: MindSpore's switch_layer
    if isinstance(seq, dict) and isinstance(index, tuple):
        index = dict_key(index)
    if isinstance(seq, dict) and _plain_lookup(seq) and not isinstance(index, Tensor) and index not in seq:
        shown = "ValueAny" if any(isinstance(v, Tensor) for v in seq.values()) else seq
        raise ValueError(f"The key {index} does not exist in the dict:{shown}")
    if isinstance(seq, (tuple, list)) and not seq and _variable_bound(index):
        raise ValueError(f"cannot get item by index from an empty sequence (at {user_location()}).")
    if isinstance(seq, (str, tuple, list)) and isinstance(index, slice):
        for attr in ("start", "stop", "step"):
            b = getattr(index, attr)
            if b is not None and not isinstance(b, (int, Tensor, _Mutable)):
                raise RuntimeError(f"Attribute '{attr}' of {index} should be int or Tensor with Int type but got "
                                   f"{b}")
    if isinstance(seq, (tuple, list)) and isinstance(index, int) and not isinstance(index, (bool, _Mutable)) and \
            not -len(seq) <= index < len(seq):
        what = "TupleGetItem" if isinstance(seq, tuple) else "list_getitem"
        raise IndexError(f"{what} evaluator index should be in range[{-len(seq)}, {len(seq)}), but got {index}.")
    if isinstance(seq, (tuple, list)) and isinstance(index, slice) and not isinstance(seq, DynamicSequence) and \
            any(_variable_bound(b) for b in (index.start, index.stop, index.step)):
        bounds = (int(b.reshape(()).item()) if isinstance(b, Tensor) else b
                  for b in (index.start, index.stop, index.step))
        return dynamic_sequence(seq[slice(*bounds)])
    if isinstance(index, Tensor) and isinstance(seq, (tuple, list)) and index.ndim == 0 and \
            not -len(seq) <= operator.index(index) < len(seq):
        # MindSpore's switch_layer (a tuple of cells or functions indexed by a tensor) checks the value it runs with
        raise IndexError(f"Given index {operator.index(index)} out of range. Please make sure the value of index in "
                         f"[{-len(seq)}, {len(seq)}), and the type is {str(index.dtype).lower()}.")
    out = seq[index]
    if isinstance(index, Tensor) and isinstance(seq, (tuple, list)):
        from mindseed.ops._prims.core import stop_gradient_p  # noqa: PLC0415 -- ops sit below; imported at use
        return _map_tensors(stop_gradient_p, out)
    return out


def _ms_setitem(obj, index, value):
    """`name[index] = value` of converted code, which rebinds `name` to the result. A Tensor's item assignment in
    MindSpore's graph makes a new tensor: the tensor it was read from (a cell's constant attribute, another name
    for it) keeps its value. A Parameter's is its update in place; any other object's (a list, a dict) in place."""
    if isinstance(obj, Tensor) and not isinstance(obj, Parameter):
        obj = obj.copy()
    if isinstance(obj, list) and _state.tracing is not None:
        return list_setitem(obj, index, value)
    obj[index] = value
    return obj


def _map_tensors(fn, obj):
    """obj with fn applied to the tensors in it (through tuples and lists)."""
    if isinstance(obj, Tensor):
        return fn(obj)
    if type(obj) in (tuple, list):
        return type(obj)(_map_tensors(fn, o) for o in obj)
    return obj


def _ms_chain(ops, left, *rights):
    """`left op0 r0 op1 r1 ...` (each right operand a thunk): Python's chained comparison, whose implicit `and`
    is a graph operation when a comparison gives a graph tensor."""
    result = None
    for op, right_fn in zip(ops, rights):
        right = right_fn()
        r = _ms_order(op, left, right)
        result = r if result is None else control.and_select(result, lambda r=r: r)
        if not _traced(result) and not result:
            return result
        left = right
    return result


def _ms_seq(it):
    """The sequence a `for` with break/continue walks by index: a tensor stays a tensor (rows read by index)."""
    if isinstance(it, Tensor) and it.ndim > 0:
        return it
    return as_sequence(it)


def _ms_item(seq, i):
    """seq[i] for the loop index i, which is a graph value once the loop is a graph loop: a tensor's row, a
    range's element, or the i-th of a list of same-structured items (their leaves stacked, then gathered)."""
    if not _traced(i):
        return seq[i]
    from mindseed.ops import functional as F  # noqa: PLC0415
    if isinstance(seq, Tensor):
        return F.gather(seq, i, 0)
    if isinstance(seq, range):
        return _state.tracing.mark_scalar(i * seq.step + seq.start, int)
    items = list(seq)
    tmpls, columns = None, None
    for it in items:
        leaves = []
        tm = loops._leaves_of(it, leaves)
        if tmpls is None:
            tmpls, columns = tm, [[] for _ in leaves]
        if tm != tmpls:
            raise GraphBreak(f"the items of a sequence indexed by a loop counter of the graph differ in structure "
                             f"(at {user_location()})")
        for col, leaf in zip(columns, leaves):
            col.append(leaf)
    picked = []
    for col in columns:
        if all(isinstance(v, Tensor) for v in col):
            if any(v.shape != col[0].shape or v.dtype != col[0].dtype for v in col):
                raise GraphBreak(f"the tensors of a sequence indexed by a loop counter of the graph differ in shape "
                                 f"(at {user_location()})")
            picked.append(F.gather(F.stack(col), i, 0))
        elif all(isinstance(v, (bool, int, float)) and not isinstance(v, Tensor) for v in col):
            kind = bool if all(isinstance(v, bool) for v in col) else \
                int if all(isinstance(v, int) for v in col) else float
            table = Tensor(col, mstype.bool_ if kind is bool else mstype.int64 if kind is int else mstype.float32)
            picked.append(_state.tracing.mark_scalar(F.gather(table, i, 0), kind))
        else:
            raise GraphBreak(f"a sequence indexed by a loop counter of the graph holds values that are not tensors "
                             f"or numbers (at {user_location()})")
    return loops._rebuild(tmpls, iter(picked))


HELPERS = {
    "__ms_raise_types": _ms_raise_types,
    "__ms_and": control.and_, "__ms_or": control.or_,
    "__ms_and_flag": control.and_select, "__ms_or_flag": control.or_select,
    "__ms_not": control.not_, "__ms_ifexp": control.ifexp,
    "__ms_UNDEF": control.UNDEF, "__ms_RETVAL": control.RETVAL, "__ms_ld": load, "__ms_len": _ms_len,
    "__ms_ldr": load_after_return,
    "__ms_if": _ms_if, "__ms_while": _ms_while, "__ms_for_range": _ms_for_range, "__ms_seq": _ms_seq,
    "__ms_item": _ms_item, "__ms_assert": _ms_assert, "__ms_bool": _ms_bool, "__ms_int": _ms_int,
    "__ms_float": _ms_float, "__ms_any": _ms_any, "__ms_all": _ms_all, "__ms_min": _ms_min, "__ms_max": _ms_max,
    "__ms_zip": _ms_zip, "__ms_setattr": _ms_setattr, "__ms_in": _ms_in, "__ms_not_in": _ms_not_in,
    "__ms_print": _ms_print, "__ms_fstring": _ms_fstring, "__ms_unsupported": _ms_unsupported,
    "__ms_pass_breaks": _ms_pass_breaks, "__ms_undefined_name": _ms_undefined_name,
    "__ms_chain": _ms_chain, "__ms_order": _ms_order, "__ms_dict": ms_dict, "__ms_method": ms_method,
    "__ms_shift": ms_shift, "__ms_arith": ms_arith,
    "__ms_map": _ms_map, "__ms_enumerate": _ms_enumerate, "__ms_isinstance": _ms_isinstance, "__ms_range": _ms_range,
    "__ms_syntax_error": _ms_syntax_error, "__ms_member_item": ms_member_item,
    "__ms_tuple": _converting(tuple), "__ms_list": _converting(list),
    "__ms_getitem": _ms_getitem, "__ms_slice": _ms_slice, "__ms_setitem": _ms_setitem,
    "__ms_setitem_attr": ms_setitem_attr,
    "__ms_unpack": _ms_unpack, "__ms_augassign": ms_augassign,
}
