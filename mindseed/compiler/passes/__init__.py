"""Graph passes; the pipeline is a list, each pass a function Graph -> Graph in its own module.

A later layer may append passes (e.g. parallel planning) with `register_pass`.
"""
from mindseed.compiler.ir import verify
from mindseed.compiler.passes.cse import eliminate_common_subexpressions
from mindseed.compiler.passes.dce import eliminate_dead_code
from mindseed.compiler.passes.fold import fold_constants
from mindseed.compiler.passes.fuse_attention import fuse_attention
from mindseed.compiler.passes.fuse_relu import fuse_relu
from mindseed.compiler.passes.inplace import write_in_place
from mindseed.compiler.passes.merge_index_grads import merge_index_grads
from mindseed.compiler.passes.params import prune_unused_parameters
from mindseed.compiler.passes.pool_relu import pool_before_relu
from mindseed.compiler.passes.prune import prune_dead_outputs
from mindseed.compiler.passes.schedule import schedule_locality
from mindseed.compiler.passes.simplify import simplify_algebra
from mindseed.compiler.passes.update_stats import update_stats_in_place

__all__ = ["PIPELINE", "PORTABLE", "run_pipeline", "register_pass"]

PIPELINE = [
    simplify_algebra,
    fold_constants,
    eliminate_common_subexpressions,
    fuse_attention,
    merge_index_grads,
    prune_dead_outputs,
    eliminate_dead_code,
    update_stats_in_place,
    pool_before_relu,
    fuse_relu,
    write_in_place,
    schedule_locality,
    prune_unused_parameters,
]


def register_pass(fn, before=None):
    """Add a pass to the pipeline (at the end, or before the pass `before`)."""
    if before is None:
        PIPELINE.append(fn)
    else:
        PIPELINE.insert(PIPELINE.index(before), fn)


# the passes that keep a graph made of the traced primitives only (no fused or in-place kernels): what export
# writes as MindIR / ONNX operators
PORTABLE = [simplify_algebra, fold_constants, eliminate_common_subexpressions, prune_dead_outputs, eliminate_dead_code]


def run_pipeline(graph, dump=None, pipeline=None):
    if dump is not None:
        dump("0_traced", graph)
    for i, p in enumerate(PIPELINE if pipeline is None else pipeline, 1):
        graph = p(graph)
        verify(graph)
        if dump is not None:
            dump(f"{i}_{p.__name__}", graph)
    return graph
