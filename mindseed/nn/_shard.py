"""The one implementation of MindSpore's `shard`: `mindspore.shard(fn, ...)` / `mindspore.parallel.shard` (in
`mindseed.parallel.shard`) and `Cell.shard(...)` both check their strategies here and run through `sharding`.

A sharded function or cell, in a run on several devices or while the partitioner records a step
(`mindseed.parallel._spmd.record`, which a simulated world's training step runs), gives each input its `in_strategy`
layout and each output its `out_strategy` one: a `Reshard` (the identity, with the strategy) the partitioner reads,
redistributing the values there and propagating from them. The parameters named in a `parameter_plan` start in
their layouts (`common._parallel.PARAMETER_PLANS`, read by `_spmd.execute`). On one device and outside a recording
the function runs unchanged.
"""
import weakref

from mindseed import log as logger
from mindseed.common._parallel import GlobalComm, PARAMETER_PLANS, partitioner_recording, simulated_runner
from mindseed.common._search_contexts import get_algo_parameters, set_algo_parameters
from mindseed.common._shard_layout import Layout
from mindseed.common.tensor import Tensor
from mindseed.compiler.trace import ShardedCall
from mindseed.ops.operations.comm_ops import Reshard, _group_size

__all__ = ["check_shard", "sharding", "planned_parameters"]


def _inner_type(strategy, which):
    kinds = set()
    for s in strategy:
        if isinstance(s, Layout):
            kinds.add("layout")
        elif isinstance(s, tuple):
            if not all(isinstance(v, int) and not isinstance(v, bool) for v in s):
                raise TypeError("The tuple strategy for each dimension should be tuple(int).")
            kinds.add("tuple")
        elif s is not None:
            raise TypeError(f"The '{which}' should be a tuple(tuple(int)) or tuple(mindspore.parallel.Layout), but got "
                            f"{type(s).__name__}")
    if len(kinds) > 1:
        raise TypeError("For 'Shard', the strategy can only pass in consistent type for all dimensions.")


def _check_param_strategy(name, shape, strategy):
    if len(strategy) != len(shape):
        raise ValueError(f"For {name}, the length of param_strategy: {len(strategy)}, is not equal to param_shape len: "
                         f"{len(shape)}.")
    for i, (dim, cut) in enumerate(zip(shape, strategy)):
        if dim % cut:
            raise ValueError(f"For '{name}', the param_shape is {list(shape)} and the setting param_strategy is "
                             f"{strategy}. The param_shape[{i}]: {dim} cannot be divisible by param_strategy[{i}]: "
                             f"{cut}.")


def _set_parameter_plan(fn, parameter_plan):
    """Give the parameters `parameter_plan` names their layouts, as MindSpore's Shard does: an unknown name, or a
    parameter whose layout is already set, is skipped with a warning."""
    if parameter_plan is None:
        return
    if not isinstance(parameter_plan, dict):
        raise TypeError(f"For 'Shard', the 'parameter_plan' should be a dict or None, but got "
                        f"{type(parameter_plan).__name__}")
    from mindseed.nn.cell import Cell  # noqa: PLC0415  (cell.py imports this module)
    if not isinstance(fn, Cell):
        raise TypeError(f"If parameter_plan is set, type of fn must be mindspore.nn.Cell, but got {type(fn)}")
    for key, strategy in parameter_plan.items():
        if not isinstance(key, str) or not isinstance(strategy, (tuple, Layout)):
            raise TypeError(f"For 'Shard', the type of each key and value in 'parameter_plan' must be str and "
                            f"tuple/Layout, but got {type(key).__name__} and {type(strategy).__name__}")
    params = {p.name: p for p in fn.trainable_params()}
    for key, strategy in parameter_plan.items():
        param = params.get(key.replace("self.", ""))
        if param is None:
            logger.warning(f"{key} is not exist, ignored its setting.")
            continue
        if id(param) in planned_parameters():
            logger.warning(f"The layout of parameter '{key}' has been set to {PARAMETER_PLANS[id(param)][1]}, current "
                           f"setting will be ignored.")
            continue
        if isinstance(strategy, tuple):
            _check_param_strategy(key, param.shape, strategy)
        PARAMETER_PLANS[id(param)] = (weakref.ref(param), strategy)


