"""`mindspore.shard` / `mindspore.parallel.shard`: the input and output layouts of a Cell or function.

On one device and outside a parallel run the returned function is `fn` (MindSpore returns `fn` there). In a run on
several devices, or recorded for the partitioner (`mindseed.parallel._spmd.record`), it gives each input its
`in_strategy` layout and each output its `out_strategy` one (a `Reshard` the partitioner reads: `_spmd`
redistributes the values there and propagates from them), and the parameters named in `parameter_plan` start in
their layouts. `Cell.shard` shares the implementation (`mindseed.nn._shard`).
"""
from mindseed.common._shard_layout import Layout
from mindseed.nn._shard import check_shard, sharding

__all__ = ["shard"]


def shard(fn, in_strategy, out_strategy=None, parameter_plan=None):
    """The Cell or function `fn` with its inputs cut as `in_strategy` says and its outputs as `out_strategy`
    (per input/output: a tuple with the number of pieces of each dim, a called `Layout`, or None), and the
    parameters named in `parameter_plan` (a Cell's) cut as given. On one device, outside a parallel run: `fn`'s
    results. `Cell.shard` is the same on a cell's own calls (`mindseed.nn._shard`).

    Raises:
        TypeError: strategies that are not tuples of tuple(int) / Layout, or mix the two; a `parameter_plan` that is
            not a dict of str to tuple/Layout, or given with a function.
        ValueError: a parameter strategy whose length or cuts do not fit the parameter's shape.
    """
    check_shard(fn, in_strategy, out_strategy, parameter_plan)
    return sharding(fn, in_strategy, out_strategy)


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
