"""Wrapper cells: a network with its loss, with its gradients, or with one whole training step.

`TrainOneStepCell` is the hot path of training: one forward under one tape, one backward for the
optimizer's parameters, then the optimizer's in-place update; no second forward, no extra copies.
"""
import os
from types import FunctionType, MethodType

from mindseed import ops
from mindseed.ops._prims import core as P
from mindseed.autograd.grad import GradOperation, value_and_grad
from mindseed.common import _parallel
from mindseed.common import dtype as mstype
from mindseed.common._parallel import GlobalComm, _get_gradients_mean, _get_parallel_mode, \
    get_auto_parallel_context
from mindseed.common.context import ParallelMode
from mindseed.common.parameter import Parameter, ParameterTuple
from mindseed.common.tensor import Tensor
from mindseed.nn.cell import Cell
from mindseed.nn.layer.container import CellList
from mindseed.nn.optim import _validator as V
from mindseed.nn.wrap.grad_reducer import DistributedGradReducer, _get_device_num
from mindseed.ops.operations.comm_ops import _group_size

__all__ = ["WithLossCell", "WithGradCell", "ForwardValueAndGrad", "TrainOneStepCell", "WithEvalCell",
           "ParameterUpdate", "VirtualDatasetCellTriple", "GradAccumulationCell", "MicroBatchInterleaved",
           "PipelineCell", "GetNextSingleOp"]


def _broadcast_parameters(cell):
    """Every Parameter of `cell` (network and optimizer state) set to its value on rank 0 of the world group."""
    params = list({id(p): p for p in cell.get_parameters()}.values())
    if params:
        for p, value in zip(params, ops.Broadcast(0, GlobalComm.WORLD_COMM_GROUP)(tuple(params))):
            p.set_data(value)


def _get_attr_from_cell(cell, network):
    """Carry the wrapped network's mixed-precision level over to the wrapper (as MindSpore does)."""
    if isinstance(network, Cell) and "_amp_level" in network.__dict__:
        cell.__dict__["_amp_level"] = network.__dict__["_amp_level"]


def _weighted_sum(out, sens):
    """<out, sens>: its gradient is the vector-Jacobian product of `out` with cotangent `sens`."""
    if isinstance(out, (tuple, list)):
        total = None
        for o, s in zip(out, sens):
            term = _weighted_sum(o, s)
            total = term if total is None else total + term
        return total
    if not isinstance(sens, Tensor):
        return out * sens
    if sens.dtype != out.dtype:
        sens = ops.cast(sens, out.dtype)
    prod = out * sens
    return prod.sum() if prod.ndim else prod


def forward_and_grads(fn, inputs, positions, weights, sens=None):
    """Run `fn(*inputs)` once under a tape: (output, gradients as `value_and_grad` returns them).

    With `sens` the gradients are those of the output seeded with `sens` (a number, a Tensor or a tuple).
    """
    if sens is None:
        return value_and_grad(fn, positions, weights)(*inputs)

    def seeded(*xs):
        out = fn(*xs)
        return _weighted_sum(out, sens), out

    (_, out), grads = value_and_grad(seeded, positions, weights, has_aux=True)(*inputs)
    return out, grads


class WithLossCell(Cell):
    """The backbone followed by the loss: `construct(data, label)` returns loss_fn(backbone(data), label).

    Args:
        backbone (Cell): the network.
        loss_fn (Cell): the loss.

    >>> import mindseed as ms
    >>> net = ms.nn.WithLossCell(ms.nn.Dense(2, 1), ms.nn.MSELoss())
    >>> net(ms.ops.ones((3, 2), ms.float32), ms.ops.ones((3, 1), ms.float32)).shape
    ()
    """

    def __init__(self, backbone, loss_fn):
        super().__init__(auto_prefix=False)
        self._backbone = backbone
        self._loss_fn = loss_fn
        _get_attr_from_cell(self, backbone)

    def construct(self, data, label):
        out = self._backbone(data)
        return self._loss_fn(out, label)

    @property
    def backbone_network(self):
        """The wrapped backbone."""
        return self._backbone


