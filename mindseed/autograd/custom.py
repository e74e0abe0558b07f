"""User-defined gradients: a function whose backward is a user's bprop (`Cell.bprop`, custom ops)."""
from mindseed._utils import _state
from mindseed.common.tensor import Tensor
from mindseed.autograd._tape import paused
from mindseed.ops._registry import Op

__all__ = ["call_with_bprop"]


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
    multi = isinstance(out, tuple)
    # fresh handles: an output may be an input object, which must not be confused with it on the tape
    out = tuple(Tensor._from_raw(o._data) for o in out) if multi else Tensor._from_raw(out._data)

    def engine_bprop(*all_args):
        *inputs, o, dout = all_args
        grads = bprop(*inputs, o, dout)
        if not isinstance(grads, tuple):
            grads = (grads,)
        return grads

    node = _UserBprop(name, engine_bprop, multi)
    for tape in list(_state.tapes):
        # a graph builder already recorded the forward's primitives; only grad tapes take the node
        if not getattr(tape, "records_all", False):
            tape.record(node, args, {}, out)
    return out
