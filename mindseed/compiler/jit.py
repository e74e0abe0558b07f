"""`jit`: compile a function or Cell.construct into generated code, cached by input signature."""
import functools
import os
import sys
import warnings

import numpy as np

from mindseed import _backend as B
from mindseed._backend import inductor as _inductor
from mindseed._utils import _state
from mindseed.common import dtype as mstype
from mindseed.common.context import STRICT, get_context
from mindseed.common.tensor import Tensor
from mindseed.compiler import codegen, passes
from mindseed.compiler.ir import Const, Graph, Sym, Var, print_graph, verify
from mindseed.compiler.parse import convert
from mindseed.compiler.trace import (GraphBreak, GraphBuilder, _is_user, add_user_trace, building, tentative,
                                     user_frame)

__all__ = ["jit", "mutable", "jit_class", "JitConfig"]


class _Mutable:
    """Marks a non-tensor argument as a run-time value (not part of the compile-cache key)."""
    __slots__ = ()


def mutable(input_data, dynamic_len=False):
    """Mark `input_data` (a Tensor, an int or float, or a tuple/list/dict of Tensors) as variable: it does not key
    the compile cache. A mutable int or float is a scalar input of the graph (int64 / float32; results computed
    from it come back as Python numbers), so calls with other values reuse the compiled graph."""
    if isinstance(input_data, Tensor):
        return input_data
    if isinstance(input_data, (tuple, list, dict)):
        cls = {tuple: _MutableTuple, list: _MutableList, dict: _MutableDict}[type(input_data)]
        return cls(input_data)
    if isinstance(input_data, int) and not isinstance(input_data, bool):
        return _MutableInt(input_data)
    if isinstance(input_data, float):
        return _MutableFloat(input_data)
    raise TypeError(f"For 'mutable', the 'input_data' must be a Tensor, an int or float scalar, or a tuple, list or "
                    f"dict of Tensors, but got {type(input_data).__name__}.")


class _MutableTuple(tuple, _Mutable):
    pass


class _MutableList(list, _Mutable):
    pass


class _MutableDict(dict, _Mutable):
    pass


class _MutableInt(int, _Mutable):
    __slots__ = ()


class _MutableFloat(float, _Mutable):
    __slots__ = ()


_PLAIN = {_MutableTuple: tuple, _MutableList: list}


class _Identity:
    """Cache-key part for an unhashable argument: the object itself, compared by identity and kept alive by the
    key (an id alone could be reused by a later object and find this object's graph)."""
    __slots__ = ("obj",)

    def __init__(self, obj):
        self.obj = obj

    def __hash__(self):
        return id(self.obj)

    def __eq__(self, other):
        return isinstance(other, _Identity) and other.obj is self.obj


class _ScalarLeaf(Tensor):
    """The graph input standing for a mutable scalar argument (marked a Python scalar of the graph)."""
    __slots__ = ()

    def __init__(self, value):
        super().__init__(value, mstype.float32 if isinstance(value, float) else mstype.int64)


def jit_class(cls):
    """Mark a class whose instances may be used inside compiled functions (attributes read as constants)."""
    if not isinstance(cls, type):
        raise TypeError(f"For 'jit_class', the argument must be a class, but got {type(cls).__name__}.")
    cls.__ms_class__ = True
    return cls


class JitConfig:
    """Options of `jit` (jit_level 'O0' default, 'O1' hands fusable regions to torch's inductor)."""

    def __init__(self, jit_level="O0", exc_mode="auto", jit_syntax_level="", debug_level="RELEASE", **kwargs):
        self.jit_level, self.exc_mode, self.jit_syntax_level = jit_level, exc_mode, jit_syntax_level
        self.jit_config_dict = dict(jit_level=jit_level, exc_mode=exc_mode, **kwargs)


# ---------------------------------------------------------------- pytrees of arguments and results
def _flatten(obj, leaves):
    """Structure template of obj with tensors replaced by their index in `leaves`."""
    if isinstance(obj, Tensor):
        leaves.append(obj)
        return ("T", len(leaves) - 1)
    if isinstance(obj, (_MutableInt, _MutableFloat)):
        leaves.append(_ScalarLeaf(obj))
        return ("T", len(leaves) - 1)
    if isinstance(obj, (tuple, list)):
        # a mutable tuple/list is a plain one to the function (`type(t) == tuple` holds in the graph)
        return (_PLAIN.get(type(obj), type(obj)), tuple(_flatten(o, leaves) for o in obj))
    if isinstance(obj, dict):
        return (dict, tuple((k, _flatten(v, leaves)) for k, v in obj.items()))
    return ("C", obj)


def _unflatten(tmpl, leaves):
    tag = tmpl[0]
    if tag == "T":
        return leaves[tmpl[1]]
    if tag == "C":
        return tmpl[1]
    if tag is dict:
        return {k: _unflatten(v, leaves) for k, v in tmpl[1]}
    items = [_unflatten(t, leaves) for t in tmpl[1]]
    if tag in (tuple, list):
        return tag(items)
    try:
        return tag(*items)  # namedtuple
    except TypeError:
        return tag(items)


