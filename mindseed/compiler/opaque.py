"""Opaque steps: library code that updates state with its own kernels (optimizers, loss-scale updates) as one
`PyCall` node of the graph being traced, which runs it as Python at every call of the compiled function.

`speculative()` tells whether the code being traced runs now (an untaken branch or a loop body traced before
the loop runs does not): such a step, a `print` or an `assert` is then recorded but not performed.
"""
from mindseed._utils import _state
from mindseed.common.tensor import Tensor
from mindseed.compiler.trace import GraphBreak, user_location
from mindseed.ops._prims import core as P

__all__ = ["opaque_call", "speculative"]


def speculative():
    """True while tracing code whose trace-time values are not this call's: an untaken branch, a loop body."""
    b = _state.tracing
    while b is not None:
        if getattr(b, "speculative", False) or b.graph.name in ("cond", "body"):
            return True
        b = b.parent
    return False


def opaque_call(fn, args, outputs=False, writes=()):
    """fn(*args) as one side-effect node of the graph being traced (it runs as Python at every call); outside
    tracing, fn(*args).

    Used for steps that update state through their own kernels (optimizers): the trace run performs the
    real step once, without recording its inside; the graph gets one node that repeats it each call. With
    `outputs`, the Tensors fn returns (new ones, not its arguments) are outputs of that node: later graph
    code reads the values of each call (a loss-scaled step's overflow flag); otherwise they are the trace
    run's. `writes`: the Parameters the step may update. They are inputs of the node and it gives back their
    new values, which later reads in the graph see (a loss recomputed after the step, `w * 2` before and after
    it are different values); a read before the step stays the old value.
    """
    builder = _state.tracing
    if builder is None:
        return fn(*args)          # not tracing: just the step
    from mindseed.compiler.control import _flatten, _unflatten  # noqa: PLC0415 -- control.py imports this module
    leaves = []
    tmpl = _flatten(args, leaves)
    writes = list({id(p): p for p in writes}.values())
    inputs = [builder.operand(t) for t in leaves] + [builder.operand(p) for p in writes]
    if speculative():
        # traced without running now (an untaken branch, a loop body traced before the loop runs): the step must
        # not happen; the node runs it when (and as often as) the graph gets there. Its result is not known
        if outputs:
            raise GraphBreak(f"a step with results (at {user_location()}) under a condition on a tensor")
        result = None
    else:
        saved_tapes, saved_tracing = list(_state.tapes), _state.tracing
        _state.tapes.clear()
        _state.tracing = None
        try:
            result = fn(*args)
        finally:
            _state.tapes[:] = saved_tapes
            _state.tracing = saved_tracing
    outs = []
    if outputs:
        _flatten(result, outs)
    n_in, n_out = len(leaves), len(outs)
    new_params = [Tensor._from_raw(p._data) for p in writes]

    def run(*raw):
        res = fn(*_unflatten(tmpl, [Tensor._from_raw(r) for r in raw[:n_in]]))
        got = []
        if outputs:
            _flatten(res, got)
        return tuple(t._data for t in got) + tuple(p._data for p in writes)

    out_vars = builder.emit(P.py_call_p, inputs, {"fn": run}, outs + new_params)
    for p, v in zip(writes, out_vars[n_out:]):
        builder.vars[id(p)] = v           # later reads see the step's update
        builder.assigned[id(p)] = p       # control flow passes it out of a branch or loop body
    return result
