"""Reading a MindIR file into a `FuncGraph` that runs on mindseed (what `ms.load` returns).

The whole file is parsed and checked before anything runs: every node's operator must be one mindseed
knows (`_ms_ops.OPS`), a graph it calls or a value it defines; every input must be defined before its use;
weights must have exactly the bytes their shapes need. A failure is a `MindIRError` naming the file and the
node. Nothing in the file is evaluated as code: operators are looked up by name in a fixed table.

Control flow as MindSpore writes it: `Switch(cond, Partial(then, ...), Partial(else, ...))` makes a choice
that the next node calls, run as the compiler's `if` (an If node in graph mode); a `while` is a header graph
that calls itself through such a switch (tail recursion), recognized and run as the compiler's `while` (a
While node in graph mode, a loop in PyNative: the trip count is unbounded). Other tail calls continue the
caller's loop instead of recursing.
"""
import os

import numpy as np

from mindseed.common import dtype as mstype
from mindseed.common.parameter import Parameter
from mindseed.common.tensor import Tensor
from mindseed.compiler import control, loops
from mindseed.export import _schema as S
from mindseed.export._mindir_format import MONAD, MindIRError, decode, np_dtype_of, tensor_from_proto
from mindseed.export._ms_ops import OPS

_REF = "REF::"
_PRIM_KINDS = {v: k for k, v in S.PRIM_TYPES.items()}


class _Closure:
    """Partial(graph, *bound): a graph with its first arguments bound."""

    __slots__ = ("graph", "bound")

    def __init__(self, graph, bound):
        self.graph, self.bound = graph, tuple(bound)


class _Choice:
    """Switch(cond, a, b) not yet decided: calling it is an `if` on cond (an If node when cond is traced)."""

    __slots__ = ("cond", "a", "b")

    def __init__(self, cond, a, b):
        self.cond, self.a, self.b = cond, a, b


class _Node:
    __slots__ = ("name", "output", "op", "kind", "attrs", "inputs", "callee")

    def __init__(self, name, output, op, kind, attrs, inputs, callee=None):
        self.name, self.output, self.op, self.kind, self.attrs = name, output, op, kind, attrs
        self.inputs, self.callee = inputs, callee


class _Graph:
    __slots__ = ("name", "inputs", "nodes", "output", "tail", "loop")

    def __init__(self, name, inputs, nodes, output):
        self.name, self.inputs, self.nodes, self.output = name, inputs, nodes, output
        last = nodes[-1] if nodes else None
        # a call whose result is the graph's result: run by the caller's loop (tail call)
        self.tail = last if last is not None and last.output == output and last.op == "call" else None
        self.loop = None    # for a while loop's header: (the Partial node of the body, that of the exit)


def _find_loops(graphs):
    """Mark the while-loop headers: a graph whose tail calls Switch(c, Partial(B), Partial(E)) where B's tail
    calls the header again."""
    for g in graphs.values():
        if g.tail is None:
            continue
        by_out = {n.output: n for n in g.nodes}
        switch = by_out.get(g.tail.callee)
        if switch is None or switch.op != "Switch" or len(switch.inputs) != 3:
            continue
        partials = [by_out.get(i) for i in switch.inputs[1:]]
        if any(p is None or p.op != "Partial" or p.inputs[0] not in graphs for p in partials):
            continue
        for body, other in ((partials[0], partials[1]), (partials[1], partials[0])):
            b = graphs[body.inputs[0]]
            if b.tail is not None and b.tail.callee == g.name:
                g.loop = (body.output, other.output)
                break


