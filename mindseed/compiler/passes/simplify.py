"""Algebraic simplification: identities that need no computation (x*1, x+0, identity, no-op cast/reshape), read
from the primitives' declarations (`identity`, `retype`, `left_identity`, `right_identity`)."""
from mindseed.compiler.ir import Const, Var
from mindseed.compiler.passes._util import substitute


def _is_scalar(x, value):
    return isinstance(x, Const) and isinstance(x.value, (int, float)) and not isinstance(x.value, bool) \
        and x.value == value


def _same_type(a, out):
    return isinstance(a, Var) and a.shape == out.shape and a.dtype == out.dtype


def _rule(node):
    """The value that replaces node's single output, or None: the declared identities of its primitive."""
    prim = node.prim
    ins = node.inputs
    out = node.outputs[0] if len(node.outputs) == 1 else None
    if out is None or not ins:
        return None
    if prim.identity:
        return ins[0]
    if prim.retype and _same_type(ins[0], out):
        return ins[0]
    if len(ins) == 2:
        if prim.right_identity is not None and _is_scalar(ins[1], prim.right_identity) and _same_type(ins[0], out):
            return ins[0]
        if prim.left_identity is not None and _is_scalar(ins[0], prim.left_identity) and _same_type(ins[1], out):
            return ins[1]
    return None


def _written(graph):
    """Ids of the values that are state updated in place, in this call or a later one: what a side-effect node
    (an assignment, an optimizer step) reads or gives back (a Parameter's new value), and the tensors captured
    from outside (Parameters). `w * 1` of such a value must stay a new tensor: `w` itself would change."""
    from mindseed.compiler.codegen import _free_vars  # noqa: PLC0415 -- one definition of sub-graph reads
    ids = {v.id for v in graph.params if v.name_hint == "c"}
    for node in graph.nodes:
        if node.prim.side_effect:
            ids.update(x.id for x in node.outputs)
        if node.prim.side_effect or node.subgraphs():
            ids.update(x.id for x in node.inputs if isinstance(x, Var))
            for g in node.subgraphs():
                ids |= _free_vars(g)
    return ids


def simplify_algebra(graph):
    """Remove nodes that compute nothing. For a graph compiled for dynamic shapes only Identity goes: a
    number or shape that makes an identity at the traced size (x * (n / 2) at n = 2) may not at others.
    A node stays when its input is a value updated in place later (`p * 1` read after `assign(p, ...)` is
    the old value; `p` itself would be the new one)."""
    mapping = {}
    kept = []
    written = _written(graph)
    for node in graph.nodes:
        for g in node.subgraphs():
            g.dynamic = graph.dynamic
            simplify_algebra(g)
        node.inputs = [mapping.get(x.id, x) if isinstance(x, Var) else x for x in node.inputs]
        if graph.dynamic:
            repl = node.inputs[0] if node.prim.identity and len(node.outputs) == 1 else None
        else:
            repl = _rule(node)
        if repl is not None and not (isinstance(repl, Var) and repl.id in written):
            mapping[node.outputs[0].id] = repl
            continue
        kept.append(node)
    graph.nodes = kept
    substitute(graph, mapping)
    return graph
