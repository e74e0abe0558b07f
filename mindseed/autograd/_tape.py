"""The PyNative tape and the backward engine.

While a grad transform runs the user's function, its Tape sits on `_state.tapes`; the primitive
dispatcher offers every call to each active tape, and a tape records the call when one of the
inputs is a tensor it tracks (a watched input or an earlier recorded output). Backward walks the
records in reverse and applies each primitive's bprop. Bprops are mindseed ops, so when an outer
tape is active they are recorded there: that is all higher-order differentiation needs.

Generic work happens here once, never in a bprop: summing broadcast dimensions back to the input's
shape, casting back to the input's dtype, zero cotangents for unused outputs, accumulation.
"""
from mindseed._utils import _scope, _state
from mindseed.common import dtype as mstype
from mindseed.autograd.hooks import pack_saved, run_grad_hooks
from mindseed.common.tensor import Tensor
from mindseed.ops._prims import core as P

_FLOAT_KINDS = (mstype.Float, mstype.BFloat, mstype.Complex)
_grad_hooks = _state.tensor_grad_hooks
_saved_hooks = _state.saved_tensors_hooks


class Tape:
    __slots__ = ("nodes", "tracked", "inputs", "moved", "packed")

    def __init__(self):
        self.nodes = []
        self.packed = {}   # node index -> its inputs packed by `saved_tensors_hooks` (hooks.py)
        self.tracked = {}  # id -> tensor; holding the tensor keeps its id unique while the tape lives
        self.inputs = {}   # id -> tensor: the function's positional inputs (MindSpore forbids writing into them)
        self.moved = {}    # id -> the handle that took over a tensor's original value at its first in-place update

    def watch(self, t):
        self.tracked[id(t)] = t

    def is_tracked(self, t):
        return id(t) in self.tracked

    def rebind(self, obj, replacement):
        """Let `replacement` stand for `obj` everywhere in the record (used by in-place updates)."""
        if id(obj) not in self.tracked:
            return
        if id(obj) not in self.moved:
            self.moved[id(obj)] = replacement
        del self.tracked[id(obj)]
        self.tracked[id(replacement)] = replacement
        swap = lambda x: replacement if x is obj else x  # noqa: E731
        for i, (prim, args, attrs, out) in enumerate(self.nodes):
            if any(a is obj for a in args) or out is obj or (isinstance(out, tuple) and any(o is obj for o in out)):
                out = tuple(map(swap, out)) if isinstance(out, tuple) else swap(out)
                self.nodes[i] = (prim, tuple(map(swap, args)), attrs, out)

    def freeze_input(self, obj, value):
        """The bprops of the nodes recorded so far that read `obj` compute with `value` instead (their gradients
        still go to obj): obj is about to take a new value where every value is its own (a Parameter updated in
        a graph being traced: `y = x * p` then `p -= 1` differentiates y at the old p, as MindSpore's graphs do)."""
        packed = self.packed
        for i, (_prim, args, _attrs, _out) in enumerate(self.nodes):
            if not any(a is obj for a in args):
                continue
            held = packed.get(i)
            if held is None:
                packed[i] = _Values(tuple(value if a is obj else a for a in args))
            elif isinstance(held, _Values):
                held.values = tuple(value if a is obj else v for a, v in zip(args, held.values))

    def record(self, prim, args, attrs, out):
        if prim.bprop is None or not _state.grad_enabled:
            return
        tracked = self.tracked
        for a in args:
            if id(a) in tracked:
                break
        else:
            return
        # as MindSpore, every output is differentiated whatever its dtype (an integer Tensor gets an integer
        # gradient: d cumsum(int8) is int8; Cast to uint8 passes the gradient back to the float input)
        if prim.multi_output:
            for o in out:
                tracked[id(o)] = o
        else:
            tracked[id(out)] = out
        self.nodes.append((prim, args, attrs, out))
        if _saved_hooks:
            self.packed[len(self.nodes) - 1] = pack_saved(args)


class _Values:
    """The inputs a node's bprop computes with when they are not its recorded inputs (`Tape.freeze_input`)."""

    __slots__ = ("values",)

    def __init__(self, values):
        self.values = values

    def unpack(self):
        return self.values


class active:
    """Context manager putting a tape on the stack of active tapes."""

    __slots__ = ("tape",)

    def __init__(self, tape):
        self.tape = tape

    def __enter__(self):
        _state.tapes.append(self.tape)
        return self.tape

    def __exit__(self, *exc):
        # remove this tape wherever it is: a user function may have left the stack unbalanced
        for i in range(len(_state.tapes) - 1, -1, -1):
            if _state.tapes[i] is self.tape:
                del _state.tapes[i]
                break
        return False


class paused:
    """Context manager hiding every active gradient tape (nothing inside is differentiated).

    Graph builders (recorders with `records_all = True`) stay: what runs inside is still part of the graph.
    """

    __slots__ = ("saved",)

    def __enter__(self):
        self.saved = list(_state.tapes)
        _state.tapes[:] = [t for t in self.saved if getattr(t, "records_all", False)]

    def __exit__(self, *exc):
        _state.tapes[:] = self.saved
        return False


