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
from mindseed._backend import _lazy
from mindseed._backend.widen import call_widened, lacks_dtype, widening
from mindseed._utils import _state
from mindseed.common.tensor import Tensor
from mindseed.ops._infer import Abstract

__all__ = ["Op", "Prim", "RandomPrim", "RandomDraws", "registry", "get"]

registry = {}
_tapes = _state.tapes
_profiling = _state.profiling
# the active mixed-precision cast policies, innermost last (`mindseed.amp` pushes one while an amp network runs):
# each maps a Prim object to rule(prim, args, attrs) -> outputs, which casts the inputs and runs the primitive
cast_policies = []
_new = object.__new__


def _wrap(raw):
    t = _new(Tensor)
    t._data = raw
    return t


class Op:
    """What the tape, the graph and its passes read of a node's operator: a primitive, a control-flow node
    (`If`, `While`) or a user's gradient rule stand-in all have these fields.

    Args:
        name (str): MindSpore's CamelCase name, e.g. ``"MatMul"`` (for messages and IR dumps only: nothing
            compares it).
        multi_output (bool): the kernel returns a tuple of backend tensors.
        side_effect (bool): updates state (parameters, optimizer moments) in place: graphs keep it, in order,
            never merged, folded or removed, and nothing is scheduled across it.
        random (bool): draws random numbers: never merged, folded or removed, kept in order with other draws.
        fresh (bool): its first output is always a newly allocated buffer (never a view of an input), so a
            later kernel may write over it when nothing else reads it.
        heavy (bool): streams large operands through the caches (matrix products, convolutions): scheduling
            does not pull it next to the producer of its inputs.
        identity (bool): its output is its first input's value.
        retype (bool): its output holds its first input's values, only its shape or dtype may change (reshape,
            cast, broadcast): with the input's shape and dtype it is the input.
        left_identity, right_identity (number): `e op x == x` / `x op e == x` for this Python number `e`
            (0 for Add, 1 for Mul; None: none).
        commutative (bool): `x op y == y op x`.
        fill_value (number): the output is the first input's shape and dtype filled with this number
            (OnesLike: 1).
        inplace (Op): the primitive computing the same value written over its first input's buffer (set by the
            variant's declaration, `Prim(..., in_place_of=base)`).
        residual_outputs (tuple): positions of outputs kept only for the bprop (a mean and rstd, a log-sum-exp):
            their cotangents are never propagated, so the bprop gets None there instead of zeros.
        infer (callable): the shape/dtype rule, see `abstract_eval`.
        sharding (callable): the sharding rule `(*inputs, **attrs) -> ops._sharding.ShardingRule`, which the
            parallel partitioner reads to run the op on shards (None: the op runs on whole tensors only).
    """

    __slots__ = ("name", "bprop", "bprop_takes_needs", "multi_output", "side_effect", "random", "fresh", "heavy",
                 "identity", "retype", "left_identity", "right_identity", "commutative", "fill_value", "inplace",
                 "residual_outputs", "infer", "sharding")

    def __init__(self, name, bprop=None, *, multi_output=False, side_effect=False, random=False, fresh=False,
                 heavy=False, identity=False, retype=False, left_identity=None, right_identity=None,
                 commutative=False, fill_value=None, residual_outputs=(), infer=None, sharding=None):
        self.name = name
        self.bprop = bprop
        self.bprop_takes_needs = False
        self.multi_output = multi_output
        self.side_effect = side_effect
        self.random = random
        self.fresh = fresh
        self.heavy = heavy
        self.identity = identity
        self.retype = retype
        self.left_identity = left_identity
        self.right_identity = right_identity
        self.commutative = commutative
        self.fill_value = fill_value
        self.inplace = None
        self.residual_outputs = tuple(residual_outputs)
        self.infer = infer
        self.sharding = sharding

    def __repr__(self):
        return self.name


