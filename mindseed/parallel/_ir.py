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
`_spmd.record(abstract=True)` makes); control flow unrolled from the values (an `If`'s taken branch, a `While`'s
body once per iteration, a differentiated loop's saved-value stacks followed in Python). `execute` then runs it on
the ranks as it runs a recording.

A graph holding nodes updating state (Parameter updates, an optimizer step, BatchNorm's moving statistics), or, on
shapes alone, control flow, is no program the partitioner can run: `graph_program` says why, and the caller records
the call as PyNative calls instead (`_spmd.record`).
"""
import contextlib

import numpy as np

from mindseed.common.tensor import Tensor
from mindseed.compiler.cache import _unflatten
from mindseed.compiler.ir import IF, WHILE, Const, Var
from mindseed.compiler.jit import partition_trace
from mindseed.compiler.loops import stack_get_p, stack_len_p, stack_new_p, stack_push_p
from mindseed.compiler.trace import GraphBreak, speculating
from mindseed.ops._prims.core import assign_p
from mindseed.ops._registry import Prim
from mindseed.parallel._spmd import Call, Program, _flat, abstract_run

__all__ = ["graph_program", "program_from_graph", "unpartitionable", "apply_updates"]


_STACKS = (stack_new_p, stack_push_p, stack_len_p, stack_get_p)


def unpartitionable(graph, abstract=False, nested=False):
    """Why `graph` is no program of primitive calls the partitioner can run (a str), or None when it is one.
    Control flow (`If`, `While`) unrolls from the values (`program_from_graph`), so not on shapes alone
    (`abstract`); the saved-value stacks of a differentiated loop are followed, not run; an `Assign` of the graph
    itself (not of a branch or loop body: `nested`) is the program's update (`Program.updates`), but for shapes
    alone. Other state updates (an optimizer step's `PyCall`, an update inside control flow) are not."""
    for node in graph.nodes:
        if node.prim is IF or node.prim is WHILE:
            if abstract:
                return f"it holds control flow ({node.name} at {node.loc or 'an unknown line'}), whose branch or " \
                       f"trip count shapes alone do not give"
            why = next(filter(None, (unpartitionable(g, nested=True) for g in node.subgraphs())), None)
            if why is not None:
                return why
            continue
        if node.subgraphs() or not isinstance(node.prim, Prim):
            return f"its node {node.name} is no primitive"
        if node.prim.side_effect and node.prim not in _STACKS and (node.prim is not assign_p or nested or abstract):
            return f"its node {node.name} updates state" + (" inside control flow" if nested else "") + \
                (" (shapes alone give no value to update with)" if abstract and not nested else "")
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


def _truth(c):
    return bool(np.asarray(c.asnumpy())) if isinstance(c, Tensor) else bool(c)


class _Unrolled:
    """The calls of a graph's run, its control flow unrolled: `env` the value of each Var (the latest iteration's for
    a loop body's), `calls` / `differentiates` / `sums` the Program's."""

    def __init__(self, env, abstract):
        self.env, self.abstract = env, abstract
        self.calls, self.differentiates, self.sums = [], [], []
        self.updates, self.scopes = [], []

    def run(self, graph, args):
        """Run `graph`'s nodes with its parameters bound to `args`; returns its outputs' values."""
        env = self.env
        for p, a in zip(graph.params, args):
            env[p.id] = a
        for node in graph.nodes:
            if node.prim is WHILE:
                outs = self._while(node)
            elif node.prim is IF:
                branch = node.attrs["then" if _truth(_value(node.inputs[0], env)) else "else_"]
                outs = self.run(branch, [_value(x, env) for x in node.inputs[1:]])
            elif node.prim in _STACKS:
                outs = self._stack(node)
            elif node.prim is assign_p:   # the graph reads the value from now on; the update waits for the run
                self.updates.append((_value(node.inputs[0], env), _value(node.inputs[1], env)))
                outs = ()
            else:
                outs = self._call(node)
            for v, o in zip(node.outputs, outs):
                env[v.id] = o
        return [_value(o, env) for o in graph.outputs]

    def _call(self, node):
        env = self.env
        args = tuple(_value(x, env) for x in node.inputs)
        out = node.prim.placeholders(*args, **node.attrs) if self.abstract else node.prim(*args, **node.attrs)
        outs = out if isinstance(out, tuple) else (out,)
        for v, o in zip(node.outputs, outs):
            env[v.id] = o
        self.calls.append(Call(node.prim, args, dict(node.attrs), out, node.strategy))
        self.differentiates.append(_tensors_of(node.differentiates, env))
        self.sums.append(_tensors_of(node.sums, env))
        self.scopes.append(node.scopes or ())
        return outs

    def _while(self, node):
        """The loop run from its carried values until its condition is false, each iteration's calls in order."""
        carried = [_value(x, self.env) for x in node.inputs]
        cond, body = node.attrs["cond"], node.attrs["body"]
        while _truth(self.run(cond, carried)[0]):
            carried = self.run(body, carried)
        return carried

    def _stack(self, node):
        """A saved-value stack of a differentiated loop, followed in Python: the backward loop reads back the very
        tensors the forward iterations pushed (no call: the values are those calls' outputs)."""
        args = [_value(x, self.env) for x in node.inputs]
        if node.prim is stack_new_p:
            return [[]]
        stack = args[0]
        if node.prim is stack_push_p:
            if node.attrs.get("extend"):
                stack[-1] = stack[-1] + tuple(args[1:])
            else:
                stack.append(tuple(args[1:]))
            return [stack]
        if node.prim is stack_len_p:
            return [Tensor(np.array(len(stack), np.int64))]
        k = int(np.asarray(args[1].asnumpy())) if isinstance(args[1], Tensor) else int(args[1])
        return list(stack[k] if 0 <= k < len(stack) else args[2:])


def program_from_graph(graph, inputs, out_tmpl=None, abstract=False):
    """The `Program` of `graph` run on `inputs` (one tensor per graph parameter, in order): one `Call` per primitive
    node run, its strategy and bprop bookkeeping from the node, its values computed by the node's kernel (`abstract`:
    data-less tensors of their shapes and dtypes); control flow unrolled from the values (an `If` runs its taken
    branch's nodes, a `While` its body's once per iteration); the result unflattened by `out_tmpl`
    (`compiler.cache`'s template; None: the tuple of the graph's outputs).

    Raises:
        ValueError: a graph the partitioner cannot run (`unpartitionable`), or `inputs` not one tensor per graph
            parameter.
    """
    why = unpartitionable(graph, abstract)
    if why is not None:
        raise ValueError(f"For 'program_from_graph', the graph '{graph.name}' must be a program of pure primitive "
                         f"calls, but {why}.")
    inputs = tuple(inputs)
    if len(inputs) != len(graph.params):
        raise ValueError(f"For 'program_from_graph', the graph '{graph.name}' has {len(graph.params)} parameters, but "
                         f"got {len(inputs)} inputs.")
    run = _Unrolled({}, abstract)
    outputs = run.run(graph, inputs)
    result = tuple(outputs) if out_tmpl is None else _unflatten(out_tmpl, outputs)
    program = Program(run.calls, inputs, _flat(outputs), result, run.differentiates, run.sums)
    program.graph, program.updates, program.scopes = graph, run.updates, run.scopes
    return program


def apply_updates(program):
    """Make the state updates of `program` (`Program.updates`: the graph's `Assign`s of Parameters or of the call's
    tensor arguments) on the real tensors, once its run on the ranks has read them (the executor reads a leaf when a
    call first needs it); what the call's PyNative run does, whose recording has no update to make."""
    for target, value in program.updates:
        if isinstance(value, Tensor):
            assign_p.impl(target._data, value._data)


def graph_program(fn, args, kwargs=None, abstract=False):
    """(Program, None) of one call of `fn(*args, **kwargs)` partitioned from its graph (`program_from_graph`), or
    (None, why) when the graph cannot be (state updates, code the graph cannot hold; on shapes alone control flow):
    the caller then records the call as PyNative calls. The trace run's Parameter updates are undone (the program's
    run, or the recording, makes the call's). With `abstract` the trace and the program compute no kernel
    (`_spmd.abstract_run`: shapes and dtypes only, the arguments and Parameters may hold no data)."""
    try:
        with speculating(), abstract_run() if abstract else contextlib.nullcontext():
            graph, inputs, out_tmpl = partition_trace(fn, args, kwargs)
    except GraphBreak as exc:
        return None, f"the trace stopped: {exc}"
    why = unpartitionable(graph, abstract)
    if why is not None:
        return None, why
    return program_from_graph(graph, inputs, out_tmpl, abstract), None