def _check_cell(op, arg, value):
    if not isinstance(value, Cell):
        raise TypeError(f"For '{op}', the '{arg}' must be a Cell, but got {type(value).__name__}.")


class WithGradCell(Cell):
    """The gradients of the network's (loss) output with respect to its trainable parameters.

    Args:
        network (Cell): the network (with its loss when `loss_fn` is None).
        loss_fn (Cell): a loss appended to `network`. Default: ``None``.
        sens (Union[None, Tensor, Scalar, Tuple ...]): the seed of the backward pass. Default: ``None`` (ones).

    >>> import mindseed as ms
    >>> net = ms.nn.Dense(2, 1)
    >>> grads = ms.nn.WithGradCell(net, ms.nn.MSELoss())(ms.ops.ones((3, 2), ms.float32),
    ...                                                    ms.ops.ones((3, 1), ms.float32))
    >>> len(grads)
    2
    """

    def __init__(self, network, loss_fn=None, sens=None):
        super().__init__(auto_prefix=False)
        _check_cell("WithGradCell", "network", network)
        if loss_fn is not None:
            _check_cell("WithGradCell", "loss_fn", loss_fn)
        self.network = network
        self.loss_fn = loss_fn
        self.weights = ParameterTuple(network.trainable_params())
        self.grad = GradOperation(get_by_list=True, sens_param=sens is not None)
        self.sens = sens
        self.network_with_loss = network if loss_fn is None else WithLossCell(self.network, self.loss_fn)
        self.network_with_loss.set_train()
        _get_attr_from_cell(self, network)

    def construct(self, *inputs):
        if self.sens is None:
            return self.grad(self.network_with_loss, self.weights)(*inputs)
        return self.grad(self.network_with_loss, self.weights)(*inputs, self.sens)


class ForwardValueAndGrad(Cell):
    """The network's output and its gradients (GradOperation's selection), from one forward pass.

    Args:
        network (Union[Cell, Function, MethodType]): the function to differentiate.
        weights (ParameterTuple): the parameters, with `get_by_list`. Default: ``None``.
        get_all (bool): gradients of all inputs. Default: ``False`` (the first input only).
        get_by_list (bool): gradients of `weights`. Default: ``False``.
        sens_param (bool): the last input is the seed of the backward pass. Default: ``False``.

    Returns:
        (output, gradients).

    Raises:
        TypeError: `network` is not callable as required, a flag is not a bool, or `weights` is not a sequence
            of Parameters with `get_by_list`.

    >>> import mindseed as ms
    >>> net = ms.nn.Dense(2, 1)
    >>> loss, grads = ms.nn.ForwardValueAndGrad(net, net.trainable_params(), get_by_list=True)(
    ...     ms.ops.ones((3, 2), ms.float32))
    >>> loss.shape, len(grads)
    ((3, 1), 2)
    """

    def __init__(self, network, weights=None, get_all=False, get_by_list=False, sens_param=False):
        super().__init__(auto_prefix=False)
        if not isinstance(network, (Cell, FunctionType, MethodType)):
            raise TypeError(f"For 'ForwardValueAndGrad', the argument 'network' must be cell, function type or "
                            f"method type, but got '{type(network)}'")
        for name, flag in (("get_all", get_all), ("get_by_list", get_by_list)):
            if not isinstance(flag, bool):
                raise TypeError(f"For 'ForwardValueAndGrad', the type of '{name}' must be bool, but got "
                                f"'{type(flag)}'")
        if get_by_list and not isinstance(weights, (ParameterTuple, tuple, list)):
            raise TypeError(f"For 'ForwardValueAndGrad', when 'get_by_list' is set to True, the argument 'weights' "
                            f"must be Parameters array, but got '{type(weights)}'")
        self.network = network
        if isinstance(network, Cell):
            network.set_grad()
        self.weights = weights
        self.get_all = get_all
        self.get_by_list = get_by_list
        self.sens_param = sens_param
        _get_attr_from_cell(self, network)

    def construct(self, *inputs):
        sens = None
        if self.sens_param:
            inputs, sens = inputs[:-1], inputs[-1]
        if self.get_all:
            positions = tuple(i for i, a in enumerate(inputs) if isinstance(a, Tensor))
        elif self.get_by_list:
            positions = None
        else:
            positions = 0
        weights = self.weights if self.get_by_list else None
        out, grads = forward_and_grads(self.network, inputs, positions, weights, sens)
        if self.get_all and len(positions) == 1:  # get_all: a tuple of input gradients, even of one input
            grads = ((grads[0],), grads[1]) if self.get_by_list else (grads,)
        return out, grads


