"""MindSpore's `mindspore.parallel.strategy`: the sharding of a network's parameters per rank, recorded while sharded
steps run once `enable_save_strategy_online()` has been called (`get_strategy_metadata`,
`get_current_strategy_metadata`), forgotten by `clear_strategy_metadata()`.

A sharded run (`parallel._train`: a training step or a partitioned forward pass, on a simulated world or on the
processes of a real run, pipelines and the parallel optimizer included) records, for each Parameter it read, its
layout on the ranks of its stage: the layout the optimizer's update holds it in (the parallel optimizer's slices
when it cuts the parameter, else the layout its first consumer cut it in). A query gives, per rank, {parameter name:
[Layout, dtype, global shape]} for the network's parameters that were recorded; the Layout's device matrix is the
mesh of the layout with axes named ``"a"``, ``"b"``, ... and its rank list the stage's ranks. A network with no
recorded parameter (one that ran stand-alone or data parallel, or before recording was enabled) gives None, as
MindSpore's does.
"""
import string
import weakref

from mindseed.common._shard_layout import Layout

__all__ = ["get_strategy_metadata", "get_current_strategy_metadata", "enable_save_strategy_online",
           "clear_strategy_metadata"]

_state = {"online": False}
# id(Parameter) -> (weak reference to it, Layout, dtype name, global shape, ranks of its stage, this process's rank)
_records = {}


def _check_network(api, network):
    from mindseed.nn.cell import Cell  # noqa: PLC0415 (nn sits above parallel)
    if not isinstance(network, Cell):
        raise TypeError(f"For '{api}', the argument 'network' must be a Cell, but got {type(network).__name__}.")


def _layout(tensor_layout, ranks):
    """MindSpore's `Layout` of a `TensorLayout` on the global `ranks` of its stage: the mesh as the device matrix
    (axes ``"a"``, ``"b"``, ...), each dim the alias (tuple of aliases) of the axes cutting it, else ``"None"``."""
    shape = tuple(tensor_layout.mesh.shape) or (1,)
    alias = tuple(string.ascii_lowercase[i] for i in range(len(shape)))
    entries = []
    for axes in tensor_layout.dims:
        names = tuple(alias[a] for a in axes)
        entries.append("None" if not names else names[0] if len(names) == 1 else names)
    return Layout(shape, alias, list(ranks))(*entries)


def record_execution(execution, world, held_layouts=None):
    """Record the layouts of the Parameters a sharded `execution` (an `Execution` or a `PipelineExecution`) read
    on `world`, when `enable_save_strategy_online()` was called; `held_layouts` ({id(Parameter): TensorLayout}, the
    parallel optimizer's) replaces the layouts of the parameters it holds in slices."""
    if not _state["online"]:
        return
    stages = getattr(execution, "stages", None) or [execution]
    per_stage = world.size // len(stages)
    rank = getattr(world, "rank", 0)
    for s, ex in enumerate(stages):
        params = ex._executor.params
        ranks = range(s * per_stage, (s + 1) * per_stage)
        for k, layout in ex._leaf_layouts.items():
            p = params.get(k)
            if p is None or (len(stages) > 1 and execution.stage_of(p) != s):
                continue
            layout = (held_layouts or {}).get(k, layout)
            _records[k] = (weakref.ref(p), _layout(layout, ranks), str(p.dtype), tuple(layout.shape), tuple(ranks),
                           rank)


def _recorded(network):
    """[(name, record)] of `network`'s recorded parameters."""
    out = []
    for name, p in network.parameters_and_names():
        rec = _records.get(id(p))
        if rec is not None and rec[0]() is p:
            out.append((name, rec))
    return out


def get_strategy_metadata(network, rank_id=None):
    """{rank: {parameter name: [Layout, dtype, global shape]}} of `network`'s parameters on every rank (on `rank_id`
    only, when given), or None when none of them was recorded.

    Raises:
        TypeError: `network` is not a Cell, `rank_id` not an int.
    """
    _check_network("get_strategy_metadata", network)
    if rank_id is not None and (isinstance(rank_id, bool) or not isinstance(rank_id, int)):
        raise TypeError(f"For 'get_strategy_metadata', 'rank_id' must be an int or None, but got "
                        f"{type(rank_id).__name__}.")
    recorded = _recorded(network)
    if not recorded:
        return None
    out = {}
    for name, (_, layout, dtype, shape, ranks, _) in recorded:
        for r in ranks:
            out.setdefault(r, {})[name] = [layout, dtype, shape]
    out = dict(sorted(out.items()))
    if rank_id is not None:
        return {rank_id: out.get(rank_id, {})}
    return out


def get_current_strategy_metadata(network):
    """{0: {parameter name: [Layout, dtype, global shape]}} of this process's rank, or None when none of
    `network`'s parameters was recorded.

    Raises:
        TypeError: `network` is not a Cell.
    """
    _check_network("get_current_strategy_metadata", network)
    recorded = _recorded(network)
    if not recorded:
        return None
    return {0: {name: [layout, dtype, shape] for name, (_, layout, dtype, shape, ranks, rank) in recorded
                if rank in ranks}}


def enable_save_strategy_online():
    """Record the parameters' layouts of the sharded runs from now on."""
    _state["online"] = True


def clear_strategy_metadata():
    """Forget the recorded layouts."""
    _records.clear()
