"""The primitive registry: each primitive declared once with its kernel, gradient and shape rule.

A primitive is what the kernels, the PyNative tape and the graph compiler agree on:

    add_p = Prim("Add", K.add)          # kernel: backend tensors (or Python scalars) in, backend tensor out

    @add_p.def_bprop                     # MindSpore's contract, written in mindseed ops
    def _add_bprop(x, y, out, dout):
        return dout, dout                # the engine sums broadcast dimensions away and casts back

Positional arguments of a primitive call are its inputs (Tensors or Python scalars); keyword
arguments are attributes (plain Python values, never differentiated). The public function in
`ops.functional` does argument checking, defaults and dtype handling; the primitive does the work.
"""
from mindseed import _backend as B
from mindseed._utils import _state
from mindseed.common.tensor import Tensor

__all__ = ["Prim", "RandomPrim", "RandomDraws", "registry", "get"]

registry = {}
_tapes = _state.tapes
_new = object.__new__


def _wrap(raw):
    t = _new(Tensor)
    t._data = raw
    return t


class Prim:
    """One primitive: name, kernel, bprop, and optional infer/check rules.

    Args:
        name (str): MindSpore's CamelCase name, e.g. ``"MatMul"``.
        impl (callable): the kernel, called with backend tensors (Python scalars pass through) and attrs.
        multi_output (bool): the kernel returns a tuple of backend tensors.
        side_effect (bool): the kernel updates state (parameters, optimizer moments) in place.
        residual_outputs (tuple): positions of outputs kept only for the bprop (a mean and rstd, a
            log-sum-exp): their cotangents are never propagated, so the bprop gets None there instead of zeros.
    """

    __slots__ = ("name", "impl", "bprop", "infer", "check", "multi_output", "bprop_takes_needs", "side_effect",
                 "residual_outputs", "__weakref__")

    def __init__(self, name, impl=None, multi_output=False, side_effect=False, residual_outputs=()):
        if name in registry:
            raise ValueError(f"Primitive '{name}' is declared twice.")
        self.name = name
        self.impl = impl
        self.bprop = None
        self.infer = None
        self.check = None
        self.multi_output = multi_output
        self.side_effect = side_effect  # updates state: graphs keep it, in order, never merged or removed
        self.residual_outputs = tuple(residual_outputs)
        self.bprop_takes_needs = False
        registry[name] = self

    # ------------------------------------------------------------ declaration
    def def_impl(self, fn):
        self.impl = fn
        return fn

    def def_bprop(self, fn=None, *, takes_needs=False):
        """fn(*inputs, out, dout, **attrs) -> one gradient (or None) per input.

        With `takes_needs=True` the engine also passes `needs`, a tuple of bools saying which inputs want a
        gradient, so an expensive rule (matmul, conv) can skip the ones nobody asked for.
        """
        if fn is None:
            return lambda f: self.def_bprop(f, takes_needs=takes_needs)
        self.bprop = fn
        self.bprop_takes_needs = takes_needs
        return fn

    def def_infer(self, fn):
        """fn(*abstract_inputs, **attrs) -> (shape, dtype); only where running the kernel on meta is wrong."""
        self.infer = fn
        return fn

    def def_check(self, fn):
        """fn(*inputs, **attrs) raising a MindSpore-style error; runs only after the kernel failed."""
        self.check = fn
        return fn

    # ------------------------------------------------------------ execution
    def __call__(self, *args, **attrs):
        # NOTE: the hot path of PyNative; unrolled for the common arities to avoid building a list
        try:
            n = len(args)
            if n == 2:
                a, b = args
                out = self.impl(a._data if isinstance(a, Tensor) else a, b._data if isinstance(b, Tensor) else b,
                                **attrs)
            elif n == 1:
                a = args[0]
                out = self.impl(a._data if isinstance(a, Tensor) else a, **attrs)
            else:
                out = self.impl(*[a._data if isinstance(a, Tensor) else a for a in args], **attrs)
        except Exception as exc:  # noqa: BLE001 -- every kernel failure is translated for the user
            if B.outside_inference_mode(exc):   # a new thread's first in-place update: nothing was written
                B.enter_inference_mode()
                return self(*args, **attrs)
            raise self._error(exc, args, attrs) from None
        if self.multi_output:
            out = tuple([_wrap(o) for o in out])
        else:
            out = _wrap(out)
        if _tapes:
            for tape in _tapes:
                tape.record(self, args, attrs, out)
        return out

    def _error(self, exc, args, attrs):
        if isinstance(exc, (TypeError, ValueError, IndexError)) and str(exc).startswith("For '"):
            return exc
        if self.check is not None:
            try:
                self.check(*args, **attrs)
            except (TypeError, ValueError, IndexError) as mine:
                return mine
        shapes = ", ".join(f"{a.shape} {a.dtype}" if isinstance(a, Tensor) else repr(a) for a in args)
        msg = str(exc).split("\n")[0]
        kind = TypeError if isinstance(exc, TypeError) or "dtype" in msg or "type" in msg.split(" ")[:3] \
            else IndexError if isinstance(exc, IndexError) else ValueError
        return kind(f"For '{self.name}', the inputs ({shapes}) with attributes {attrs} are invalid: {msg}")

    def abstract_eval(self, *args, **attrs):
        """Shape and dtype of the output without computing it (kernel on meta tensors by default)."""
        if self.infer is not None:
            return self.infer(*args, **attrs)
        metas = [B.meta(a.shape, a.dtype.name) if isinstance(a, Tensor) else a for a in args]
        out = self.impl(*metas, **attrs)
        return out

    def __repr__(self):
        return f"Prim({self.name})"


