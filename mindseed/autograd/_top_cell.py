"""The PyNative executor's top-cell protocol: `new_graph(obj, *args)`, run `obj`, `end_graph(obj, out, *args)`, then
`grad(obj, grad_op, weights, grad_position, *args)` — how MindSpore's `GradOperation` differentiates in PyNative, and
what code that drives the executor itself calls (mindnlp's `core.autograd.value_and_grad`).

The forward runs once: between `new_graph` and `end_graph` a tape records every operation on Tensors, since which
inputs and weights are differentiated is only known at `grad`. `grad` runs the backward of that recording from the
output given to `end_graph` (ones as its sensitivity, or the last argument with `sens_param`), and answers in
`GradOperation`'s shape (`get_all`, `get_by_list`). The recording is released once differentiated.
"""
from mindseed._utils import _state
from mindseed.autograd._tape import Tape, backward
from mindseed.common.tensor import Tensor
from mindseed.ops._prims import core as P

__all__ = ["new_graph", "end_graph", "grad"]


class _TopCellTape(Tape):
    """Records every differentiable operation on Tensors (every Tensor argument is tracked)."""
    __slots__ = ()

    def record(self, prim, args, attrs, out):
        if prim.bprop is None or not _state.grad_enabled:
            return
        tracked = self.tracked
        for a in args:
            if isinstance(a, Tensor):
                tracked[id(a)] = a
        Tape.record(self, prim, args, attrs, out)


_building = []      # (obj, tape) of the top cells whose forward is running, innermost last
_finished = []      # (obj, tape, output) of the forwards recorded and not yet differentiated, newest last
_KEEP = 8           # recorded forwards kept waiting for their `grad` (each holds its intermediates): the newest


def _remove_tape(tape):
    for i in range(len(_state.tapes) - 1, -1, -1):
        if _state.tapes[i] is tape:
            del _state.tapes[i]
            return


def new_graph(obj, *args, **kwargs):
    """Start recording the forward of `obj` (a Cell or function) for a later `grad`."""
    if not _state.grad_enabled:
        return
    tape = _TopCellTape()
    _building.append((obj, tape))
    _state.tapes.append(tape)


def end_graph(obj, output, *args, **kwargs):
    """Stop recording the forward of `obj`; `output` is what `grad` differentiates."""
    for i in range(len(_building) - 1, -1, -1):
        if _building[i][0] is obj:
            _, tape = _building.pop(i)
            _remove_tape(tape)
            _finished[:] = [f for f in _finished if f[0] is not obj]
            _finished.append((obj, tape, output))
            del _finished[:-_KEEP]
            return


def _recorded(obj):
    """The recorded forward of `obj`; the newest recorded one when `obj` has none (code that wraps the function
    between the forward and `grad`, as `has_aux` wrappers do); None when nothing was recorded."""
    for i in range(len(_finished) - 1, -1, -1):
        if _finished[i][0] is obj:
            return _finished.pop(i)
    return _finished.pop() if _finished else None


def _flat(out):
    if isinstance(out, Tensor):
        return [out]
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _flat(o)]
    if isinstance(out, dict):
        return [t for o in out.values() for t in _flat(o)]
    return []


def grad(obj, grad_op, weights, grad_position, *args):
    """The gradients of the recorded forward of `obj` (see the module docstring); with nothing recorded the
    forward is run and recorded here first."""
    from mindseed.autograd.grad import _single_weight, _weights_list  # noqa: PLC0415 (grad.py is above this)
    get_all = getattr(grad_op, "get_all", False)
    get_by_list = getattr(grad_op, "get_by_list", False)
    sens_param = getattr(grad_op, "sens_param", False)
    sens = None
    if sens_param:
        if not args:
            raise ValueError("For 'grad', 'sens_param' is True but no sensitivity was given as the last input.")
        args, sens = args[:-1], args[-1]
    record = _recorded(obj)
    if record is None:
        new_graph(obj, *args)
        end_graph(obj, obj(*args), *args)
        record = _recorded(obj)
        if record is None:
            raise RuntimeError("In no_grad context, you can not calculate gradient")
    _, tape, output = record
    roots = [r for r in _flat(output) if tape.is_tracked(r)]
    if sens is None:
        sens_list = [P.ones_like_p(r) for r in roots]
    else:
        sens_list = [s for r, s in zip(_flat(output), _flat(sens)) if tape.is_tracked(r)]
    ct = backward(tape, roots, sens_list) if roots else {}

    def of(t):
        g = ct.get(id(t)) if isinstance(t, Tensor) else None
        return g if g is not None else P.zeros_like_p(t)

    if weights is None and get_by_list:
        params = getattr(obj, "trainable_params", None)
        weights = tuple(params()) if callable(params) else ()
    weight_grads = _single_weight(weights, tuple(of(w) for w in _weights_list(weights)))
    tensors = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
    if grad_position is not None:
        positions = (grad_position,) if isinstance(grad_position, int) else tuple(grad_position)
        input_grads = tuple(of(args[p]) for p in positions)
        input_grads = input_grads[0] if len(input_grads) == 1 else input_grads
        return (input_grads, weight_grads) if weights is not None else input_grads
    input_grads = tuple(of(args[i]) for i in (tensors if get_all else tensors[:1]))
    if get_by_list and get_all:
        return input_grads, weight_grads
    if get_by_list:
        return weight_grads
    if get_all:
        return input_grads
    return input_grads[0] if input_grads else ()
