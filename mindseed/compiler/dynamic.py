"""Dynamic shapes (`jit(dynamic=1)`, `input_signature`, `Cell.set_inputs`): one graph for every size.

The first two traced sizes are unified into one graph (`_generalize`): the graphs must match node by node,
and each number that differs between them is fitted as a function of a dynamic input dim (`a * d + b` or
`a / d`, a `Sym` evaluated by the generated code at run time). The fit is then checked against a third
traced size (`_agrees`; `n // 2` or `n * n` fits any two sizes) before the graph is used. Both walks are
one comparison, `_pair`, with a different rule for the constants.

The traced inputs give their dynamic dims as `_DimInt`; the user's code comparing one makes a graph that
holds for that size only (`decided`), which then compiles per size.
"""
import os
import sys

import numpy as _np

from mindseed import _backend as B
from mindseed._utils import _state
from mindseed.common.symbol import check_dims, symbols_of
from mindseed.common.tensor import Tensor
from mindseed.compiler import codegen
from mindseed.compiler.cache import _Entry, _key_of
from mindseed.compiler.ir import Const, Graph, Sym, Var
from mindseed.compiler.trace import _is_user

__all__ = []


# ---------------------------------------------------------------- signatures and keys
_RANK = "rank"     # the signature of a dynamic-rank placeholder: any rank, every dim dynamic


def _dynamic_sig(s):
    return s == _RANK or s is not None and None in s


class _Sig(tuple):
    """One argument's signature: its shape with None for dynamic dims, and the `Symbol`s of those dims (or None)."""

    def __new__(cls, dims, symbols):
        self = super().__new__(cls, dims)
        self.symbols = symbols
        return self


def _signature_of(placeholders):
    """Per-argument shapes with None for dynamic dims, from Tensor(shape=[None, 3]) placeholders (_RANK for
    Tensor(shape=None / [-2], dtype=...))."""
    sig = []
    for p in placeholders:
        if isinstance(p, Tensor) and B.is_meta(p._data) and B.ndim(p._data) == 0:
            sig.append(_RANK)
        elif isinstance(p, Tensor):
            # a placeholder's unknown dims read -1 (it holds no data: stored as 0)
            sig.append(_Sig(tuple(None if d in (0, -1) else d for d in p.shape), symbols_of(p)))
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
            if len(sig) != len(a.shape):
                if not a.shape:         # a 0-d tensor passes any declared rank (MindSpore): it keys as it is
                    parts.append(_key_of(a))
                    continue
                raise ValueError(f"For set_inputs and tuple(list) in set_inputs, the dims of {k + 1}th input must be "
                                 f"the same as expected, but got expected: {len(sig)}, and input: {len(a.shape)}!")
            for s, d in zip(sig, a.shape):
                if s is not None and s != d:
                    raise ValueError(f"For set_inputs and tuple(list) in set_inputs, the shape of {k + 1}th input "
                                     f"must be the same as expected, but got expected: {s}, and input: {d}!")
            parts.append(("T", tuple(None if s is None else d for s, d in zip(sig, a.shape)), a.dtype.name))
    if dyn != "all" and any(getattr(sig, "symbols", None) for sig in dyn):
        check_dims([getattr(sig, "symbols", None) for sig in dyn],
                   [a.shape if isinstance(a, Tensor) else () for a in args])
    return (tuple(parts), _key_of(kwargs))


# ---------------------------------------------------------------- dynamic dims seen by the traced code
# the user's code, or the helpers of converted code running the user's operations (a chained comparison, a
# converted builtin)
_HELPERS_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "helpers.py")


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
            if _is_user(fn) or fn == _HELPERS_FILE:
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



# ---------------------------------------------------------------- fitting two traced sizes
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
        if tuple(a.shape) == tuple(b.shape) and _np.array_equal(B.to_numpy(a), B.to_numpy(b)):
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