def _computes_ints_as_floats(args, out):
    """A float output of operands none of which is a float Tensor or a Python float: the primitive computed its
    integers as floats itself (MindSpore's Sqrt, Reciprocal, Div of integers), not on a float copy made by type
    promotion."""
    outs = out if isinstance(out, tuple) else (out,)
    if not any(isinstance(o, Tensor) and isinstance(o.dtype, _FLOAT_KINDS) for o in outs):
        return False
    for a in args:
        if isinstance(a, Tensor):
            if isinstance(a.dtype, _FLOAT_KINDS):
                return False
        elif isinstance(a, (float, complex)):
            return False
    return True


def _fit(g, x, args=None, out=None):
    """Cotangent g brought to x's shape (sum over broadcast dims) and dtype.

    As MindSpore, an integer input keeps the float gradient of a primitive that computed its integer operands as
    floats itself (`args`: the operands, `out`: the output); after type promotion (a float operand) the gradient
    is cast back."""
    gs, xs = g.shape, x.shape
    if len(gs) < len(xs):
        g = P.broadcast_to_p(g, shape=xs)
    elif gs != xs:
        lead = len(gs) - len(xs)
        inner = tuple(i + lead for i, s in enumerate(xs) if s == 1 and gs[i + lead] != 1)
        if lead and not inner:  # only leading axes (a bias's gradient): dropped by the sum itself
            g = P.reduce_sum_p(g, axis=tuple(range(lead)), keep_dims=False)
        elif lead or inner:
            g = P.reduce_sum_p(g, axis=tuple(range(lead)) + inner, keep_dims=True)
        if g.shape != xs:
            g = P.reshape_p(g, shape=xs)
    if g.dtype != x.dtype:
        if args is not None and isinstance(g.dtype, _FLOAT_KINDS) and not isinstance(x.dtype, _FLOAT_KINDS) and \
                _computes_ints_as_floats(args, out):
            return g
        g = P.cast_p(g, dtype=x.dtype.name)
    return g


def backward(tape, roots, sens, keep=()):
    """Cotangents of every tracked tensor reached from `roots` seeded with `sens`; keyed by id.

    The cotangent of an intermediate is dropped once used, except for ids in `keep` (a weight updated in place
    is differentiated at its final value, as MindSpore does).
    """
    if not _state.profiling and _state.tracing is None:
        return _backward(tape, roots, sens, keep)
    # MindSpore's scope of gradient kernels (graph nodes traced here carry it too)
    _scope.push_named(f"Gradients/{_scope.current()}")
    try:
        return _backward(tape, roots, sens, keep)
    finally:
        _scope.pop()


def _backward(tape, roots, sens, keep):
    ct = {}
    tracked = tape.tracked
    packed = tape.packed
    hooked = set() if _grad_hooks else None   # ids whose gradient went through their hooks
    for r, s in zip(roots, sens):
        if isinstance(r, Tensor) and id(r) in tracked:
            _accumulate(ct, r, _fit(s, r))
    nodes = tape.nodes
    for i in range(len(nodes) - 1, -1, -1):
        prim, args, attrs, out = nodes[i]
        if prim.multi_output:
            skip = prim.residual_outputs
            douts = [ct.pop(id(o), None) for o in out]
            douts = [None if i in skip else d for i, d in enumerate(douts)]
            if all(d is None for d in douts):
                continue
            # zeros for an output nobody differentiated; None for a residual (its bprop never reads it)
            dout = tuple(None if k in skip else P.zeros_like_p(o) if d is None else d
                         for k, (o, d) in enumerate(zip(out, douts)))
            if hooked is not None:
                dout = tuple(d if d is None else _hooked(o, d, hooked) for o, d in zip(out, dout))
        else:
            dout = ct.pop(id(out), None) if not keep or id(out) not in keep else ct.get(id(out))
            if dout is None:
                continue
            if hooked is not None:
                dout = _hooked(out, dout, hooked)
        # the bprop computes with the unpacked inputs; gradients still go to the inputs themselves
        values = packed[i].unpack() if packed and i in packed else args
        outer, _state.bprop_of = _state.bprop_of, out
        try:
            if prim.bprop_takes_needs:
                needs = tuple(id(a) in tracked for a in args)
                grads = prim.bprop(*values, out, dout, needs=needs, **attrs)
            else:
                grads = prim.bprop(*values, out, dout, **attrs)
        finally:
            _state.bprop_of = outer
        for a, g in zip(args, grads):
            if g is None or id(a) not in tracked or not isinstance(a, Tensor):
                continue
            _accumulate(ct, a, _fit(g, a, args, out))
    if hooked is not None:
        for k in list(ct):
            if k not in hooked and k in _grad_hooks:
                ct[k] = _hooked(tracked[k], ct[k], hooked)
    return ct


def _hooked(t, grad, hooked):
    hooked.add(id(t))
    return run_grad_hooks(t, grad) if id(t) in _grad_hooks else grad


def _accumulate(ct, x, g):
    prev = ct.get(id(x))
    if prev is None:
        ct[id(x)] = g
        return
    outer, _state.summing = _state.summing, x
    try:
        ct[id(x)] = P.add_p(prev, g)
    finally:
        _state.summing = outer


def is_differentiable(t):
    return isinstance(t, Tensor) and isinstance(t.dtype, _FLOAT_KINDS)