def _plain_constants(tmpl):
    """The result template with numpy scalars as Python numbers (a graph gives back bool/int/float, as
    MindSpore's does); the same object when there are none."""
    tag = tmpl[0]
    if tag == "C":
        return ("C", tmpl[1].item()) if isinstance(tmpl[1], np.generic) else tmpl
    if tag == "T":
        return tmpl
    if tag is dict:
        items = tuple((k, _plain_constants(v)) for k, v in tmpl[1])
        changed = any(a is not b for (_, a), (_, b) in zip(items, tmpl[1]))
    else:
        items = tuple(_plain_constants(t) for t in tmpl[1])
        changed = any(a is not b for a, b in zip(items, tmpl[1]))
    return (tag, items) if changed else tmpl


def _key_of(obj):
    """Hashable compile-cache key: tensors by (shape, dtype), mutable containers by structure, others by value."""
    if isinstance(obj, Tensor):
        return ("T", obj.shape, obj.dtype.name)
    if isinstance(obj, _Mutable):
        if isinstance(obj, (_MutableInt, _MutableFloat)):
            return ("M", type(obj).__name__)
        if isinstance(obj, dict):
            return ("M", dict, tuple((k, _key_of(v)) for k, v in obj.items()))
        return ("M", _PLAIN[type(obj)], tuple(_key_of(v) for v in obj))
    if isinstance(obj, (tuple, list)):
        return (type(obj).__name__, tuple(_key_of(o) for o in obj))
    if isinstance(obj, dict):
        return ("d", tuple((k, _key_of(v)) for k, v in obj.items()))
    if isinstance(obj, np.ndarray):
        # a constant of the graph: keyed by value (the same array changed in place, or a new one, recompiles)
        return ("A", obj.dtype.str, obj.shape, obj.tobytes())
    try:
        hash(obj)
        return ("C", type(obj).__name__, obj)
    except TypeError:
        return ("I", _Identity(obj))


# ---------------------------------------------------------------- dynamic shapes
_RANK = "rank"     # the signature of a dynamic-rank placeholder: any rank, every dim dynamic


def _dynamic_sig(s):
    return s == _RANK or s is not None and None in s


def _signature_of(placeholders):
    """Per-argument shapes with None for dynamic dims, from Tensor(shape=[None, 3]) placeholders (_RANK for
    Tensor(shape=None / [-2], dtype=...))."""
    sig = []
    for p in placeholders:
        if isinstance(p, Tensor) and B.is_meta(p._data) and B.ndim(p._data) == 0:
            sig.append(_RANK)
        elif isinstance(p, Tensor):
            # a placeholder's unknown dims are stored as 0 (it holds no data)
            sig.append(tuple(None if d == 0 else d for d in p.shape))
        else:
            sig.append(None)
    return tuple(sig)


def _dyn_key(obj, dyn):
    """Cache key with the dynamic dims left out (`dyn`: "all", or per-argument shapes with None)."""
    args, kwargs = obj
    parts = []
    for k, a in enumerate(args):
        if not isinstance(a, Tensor):
            parts.append(_key_of(a))
            continue
        sig = None if dyn == "all" else (dyn[k] if k < len(dyn) else None)
        if dyn == "all" or sig == _RANK:
            parts.append(("T", len(a.shape), a.dtype.name))
        elif sig is None:
            parts.append(_key_of(a))
        else:
            if len(sig) != len(a.shape) or any(s is not None and s != d for s, d in zip(sig, a.shape)):
                raise ValueError(f"For 'set_inputs', the input {k} of shape {a.shape} does not match the dynamic "
                                 f"shape {list(sig)} it was declared with.")
            parts.append(("T", tuple(None if s is None else d for s, d in zip(sig, a.shape)), a.dtype.name))
    return (tuple(parts), _key_of(kwargs))


_RUNTIME_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "runtime.py")


def _dim_cmp(op):
    def f(self, other):
        self._decided()
        return getattr(int, op)(self, other)
    return f


def _dim_arith(op):
    def f(self, *other):
        r = getattr(int, op)(self, *other)
        return _DimInt(r) if type(r) is int else r
    return f