_SHARDED_MODES = (ParallelMode.SEMI_AUTO_PARALLEL, ParallelMode.AUTO_PARALLEL)


class TrainOneStepCell(Cell):
    """One training step: forward, backward for the optimizer's parameters, optimizer update; returns the loss.

    Args:
        network (Cell): the network with its loss.
        optimizer (Union[Cell]): the optimizer.
        sens (numbers.Number): the seed of the backward pass (the gradients are scaled by it). Default: ``None``.
        return_grad (bool): also return ``{parameter name: gradient}``. Default: ``False``.

    Raises:
        ValueError: `sens` is 0.

    >>> import mindseed as ms
    >>> net = ms.nn.WithLossCell(ms.nn.Dense(2, 1), ms.nn.MSELoss())
    >>> step = ms.nn.TrainOneStepCell(net, ms.nn.SGD(net.trainable_params(), 0.1))
    >>> step(ms.ops.ones((3, 2), ms.float32), ms.ops.ones((3, 1), ms.float32)).shape
    ()
    """

    def __init__(self, network, optimizer, sens=None, return_grad=False):
        super().__init__(auto_prefix=False)
        _check_cell(type(self).__name__, "network", network)
        if not hasattr(optimizer, "parameters"):
            raise TypeError(f"For '{type(self).__name__}', the 'optimizer' must be an Optimizer (or a Cell with "
                            f"'parameters'), but got {type(optimizer).__name__}.")
        self.network = network
        self.network.set_grad()
        self.optimizer = optimizer
        self.weights = self.optimizer.parameters
        self.grad = GradOperation(get_by_list=True, sens_param=True)
        self.grad_no_sens = GradOperation(get_by_list=True)
        self.sens = sens
        if self.sens == 0:
            raise ValueError("The input argument of 'sens' can not be 0.")
        self.sense_flag = self.sens is not None
        if not self.sense_flag:
            self.sens = 1.0
        self.return_grad = return_grad
        if return_grad:
            self.weights_name = [p.name for p in self.optimizer.parameters]
        self.reducer_flag = False
        self.grad_reducer = _identity
        self.parallel_mode = _get_parallel_mode()
        self.reducer_flag = self.parallel_mode in (ParallelMode.DATA_PARALLEL, ParallelMode.HYBRID_PARALLEL)
        if self.reducer_flag:
            self.mean = _get_gradients_mean()
            self.degree = _get_device_num()
            self.grad_reducer = DistributedGradReducer(self.weights, self.mean, self.degree,
                                                       group=GlobalComm.WORLD_COMM_GROUP)
        self.__dict__["_value_and_grad"] = value_and_grad(self.network, None, self.weights)
        # set_auto_parallel_context(parameter_broadcast=True): every rank starts from rank 0's parameters,
        # broadcast at the first step (after any checkpoint loading)
        broadcast = bool(get_auto_parallel_context("parameter_broadcast"))
        self.__dict__["_broadcast_pending"] = self.reducer_flag and broadcast
        _get_attr_from_cell(self, network)
        # MS_ENABLE_GRACEFUL_EXIT=1: each step all-reduces the ranks' exit requests into `exit_param` (subclasses,
        # such as mindformers' training cell, read these attributes in their own construct)
        self.use_graceful_exit = os.environ.get("MS_ENABLE_GRACEFUL_EXIT") == "1"
        if self.use_graceful_exit:
            self.graceful_exit = ExitByRequest()
            self.exit_param = Parameter(Tensor(False, mstype.bool_), name="graceful_exit")
            self.init_param = Parameter(Tensor([0], mstype.int32), name="graceful_init")

    def __call__(self, *args, **kwargs):
        values = _parallel.auto_parallel_values(self.network)
        if values is None:
            return self._dispatch_step(args, kwargs)
        with _parallel.overlaid(values):  # the network is wrapped in AutoParallel: the step runs as it configures
            return self._dispatch_step(args, kwargs)

    def _dispatch_step(self, args, kwargs):
        if _parallel.simulated_training is not None and not kwargs:
            # a step on a simulated world of ranks (mindseed.parallel._train.simulate)
            return _parallel.simulated_training(self, args)
        if GlobalComm.INITED and not kwargs and _get_parallel_mode() in _SHARDED_MODES \
                and _group_size(GlobalComm.WORLD_COMM_GROUP) > 1 and _parallel.process_training is not None:
            # semi-auto / auto parallel on the processes of a real run: this rank's shards of the step
            return _parallel.process_training()(self, args)
        if self.__dict__.get("_broadcast_pending"):
            self.__dict__["_broadcast_pending"] = False
            _broadcast_parameters(self)
        return super().__call__(*args, **kwargs)

    def _loss_and_grads(self, *inputs):
        """(loss, gradients of the optimizer's parameters) of one step, before any reduction and update."""
        if self.sense_flag:
            return forward_and_grads(self.network, inputs, None, self.weights, self.sens)
        return self._value_and_grad(*inputs)

    def construct(self, *inputs):
        loss, grads = self._loss_and_grads(*inputs)
        grads = self.grad_reducer(grads)
        if self.use_graceful_exit:
            grads = self.graceful_exit.exit_by_request(grads, self.init_param, self.exit_param)
        self.optimizer(grads)
        if self.return_grad:
            return loss, dict(zip(self.weights_name, grads))
        return loss


