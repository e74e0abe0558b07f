"""Common-subexpression elimination: identical pure nodes on identical inputs are computed once."""
from mindseed.compiler.ir import Const, Var
from mindseed.compiler.passes._util import is_pure, substitute


def _key(node):
    try:
        ins = tuple(("v", x.id) if isinstance(x, Var) else ("c", _hashable(x.value if isinstance(x, Const) else x))
                    for x in node.inputs)
        attrs = tuple(sorted((k, _hashable(v)) for k, v in node.attrs.items()))
        key = (id(node.prim), ins, attrs)
        hash(key)
        return key
    except TypeError:
        return None


def _hashable(v):
    if isinstance(v, list):
        return ("list", tuple(_hashable(x) for x in v))
    if isinstance(v, tuple):
        return tuple(_hashable(x) for x in v)
    if isinstance(v, slice):
        return ("slice", v.start, v.stop, v.step)
    if hasattr(v, "shape") and hasattr(v, "dtype") and not isinstance(v, (int, float, bool)):
        return ("obj", id(v))
    hash(v)
    return v


def eliminate_common_subexpressions(graph):
    seen = {}
    mapping = {}
    kept = []
    for node in graph.nodes:
        for g in node.subgraphs():
            eliminate_common_subexpressions(g)
        if is_pure(node) and not node.recomputed:
            substitute_inputs(node, mapping)
            key = _key(node)
            if key is not None and key in seen:
                for old, new in zip(node.outputs, seen[key].outputs):
                    mapping[old.id] = new
                continue
            if key is not None:
                seen[key] = node
        else:
            substitute_inputs(node, mapping)
        kept.append(node)
    graph.nodes = kept
    substitute(graph, mapping)
    return graph


def substitute_inputs(node, mapping):
    node.inputs = [mapping.get(x.id, x) if isinstance(x, Var) else x for x in node.inputs]