class Prim(Op):
    """One primitive: name, kernel, bprop, shape rule and the properties passes read (see `Op`).

    Args:
        name (str): MindSpore's CamelCase name, e.g. ``"MatMul"``.
        impl (callable): the kernel, called with backend tensors (Python scalars pass through) and attrs.
        in_place_of (Prim): this primitive is `in_place_of`'s computation written over its first input.
        **props: the properties of `Op` (multi_output, side_effect, fresh, infer, ...).
    """

    __slots__ = ("impl", "check", "widened", "__weakref__")

    def __init__(self, name, impl=None, *, in_place_of=None, **props):
        if name in registry:
            raise ValueError(f"Primitive '{name}' is declared twice.")
        super().__init__(name, **props)
        self.impl = _lazy.resolve(impl) if _lazy.loaded() else impl   # a stub until torch loads (`_bind_kernels`)
        self.check = None
        self.widened = None     # impl computing in a wider dtype where torch lacks one (set on the first need)
        if in_place_of is not None:
            in_place_of.inplace = self
        registry[name] = self

    # ------------------------------------------------------------ declaration
    def def_impl(self, fn):
        self.impl = _lazy.resolve(fn) if _lazy.loaded() else fn
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
        """fn(*abstract_inputs, **attrs) -> Abstract(shape, dtype) (a tuple of them: multi_output), the shape rule
        `abstract_eval` uses instead of running the kernel on meta tensors (see `ops._infer`)."""
        self.infer = fn
        return fn

    def def_check(self, fn):
        """fn(*inputs, **attrs) raising a MindSpore-style error; runs only after the kernel failed."""
        self.check = fn
        return fn

    # ------------------------------------------------------------ execution
    def __call__(self, *args, **attrs):
        # NOTE: the hot path of PyNative; unrolled for the common arities to avoid building a list
        if _profiling:
            return _profiling[-1].run_op(self, args, attrs)
        if cast_policies:
            rule = cast_policies[-1].get(self)
            if rule is not None:
                return rule(self, args, attrs)
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
            if not lacks_dtype(exc):
                raise self._error(exc, args, attrs) from None
            out = self._run_widened(args, attrs)
        if self.multi_output:
            out = tuple([_wrap(o) for o in out])
        else:
            out = _wrap(out)
        if _tapes:
            for tape in _tapes:
                tape.record(self, args, attrs, out)
        return out

    @property
    def kernel(self):
        """The kernel generated graph code calls: impl, or impl computing in a wider dtype once a call needed it."""
        return self.widened or self.impl

    def _run_widened(self, args, attrs):
        """The kernel failed for a dtype torch has no kernel for (uint16, float16 special functions, ...): computed
        in a wider one, as MindSpore's kernels compute these dtypes."""
        try:
            out = call_widened(self.impl, [a._data if isinstance(a, Tensor) else a for a in args], attrs)
        except Exception as exc:  # noqa: BLE001 -- translated for the user
            raise self._error(exc, args, attrs) from None
        if self.widened is None:
            self.widened = widening(self.impl)
        return out

    def _error(self, exc, args, attrs):
        if isinstance(exc, (TypeError, ValueError, IndexError, RuntimeError)) and str(exc).startswith("For '"):
            return exc
        if self.check is not None:
            try:
                self.check(*args, **attrs)
            except (TypeError, ValueError, IndexError, RuntimeError) as mine:
                return mine
        shapes = ", ".join(f"{a.shape} {a.dtype}" if isinstance(a, Tensor) else B.describe(a) for a in args)
        kind, msg = B.kernel_error(exc)
        return kind(f"For '{self.name}', the inputs ({shapes}) with attributes {B.describe(attrs)} are invalid: {msg}")

    def abstract_eval(self, *args, **attrs):
        """Shape and dtype of the output without computing it: an `Abstract(shape, dtype name)`, a tuple of them
        for a multi-output primitive. A tensor input is anything with `shape` and `dtype` (a Tensor, a backend
        tensor, an IR value, an Abstract); other inputs are Python values. The declared rule (`infer`) when
        there is one, else the kernel run on meta tensors (which needs every dim known)."""
        ins = [_abstract(a) for a in args]
        if self.infer is not None:
            return self.infer(*ins, **attrs)
        if any(isinstance(a, Abstract) and (a.shape is None or None in a.shape) for a in ins):
            raise ValueError(f"For '{self.name}', the output shape of inputs with unknown dims ({args}) needs a "
                             f"shape rule, and the primitive declares none.")
        out = self.impl(*[B.meta(a.shape, a.dtype) if isinstance(a, Abstract) else a for a in ins], **attrs)
        if self.multi_output:
            return tuple(Abstract(tuple(o.shape), B.dtype_name(o)) for o in out)
        return Abstract(tuple(out.shape), B.dtype_name(out))

    def placeholders(self, *args, **attrs):
        """The call's outputs as Tensors that hold no data (meta tensors of `abstract_eval`'s shapes and dtypes):
        what an abstract run (the parallel planner's recording) gives back instead of computing."""
        out = self.abstract_eval(*args, **attrs)
        if self.multi_output:
            return tuple(_wrap(B.meta(o.shape, o.dtype)) for o in out)
        return _wrap(B.meta(out.shape, out.dtype))

    def __repr__(self):
        return f"Prim({self.name})"


class RandomPrim(Prim):
    """A primitive that draws random numbers. Code re-run for a gradient (recomputation) must see the draws of
    its first run: while `_state.random_draws` is set, calls are logged, and in a re-run each call gets the same
    call's draw back, through `replay(args, attrs, first_out)` (deterministic primitives, so a compiled graph
    reads the first run's values too; default: the first outputs themselves)."""

    __slots__ = ("replay",)

    def __init__(self, name, impl=None, replay=None, **kw):
        super().__init__(name, impl, random=True, **kw)
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


def _abstract(x):
    if isinstance(x, Abstract):
        return x
    if isinstance(x, Tensor):
        return Abstract(tuple(x.shape), x.dtype.name)
    if B.is_array(x):
        return Abstract(tuple(x.shape), B.dtype_name(x))
    if isinstance(getattr(x, "dtype", None), str) and hasattr(x, "shape"):
        return Abstract(None if x.shape is None else tuple(x.shape), x.dtype)
    return x


@_lazy.when_loaded
def _bind_kernels():
    """torch has loaded: each primitive declared with a kernel stub (`_backend._lazy`) calls the kernel itself."""
    for prim in registry.values():
        prim.impl = _lazy.resolve(prim.impl)
        if isinstance(prim, RandomPrim):
            prim.replay = _lazy.resolve(prim.replay)


def get(name):
    return registry[name]