def _identity(x):
    return x


class ExitByRequest:
    """MindSpore's graceful exit (`mindspore.utils.utils.ExitByRequest`): on more than one rank, every step sums the
    ranks' requests (`init_value`, a [1] int32 Parameter each rank sets to 1 to ask) and sets `exit_value` (a bool
    Parameter) to whether every rank asked; the gradients pass through."""

    def __init__(self):
        self.group_size = _group_size(GlobalComm.WORLD_COMM_GROUP)
        self.is_distributed = self.group_size > 1

    def exit_by_request(self, grad, init_value, exit_value):
        if self.is_distributed:
            requests = ops.AllReduce()(init_value)
            ops.assign(exit_value, ops.reduce_all(ops.equal(requests, self.group_size)))
        return grad


class WithEvalCell(Cell):
    """Evaluation: returns (loss, outputs, label) of `loss_fn(network(data), label)`.

    Args:
        network (Cell): the network.
        loss_fn (Cell): the loss.
        add_cast_fp32 (bool): compute the loss on float32 outputs and labels. Default: ``False``.

    >>> import mindseed as ms
    >>> net = ms.nn.WithEvalCell(ms.nn.Dense(2, 1), ms.nn.MSELoss())
    >>> len(net(ms.ops.ones((3, 2), ms.float32), ms.ops.ones((3, 1), ms.float32)))
    3
    """

    def __init__(self, network, loss_fn, add_cast_fp32=False):
        super().__init__(auto_prefix=False)
        self._network = network
        self._loss_fn = loss_fn
        self.add_cast_fp32 = V.value_type("add_cast_fp32", add_cast_fp32, [bool], "WithEvalCell")
        _get_attr_from_cell(self, network)

    def construct(self, data, label):
        outputs = self._network(data)
        if self.add_cast_fp32:
            if isinstance(label, Tensor) and mstype.is_float(label.dtype):
                label = ops.cast(label, mstype.float32)
            outputs = ops.cast(outputs, mstype.float32)
        loss = self._loss_fn(outputs, label)
        return loss, outputs, label


