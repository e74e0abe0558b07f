"""The strategy check of compiling a (semi-)auto-parallel network (`_cell_graph_executor.compile`): MindSpore's
compiler plans the network on `device_num` devices and refuses, with a RuntimeError, a `shard` strategy an
operator cannot run with. mindseed records the network's calls on shapes only (`_spmd.record(..., abstract=True)`:
nothing is computed, no parameter changes) and checks each call's strategy against its sharding rule as the
planner does before running it (`_Executor._from_strategy`, on a `ShapeWorld` of `device_num` ranks)."""
from mindseed.common._parallel import _device_num_if_set, _get_parallel_mode
from mindseed.ops.operations._base import Primitive
from mindseed.parallel._spmd import Assignment, ShapeUnknownError, _Executor, record
from mindseed.parallel._world import ShapeWorld

__all__ = ["check_strategies"]

_PLANNED = ("semi_auto_parallel", "auto_parallel")


def _has_strategy(cell):
    cells = [c for _, c in cell.cells_and_names()] if hasattr(cell, "cells_and_names") else []
    return any(isinstance(v, Primitive) and v.in_strategy is not None
               for c in cells for v in vars(c).values())


def check_strategies(cell, args):
    """Plan `cell(*args)` on the context's `device_num` devices when the parallel mode plans one and an operator
    of `cell` has a strategy.

    Raises:
        StrategyError: (a RuntimeError and a ValueError) a strategy an operator cannot run with.
    """
    devices = _device_num_if_set()
    if _get_parallel_mode() not in _PLANNED or not devices or devices < 2 or not _has_strategy(cell):
        return
    try:
        program = record(cell, *args, abstract=True)
    except ShapeUnknownError:
        return      # shapes only values decide (Unique, MaskedSelect): the strategies are checked when it runs
    planner = _Executor(ShapeWorld(devices), {})
    for call in program.calls:
        strategy = call.strategy
        if not (strategy and strategy[0]) or isinstance(strategy[0], Assignment) or call.prim.sharding is None:
            continue
        rule = call.prim.sharding(*call.args, **call.attrs)
        if rule is not None:
            planner._from_strategy(call, rule)
