"""DistributedGradReducer: the all-reduce of gradients in data-parallel training; PipelineGradReducer: the
accumulated micro-batch gradients of pipeline parallelism."""
from mindseed import ops
from mindseed.common import dtype as mstype
from mindseed.common._parallel import (GlobalComm, _device_num_if_set, _get_gradients_mean, _get_parallel_mode,
                                       get_auto_parallel_context)
from mindseed.common.parameter import Parameter, ParameterTuple
from mindseed.common.tensor import RowTensor
from mindseed.nn.cell import Cell
from mindseed.ops.operations.comm_ops import AllGather, AllReduce, _group_size

__all__ = ["DistributedGradReducer", "PipelineGradReducer"]

# low-precision gradients are summed in float32 (as MindSpore does); float32 and float64 keep their dtype
_COMM_DTYPE = {"Float16": mstype.float32, "BFloat16": mstype.float32}


def _get_device_num():
    """The number of devices of data parallelism: 1 stand-alone, else `device_num` when set, else the world size."""
    if _get_parallel_mode() == "stand_alone":
        return 1
    device_num = _device_num_if_set()
    return _group_size(GlobalComm.WORLD_COMM_GROUP) if device_num is None else device_num


class DistributedGradReducer(Cell):
    """Sum (or average) the gradients over the processes of a group: the all-reduce of data-parallel training.

    The dense gradients of each dtype are flattened into one buffer and all-reduced at once (MindSpore fuses
    them the same way at run time); float16/bfloat16 gradients are reduced in float32 and cast back. Sparse
    (RowTensor) gradients are all-gathered. Parameters with ``layerwise_parallel=True`` are left alone.

    Args:
        parameters (list[Parameter]): the parameters whose gradients are reduced (in the gradients' order).
        mean (bool): divide the sums by `degree`. Default: ``None``, the auto-parallel context's
            ``gradients_mean``.
        degree (int): the divisor of the mean. Default: ``None``, the world's size.
        fusion_type (int): the fusion id of the all-reduce. Default: ``1``.
        group (str): the communication group. Default: ``GlobalComm.WORLD_COMM_GROUP``.

    Raises:
        ValueError: `degree` is not a positive int.

    >>> import mindseed as ms
    >>> from mindseed.communication import init
    >>> init()                                    # a world of one process
    >>> net = ms.nn.Dense(2, 1)
    >>> reducer = ms.nn.DistributedGradReducer(net.trainable_params(), mean=True)
    >>> [g.shape for g in reducer((ms.ops.ones((1, 2)), ms.ops.ones((1,))))]
    [(1, 2), (1,)]
    """

    def __init__(self, parameters, mean=None, degree=None, fusion_type=1, group=GlobalComm.WORLD_COMM_GROUP):
        super().__init__(auto_prefix=False)
        if not isinstance(parameters, (list, tuple)):
            raise TypeError(f"For 'DistributedGradReducer', the 'parameters' must be a list or tuple of Parameters, "
                            f"but got {type(parameters).__name__}.")
        self.mean = _get_gradients_mean() if mean is None else mean
        if degree is None:
            degree = _group_size(GlobalComm.WORLD_COMM_GROUP)
        elif isinstance(degree, bool) or not isinstance(degree, int) or degree <= 0:
            raise ValueError(f"For 'DistributedGradReducer', parameter 'degree' in DistributedGradReducer should large "
                             f"than 0 and be int, degree: {degree}.")
        self.degree = degree
        self.scale = 1.0 / degree
        self.allreduce_filter = tuple(not getattr(p, "layerwise_parallel", False) for p in parameters)
        self.allreduce = AllReduce("sum", group).add_prim_attr("fusion", fusion_type)
        self.allgather = AllGather(group)

    def construct(self, grads):
        single = not isinstance(grads, (tuple, list))
        grads = (grads,) if single else tuple(grads)
        out = list(grads)
        buckets = {}
        for i, (g, reduce) in enumerate(zip(grads, self.allreduce_filter)):
            if not reduce or g is None:
                continue
            if isinstance(g, RowTensor):
                out[i] = self._reduce_sparse(g)
            else:
                buckets.setdefault(_COMM_DTYPE.get(g.dtype.name, g.dtype), []).append(i)
        for dtype, members in buckets.items():
            flat = [ops.reshape(grads[i] if grads[i].dtype == dtype else ops.cast(grads[i], dtype), (-1,))
                    for i in members]
            total = self.allreduce(flat[0] if len(flat) == 1 else ops.concat(flat))
            if self.mean:
                total = total * self.scale
            pieces = (total,) if len(members) == 1 else ops.split(total, [grads[i].size for i in members])
            for i, piece in zip(members, pieces):
                g = ops.reshape(piece, grads[i].shape)
                out[i] = g if g.dtype == grads[i].dtype else ops.cast(g, grads[i].dtype)
        return out[0] if single else tuple(out)

    def _reduce_sparse(self, grad):
        values = self.allgather(grad.values)
        if self.mean:
            values = values * self.scale
        return RowTensor(self.allgather(grad.indices), values, grad.dense_shape)