class ParameterUpdate(Cell):
    """`construct(x)` writes x into the Parameter and returns x.

    >>> import mindseed as ms
    >>> w = ms.Parameter(ms.Tensor([1.0]), name="w")
    >>> _ = ms.nn.ParameterUpdate(w)(ms.Tensor([5.0]))
    >>> float(w[0])
    5.0
    """

    def __init__(self, param):
        super().__init__(auto_prefix=False)
        if not isinstance(param, Parameter):
            raise TypeError(f"For 'ParameterUpdate', 'param' must be 'Parameter', but got {type(param)}.")
        self._param = param

    def construct(self, x):
        self._param.set_data(x)
        return x


class GetNextSingleOp(Cell):
    """A Cell whose call returns the next element of the data queue `queue_name` (`ops.GetNext`).

    Args:
        dataset_types (list[mindspore.dtype]): the dtypes of the columns.
        dataset_shapes (list[tuple[int]]): the shapes of the columns (-1: any size).
        queue_name (str): the queue a dataset was sent to (`Dataset.device_que(queue_name=...)`).

    Raises:
        TypeError: `dataset_types` or `dataset_shapes` is not a list or tuple.
        ValueError: `dataset_types` and `dataset_shapes` have different lengths.
        RuntimeError: (at a call) no such queue, or an element that does not match the types and shapes.

    >>> import numpy as np, mindseed as ms
    >>> data = ms.dataset.NumpySlicesDataset({"x": np.arange(4, dtype=np.int32)}, shuffle=False)
    >>> _ = data.device_que(queue_name="doc_queue")
    >>> ms.nn.GetNextSingleOp([ms.int32], [()], "doc_queue")()
    (Tensor(shape=[], dtype=Int32, value= 0),)
    """

    def __init__(self, dataset_types, dataset_shapes, queue_name):
        super().__init__()
        types = dataset_types if isinstance(dataset_types, (list, tuple)) else None
        self.get_next = ops.GetNext(dataset_types, dataset_shapes, len(types) if types is not None else 0,
                                    queue_name)

    def construct(self):
        return self.get_next()


class _VirtualDatasetCell(Cell):
    """Calls the backbone on the inputs as they come: what MindSpore wraps a network in under (semi-)auto parallel
    to mark the dataset's inputs. mindseed's parallel layer takes the layout of the network's own inputs from
    `dataset_strategy`, so no marker primitive sits in between; training cells written for MindSpore (MindArmour's
    DPModel) still wrap their network in one."""

    def __init__(self, backbone):
        super().__init__(auto_prefix=False)
        self._backbone = backbone
        _get_attr_from_cell(self, backbone)

    def construct(self, *inputs):
        return self._backbone(*inputs)


class VirtualDatasetCellTriple(_VirtualDatasetCell):
    """Calls the backbone with three inputs (kept for scripts written for data-parallel training)."""

    def construct(self, a, b, c):
        return self._backbone(a, b, c)


def _micro_slices(inputs, i, micro_size):
    """The i-th of `micro_size` equal slices of every input along axis 0 (a partitioner slices each rank's own rows
    of a cut batch: the MicroBatchSlice primitive)."""
    _check_split(inputs, micro_size)
    out = []
    for x in inputs:
        step = x.shape[0] // micro_size
        out.append(P.micro_slice_p(x, index=(slice(step * i, step * (i + 1)),)))
    return tuple(out)


def _check_split(inputs, micro_size):
    """Every input's batch is a positive multiple of `micro_size` (so no more micro-batches than rows)."""
    for x in inputs:
        n = x.shape[0]
        if n % micro_size != 0 or n < micro_size:
            raise ValueError(f"For micro batch initialization, the 0th dimension shape of input({n}) must be divided "
                             f"by micro size({micro_size})")


class _MicroBatch(Cell):
    """Slices its inputs into micro-batches (one instance per micro-batch, as MindSpore builds them)."""

    def __init__(self, micro_size):
        super().__init__()
        self.micro_size = micro_size

    def construct(self, i, *inputs):
        return _micro_slices(inputs, i, self.micro_size)


def _check_count(name, arg, count):
    if isinstance(count, bool) or not isinstance(count, int):
        raise TypeError(f"For '{name}', the argument '{arg}' must be integer, but got the type : {type(count)}.")
    if count <= 0:
        raise ValueError(f"For '{name}', the argument '{arg}' must be large than 0, but got {count}.")


