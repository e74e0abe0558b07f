"""Scheduling for locality: a light node runs right after the node whose result it reads, while that result is
still in the cache.

A matrix product or convolution streams megabytes through the caches; the elementwise ops and reductions
around it touch each value once, so they are fast only while their inputs are cached. In a backward pass the
trace order often puts a light consumer (a bias gradient's sum, a ReLU gradient) after one or two heavy ops
that have evicted the value it reads: the same op then takes 3-5x longer (e.g. a sum over a 128 x 512
gradient: 5 us right after it was produced, 25 us after a 128 x 784 x 512 product).

The pass keeps the trace order but, each time a node is placed, first places the light nodes that read its
results and have all their other inputs (depth first: the ReLU gradient of a data gradient, then the bias
sum of that); a `heavy` primitive (it streams large operands: it neither needs nor keeps its inputs hot) is
not pulled up. Nothing moves across a node with side effects or sub-graphs, and random ops keep their
relative order, so every value is the same.
"""
from mindseed.compiler.ir import Var
from mindseed.compiler.passes._util import inner_graphs_first, is_pure

__all__ = ["schedule_locality"]



def _barrier(node):
    return node.prim.side_effect or bool(node.subgraphs())


@inner_graphs_first
def schedule_locality(graph):
    order, segment = [], []
    for node in graph.nodes:
        if _barrier(node):
            order += _schedule(segment)
            order.append(node)
            segment = []
        else:
            segment.append(node)
    graph.nodes = order + _schedule(segment)
    return graph


def _schedule(nodes):
    """`nodes` (no barriers among them, in a valid order) reordered: light consumers pulled up to producers."""
    producer = {v.id: n for n in nodes for v in n.outputs}
    deps, readers = {}, {}
    last_impure = None
    for n in nodes:
        d = {id(producer[x.id]) for x in n.inputs if isinstance(x, Var) and x.id in producer}
        if not is_pure(n):  # random draws stay in order
            if last_impure is not None:
                d.add(id(last_impure))
            last_impure = n
        deps[id(n)] = d
        for x in n.inputs:
            if isinstance(x, Var) and x.id in producer:
                readers.setdefault(x.id, []).append(n)
    placed, order = set(), []
    for first in nodes:
        stack = [first]
        while stack:  # depth first, readers in trace order (no recursion: chains of light ops can be long)
            n = stack.pop()
            if id(n) in placed or not deps[id(n)] <= placed:
                continue
            placed.add(id(n))
            order.append(n)
            light = [r for out in n.outputs for r in readers.get(out.id, ())
                     if id(r) not in placed and not r.prim.heavy]
            stack.extend(reversed(light))
    return order