class PipelineGradReducer(Cell):
    """The gradients of a pipeline-parallel step: the micro-batches' gradients accumulated, divided by
    `scale_sense` (a loss scale), after which the accumulators are zeroed for the next step (MindSpore's rule:
    new_grad = (accumulated gradient) / scale_sense).

    The gradients given are what the step computed: with `nn.PipelineCell` they already sum the micro-batches; the
    accumulators `accu_grads` (zeros, one per parameter) hold what was added to them outside that gradient.

    Args:
        parameters (Union[ParameterTuple, list[Parameter]]): the parameters, in the gradients' order.
        scale_sense (float): the loss scale the gradients carry. Default: ``1.0``.
        opt_shard (bool): the parallel optimizer shards the gradients (the accumulators are then not read).
            Default: ``None``, the auto-parallel context's ``enable_parallel_optimizer``.

    Raises:
        TypeError: `parameters` holds something other than Parameters.

    >>> import numpy as np, mindseed as ms
    >>> net = ms.nn.Dense(2, 1)
    >>> reducer = ms.nn.PipelineGradReducer(net.trainable_params(), scale_sense=4.0)
    >>> [g.asnumpy().tolist() for g in reducer((ms.ops.ones((1, 2)) * 4, ms.ops.ones((1,)) * 8))]
    [[[1.0, 1.0]], [2.0]]
    """

    def __init__(self, parameters, scale_sense=1.0, opt_shard=None):
        super().__init__(auto_prefix=False)
        if not isinstance(parameters, (list, tuple)):
            raise TypeError(f"For 'PipelineGradReducer', the 'parameters' must be a list or tuple of Parameters, "
                            f"but got {type(parameters).__name__}.")
        params = tuple(parameters)
        if not all(isinstance(p, Parameter) for p in params):
            raise TypeError(f"For 'PipelineGradReducer', the 'parameters' must be Parameters, but got "
                            f"{[type(p).__name__ for p in params]}.")
        self.accu_grads = ParameterTuple(params).clone(prefix="accu_grads", init="zeros")
        self.degree = 1.0
        self.scale_sense = Parameter(scale_sense, name="scale_sense")
        self.opt_shard = get_auto_parallel_context("enable_parallel_optimizer") if opt_shard is None else opt_shard

    def construct(self, grads):
        scale = self.scale_sense * self.degree
        new_grads = []
        for g, accu in zip(grads, self.accu_grads):
            total = g if self.opt_shard else g + ops.cast(accu, g.dtype)
            new_grads.append(total / ops.cast(scale, g.dtype))
            accu.set_data(ops.zeros_like(accu))
        return tuple(new_grads)