def _check_micro(name, network, micro_size, arg="micro_size"):
    if not isinstance(network, Cell):
        raise TypeError(f"For '{name}', the argument 'network' must cell type, but got the type : {type(network)}.")
    _check_count(name, arg, micro_size)


def _sum_over_micro(network, slicers, count, inputs):
    """The sum of network's outputs on the `count` micro-batches the `slicers` cut from `inputs`.

    The slicers (a CellList, one cell per micro-batch as MindSpore builds them) are made at the first call, once
    the batch is known to split into `count` parts: a huge count builds nothing up front."""
    _check_split(inputs, count)
    while len(slicers) < count:
        slicers.append(_MicroBatch(count))
    ret = None
    for i in range(count):
        output = network(*slicers[i](i, *inputs))
        ret = output if ret is None else ret + output
    return ret


class _MicroSum(Cell):
    """Run the network on each micro-batch and sum the outputs."""

    def _init_micro(self, name, network, micro_size):
        _check_micro(name, network, micro_size)
        self.network = network
        self.micro_size = micro_size
        self.micro_inputs = CellList()      # filled by the first call (_sum_over_micro)
        _get_attr_from_cell(self, network)

    def construct(self, *inputs):
        return _sum_over_micro(self.network, self.micro_inputs, self.micro_size, inputs)


class GradAccumulationCell(_MicroSum):
    """Splits the batch into `micro_size` micro-batches and sums the network's outputs over them.

    >>> import mindseed as ms
    >>> net = ms.nn.GradAccumulationCell(ms.nn.Dense(2, 1), 2)
    >>> net(ms.ops.ones((4, 2), ms.float32)).shape
    (2, 1)
    """

    def __init__(self, network, micro_size):
        super().__init__(auto_prefix=False)
        self._init_micro("GradAccumulationCell", network, micro_size)


class PipelineCell(_MicroSum):
    """Splits the batch into `micro_size` micro-batches and sums the outputs (one stage when not distributed).

    `stage_config` / `segment_config` ({cell name: stage}) set the cells' `pipeline_stage` / `pipeline_segment`.
    """

    def __init__(self, network, micro_size, stage_config=None, segment_config=None):
        super().__init__(auto_prefix=False)
        self._init_micro("PipelineCell", network, micro_size)
        _parallel.register_pipeline_cell(self)   # a gradient call inside AutoParallel finds it by its weights
        for arg, config, attr in (("stage_config", stage_config, "pipeline_stage"),
                                  ("segment_config", segment_config, "pipeline_segment")):
            if config is None:
                continue
            left = dict(config)
            for cell_name, cell in network.cells_and_names():
                if cell_name and cell_name in left:
                    cell.__dict__[attr] = left.pop(cell_name)
            if left:
                raise KeyError(f"For 'PipelineCell', the argument '{arg}' : {left} is not found in 'network' : "
                               f"{network}")

    def shard(self, in_strategy, out_strategy=None, parameter_plan=None, device="Ascend", level=0):
        raise ValueError("For 'PipelineCell', no 'shard' on 'PipelineCell' is allowed.")


class MicroBatchInterleaved(Cell):
    """Splits the batch into `interleave_num` parts, runs the network on each and sums the outputs.

    >>> import mindseed as ms
    >>> net = ms.nn.MicroBatchInterleaved(ms.nn.Dense(2, 1), 2)
    >>> net(ms.ops.ones((4, 2), ms.float32)).shape
    (2, 1)
    """

    def __init__(self, network, interleave_num=2):
        super().__init__(auto_prefix=False)
        _check_count("MicroBatchInterleaved", "interleave_num", interleave_num)
        self.network = network
        self.interleave_num = interleave_num
        self.interleave_inputs = CellList()     # filled by the first call (_sum_over_micro)
        _get_attr_from_cell(self, network)

    def construct(self, *inputs):
        return _sum_over_micro(self.network, self.interleave_inputs, self.interleave_num, inputs)