class _DimInt(int):
    """A dynamic dim of a traced input (`x.shape[0]` under set_inputs / dynamic=1). Arithmetic on it stays one;
    comparing it in the user's code (`2.0 if x.shape[0] < 5 else 3.0`, `min(n - 1, 3)`) is a decision on the size
    that a graph generalized over sizes cannot repeat, so the trace is marked and compiles per size."""
    __slots__ = ()

    def _decided(self):
        # the user's code, or the compiler's helpers running the user's operations (a chained comparison, a
        # converted builtin); not a layer's argument check
        b = _state.tracing
        if b is not None:
            fn = sys._getframe(2).f_code.co_filename
            if _is_user(fn) or fn == _RUNTIME_FILE:
                b.root.size_decisions = True

    __lt__, __le__, __gt__ = _dim_cmp("__lt__"), _dim_cmp("__le__"), _dim_cmp("__gt__")
    __ge__, __eq__, __ne__ = _dim_cmp("__ge__"), _dim_cmp("__eq__"), _dim_cmp("__ne__")
    __add__, __radd__, __sub__, __rsub__ = (_dim_arith("__add__"), _dim_arith("__radd__"), _dim_arith("__sub__"),
                                            _dim_arith("__rsub__"))
    __mul__, __rmul__, __floordiv__, __rfloordiv__ = (_dim_arith("__mul__"), _dim_arith("__rmul__"),
                                                      _dim_arith("__floordiv__"), _dim_arith("__rfloordiv__"))
    __mod__, __rmod__, __neg__, __abs__ = (_dim_arith("__mod__"), _dim_arith("__rmod__"), _dim_arith("__neg__"),
                                           _dim_arith("__abs__"))
    __hash__ = int.__hash__

    def __bool__(self):
        self._decided()
        return int(self) != 0

    def __repr__(self):
        return int.__repr__(self)

    __str__ = __repr__


class _DynInput(Tensor):
    """A traced input with dynamic dims: its shape gives them as _DimInt."""
    __slots__ = ("_dyn_dims",)

    @property
    def shape(self):
        return tuple(_DimInt(d) if i in self._dyn_dims else d for i, d in enumerate(B.shape_of(self._data)))

    def __len__(self):
        n = B.shape_of(self._data)[0]
        return _DimInt(n) if 0 in self._dyn_dims else n


def _repeats(leaves):
    """None, or for a call passing one tensor at several places, the index of each leaf's first occurrence
    (part of the cache key: the graph for f(x, x) has one input where f(x, y) has two)."""
    if len(leaves) < 2:
        return None
    ids = [id(t) for t in leaves]
    if len(set(ids)) == len(ids):
        return None
    first = {}
    return tuple(first.setdefault(i, k) for k, i in enumerate(ids))


class _NoFit(Exception):
    pass


