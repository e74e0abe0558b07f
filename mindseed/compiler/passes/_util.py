"""Helpers shared by passes: purity, substitution of values, readers of a value, new nodes, nested graphs."""
import functools

from mindseed.common import dtype as mstype
from mindseed.compiler.ir import Const, Node, Var

FLOATS = frozenset(str(t) for t in mstype.float_type)  # IR values carry dtype names


def is_pure(node):
    """No side effects and deterministic: may be removed, merged or evaluated early. A node calling back into
    Python (a hook, a pyfunc: a callable attribute) is not."""
    prim = node.prim
    if prim.side_effect or prim.random or node.subgraphs():
        return False
    return not any(callable(v) and not isinstance(v, type) for v in node.attrs.values())


def effectful(node):
    """Whether `node` must run even if nobody reads its outputs: an impure node, or a control-flow node with one in
    its sub-graphs (an If whose branch only prints has no outputs, yet must run)."""
    subgraphs = node.subgraphs()
    if not subgraphs:
        return not is_pure(node)
    return node.prim.side_effect or any(effectful(n) for g in subgraphs for n in g.nodes)


def new_node(prim, inputs, attrs, loc, hint="v"):
    """A node applying `prim`, its outputs new Vars typed by the primitive's shape rule (`Prim.abstract_eval`)."""
    out = prim.abstract_eval(*[x.value if isinstance(x, Const) else x for x in inputs], **attrs)
    outs = out if prim.multi_output else (out,)
    return Node(prim, inputs, attrs, [Var(o.shape, o.dtype, hint) for o in outs], loc)


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


def inner_graphs_first(pass_fn):
    """Decorate a pass over one graph so that it runs over every node's sub-graphs (recursively) first."""
    @functools.wraps(pass_fn)
    def run(graph):
        for node in graph.nodes:
            for g in node.subgraphs():
                run(g)
        return pass_fn(graph)
    return run
