"""Dead-output pruning: values a control-flow node produces that nobody reads are not produced.

An `If` output nobody reads is removed from the node and from both branches' returns (their dead code
then goes with the dead-code pass). A `While` carried value is removed when no later node reads it, the
condition does not read it, and the body needs it only to compute itself (a counter nobody looks at).
"""
from mindseed.compiler.ir import IF, WHILE, Var
from mindseed.compiler.passes._util import effectful
from mindseed.compiler.passes.dce import eliminate_dead_code

__all__ = ["prune_dead_outputs"]


def _reads(graph, ids):
    """Add to `ids` every Var id read in `graph` (node inputs, sub-graphs, outputs)."""
    for node in graph.nodes:
        ids.update(x.id for x in node.inputs if isinstance(x, Var))
        for g in node.subgraphs():
            _reads(g, ids)
    ids.update(o.id for o in graph.outputs if isinstance(o, Var))
    return ids


def _used_after(graph):
    return _reads(graph, set())


def _param_deps(graph, roots):
    """Ids of graph parameters that the values `roots` (Var ids) depend on; effectful nodes always count."""
    need = set(roots)
    for node in reversed(graph.nodes):
        live = any(o.id in need for o in node.outputs) or effectful(node)
        if live:
            need.update(x.id for x in node.inputs if isinstance(x, Var))
            for g in node.subgraphs():
                _reads(g, need)
    return {p.id for p in graph.params} & need


def _prune_if(node, used):
    keep = [k for k, o in enumerate(node.outputs) if o.id in used]
    if len(keep) == len(node.outputs):
        return
    node.outputs = [node.outputs[k] for k in keep]
    for g in node.subgraphs():
        g.outputs = [g.outputs[k] for k in keep]


def _prune_while(node, used):
    cond, body = node.attrs["cond"], node.attrs["body"]
    n = len(node.inputs)
    cond_reads = _reads(cond, set())
    needed = {k for k in range(n) if node.outputs[k].id in used or cond.params[k].id in cond_reads}
    # body side effects read carried values too
    needed |= {k for k in range(n) if body.params[k].id in _param_deps(body, ())}
    while True:
        roots = {body.outputs[k].id for k in needed if isinstance(body.outputs[k], Var)}
        deps = _param_deps(body, roots)
        more = {k for k in range(n) if body.params[k].id in deps} - needed
        if not more:
            break
        needed |= more
    keep = sorted(needed)
    if len(keep) == n:
        return
    node.inputs = [node.inputs[k] for k in keep]
    node.outputs = [node.outputs[k] for k in keep]
    cond.params = [cond.params[k] for k in keep]
    body.params = [body.params[k] for k in keep]
    body.outputs = [body.outputs[k] for k in keep]
    # the body's nodes that computed the dropped values read dropped parameters: remove them now
    eliminate_dead_code(body)


def prune_dead_outputs(graph):
    """Drop unread outputs of If nodes and dead carried values of While nodes (sub-graphs included)."""
    used = _used_after(graph)
    for node in graph.nodes:
        if node.prim is IF:
            _prune_if(node, used)
        elif node.prim is WHILE:
            _prune_while(node, used)
        for g in node.subgraphs():
            prune_dead_outputs(g)
    return graph