def _pair(g1, g2, vm, value, subs=None):
    """Walk two graphs that must have the same structure, node by node. Their values must correspond (`vm`: a
    Var id of g1 -> the Var id of g2); each constant operand, attribute and constant output of g1 is matched
    with g2's by `value(a, b)`, which gives the value standing for both or raises _NoFit. With `subs`, g2's
    new inputs and attributes and its new outputs are collected there (applied by the caller once everything
    matched), and g2's Var shapes are widened (None) in the dims where g1's differ."""
    if (len(g1.params), len(g1.nodes), len(g1.outputs)) != (len(g2.params), len(g2.nodes), len(g2.outputs)):
        raise _NoFit
    for a, b in zip(g1.params, g2.params):
        vm[a.id] = b.id
        if subs is not None:
            _widen(a, b)
    for n1, n2 in zip(g1.nodes, g2.nodes):
        if n1.prim is not n2.prim or len(n1.inputs) != len(n2.inputs) or n1.attrs.keys() != n2.attrs.keys() \
                or len(n1.outputs) != len(n2.outputs):
            raise _NoFit
        ins = [_pair_operand(x, y, vm, value) for x, y in zip(n1.inputs, n2.inputs)]
        attrs = {}
        for k, a in n1.attrs.items():
            b = n2.attrs[k]
            if isinstance(a, Graph) or isinstance(b, Graph):
                if not (isinstance(a, Graph) and isinstance(b, Graph)):
                    raise _NoFit
                _pair(a, b, vm, value, subs)
                attrs[k] = b
            else:
                attrs[k] = value(a, b)
        if subs is not None:
            subs.append((n2, ins, attrs))
        for o1, o2 in zip(n1.outputs, n2.outputs):
            vm[o1.id] = o2.id
            if subs is not None:
                _widen(o1, o2)
    outs = [_pair_operand(x, y, vm, value) for x, y in zip(g1.outputs, g2.outputs)]
    if subs is not None:
        subs.append((g2, outs, None))


def _pair_operand(x, y, vm, value):
    if isinstance(x, Var) or isinstance(y, Var):
        if not (isinstance(x, Var) and isinstance(y, Var)) or vm.get(x.id) != y.id:
            raise _NoFit
        return y
    v = value(x.value, y.value)
    return y if v is y.value else Const(v)


def _widen(a, b):
    if a.shape is not None and b.shape is not None and len(a.shape) == len(b.shape):
        b.shape = tuple(p if p == q else None for p, q in zip(a.shape, b.shape))


def _same_meta(e1, e2):
    """Do two traced entries give back the same result structure from the same captured tensors?"""
    return e1.out_tmpl == e2.out_tmpl and e1.out_types == e2.out_types and e1.in_keep == e2.in_keep and \
        len(e1.captured) == len(e2.captured) and all(a is b for (a, _), (b, _) in zip(e1.captured, e2.captured))


def _generalize(e1, shapes1, e2, shapes2):
    """One entry valid for every size of the dynamic dims, from two traced samples; None if they differ in
    more than size-dependent numbers."""
    if len(shapes1) != len(shapes2) or not _same_meta(e1, e2):
        return None
    cands = [(i, j, s1[j], s2[j]) for i, (s1, s2) in enumerate(zip(shapes1, shapes2)) if len(s1) == len(s2)
             for j in range(len(s1)) if s1[j] != s2[j]]
    if not cands:
        return None
    subs = []
    try:
        _pair(e1.graph, e2.graph, {}, lambda a, b: _fit(a, b, cands), subs)
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




def _agrees(g, g3, dims):
    """Does the generalized graph `g`, at the dims of a third traced sample, compute what that sample's graph
    `g3` computes? (Checks the fitted size formulas: a non-linear one, `n // 2`, fits any two sizes.)"""
    def value(a, b):
        if not _close(_sym_value(a, dims), b):
            raise _NoFit
        return b
    try:
        _pair(g, g3, {}, value)
    except _NoFit:
        return False
    return True