class FuncGraph:
    """A graph loaded from a MindIR file; call it with the model's inputs (or wrap it in `nn.GraphCell`)."""

    def __init__(self, file_name, graphs, main, params, consts, input_specs, output_is_tuple):
        self.file_name = file_name
        self._graphs, self._main, self._consts = graphs, main, consts
        self.parameters = params            # {name in the file: Parameter}
        self.input_specs = input_specs      # [(name, shape with None for dynamic dims, numpy dtype)]
        self._output_is_tuple = output_is_tuple

    def __repr__(self):
        return f"FuncGraph(file={self.file_name!r}, inputs={len(self.input_specs)}, parameters={len(self.parameters)})"

    def __call__(self, *inputs):
        if len(inputs) != len(self.input_specs):
            raise ValueError(f"For 'GraphCell', the graph loaded from '{self.file_name}' takes "
                             f"{len(self.input_specs)} inputs, but got {len(inputs)}.")
        for i, (x, (name, shape, dt)) in enumerate(zip(inputs, self.input_specs)):
            if not isinstance(x, Tensor):
                raise TypeError(f"For 'GraphCell', input {i} ('{name}') must be a Tensor, but got {type(x).__name__}.")
            if len(x.shape) != len(shape) or any(d is not None and d != s for d, s in zip(shape, x.shape)):
                raise ValueError(f"For 'GraphCell', input {i} ('{name}') of the graph loaded from '{self.file_name}' "
                                 f"must have shape {[-1 if d is None else d for d in shape]}, but got "
                                 f"{list(x.shape)}.")
            if np.dtype(mstype.dtype_to_nptype(x.dtype)) != np.dtype(dt):
                raise TypeError(f"For 'GraphCell', input {i} ('{name}') must have dtype {np.dtype(dt).name}, but got "
                                f"{x.dtype}.")
        out = self._run(self._main, list(inputs))
        return out if self._output_is_tuple or not isinstance(out, tuple) else out[0]

    def _value(self, env, name):
        if name in env:
            return env[name]
        if name in self._consts:
            return self._consts[name]
        if name in self.parameters:
            return self.parameters[name]
        return self._graphs[name]

    def _env(self, graph, args):
        """Run a graph's nodes but its tail call; the environment of its values."""
        env = dict(zip(graph.inputs, args))
        for node in graph.nodes:
            if node is not graph.tail:
                env[node.output] = self._apply(node, [self._value(env, i) for i in node.inputs], env)
        return env

    def _run(self, target, args):
        """Call a graph, closure or undecided switch; tail calls continue this loop instead of recursing."""
        while True:
            while isinstance(target, _Closure):
                args, target = list(target.bound) + list(args), target.graph
            if isinstance(target, _Choice):
                return self._if(target, args)
            if target.loop is not None:
                return self._while(target, args)
            env = self._env(target, args)
            if target.tail is None:
                return self._value(env, target.output)
            args = [self._value(env, i) for i in target.tail.inputs]
            target = self._value(env, target.tail.callee)

    def _if(self, choice, args):
        return control.if_(choice.cond, lambda *a: self._run(choice.a, a), lambda *a: self._run(choice.b, a),
                           tuple(args))

    def _while(self, header, args):
        """A while loop written as tail recursion, run as one (a While node when the condition is traced)."""
        body_at, exit_at = header.loop

        def cond(*vals):
            return self._env(header, vals)[header.tail.callee].cond

        def body(*vals):
            closure = self._env(header, vals)[body_at]
            b = closure.graph
            env = self._env(b, closure.bound)
            return tuple(self._value(env, i) for i in b.tail.inputs)

        final = loops.while_(cond, body, tuple(args))
        return self._run(self._env(header, final)[exit_at], [])

    def _apply(self, node, args, env):
        if node.op == "call":
            return self._run(self._value(env, node.callee), args)
        if node.op == "Partial":
            return _Closure(args[0], args[1:])
        if node.op == "Switch":
            return _Choice(*args)
        return OPS[node.op][1](args, node.attrs)


def load_func_graph(file_name):
    """Read and check a MindIR file; returns the FuncGraph. Raises MindIRError / ValueError naming the file."""
    model = read_model(file_name)
    return _Reader(file_name, model).func_graph()


