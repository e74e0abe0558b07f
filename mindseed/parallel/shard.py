"""`mindspore.shard` / `mindspore.parallel.shard`: the input and output layouts of a Cell or function.

On one device and outside a parallel run the returned function is `fn` (MindSpore returns `fn` there). In a run on
several devices, or recorded for the partitioner (`mindseed.parallel._spmd.record`), it gives each input its
`in_strategy` layout and each output its `out_strategy` one (a `Reshard` the partitioner reads: `_spmd`
redistributes the values there and propagates from them), and the parameters named in `parameter_plan` start in
their layouts (`_spmd.execute` reads `PARAMETER_PLANS`).
"""
from mindseed.common._parallel import GlobalComm
from mindseed.common._shard_layout import Layout
from mindseed.common.tensor import Tensor
from mindseed.nn.cell import Cell
from mindseed.ops.operations.comm_ops import Reshard, _group_size
from mindseed.parallel import _spmd

__all__ = ["shard"]


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
    if parameter_plan is None:
        return
    if not isinstance(parameter_plan, dict):
        raise TypeError(f"For 'Shard', the 'parameter_plan' should be a dict or None, but got "
                        f"{type(parameter_plan).__name__}")
    if not isinstance(fn, Cell):
        raise TypeError(f"If parameter_plan is set, type of fn must be mindspore.nn.Cell, but got {type(fn)}")
    params = {p.name: p for p in fn.trainable_params()}
    for key, strategy in parameter_plan.items():
        if not isinstance(key, str) or not isinstance(strategy, (tuple, Layout)):
            raise TypeError(f"For 'Shard', the type of each key and value in 'parameter_plan' must be str and "
                            f"tuple/Layout, but got {type(key).__name__} and {type(strategy).__name__}")
        param = params.get(key.replace("self.", ""))
        if param is None:
            raise ValueError(f"For 'Shard', the parameter '{key}' of 'parameter_plan' is not a trainable parameter of "
                             f"the network (it has {sorted(params)}).")
        if isinstance(strategy, tuple):
            _check_param_strategy(key, param.shape, strategy)
        _spmd.PARAMETER_PLANS[id(param)] = (param, strategy)


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


def shard(fn, in_strategy, out_strategy=None, parameter_plan=None):
    """The Cell or function `fn` with its inputs cut as `in_strategy` says and its outputs as `out_strategy`
    (per input/output: a tuple with the number of pieces of each dim, a called `Layout`, or None), and the
    parameters named in `parameter_plan` (a Cell's) cut as given. On one device, outside a parallel run: `fn`'s
    results.

    Raises:
        TypeError: strategies that are not tuples of tuple(int) / Layout, or mix the two; a `parameter_plan` that is
            not a dict of str to tuple/Layout, or given with a function.
        ValueError: a parameter strategy whose length or cuts do not fit the parameter's shape, an unknown
            parameter name.
    """
    if not isinstance(in_strategy, tuple):
        raise TypeError(f"For 'Shard', the 'in_strategy' should be a tuple, but got {type(in_strategy).__name__}.")
    _inner_type(in_strategy, "in_strategy")
    if out_strategy is not None:
        if not isinstance(out_strategy, tuple):
            raise TypeError(f"For 'Shard', the 'out_strategy' should be None or tuple, but got "
                            f"{type(out_strategy).__name__}.")
        _inner_type(out_strategy, "out_strategy")
    _set_parameter_plan(fn, parameter_plan)

    def sharded(*args):
        if _group_size(GlobalComm.WORLD_COMM_GROUP) == 1 and not _spmd.recording():
            return fn(*args)    # one device, no parallel run: the function itself
        out = fn(*_place(args, in_strategy))
        return out if out_strategy is None else _place(out, out_strategy)

    sharded.__wrapped__ = fn
    return sharded


class _DistributedTensorInfo:
    """MindSpore's description of a tensor's distribution (checkpoint code builds it from a `Layout`): the layout
    and the number of pieces each dimension is cut into (`sharding_strategy`).

    Raises:
        TypeError: `distributed_info` is not a Layout.
    """

    def __init__(self, distributed_info):
        if not isinstance(distributed_info, Layout):
            raise TypeError(f"DistributedTensorInfo only supports Layout or DeviceMesh as input, but got "
                            f"{type(distributed_info)}")
        self._layout = self._distributed_info = distributed_info
        self._sharding_strategy = None

    @property
    def layout(self):
        return self._layout

    @property
    def distributed_info(self):
        return self._distributed_info

    @property
    def sharding_strategy(self):
        """Per tensor dimension, the product of the device-matrix axes (counted from the right) cutting it."""
        if self._sharding_strategy is None:
            info = self._layout.to_dict()
            dev, strategy = info["device_matrix"], []
            for entry in info["tensor_map"]:
                size = 1
                for axis in entry if isinstance(entry, (tuple, list)) else (entry,):
                    size *= dev[len(dev) - axis - 1] if axis != -1 else 1
                strategy.append(size)
            self._sharding_strategy = strategy
        return self._sharding_strategy
