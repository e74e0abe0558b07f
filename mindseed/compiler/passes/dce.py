"""Dead-code elimination: drop pure nodes whose outputs nobody reads (sub-graphs included); an If or While whose
sub-graphs hold no side effect is pure."""
from mindseed.compiler.ir import Var
from mindseed.compiler.passes._util import effectful


def _used_ids(graph, used):
    for o in graph.outputs:
        if isinstance(o, Var):
            used.add(o.id)


def eliminate_dead_code(graph):
    used = set()
    _used_ids(graph, used)
    kept = []
    for node in reversed(graph.nodes):
        live = any(o.id in used for o in node.outputs) or effectful(node)
        if not live:
            continue
        for g in node.subgraphs():
            eliminate_dead_code(g)
            used |= _reads(g)
        for x in node.inputs:
            if isinstance(x, Var):
                used.add(x.id)
        kept.append(node)
    kept.reverse()
    graph.nodes = kept
    return graph


def _reads(graph):
    ids = set()
    for node in graph.nodes:
        ids |= {x.id for x in node.inputs if isinstance(x, Var)}
        for g in node.subgraphs():
            ids |= _reads(g)
    ids |= {o.id for o in graph.outputs if isinstance(o, Var)}
    return ids