def read_model(file_name, what="load"):
    """The ModelProto of a MindIR file (parsed, with a graph and an output); MindIRError when it is not one."""
    if not isinstance(file_name, str):
        raise TypeError(f"For '{what}', the argument 'file_name' must be str, but got {type(file_name).__name__}.")
    try:
        with open(file_name, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise ValueError(f"For '{what}', the file '{file_name}' does not exist.") from None
    model = S.ModelProto()
    try:
        model.ParseFromString(data)
    except Exception as e:   # protobuf's DecodeError (and its C implementation's variants)
        raise MindIRError(f"For '{what}', '{file_name}' is not a MindIR file or is truncated/corrupt: the protobuf "
                          f"message does not parse ({e}).") from None
    if not model.HasField("graph") or not model.ir_version or not model.graph.output:
        raise MindIRError(f"For '{what}', '{file_name}' is not a MindIR file (no MindIR graph with an output in it; "
                          f"a foreign or truncated file).")
    return model


class _Reader:
    def __init__(self, file_name, model):
        self.file = file_name
        self.folder = os.path.dirname(os.path.abspath(file_name))     # where weights saved apart are read from
        self.model = model
        self.prims = {p.name: p for p in model.primitives}
        self.graph_protos = {g.name: g for g in [model.graph, *model.functions]}

    def where(self, graph, node=None):
        return f"MindIR file '{self.file}', graph '{graph}'" + (f", node '{node}'" if node else "")

    def func_graph(self):
        consts, params = {}, {}
        for g in self.graph_protos.values():
            for n in g.node:
                if n.op_type == "Constant":
                    consts[n.output[0] if n.output else n.name] = self._constant(g.name, n)
            for p in g.parameter:
                where = self.where(g.name, p.name)
                name = p.ref_key or p.name.rsplit(":", 1)[-1]
                params[p.name] = Parameter(Tensor(tensor_from_proto(p, where, self.folder)), name=name)
        graphs = {name: self._graph(g, consts, params) for name, g in self.graph_protos.items()}
        _find_loops(graphs)
        main = graphs[self.model.graph.name]
        specs = []
        for v in self.model.graph.input:
            if len(v.tensor) != 1:
                raise MindIRError(f"{self.where(main.name, v.name)}: a graph input that is not one tensor.")
            t = v.tensor[0]
            specs.append((v.name.rsplit(":", 1)[-1], tuple(None if d < 0 else d for d in t.dims),
                          np_dtype_of(t.data_type, self.where(main.name, v.name))))
        tuple_out = self.model.graph.output[0].denotation == "Tuple"
        return FuncGraph(self.file, graphs, main, params, consts, specs, tuple_out)

    def _constant(self, graph, n):
        if len(n.attribute) != 1:
            raise MindIRError(f"{self.where(graph, n.name)}: a Constant node must hold one value.")
        v = decode(n.attribute[0], self.where(graph, n.name))
        return Tensor(v) if isinstance(v, np.ndarray) else v

    def _graph(self, g, consts, params):
        defined = set(consts) | set(params) | set(self.graph_protos)
        inputs = [v.name for v in g.input]
        defined.update(inputs)
        nodes = []
        for n in g.node:
            if n.op_type == "Constant":
                continue
            where = self.where(g.name, n.name or (n.output[0] if n.output else "?"))
            if len(n.output) != 1:
                raise MindIRError(f"{where}: a node must have one output, but has {len(n.output)}.")
            for i in n.input:
                if i not in defined:
                    raise MindIRError(f"{where}: input '{i}' is not defined before its use (corrupt or truncated "
                                      f"file).")
            nodes.append(self._node(n, where, defined))
            defined.add(n.output[0])
        if not g.output:
            raise MindIRError(f"{self.where(g.name)}: the graph has no output.")
        out = g.output[0].name
        if out not in defined:
            raise MindIRError(f"{self.where(g.name)}: the graph's output '{out}' is not defined.")
        return _Graph(g.name, inputs, nodes, out)

    def _node(self, n, where, defined):
        op_type = n.op_type
        if op_type.startswith(_REF):
            ref = op_type[len(_REF):]
            if ref in self.graph_protos or ref in defined:
                return _Node(n.name, n.output[0], "call", None, {}, list(n.input), callee=ref)
            prim = self.prims.get(ref)
            if prim is None:
                raise MindIRError(f"{where}: operator reference '{ref}' names no primitive, graph or value of the "
                                  f"file.")
            op, kind = prim.op_type, _PRIM_KINDS.get(prim.prim_type, "PRIMITIVE")
            attrs = {a.name: decode(a, f"{where}, attribute '{a.name}'") for a in prim.attribute
                     if a.name not in ("input_names", "output_names")}
        else:
            op, kind = op_type, "PRIMITIVE"
            attrs = {a.name: decode(a, f"{where}, attribute '{a.name}'") for a in n.attribute if a.name != "shape"}
        if op in ("Partial", "Switch"):
            return _Node(n.name, n.output[0], op, kind, attrs, list(n.input))
        if op not in OPS:
            raise MindIRError(f"{where}: operator '{op}' is not supported by mindseed's MindIR loader.")
        return _Node(n.name, n.output[0], op, kind, attrs, list(n.input))


__all__ = ["FuncGraph", "load_func_graph", "read_model", "MindIRError", "MONAD"]