class RandomPrim(Prim):
    """A primitive that draws random numbers. Code re-run for a gradient (recomputation) must see the draws of
    its first run: while `_state.random_draws` is set, calls are logged, and in a re-run each call gets the same
    call's draw back, through `replay(args, attrs, first_out)` (deterministic primitives, so a compiled graph
    reads the first run's values too; default: the first outputs themselves)."""

    __slots__ = ("replay",)

    def __init__(self, name, impl=None, replay=None, **kw):
        super().__init__(name, impl, **kw)
        self.replay = replay

    def __call__(self, *args, **attrs):
        draws = _state.random_draws
        if draws is None:
            return Prim.__call__(self, *args, **attrs)
        return draws.draw(self, args, attrs)


class RandomDraws:
    """The random draws of one run, in call order: logged while active with replaying=False, handed back in
    order while active with replaying=True (a re-run of the same code for a gradient)."""

    def __init__(self):
        self.items = []         # (prim, its output: a Tensor or a tuple of them)
        self.pos = None         # None: recording

    def leaves(self):
        """The drawn tensors, flat."""
        return [x for _, out in self.items for x in (out if isinstance(out, tuple) else (out,))]

    def refilled(self, values):
        """The same draws holding `values` (flat, as `leaves()`) instead: their copies in another graph."""
        it = iter(values)
        draws = RandomDraws()
        draws.items = [(prim, tuple(next(it) for _ in out) if isinstance(out, tuple) else next(it))
                       for prim, out in self.items]
        return draws

    def draw(self, prim, args, attrs):
        if self.pos is None or self.pos >= len(self.items) or self.items[self.pos][0] is not prim:
            out = Prim.__call__(prim, *args, **attrs)
            if self.pos is None:
                self.items.append((prim, out))
            return out
        out = self.items[self.pos][1]
        self.pos += 1
        return out if prim.replay is None else prim.replay(args, attrs, out)

    def active(self, replaying):
        return _DrawsActive(self, replaying)


class _DrawsActive:
    def __init__(self, draws, replaying):
        self.draws, self.replaying = draws, replaying

    def __enter__(self):
        self.saved = (_state.random_draws, self.draws.pos)
        self.draws.pos = 0 if self.replaying else None
        _state.random_draws = self.draws

    def __exit__(self, *exc):
        _state.random_draws, self.draws.pos = self.saved
        return False


def get(name):
    return registry[name]
