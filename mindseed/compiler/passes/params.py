"""Unused-parameter pruning: graph inputs no node reads are not passed to the generated function.

`graph.kept_params` records, for each remaining parameter, its position in the original parameter list,
so the caller (jit) passes only those (a captured Parameter the graph does not read is not even read).
"""
from mindseed.compiler.passes.prune import _reads

__all__ = ["prune_unused_parameters"]


def prune_unused_parameters(graph):
    """Remove top-level parameters that nothing in the graph reads; record the kept positions."""
    read = _reads(graph, set())
    original = getattr(graph, "kept_params", None) or list(range(len(graph.params)))
    keep = [i for i, p in enumerate(graph.params) if p.id in read]
    if len(keep) != len(graph.params):
        graph.params = [graph.params[i] for i in keep]
        graph.kept_params = [original[i] for i in keep]
    return graph
