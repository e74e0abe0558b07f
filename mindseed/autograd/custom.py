"""User-defined gradients: a function whose backward is a user's bprop (`Cell.bprop`, custom ops)."""
import inspect

from mindseed._utils import _state
from mindseed.common.tensor import Tensor
from mindseed.autograd._tape import paused
from mindseed.ops._registry import Op
from mindseed.ops.operations._base import PrimitiveWithInfer

__all__ = ["call_with_bprop", "custom_vjp", "Morph"]


class _UserBprop(Op):
    """Stands in for a primitive on the tape: the engine calls `bprop(*inputs, out, dout)`."""

    __slots__ = ()

    def __init__(self, name, bprop, multi_output):
        super().__init__(name, bprop, multi_output=multi_output)


def call_with_bprop(fn, bprop, args, name="CustomBprop"):
    """fn(*args), recorded as one node whose gradient is bprop(*args, out, dout) -> grads per arg."""
    if not _state.tapes:
        return fn(*args)
    with paused():
        out = fn(*args)
    if isinstance(out, Tensor):
        out = Tensor._from_raw(out._data)
        leaves, tmpl = None, None
    else:
        # a (nested) tuple/list output: its tensors are the node's outputs; bprop sees the structure again
        leaves = []
        out = tmpl = _fresh(out, leaves)
        leaves = tuple(leaves)

    def engine_bprop(*all_args):
        *inputs, o, dout = all_args
        if leaves is not None:
            o, dout = _rebuild(tmpl, iter(o)), _rebuild(tmpl, iter(dout))
        _check_bprop_arity(bprop, len(inputs))
        grads = bprop(*inputs, o, dout)
        if not isinstance(grads, tuple):
            if _state.tracing is not None:
                # a compiled graph holds MindSpore's rule: a bprop returns a tuple, one gradient per input
                raise TypeError(f"For bprop function, output should be a tuple, but got {_describe(grads)} "
                                f"(the bprop of '{name}').")
            grads = tuple(grads) if isinstance(grads, list) else (grads,)
        return grads

    node = _UserBprop(name, engine_bprop, leaves is not None)
    for tape in list(_state.tapes):
        # a graph builder already recorded the forward's primitives; only grad tapes take the node
        if not getattr(tape, "records_all", False):
            tape.record(node, args, {}, out if leaves is None else leaves)
    return out


def _check_bprop_arity(bprop, n_inputs):
    """MindSpore's rule for a user bprop: the forward inputs, then 'out' and 'dout'; not a jit-compiled function."""
    if hasattr(bprop, "capture_mode") and hasattr(bprop, "graphs"):    # compiler.jit's jitted function
        raise RuntimeError("Decorating bprop with '@jit' is not supported.")
    try:
        params = inspect.signature(bprop).parameters.values()
    except (TypeError, ValueError):
        return
    if any(p.kind == p.VAR_POSITIONAL for p in params):
        return
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = sum(p.default is p.empty for p in positional)
    if len(positional) < 2:
        raise TypeError(f"The function 'bprop' of Primitive or Cell requires at least 2 params 'out' and 'dout', but "
                        f"got only {len(positional)}.")
    if not required <= n_inputs + 2 <= len(positional):
        raise TypeError(f"The params of function 'bprop' of Primitive or Cell requires the forward inputs as well as "
                        f"the 'out' and 'dout'. The forward has {n_inputs} inputs, the bprop takes "
                        f"{len(positional)} params.")


def _describe(v):
    if isinstance(v, Tensor):
        return f"Tensor(shape={list(v.shape)}, dtype={v.dtype})"
    return type(v).__name__


def _fresh(out, leaves):
    """out with every tensor a fresh handle (an output may be an input object, which must not be confused with
    it on the tape), collected in `leaves`."""
    if isinstance(out, Tensor):
        t = Tensor._from_raw(out._data)
        leaves.append(t)
        return t
    if isinstance(out, (tuple, list)):
        items = [_fresh(o, leaves) for o in out]
        return type(out)(items) if type(out) in (tuple, list) else type(out)(*items)
    return out


def _rebuild(tmpl, it):
    """tmpl's structure with its tensors replaced, in order, by the values of `it`."""
    if isinstance(tmpl, Tensor):
        return next(it)
    if isinstance(tmpl, (tuple, list)):
        items = [_rebuild(o, it) for o in tmpl]
        return type(tmpl)(items) if type(tmpl) in (tuple, list) else type(tmpl)(*items)
    return tmpl


class _CustomVjp:
    """A function with a user-defined backward: `fn.defbwd(bwd)`, `bwd(*inputs, out, dout)` -> input gradients."""

    def __init__(self, fwd):
        if not callable(fwd):
            raise TypeError(f"For 'custom_vjp', 'fn' must be callable, but got {type(fwd).__name__}.")
        self.fwd, self.bwd = fwd, None
        self.__name__ = getattr(fwd, "__name__", type(self).__name__)
        self.__doc__ = getattr(fwd, "__doc__", None)

    def defbwd(self, bwd):
        if not callable(bwd):
            raise TypeError(f"For 'custom_vjp', the backward function must be callable, but got "
                            f"{type(bwd).__name__}.")
        self.bwd = bwd
        return bwd

    def __call__(self, *args):
        if self.bwd is None:  # no backward defined yet: autodiff of the forward
            return self.fwd(*args)
        return call_with_bprop(self.fwd, self.bwd, args, self.__name__)


def custom_vjp(fn=None):
    """Give a function a custom backward (MindSpore's `ops.function.grad.grad_func.custom_vjp`).

    >>> import mindseed as ms
    >>> @custom_vjp
    ... def f(x):
    ...     return x * x
    >>> _ = f.defbwd(lambda x, out, dout: (dout * 10,))
    >>> ms.grad(f)(ms.Tensor(3.0))
    Tensor(shape=[], dtype=Float32, value=10.0)
    """
    if fn is not None:
        return _CustomVjp(fn)
    return _CustomVjp


class Morph(PrimitiveWithInfer):
    """A user function used as one operator of a graph (MindSpore's `ops.Morph`): `Morph(fn, infer_shape,
    infer_dtype, bprop_fn=None)(*args, **kwargs)` is `fn(*args, **kwargs)`, differentiated by autodiff of `fn` or,
    given `bprop_fn(*args, out, dout)`, by that rule. `infer_shape` / `infer_dtype` describe the output for
    MindSpore's graph compiler; here the traced `fn` carries its own shapes. Only in GRAPH_MODE, as MindSpore.
A Primitive: attributes (`add_prim_attr`) and a sharding (`shard`) can be given to it.
    """

    def __init__(self, fn, infer_shape, infer_dtype, bprop_fn=None):
        for name, f in (("fn", fn), ("infer_shape", infer_shape), ("infer_dtype", infer_dtype)):
            if not callable(f):
                raise TypeError(f"For 'Morph', '{name}' must be callable, but got {type(f).__name__}.")
        if bprop_fn is not None and not callable(bprop_fn):
            raise TypeError(f"For 'Morph', 'bprop_fn' must be callable or None, but got {type(bprop_fn).__name__}.")
        super().__init__("Morph")
        self.fn, self.infer_shape, self.infer_dtype, self.bprop_fn = fn, infer_shape, infer_dtype, bprop_fn

    def __call__(self, *args, **kwargs):
        if _state.tracing is None:
            raise RuntimeError("Morph is only supported in GRAPH_MODE.")
        if self.bprop_fn is None:
            return self.fn(*args, **kwargs)
        return call_with_bprop(lambda *a: self.fn(*a, **kwargs), self.bprop_fn, args, self.name)
