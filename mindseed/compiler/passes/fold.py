"""Constant folding: a pure node whose inputs are all constants is computed now and becomes a constant."""
from mindseed.compiler.ir import Const, Var
from mindseed.compiler.passes._util import is_pure, substitute

_MAX_FOLD_ELEMENTS = 1 << 16  # keep large constants as computations (memory, not time, is the concern)


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
        # all inputs known now (or none: Fill, Range built from Python-level shapes)
        if is_pure(node) and node.outputs and all(isinstance(x, Const) for x in node.inputs):
            try:
                out = node.prim.impl(*[x.value for x in node.inputs], **node.attrs)
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
