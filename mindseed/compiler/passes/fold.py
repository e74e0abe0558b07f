"""Constant folding: a pure node whose inputs are all constants is computed now and becomes a constant.

OnesLike/ZerosLike of a value whose shape and dtype are known (in a graph compiled for static shapes) is a
constant too, whatever the value: so the seed of a gradient, ones_like(loss), and what the backward pass
makes of it before it meets a computed value (reshape, broadcast, the division of a mean's gradient) fold.
"""
from mindseed.compiler.ir import Const, Node, Var
from mindseed.compiler.passes._util import is_pure, substitute
from mindseed.ops._prims.core import fill_p

_MAX_FOLD_ELEMENTS = 1 << 16  # keep large constants as computations (memory, not time, is the concern)


def _as_fill(node):
    """OnesLike/ZerosLike(x) (a primitive with a `fill_value`) of a static shape and dtype as the equal Fill,
    which has no inputs; else node."""
    x = node.inputs[0] if len(node.inputs) == 1 else None
    value = node.prim.fill_value
    if value is None or not isinstance(x, Var) or x.shape is None or x.dtype is None \
            or not all(isinstance(d, int) for d in x.shape):
        return node
    return Node(fill_p, [], {"shape": tuple(x.shape), "value": value, "dtype": x.dtype}, node.outputs, node.loc)


def fold_constants(graph):
    mapping = {}
    kept = []
    for node in graph.nodes:
        for g in node.subgraphs():
            g.dynamic = graph.dynamic
            fold_constants(g)
        if graph.dynamic and not node.inputs:
            # Fill/Range built from Python-level shapes: keep them so the shapes can follow dynamic dims
            kept.append(node)
            continue
        node.inputs = [mapping.get(x.id, x) if isinstance(x, Var) else x for x in node.inputs]
        if not graph.dynamic:  # a dynamic graph's traced shapes are samples, not constants
            node = _as_fill(node)
        # all inputs known now (or none: Fill, Range built from Python-level shapes)
        if is_pure(node) and node.outputs and all(isinstance(x, Const) for x in node.inputs):
            try:
                out = node.prim.kernel(*[x.value for x in node.inputs], **node.attrs)
            except Exception:  # noqa: BLE001 -- leave it to run time, where the error is reported properly
                kept.append(node)
                continue
            outs = out if node.prim.multi_output else (out,)
            if all(getattr(o, "numel", lambda: _MAX_FOLD_ELEMENTS + 1)() <= _MAX_FOLD_ELEMENTS for o in outs):
                for var, value in zip(node.outputs, outs):
                    mapping[var.id] = Const(value)
                continue
        kept.append(node)
    graph.nodes = kept
    substitute(graph, mapping)
    return graph
