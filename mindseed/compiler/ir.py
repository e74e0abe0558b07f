"""The graph IR: SSA values, one node per primitive application, structured control flow.

A `Graph` has parameters (its inputs), a list of `Node`s in execution order, and outputs. Every
value is a `Var` defined once, carrying its abstract value (shape, dtype). A node applies a
primitive to inputs (Vars or Python constants) with attributes; control-flow nodes (`If`,
`While`) hold their bodies as sub-graphs in `attrs`. Nodes whose primitive has side effects
(parameter updates, random draws) are kept in order and never removed or merged.

The printer shows a graph as Python source that parses (`ast.parse`), one line per node with its
shape/dtype and the user's line; an If's or While's sub-graphs are local functions defined before it:

    def construct(p0: "f32[64, 1, 32, 32]", p1: "f32[6, 1, 5, 5]"):
        v2 = Conv2D(p0, p1, stride=1, ...)   # f32[64, 6, 28, 28]  lenet.py:14
        v3 = ReduceSum(v2, axis=None, keep_dims=False)   # f32[]  lenet.py:15
        v4 = Greater(v3, 0)   # bool[]  lenet.py:15
        def then_1(then_1_p0: "f32[64, 6, 28, 28]"):
            ...
        def else_1(else_1_p0: "f32[64, 6, 28, 28]"):
            ...
        v9 = If(v4, v2, then=then_1, else_=else_1)   # f32[64, 6, 28, 28]  lenet.py:15
        return v9
"""
import ast
import functools
import itertools
import keyword

from mindseed.ops._registry import Op

__all__ = ["Var", "Loc", "Node", "Graph", "Const", "Sym", "IF", "WHILE", "print_graph", "verify"]

_ids = itertools.count()

_SHORT = {"Float32": "f32", "Float64": "f64", "Float16": "f16", "BFloat16": "bf16", "Int32": "i32", "Int64": "i64",
          "Int8": "i8", "Int16": "i16", "UInt8": "u8", "Bool": "bool", "UInt32": "u32", "UInt64": "u64",
          "UInt16": "u16", "Complex64": "c64", "Complex128": "c128"}


class Var:
    """One SSA value: defined by exactly one node (or a graph parameter)."""

    __slots__ = ("id", "shape", "dtype", "name_hint", "pytype")

    def __init__(self, shape=None, dtype=None, name_hint="v"):
        self.id = next(_ids)
        self.shape = shape
        self.dtype = dtype
        self.name_hint = name_hint
        # bool/int/float when the value is a Python scalar in MindSpore's sense (`int(t)`, a loop counter):
        # it lives in the graph as a 0-d tensor and is handed back to Python as that type
        self.pytype = None

    def type_str(self):
        if self.shape is None:
            return "?"
        dims = ", ".join("?" if d is None else str(d) for d in self.shape)
        scalar = f" {self.pytype.__name__}" if self.pytype is not None else ""
        return f"{_SHORT.get(self.dtype, self.dtype)}[{dims}]{scalar}"

    def __repr__(self):
        return f"%{self.id}"


