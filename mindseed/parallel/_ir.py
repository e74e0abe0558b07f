"""Partitioning the compiler's IR: a `_spmd.Program` from a traced graph, for `_spmd.execute`.

`graph_program(fn, args)` traces one call of `fn` (a Cell's whole call as GRAPH_MODE compiles it, a jitted function,
a bound method such as a `TrainOneStepCell`'s `_loss_and_grads`) with `compiler.jit.partition_trace`: the graph of
its primitive calls, the bprops of a `grad` / `value_and_grad` inside it included (the compiler's autodiff traces the
backward pass into the same graph), without the optimization passes. Each node keeps what the partitioner needs
(`ir.Node`): the strategy of the sharded class-API operator that made it (`ops.MatMul().shard(...)`, the `Reshard`
of `Cell.shard` / `ms.shard`), the forward node whose bprop made it, and the value whose gradient parts it adds.

`program_from_graph(graph, inputs)` walks the nodes in order, one `Call` per node: its inputs the values of the
graph's parameters (the call's argument tensors, the Parameters and constants it captured) or of earlier nodes,
computed by the node's kernel on whole tensors (`abstract`: data-less tensors of the node's shapes and dtypes, as
`_spmd.record(abstract=True)` makes). `execute` then runs it on the ranks as it runs a recording.

A graph holding control flow (`If`, `While` nodes) or nodes updating state (Parameter updates, an optimizer step,
BatchNorm's moving statistics) is no straight-line program of pure calls: `graph_program` says why, and the caller
records the call as PyNative calls instead (`_spmd.record`).
"""
import contextlib

from mindseed.common.tensor import Tensor
from mindseed.compiler.cache import _unflatten
from mindseed.compiler.ir import Const, Var
from mindseed.compiler.jit import partition_trace
from mindseed.compiler.trace import GraphBreak, speculating
from mindseed.ops._registry import Prim
from mindseed.parallel._spmd import Call, Program, _flat, abstract_run

__all__ = ["graph_program", "program_from_graph", "unpartitionable"]


def unpartitionable(graph):
    """Why `graph` is no straight-line program of pure primitive calls (a str), or None when it is one."""
    for node in graph.nodes:
        if node.subgraphs():
            return f"it holds control flow ({node.name} at {node.loc or 'an unknown line'})"
        if not isinstance(node.prim, Prim):
            return f"its node {node.name} is no primitive"
        if node.prim.side_effect:
            return f"its node {node.name} updates state"
    return None


def _value(x, env):
    if isinstance(x, Var):
        return env[x.id]
    if isinstance(x, Const):
        v = x.value
        # a backend tensor captured at trace time: a constant Tensor of the program
        return Tensor._from_raw(v) if not isinstance(v, Tensor) and hasattr(v, "shape") and hasattr(v, "dtype") \
            else v
    return x


def _tensors_of(v, env):
    """The tensors of the Var(s) `v` (a node's `differentiates` / `sums`)."""
    if v is None:
        return None
    if isinstance(v, tuple):
        return tuple(None if x is None else env.get(x.id) for x in v)
    return env.get(v.id)


def program_from_graph(graph, inputs, out_tmpl=None, abstract=False):
    """The `Program` of `graph` run on `inputs` (one tensor per graph parameter, in order): one `Call` per node,
    its strategy and bprop bookkeeping from the node, its values computed by the node's kernel (`abstract`: data-less
    tensors of their shapes and dtypes); the result unflattened by `out_tmpl` (`compiler.cache`'s template; None:
    the tuple of the graph's outputs).

    Raises:
        ValueError: a graph that is no straight-line program of pure calls (`unpartitionable`), or `inputs` not one
            tensor per graph parameter.
    """
    why = unpartitionable(graph)
    if why is not None:
        raise ValueError(f"For 'program_from_graph', the graph '{graph.name}' must be a straight-line program of "
                         f"primitive calls, but {why}.")
    inputs = tuple(inputs)
    if len(inputs) != len(graph.params):
        raise ValueError(f"For 'program_from_graph', the graph '{graph.name}' has {len(graph.params)} parameters, but "
                         f"got {len(inputs)} inputs.")
    env = {p.id: t for p, t in zip(graph.params, inputs)}
    calls, differentiates, sums = [], [], []
    for node in graph.nodes:
        args = tuple(_value(x, env) for x in node.inputs)
        out = node.prim.placeholders(*args, **node.attrs) if abstract else node.prim(*args, **node.attrs)
        outs = out if isinstance(out, tuple) else (out,)
        for v, o in zip(node.outputs, outs):
            env[v.id] = o
        calls.append(Call(node.prim, args, dict(node.attrs), out, node.strategy))
        differentiates.append(_tensors_of(node.differentiates, env))
        sums.append(_tensors_of(node.sums, env))
    outputs = [_value(v, env) for v in graph.outputs]
    result = tuple(outputs) if out_tmpl is None else _unflatten(out_tmpl, outputs)
    program = Program(calls, inputs, _flat(outputs), result, differentiates, sums)
    program.graph = graph
    return program


def graph_program(fn, args, kwargs=None, abstract=False):
    """(Program, None) of one call of `fn(*args, **kwargs)` partitioned from its graph (`program_from_graph`), or
    (None, why) when the graph cannot be (control flow, state updates, code the graph cannot hold): the caller then
    records the call as PyNative calls. The trace run's Parameter updates are undone (the program's run, or the
    recording, makes the call's). With `abstract` the trace and the program compute no kernel (`_spmd.abstract_run`:
    shapes and dtypes only, the arguments and Parameters may hold no data)."""
    try:
        with speculating(), abstract_run() if abstract else contextlib.nullcontext():
            graph, inputs, out_tmpl, _ = partition_trace(fn, args, kwargs)
    except GraphBreak as exc:
        return None, f"the trace stopped: {exc}"
    why = unpartitionable(graph)
    if why is not None:
        return None, why
    return program_from_graph(graph, inputs, out_tmpl, abstract), None
