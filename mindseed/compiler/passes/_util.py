"""Helpers shared by passes: purity, substitution of values, readers of a value, fresh buffers."""
from mindseed import _backend as B
from mindseed.common import dtype as mstype
from mindseed.compiler.ir import Var

# kernels whose first output is always a newly allocated buffer (never a view of an input): a pass may let a
# later kernel write over it when nothing else reads it
FRESH = frozenset(("Convolution", "BatchNorm", "BatchNormUpdate", "Dense", "MatMul", "Add", "Sub", "Mul", "AddReLU",
                   "ConvBackpropInput", "BatchNormGrad", "LayerNormGrad", "ReluGrad", "MaxPool2x2Grad"))
FLOATS = frozenset(str(t) for t in mstype.float_type)  # IR values carry dtype names


def is_pure(node):
    """No side effects and deterministic: may be removed, merged or evaluated early."""
    prim = node.prim
    if getattr(prim, "side_effect", False) or node.subgraphs():
        return False
    return not any(isinstance(v, B.Generator) or callable(v) and not isinstance(v, type) for v in node.attrs.values())


def substitute(graph, mapping):
    """Replace uses of Vars by mapping[var.id] (a Var or Const) throughout graph and its sub-graphs."""
    if not mapping:
        return graph

    def sub(x):
        while isinstance(x, Var) and x.id in mapping:
            x = mapping[x.id]
        return x
    for node in graph.nodes:
        node.inputs = [sub(x) for x in node.inputs]
        for g in node.subgraphs():
            substitute(g, mapping)
    graph.outputs = [sub(x) for x in graph.outputs]
    return graph


def uses_of(graph):
    """var id -> list of nodes reading it (None stands for a graph output or a read from a sub-graph)."""
    from mindseed.compiler.codegen import _free_vars  # noqa: PLC0415 -- one definition of sub-graph reads
    uses = {}
    for node in graph.nodes:
        for x in node.inputs:
            if isinstance(x, Var):
                uses.setdefault(x.id, []).append(node)
        for g in node.subgraphs():
            for vid in _free_vars(g):
                uses.setdefault(vid, []).append(None)
    for o in graph.outputs:
        if isinstance(o, Var):
            uses.setdefault(o.id, []).append(None)
    return uses


def single_use(var, uses):
    """Whether exactly one node of the graph (not an output, not a sub-graph) reads var (`uses`: uses_of)."""
    readers = uses.get(var.id, ())
    return len(readers) == 1 and readers[0] is not None