class Const:
    """A constant operand: a Python value, or a backend tensor captured at trace time."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __repr__(self):
        return f"Const({self.value!r})"


class Sym:
    """A number that depends on a dynamic input dimension d = d[k], known at run time:
    `a * d + b` (kind "lin", a float result when `a` is a float) or `a / d` (kind "inv")."""

    __slots__ = ("k", "a", "b", "kind")

    def __init__(self, k, a, b, kind="lin"):
        self.k, self.a, self.b, self.kind = k, a, b, kind

    def source(self, dims="_d"):
        d = f"{dims}[{self.k}]"
        if self.kind == "inv":
            return f"({self.a!r} / {d})"
        term = d if self.a == 1 and isinstance(self.a, int) else f"{self.a!r} * {d}"
        return f"({term} + {self.b!r})" if self.b or isinstance(self.b, float) else term

    def __repr__(self):
        return self.source("d")


class Loc(str):
    """A node's `loc` traced inside a Cell: the user's 'file:line' that also carries the Cell scope the node was
    traced in (`scope`, MindSpore's full name such as "Default/fc-Dense", which the profiler reports). A str, so
    the passes that copy a node's loc into the nodes replacing it keep the scope too."""

    def __new__(cls, text, scope="Default"):
        self = super().__new__(cls, text)
        self.scope = scope
        return self

    def __reduce__(self):
        return (Loc, (str(self), self.scope))


class Node:
    """prim(*inputs, **attrs) -> outputs; `loc` is the user's 'file:line' (a `Loc` inside a Cell).

    What the trace knows of the node for the parallel partitioner (None when it knows nothing, or for a node a pass
    made): `strategy`, the (in_strategy, out_strategy) of the sharded class-API operator that made it
    (`ops.MatMul().shard(...)`, `Cell.shard`'s Reshard); `differentiates`, the output Vars of the forward node whose
    bprop made it (a tuple for a node of several outputs); `sums`, the Var whose gradient parts it adds; `scopes`, in a
    trace for the partitioner, the cell scopes it was traced in (`_state.scopes` entries (cell, name), outermost first:
    the stage of a pipeline's call)."""

    __slots__ = ("prim", "inputs", "attrs", "outputs", "loc", "recomputed", "strategy", "differentiates", "sums",
                 "scopes")

    def __init__(self, prim, inputs, attrs, outputs, loc=None):
        self.prim = prim
        self.inputs = list(inputs)
        self.attrs = attrs
        self.outputs = list(outputs)
        self.loc = loc
        self.recomputed = False   # forward work redone in the backward pass (Cell.recompute): never merged
        self.strategy = self.differentiates = self.sums = self.scopes = None

    @property
    def name(self):
        return self.prim.name

    def subgraphs(self):
        return [g for g in self.attrs.values() if isinstance(g, Graph)]


class _Control(Op):
    """Pseudo-primitives of structured control flow (no kernel; codegen emits Python if/while). What runs in
    their sub-graphs (side effects, random draws) is read from the sub-graphs, not from these properties."""

    __slots__ = ()

    def __init__(self, name):
        super().__init__(name, multi_output=True)


# If(cond, *operands; then=Graph, else_=Graph) -> outputs of the taken branch
IF = _Control("If")
# While(*carried; cond=Graph, body=Graph) -> final carried values
WHILE = _Control("While")


class Graph:
    """A function in the IR."""

    def __init__(self, name="graph"):
        self.name = name
        self.params = []
        self.nodes = []
        self.outputs = []
        self.kept_params = None   # set by prune_unused_parameters: original positions of the remaining params
        self.dynamic = False      # compiled for dynamic shapes: values built from shapes are not folded

    def add_param(self, var):
        self.params.append(var)
        return var

    def size(self):
        """Number of nodes including those of sub-graphs."""
        return sum(1 + sum(g.size() for g in n.subgraphs()) for n in self.nodes)

    def __str__(self):
        return print_graph(self)


# ---------------------------------------------------------------- printing
@functools.lru_cache(maxsize=4096)
def _ident(name):
    """`name` as a Python identifier: a graph or primitive name may be `<lambda>`, or a keyword (`else`)."""
    if name.isidentifier() and name.isascii() and not keyword.iskeyword(name):
        return name
    s = "".join(c if c.isascii() and (c.isalnum() or c == "_") else "_" for c in str(name)) or "_"
    if s[0].isdigit():
        s = "_" + s
    return s + "_" if keyword.iskeyword(s) else s


def _expr(text):
    """`text` if it is one line of Python expression, else an `opaque('...')` call holding it."""
    if "\n" not in text:
        try:
            ast.parse(text, mode="eval")
            return text
        except (SyntaxError, ValueError):
            pass
    return f"opaque({text!r})"


def _fmt_value(v, names):
    """An operand or attribute as a Python expression."""
    if isinstance(v, Var):
        return names.get(v.id, f"v{v.id}")
    if isinstance(v, Const):
        return _fmt_value(v.value, names)
    if isinstance(v, Graph):
        return names.get(("g", id(v)), _ident(str(v.name)))
    if v is None or isinstance(v, (bool, int, str, Sym)):
        return repr(v)
    if isinstance(v, float):
        return repr(v) if v == v and v not in (float("inf"), float("-inf")) else f"float({str(v)!r})"
    if isinstance(v, tuple):
        return "(" + "".join(_fmt_value(x, names) + ", " for x in v) + ")"
    if isinstance(v, list):
        return "[" + ", ".join(_fmt_value(x, names) for x in v) + "]"
    if isinstance(v, slice):
        return f"slice({_fmt_value(v.start, names)}, {_fmt_value(v.stop, names)}, {_fmt_value(v.step, names)})"
    if hasattr(v, "shape") and hasattr(v, "dtype"):
        return f"Tensor(shape={list(v.shape)}, dtype={_ident(str(v.dtype).rsplit('.', 1)[-1])})"
    if callable(v) and not isinstance(v, type):
        return _ident(str(getattr(v, "__name__", type(v).__name__)))
    return _expr(repr(v))


def print_graph(graph):
    """The graph as Python source: one line per node with its type and source location in a comment; the
    branch and loop-body graphs of an If / While are local functions defined just before it."""
    return "\n".join(_print_lines(graph, _ident(str(graph.name)), "", {}, [0]))


def _print_lines(graph, fname, indent, names, counter):
    # `names` is shared by the nested graphs: values are SSA (printed `v<id>`), parameters prefixed by the graph
    for i, p in enumerate(graph.params):
        names[p.id] = f"{fname}_p{i}" if indent else f"p{i}"
    params = ", ".join(f'{names[p.id]}: "{p.type_str()}"' for p in graph.params)
    lines = [f"{indent}def {fname}({params}):"]
    inner = indent + "    "
    for node in graph.nodes:
        subs = node.subgraphs()
        if subs:
            counter[0] += 1
            for g in subs:
                names[("g", id(g))] = _ident(f"{g.name}_{counter[0]}")
                lines.extend(_print_lines(g, names[("g", id(g))], inner, names, counter))
        for o in node.outputs:
            names[o.id] = f"v{o.id}"
        lhs = ", ".join(names[o.id] for o in node.outputs) or "_"
        args = [_fmt_value(x, names) for x in node.inputs]
        args += [f"{_ident(str(k))}={_fmt_value(v, names)}" for k, v in node.attrs.items()]
        types = ", ".join(o.type_str() for o in node.outputs)
        loc = f"  {node.loc}" if node.loc else ""
        loc += "  [recomputed]" if node.recomputed else ""
        lines.append(f"{inner}{lhs} = {_ident(str(node.prim.name))}({', '.join(args)})  # {types}{loc}")
    outs = ", ".join(_fmt_value(o, names) for o in graph.outputs)
    lines.append(f"{inner}return {outs}".rstrip())
    return lines


# ---------------------------------------------------------------- verifier
def verify(graph, outer=()):
    """Check SSA form: every Var used is defined before (or is a parameter / an outer value), defined once."""
    defined = set(outer) | {p.id for p in graph.params}
    for node in graph.nodes:
        for x in node.inputs:
            if isinstance(x, Var) and x.id not in defined:
                raise ValueError(f"IR verify: {graph.name}: node {node.prim.name} uses %{x.id} before definition")
        for g in node.subgraphs():
            verify(g, defined)
        for o in node.outputs:
            if o.id in defined:
                raise ValueError(f"IR verify: {graph.name}: %{o.id} defined twice")
            defined.add(o.id)
    for o in graph.outputs:
        if isinstance(o, Var) and o.id not in defined:
            raise ValueError(f"IR verify: {graph.name}: output %{o.id} is not defined")
    return True