def _fit(a, b, cands):
    """The value standing for a (first sample) and b (second sample): itself if equal, a Sym `x * dim + y` if
    an int that follows a dynamic dim linearly; _NoFit otherwise."""
    if isinstance(a, bool) or isinstance(b, bool) or a is None or b is None:
        if a is b or a == b:
            return b
        raise _NoFit
    if isinstance(a, int) and isinstance(b, int):
        if a == b:
            return b
        fits = [(k, (b - a) // (n2 - n1)) for k, (_, _, n1, n2) in enumerate(cands) if (b - a) % (n2 - n1) == 0]
        if len(fits) != 1:
            raise _NoFit       # none, or dims that moved alike in these samples: which one it follows is unknown
        k, slope = fits[0]
        return Sym(k, slope, a - slope * cands[k][2])
    if isinstance(a, (tuple, list)) and type(a) is type(b) and len(a) == len(b):
        return type(b)(_fit(x, y, cands) for x, y in zip(a, b))
    if isinstance(a, slice) and isinstance(b, slice):
        return slice(*(_fit(x, y, cands) for x, y in ((a.start, b.start), (a.stop, b.stop), (a.step, b.step))))
    if a is b:
        return b
    if hasattr(a, "shape") and hasattr(b, "shape") and not isinstance(a, (int, float)):
        import numpy as np  # noqa: PLC0415 -- compile time only
        if tuple(a.shape) == tuple(b.shape) and np.array_equal(B.to_numpy(a), B.to_numpy(b)):
            return b
        raise _NoFit
    if isinstance(a, float) and isinstance(b, float):
        if a == b or a != a and b != b:
            return b
        if len(cands) != 1:
            raise _NoFit
        for k, (_, _, n1, n2) in enumerate(cands):
            if abs(a * n1 - b * n2) <= 1e-9 * abs(a * n1):
                return Sym(k, a * n1, 0.0, "inv")      # c / d: a mean's 1/n
            slope = (b - a) / (n2 - n1)
            return Sym(k, slope, a - slope * n1)       # c * d + e
        raise _NoFit
    if type(a) is type(b) and not isinstance(a, float) and not callable(a):
        try:
            if a == b:
                return b
        except Exception:  # noqa: BLE001 -- incomparable: treat as different
            pass
    if callable(a) and callable(b) and getattr(a, "__code__", None) is getattr(b, "__code__", 0):
        return b   # e.g. an opaque step's closure: same code, its own captured values
    raise _NoFit


def _unify(g1, g2, vm, cands, subs):
    if (len(g1.params), len(g1.nodes), len(g1.outputs)) != (len(g2.params), len(g2.nodes), len(g2.outputs)):
        raise _NoFit
    for a, b in zip(g1.params, g2.params):
        vm[a.id] = b.id
        _widen(a, b)
    for n1, n2 in zip(g1.nodes, g2.nodes):
        if n1.prim is not n2.prim or len(n1.inputs) != len(n2.inputs) or n1.attrs.keys() != n2.attrs.keys() \
                or len(n1.outputs) != len(n2.outputs):
            raise _NoFit
        ins = []
        for x, y in zip(n1.inputs, n2.inputs):
            if isinstance(x, Var) or isinstance(y, Var):
                if not (isinstance(x, Var) and isinstance(y, Var)) or vm.get(x.id) != y.id:
                    raise _NoFit
                ins.append(y)
            else:
                v = _fit(x.value, y.value, cands)
                ins.append(y if v is y.value else Const(v))
        attrs = {}
        for k, a in n1.attrs.items():
            b = n2.attrs[k]
            if isinstance(a, Graph):
                if not isinstance(b, Graph):
                    raise _NoFit
                _unify(a, b, vm, cands, subs)
                attrs[k] = b
            else:
                attrs[k] = _fit(a, b, cands)
        subs.append((n2, ins, attrs))
        for o1, o2 in zip(n1.outputs, n2.outputs):
            vm[o1.id] = o2.id
            _widen(o1, o2)
    outs = []
    for x, y in zip(g1.outputs, g2.outputs):
        if isinstance(x, Var) != isinstance(y, Var) or isinstance(x, Var) and vm.get(x.id) != y.id:
            raise _NoFit
        outs.append(y if isinstance(y, Var) else Const(_fit(x.value, y.value, cands)))
    subs.append((g2, outs, None))


def _widen(a, b):
    if a.shape is not None and b.shape is not None and len(a.shape) == len(b.shape):
        b.shape = tuple(p if p == q else None for p, q in zip(a.shape, b.shape))


def _generalize(e1, shapes1, e2, shapes2):
    """One entry valid for every size of the dynamic dims, from two traced samples; None if they differ in
    more than size-dependent numbers."""
    if len(shapes1) != len(shapes2) or e1.out_tmpl != e2.out_tmpl or e1.out_types != e2.out_types \
            or e1.in_keep != e2.in_keep or len(e1.captured) != len(e2.captured) \
            or any(a is not b for (a, _), (b, _) in zip(e1.captured, e2.captured)):
        return None
    cands = [(i, j, s1[j], s2[j]) for i, (s1, s2) in enumerate(zip(shapes1, shapes2)) if len(s1) == len(s2)
             for j in range(len(s1)) if s1[j] != s2[j]]
    if not cands:
        return None
    subs = []
    try:
        _unify(e1.graph, e2.graph, {}, cands, subs)
    except _NoFit:
        return None
    for node, ins, attrs in subs:
        if attrs is None:
            node.outputs = ins          # a graph's outputs
        else:
            node.inputs, node.attrs = ins, attrs
    entry = _Entry()
    entry.captured, entry.out_tmpl, entry.out_types, entry.in_keep = e2.captured, e2.out_tmpl, e2.out_types, \
        e2.in_keep
    entry.graph = e2.graph
    entry.source, entry.run_fn = codegen.generate(e2.graph, "graph_fn", dynamic=True)
    entry.dims = [(i, j) for i, j, _, _ in cands]
    varied = set(entry.dims)
    entry.fixed = [(i, j, n) for i, s in enumerate(shapes2) for j, n in enumerate(s) if (i, j) not in varied]
    return entry


def _sym_value(v, dims):
    """v with each Sym evaluated at the dynamic dims `dims`."""
    if isinstance(v, Sym):
        d = dims[v.k]
        return v.a / d if v.kind == "inv" else v.a * d + v.b
    if isinstance(v, (tuple, list)):
        return type(v)(_sym_value(x, dims) for x in v)
    if isinstance(v, slice):
        return slice(_sym_value(v.start, dims), _sym_value(v.stop, dims), _sym_value(v.step, dims))
    return v


def _close(a, b):
    """Does the general graph's value `a` (evaluated) equal the traced value `b`?"""
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool) \
            and not isinstance(b, bool):
        if isinstance(a, int) and isinstance(b, int):
            return a == b
        return a == b or abs(a - b) <= 1e-9 * max(abs(a), abs(b)) or (a != a and b != b)
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return type(a) is type(b) and len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    if isinstance(a, slice) and isinstance(b, slice):
        return all(_close(x, y) for x, y in ((a.start, b.start), (a.stop, b.stop), (a.step, b.step)))
    try:
        _fit(a, b, [])
        return True
    except _NoFit:
        return False


def _agrees(g, g3, dims, vm):
    """Does the generalized graph `g`, at the dims of a third traced sample, compute what that sample's graph
    `g3` computes? (Checks the fitted size formulas: a non-linear one, `n // 2`, fits any two sizes.)"""
    if (len(g.params), len(g.nodes), len(g.outputs)) != (len(g3.params), len(g3.nodes), len(g3.outputs)):
        return False
    for a, b in zip(g.params, g3.params):
        vm[a.id] = b.id
    for n1, n2 in zip(g.nodes, g3.nodes):
        if n1.prim is not n2.prim or len(n1.inputs) != len(n2.inputs) or n1.attrs.keys() != n2.attrs.keys() \
                or len(n1.outputs) != len(n2.outputs):
            return False
        for x, y in zip(n1.inputs, n2.inputs):
            if isinstance(x, Var) != isinstance(y, Var):
                return False
            if isinstance(x, Var) and vm.get(x.id) != y.id or \
                    not isinstance(x, Var) and not _close(_sym_value(x.value, dims), y.value):
                return False
        for k, a in n1.attrs.items():
            b = n2.attrs[k]
            if isinstance(a, Graph) != isinstance(b, Graph):
                return False
            if isinstance(a, Graph) and not _agrees(a, b, dims, vm) or \
                    not isinstance(a, Graph) and not _close(_sym_value(a, dims), b):
                return False
        for o1, o2 in zip(n1.outputs, n2.outputs):
            vm[o1.id] = o2.id
    for x, y in zip(g.outputs, g3.outputs):
        if isinstance(x, Var) != isinstance(y, Var) or isinstance(x, Var) and vm.get(x.id) != y.id or \
                not isinstance(x, Var) and not _close(_sym_value(x.value, dims), y.value):
            return False
    return True


class _Entry:
    __slots__ = ("run_fn", "captured", "out_tmpl", "source", "graph", "n_inputs", "out_types", "in_keep", "samples",
                 "general", "dims", "fixed", "verified", "decided")

    def __init__(self):
        self.general = None
        self.samples = None
        self.verified = False
        self.decided = False      # the Python code compared a dynamic dim: this graph holds for its sizes only

    def fits(self, leaves):
        """Do these inputs have the sizes of the generalized samples in every dim that did not vary?"""
        for i, j, n in self.fixed:
            if leaves[i].shape[j] != n:
                return False
        return True


class _Compiled:
    """A jitted function: converts, traces, optimizes and generates code once per input signature."""

    def __init__(self, fn, name, jit_level=None, bound_self=None, dyn=None, fullgraph=None):
        self.fullgraph = fullgraph    # True: no interpreter fallback; None: the context's jit_syntax_level
        self.dyn = dyn                # None (static shapes), "all" (dynamic=1) or per-argument shapes with None
        self.traces = 0               # how many times the function was traced (compile count)
        self.fn = fn                  # the plain function (unbound for methods)
        self.name = name
        self.jit_level = jit_level
        self.bound_self = bound_self  # the instance for a method or Cell.construct
        self.cache = {}
        # the cells whose training flags are part of the cache key: the bound cell and every cell the traced
        # code called; `_modes` caches (train epoch, key part)
        self.mode_cells = {id(bound_self): bound_self} if hasattr(bound_self, "_modes") else {}
        self._modes = (None, ())
        self._converted = None
        functools.update_wrapper(self, fn)

    def mode_key(self):
        """The training flags of the cells this function calls (a graph traced in training mode has dropout and
        batch statistics in it; after set_train(False) another graph is compiled, and kept)."""
        epoch = _state.train_epoch
        if self._modes[0] != epoch:
            self._modes = (epoch, tuple(c._modes() for c in self.mode_cells.values()))
        return self._modes[1]

    def note_cells(self, builder):
        """Record the cells a trace called (the key of the entry being stored uses them)."""
        if any(k not in self.mode_cells for k in builder.cells):
            self.mode_cells.update(builder.cells)
            self._modes = (None, ())

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        bound = self.__dict__.setdefault("_bound", {})
        c = bound.get(id(obj))
        if c is None:
            c = bound[id(obj)] = _Compiled(self.fn, self.name, self.jit_level, bound_self=obj, dyn=self.dyn,
                                           fullgraph=self.fullgraph)
        return c

    def _target(self):
        if self._converted is None:
            converted = convert(self.fn)
            if self.bound_self is not None:
                converted = functools.partial(converted, self.bound_self)
            self._converted = converted
        return self._converted

    def __call__(self, *args, **kwargs):
        if _state.tracing is not None:
            # inside another graph: inline (the enclosing trace records our ops)
            return self._target()(*args, **kwargs)
        if any(not getattr(t, "records_all", False) for t in _state.tapes):
            # differentiated from outside: compiled forward + compiled backward graphs (autodiff.py)
            from mindseed.compiler.autodiff import call_differentiated  # noqa: PLC0415 -- autodiff imports jit
            return call_differentiated(self, args, kwargs)
        if self.dyn is not None:
            return self._call_dynamic(args, kwargs)
        leaves = []
        _flatten((args, kwargs), leaves)
        key = (_key_of((args, kwargs)), _repeats(leaves))
        entry = self.cache.get((key, self.mode_key()))
        if entry is None:
            entry, result = self._compile(args, kwargs)
            self.cache[(key, self.mode_key())] = entry
            return result
        if entry.run_fn is None:
            return self._target()(*args, **kwargs)
        return self._run(entry, leaves)

    def _call_dynamic(self, args, kwargs):
        """Dynamic shapes: one cache entry per signature with the dynamic dims unknown. The first call traces;
        a call with other sizes traces once more and the two graphs are unified into one graph whose
        size-dependent values (reshape targets, Python shape arithmetic) are computed from the input dims at
        run time. The fitted formulas are checked against a third traced size (a non-linear one such as `n // 2`
        fits any two sizes); once they agree, every later size runs that graph without compiling. Graphs that do
        not unify or agree (structure or numbers depend on the sizes otherwise) compile per size."""
        leaves = []
        _flatten((args, kwargs), leaves)
        key = (_dyn_key((args, kwargs), self.dyn), _repeats(leaves))
        entry = self.cache.get((key, self.mode_key()))
        if entry is None:
            entry, result = self._compile(args, kwargs)
            entry.samples = {tuple(t.shape for t in leaves): entry}
            self.cache[(key, self.mode_key())] = entry
            return result
        general = entry.general
        if general is not None and general.verified and general.fits(leaves):
            return self._run(general, leaves, tuple(leaves[i].shape[j] for i, j in general.dims))
        shapes = tuple(t.shape for t in leaves)
        sub = entry.samples.get(shapes)
        if sub is not None:
            return self._run(sub, leaves) if sub.run_fn is not None else self._target()(*args, **kwargs)
        sub, result = self._compile(args, kwargs)
        entry.samples[shapes] = sub
        if entry.run_fn is None or sub.run_fn is None or entry.decided or sub.decided:
            entry.general = None
        elif general is None and len(entry.samples) <= 4:
            # from the first sample and this one (a later pair may tell apart dims an earlier one could not)
            first_shapes = next(iter(entry.samples))
            entry.general = _generalize(entry, first_shapes, sub, shapes)
        elif general is not None and not general.verified and general.fits(leaves):
            dims = tuple(leaves[i].shape[j] for i, j in general.dims)
            same_meta = sub.out_tmpl == general.out_tmpl and sub.out_types == general.out_types and \
                sub.in_keep == general.in_keep and len(sub.captured) == len(general.captured) and \
                all(a is b for (a, _), (b, _) in zip(sub.captured, general.captured))
            if same_meta and _agrees(general.graph, sub.graph, dims, {}):
                general.verified = True
            else:
                entry.general = None     # the sizes' formulas are not the fitted ones: compile per size
        return result

    def _dyn_dims_of(self, args, leaves):
        """{leaf index: the dynamic dims of that input tensor} under set_inputs / dynamic=1."""
        if self.dyn is None:
            return {}
        out, k = {}, 0
        for i, a in enumerate(args):
            n = []
            _flatten(a, n)
            if isinstance(a, Tensor) and len(n) == 1 and n[0] is a:
                if self.dyn == "all" or i < len(self.dyn) and self.dyn[i] == _RANK:
                    out[k] = frozenset(range(len(a.shape)))
                elif i < len(self.dyn) and self.dyn[i] is not None:
                    out[k] = frozenset(j for j, d in enumerate(self.dyn[i]) if d is None)
            k += len(n)
        return out

    def _run(self, entry, leaves, dims=None):
        if entry.run_fn is None:
            raise RuntimeError("internal: no compiled graph")
        if entry.in_keep is None:
            raw = [t._data for t in leaves]
        else:
            raw = [leaves[i]._data for i in entry.in_keep]
        raw += [t._data for t, _ in entry.captured]
        outs = entry.run_fn(*raw) if dims is None else entry.run_fn(*raw, _d=dims)
        if entry.out_types is None:
            return _unflatten(entry.out_tmpl, [Tensor._from_raw(o) for o in outs])
        return _unflatten(entry.out_tmpl, [Tensor._from_raw(o) if ty is None else ty(o.item())
                                           for o, ty in zip(outs, entry.out_types)])

    def _compile(self, args, kwargs):
        self.traces += 1
        entry = _Entry()
        target = self._target()
        builder = GraphBuilder(self.name)
        leaves = []
        tmpl = _flatten((args, kwargs), leaves)
        # one graph input per distinct tensor: a tensor passed twice (f(x, x)) is one value, as in PyNative,
        # where a gradient w.r.t. it sums over its uses
        inputs, firsts, seen = [], [], {}
        dyn_dims = self._dyn_dims_of(args, leaves)
        builder.size_decisions = False
        for i, leaf in enumerate(leaves):
            t = seen.get(id(leaf))
            if t is None:
                if dyn_dims.get(i):
                    t = object.__new__(_DynInput)
                    t._data, t._dyn_dims = leaf._data, dyn_dims[i]
                else:
                    t = Tensor._from_raw(leaf._data)
                seen[id(leaf)] = t
                firsts.append(i)
                builder.add_input(t)
                if isinstance(leaf, _ScalarLeaf):
                    builder.mark_scalar(t)
            inputs.append(t)
        targs, tkwargs = _unflatten(tmpl, inputs)
        try:
            with building(builder), tentative():
                result = target(*targs, **tkwargs)
        except GraphBreak as exc:
            self.fall_back(exc, f"'{self.name}'")
            entry.run_fn, entry.captured, entry.out_tmpl, entry.source, entry.graph = None, [], None, None, None
            entry.out_types = None
            return entry, self._target()(*args, **kwargs)
        except Exception as exc:
            # name the user's line (MindSpore: "The Traceback of Net Construct Code"), in the traceback text
            where = user_frame(exc)
            if where is not None and hasattr(exc, "add_note") and not getattr(exc, "__notes__", None):
                exc.add_note(f"In file {where[0]}:{where[1]} (compiling '{self.name}' in graph mode)")
            add_user_trace(exc)     # and in the message itself
            raise
        finally:
            self.note_cells(builder)
        entry.decided = builder.size_decisions
        out_leaves = []
        entry.out_tmpl = _flatten(result, out_leaves)
        plain = _plain_constants(entry.out_tmpl)
        if plain is not entry.out_tmpl:
            entry.out_tmpl = plain
            result = _unflatten(plain, out_leaves)
        graph = builder.graph
        graph.outputs = [builder.operand(t) for t in out_leaves]
        # Python scalars of the graph (`int(t)`, a loop counter) go back to Python as bool/int/float
        types = [getattr(v, "pytype", None) for v in graph.outputs]
        entry.out_types = tuple(types) if any(types) else None
        if entry.out_types is not None:
            result = _unflatten(entry.out_tmpl, [t if ty is None else ty(B.item(t._data))
                                                 for t, ty in zip(out_leaves, types)])
        for _, v in builder.captured:
            graph.add_param(v)
        verify(graph)
        graph.dynamic = self.dyn is not None
        dump = _dumper(self.name)
        graph = passes.run_pipeline(graph, dump=dump)
        entry.source, entry.run_fn = codegen.generate(graph, "graph_fn")
        if _jit_level(self.jit_level) in ("O1", "O2"):
            entry.run_fn = _inductor.compile_graph(entry.run_fn)   # fused by inductor on its first run
        if dump is not None:
            dump("99_codegen", entry.source)
        entry.captured = builder.captured
        entry.in_keep = None if len(firsts) == len(leaves) else firsts
        if graph.kept_params is not None:
            # unused inputs were pruned: pass only the kept ones (unread Parameters are not even read)
            n_in = len(firsts)
            entry.in_keep = [firsts[i] for i in graph.kept_params if i < n_in]
            entry.captured = [builder.captured[i - n_in] for i in graph.kept_params if i >= n_in]
        entry.graph = graph
        # the trace run was a real execution: its results are this call's results
        return entry, result

    def fall_back(self, exc, what):
        """A trace stopped at code the graph cannot hold: warn that `what` runs in the interpreter (JIT Fallback),
        filed against the user's calling line, or raise when the whole function must be one graph (fullgraph=True,
        jit_syntax_level STRICT)."""
        if _strict(self.fullgraph):
            raise RuntimeError(f"For 'jit', {what} must compile as one graph (fullgraph=True / jit_syntax_level "
                               f"STRICT), but {exc}. Set fullgraph=False to run that code in the interpreter "
                               f"(JIT Fallback).") from None
        level, f = 2, sys._getframe(1)
        while f is not None and not _is_user(f.f_code.co_filename):
            f, level = f.f_back, level + 1
        warnings.warn(f"mindseed.jit: {what} runs in the interpreter (JIT fallback): {exc}",
                      stacklevel=level if f is not None else 2)

    def graphs(self):
        """The compiled graphs (one per input signature), for inspection."""
        return [e.general.graph if e.general is not None else e.graph for e in self.cache.values()
                if e.graph is not None]


def _jit_level(level):
    """The jit level in force: jit's own argument, else the context's jit_config / jit_level, else O0."""
    if level is None:
        level = (get_context("jit_config") or {}).get("jit_level") or get_context("jit_level") or "O0"
    return level


def _strict(fullgraph):
    """No interpreter fallback: jit's own fullgraph, else the context's jit_syntax_level (MindSpore's
    MS_DEV_JIT_SYNTAX_LEVEL=0 too)."""
    if fullgraph is not None:
        return fullgraph
    return get_context("jit_syntax_level") == STRICT or os.environ.get("MS_DEV_JIT_SYNTAX_LEVEL") == "0"


def _saving():
    return get_context("save_graphs") or os.environ.get("MS_DEV_SAVE_GRAPHS")


_graph_count = [0]


def _dumper(name):
    """A writer of this compile's IR files, or None when save_graphs is off. Each compiled graph gets a number;
    its files are `<graph#>_<name>_<pass#>_<stage>.ir` (00_traced, then one per pass in pipeline order) and
    `<graph#>_<name>_99_codegen.py` (the generated code)."""
    if not _saving():
        return None
    _graph_count[0] += 1
    gid = _graph_count[0]
    safe = "".join(c if c.isalnum() or c in "_-" else "_" for c in name)

    def dump(stage, graph_or_text):
        text = graph_or_text if isinstance(graph_or_text, str) else print_graph(graph_or_text)
        k, _, what = stage.partition("_")
        ext = "py" if what == "codegen" else "ir"
        path = get_context("save_graphs_path") or "."
        os.makedirs(path, exist_ok=True)
        with open(os.path.join(path, f"{gid:04d}_{safe}_{int(k):02d}_{what}.{ext}"), "w", encoding="utf-8") as f:
            f.write(text + ("" if text.endswith("\n") else "\n"))
    return dump


def jit(function=None, *, capture_mode="ast", jit_level=None, dynamic=0, fullgraph=False, backend="",
        mode=None, input_signature=None, hash_args=None, jit_config=None, compile_once=False, **options):
    """Compile `function` (or a Cell's construct) into a graph, run as generated code.

    Args:
        function (callable): the function, method or Cell to compile.
        capture_mode (str): ``'ast'`` (the source is parsed); ``'bytecode'`` and ``'trace'`` are accepted and
            compile the same way.
        jit_level (str): ``'O0'``: generated code calling one kernel per node, compiled in milliseconds;
            ``'O1'``: that code handed to torch's inductor, which fuses elementwise/reduction chains
            (seconds to compile). Default: the context's ``jit_config['jit_level']``, else ``'O0'``.
        dynamic (int): 1 compiles once for all sizes of the tensor inputs (dims unknown at compile time).
        input_signature (tuple): Tensor(shape=[None, 3], ...) placeholders: the None dims are dynamic.
        fullgraph (bool): raise instead of falling back to the interpreter on unsupported code.

    Returns:
        The compiled callable (a decorator when `function` is None).

    >>> import mindseed as ms
    >>> @ms.jit
    ... def f(x):
    ...     return x * 2 + 1
    >>> f(ms.Tensor([1.0]))
    Tensor(shape=[1], dtype=Float32, value= [ 3.00000000e+00])
    """
    if capture_mode not in ("ast", "bytecode", "trace"):
        raise ValueError(f"For 'jit', the argument 'capture_mode' must be one of ['ast', 'bytecode', 'trace'], but "
                         f"got {capture_mode!r}.")
    if dynamic not in (0, 1) or isinstance(dynamic, float):
        raise ValueError(f"For 'jit', the argument 'dynamic' must be 0 or 1, but got {dynamic!r}.")
    if not isinstance(fullgraph, bool):
        raise TypeError(f"For 'jit', the argument 'fullgraph' must be bool, but got {type(fullgraph).__name__}.")
    strict = fullgraph or None
    if isinstance(jit_config, JitConfig):
        jit_level = jit_config.jit_level
        if str(jit_config.jit_syntax_level).upper() in ("STRICT", str(STRICT)):
            strict = True
    if jit_level not in (None, "O0", "O1", "O2"):
        raise ValueError(f"For 'jit', the argument 'jit_level' must be one of ['O0', 'O1', 'O2'], but got {jit_level!r}.")
    dyn = "all" if dynamic else None
    if input_signature is not None:
        sig = input_signature if isinstance(input_signature, (tuple, list)) else (input_signature,)
        dyn = _signature_of(sig)
        if not any(_dynamic_sig(s) for s in dyn):
            dyn = None

    def wrap(fn):
        if isinstance(fn, _Compiled):
            return fn
        if hasattr(fn, "construct") and hasattr(fn, "_cells"):
            inputs = fn.__dict__.get("_inputs")
            d = _signature_of(inputs) if dyn is None and inputs else dyn
            # the whole call, as GRAPH_MODE compiles it: to_float casts and hooks included
            compiled = _Compiled(_run_cell, type(fn).__name__, jit_level, bound_self=fn, dyn=d, fullgraph=strict)
            compiled._converted = functools.partial(_run_cell, fn)
            return compiled
        return _Compiled(fn, getattr(fn, "__name__", "fn"), jit_level, dyn=dyn, fullgraph=strict)

    if function is None:
        return wrap
    return wrap(function)


def compile_cell_call(cell, args, kwargs):
    """GRAPH_MODE entry for Cell.__call__: the cell's whole call, compiled and cached on the cell."""
    compiled = cell.__dict__.get("_ms_compiled")
    if compiled is None:
        inputs = cell.__dict__.get("_inputs")
        dyn = _signature_of(inputs) if inputs else None
        if dyn is not None and not any(_dynamic_sig(sg) for sg in dyn):
            dyn = None
        compiled = _Compiled(_run_cell, type(cell).__name__, bound_self=cell, dyn=dyn)
        compiled._converted = functools.partial(_run_cell, cell)
        cell.__dict__["_ms_compiled"] = compiled
    return compiled(*args, **kwargs)


def _run_cell(cell, *args, **kwargs):
    return cell._run(args, kwargs)