def planned_parameters():
    """{id: (Parameter, strategy tuple or Layout)} of the live parameters a `parameter_plan` gave a layout."""
    live = {}
    for key, (ref, strategy) in list(PARAMETER_PLANS.items()):
        param = ref()
        if param is None:
            del PARAMETER_PLANS[key]
        else:
            live[key] = (param, strategy)
    return live


def check_shard(fn, in_strategy, out_strategy=None, parameter_plan=None, device="Ascend", level=0):
    """MindSpore's checks of `shard`'s arguments; records `parameter_plan`'s layouts on the parameters of `fn`.

    Raises:
        TypeError: strategies that are not tuples of tuple(int) / Layout, or mix the two; a `parameter_plan` that is
            not a dict of str to tuple/Layout, or given with a function; a `device` that is not a str or a `level`
            that is not an int.
        ValueError: a parameter strategy whose length or cuts do not fit the parameter's shape.
    """
    if not isinstance(in_strategy, tuple):
        raise TypeError(f"For 'Shard', the 'in_strategy' should be a tuple, but got {type(in_strategy).__name__}.")
    _inner_type(in_strategy, "in_strategy")
    if out_strategy is not None:
        if not isinstance(out_strategy, tuple):
            raise TypeError(f"For 'Shard', the 'out_strategy' should be None or tuple, but got "
                            f"{type(out_strategy).__name__}.")
        _inner_type(out_strategy, "out_strategy")
    if not isinstance(device, str):
        raise TypeError(f"For 'Shard', the 'device' should be a string, but got {type(device).__name__}")
    if isinstance(level, bool) or not isinstance(level, int):
        raise TypeError(f"For 'Shard', the 'level' should be an integer, but got {type(level).__name__}")
    if _group_size(GlobalComm.WORLD_COMM_GROUP) > 1 and get_algo_parameters("fully_use_devices") is True:
        logger.warning("After calling 'shard', the environment variable 'fully_use_devices' will be overwritten as "
                       "False.")
        set_algo_parameters(fully_use_devices=False)
    _set_parameter_plan(fn, parameter_plan)


def _place(values, strategies):
    """`values` (a Tensor or a tuple of them) with each Tensor given its strategy's layout (None: as it is)."""
    single = isinstance(values, Tensor)
    items = (values,) if single else tuple(values)
    if len(strategies) != len(items):
        raise ValueError(f"For 'Shard', the strategy has {len(strategies)} entries but there are {len(items)} "
                         f"inputs/outputs.")
    placed = tuple(Reshard((s,), (s,), (s,))(v) if s is not None and isinstance(v, Tensor) else v
                   for v, s in zip(items, strategies))
    return placed[0] if single else placed


def sharding(fn, in_strategy, out_strategy=None):
    """`fn` with its inputs placed by `in_strategy` and its outputs by `out_strategy` (checked by `check_shard`),
    in a run on several devices or a partitioner's recording; on a simulated world (`simulated_runner`) the call is
    recorded and run partitioned there (met in a graph trace: the graph's outermost compiled call is); otherwise
    `fn` as it is."""
    def sharded(*args, **kwargs):
        runner = simulated_runner()
        if runner is not None:
            return runner.forward(lambda *a: sharded(*a, **kwargs), args)
        if simulated_runner(traced=True) is not None:   # in a graph: the outermost compiled call runs partitioned
            raise ShardedCall(f"'{getattr(fn, '__name__', 'fn')}' is sharded")
        if not partitioner_recording() and _group_size(GlobalComm.WORLD_COMM_GROUP) == 1:
            return fn(*args, **kwargs)    # one device, no parallel run: the function itself
        out = fn(*_place(args, in_strategy), **kwargs)
        return out if out_strategy is None else _place(out, out_strategy)

    sharded.__wrapped__ = fn
    return sharded
