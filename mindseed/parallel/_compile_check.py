"""The strategy check of compiling a (semi-)auto-parallel network (`_cell_graph_executor.compile`): MindSpore's
compiler plans the network on `device_num` devices and refuses, with a RuntimeError, a `shard` strategy an
operator cannot run with. mindseed plans the network's calls on shapes only (`_spmd.record(..., abstract=True)` on
a `ShapeWorld`), so nothing is computed and no parameter changes."""
from mindseed.common._parallel import _device_num_if_set, _get_parallel_mode
from mindseed.ops.operations._base import Primitive
from mindseed.parallel._spmd import ShapeUnknownError, execute, record
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
    execute(program, ShapeWorld(devices))
