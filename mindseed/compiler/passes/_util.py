"""Helpers shared by passes: purity, substitution of values."""
from mindseed import _backend as B
from mindseed.compiler.ir import Var


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
