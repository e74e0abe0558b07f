"""Loss scaling for mixed precision: the loss-scale update cells and the loss-scaled training step.

The backward pass is seeded with the loss scale (so small float16 gradients do not underflow),
the gradients are divided by it, and a step whose gradients hold inf/nan is skipped.
"""
import numpy as np

from mindseed._backend.kernels import optim as K
from mindseed._utils import _state
from mindseed.common import dtype as mstype
from mindseed.common.parameter import Parameter
from mindseed.common.tensor import Tensor
from mindseed import ops
from mindseed.nn.cell import Cell
from mindseed.nn.wrap.cell_wrapper import TrainOneStepCell, _get_attr_from_cell, forward_and_grads

__all__ = ["TrainOneStepWithLossScaleCell", "DynamicLossScaleUpdateCell", "FixedLossScaleUpdateCell"]


def _float(x):
    return K.item(x._data) if isinstance(x, Tensor) else float(x)


# MindSpore's per-gradient overflow check, mapped over the gradients by training cells written for 1.x/2.0
# (`hyper_map(F.partial(_grad_overflow), grads)`): [1.] when a gradient (a RowTensor's values) holds inf/nan, else [0.]
_grad_overflow = ops.MultitypeFuncGraph("_grad_overflow")
_float_status = ops.FloatStatus()


@_grad_overflow.register("Tensor")
def _tensor_grad_overflow(grad):
    return _float_status(grad)


@_grad_overflow.register("RowTensor")
def _row_tensor_grad_overflow(grad):
    return _float_status(grad.values)


class DynamicLossScaleUpdateCell(Cell):
    r"""Dynamic loss scale: divided by `scale_factor` on overflow (not below 1), multiplied by it after
    `scale_window` steps without overflow.

    `construct(loss_scale, overflow)` updates the `loss_scale` Parameter in place and returns `overflow`.

    Args:
        loss_scale_value (float): the initial scale.
        scale_factor (int): the factor.
        scale_window (int): the number of overflow-free steps before growing.

    >>> import mindseed as ms
    >>> cell = ms.nn.DynamicLossScaleUpdateCell(loss_scale_value=2**12, scale_factor=2, scale_window=1000)
    >>> scale = ms.Parameter(ms.Tensor(2.0**12), name="scale")
    >>> _ = cell(scale, ms.Tensor(True))
    >>> float(scale)
    2048.0
    """

    def __init__(self, loss_scale_value, scale_factor, scale_window):
        super().__init__()
        self.scale_window = Tensor(scale_window, mstype.int32)
        self.scale_factor = Tensor(scale_factor, mstype.float32)
        self.loss_scale_value = loss_scale_value
        self.cur_iter = Parameter(Tensor(np.int32(1)), name="current_iterator_step")
        self.last_overflow_iter = Parameter(Tensor(np.int32(0)), name="last_overflow_iterator_step")
        self.minimum_loss_scale = Tensor(1.0, mstype.float32)

    # construct updates the scale and counters with kernels directly: one opaque node of a traced graph
    _graph_opaque = True

    def get_loss_scale(self):
        """The initial loss scale."""
        return self.loss_scale_value

    def construct(self, loss_scale, overflow):
        overflow_flag = bool(_float(overflow)) if isinstance(overflow, Tensor) else bool(overflow)
        scale = _float(loss_scale)
        factor = _float(self.scale_factor)
        cur, last = int(_float(self.cur_iter)), int(_float(self.last_overflow_iter))
        on_overflow = max(scale / factor, _float(self.minimum_loss_scale)) if overflow_flag else scale
        should_inc = int(_float(self.scale_window)) <= cur - last
        if overflow_flag or should_inc:
            K.assign_(self.last_overflow_iter._data, cur)
        new_scale = on_overflow * factor if should_inc and not overflow_flag else on_overflow
        K.assign_(loss_scale._data, new_scale)
        K.assign_(self.cur_iter._data, cur + 1)
        return overflow


class FixedLossScaleUpdateCell(Cell):
    """A constant loss scale: `construct(loss_scale, overflow)` changes nothing and returns `overflow`.

    >>> import mindseed as ms
    >>> ms.nn.FixedLossScaleUpdateCell(1024.0).get_loss_scale()
    1024.0
    """

    def __init__(self, loss_scale_value):
        super().__init__()
        self.loss_scale_value = loss_scale_value

    def get_loss_scale(self):
        """The loss scale."""
        return self.loss_scale_value

    def construct(self, _, overflow):
        return overflow


class TrainOneStepWithLossScaleCell(TrainOneStepCell):
    r"""One loss-scaled training step; skips the update when the gradients overflow.

    The backward pass is seeded with the scale, the gradients divided by it and checked for inf/nan; the
    loss-scale manager (when `scale_sense` is a Cell) updates the scale; the optimizer runs only without overflow.

    Args:
        network (Cell): the network with its loss.
        optimizer (Cell): the optimizer.
        scale_sense (Union[Tensor, Cell]): a fixed scale (shape () or (1,)) or an update cell
            (`DynamicLossScaleUpdateCell` / `FixedLossScaleUpdateCell`).

    Returns:
        (loss, overflow (bool Tensor), loss scale (the Parameter `scale_sense`)).

    Raises:
        TypeError: `scale_sense` is neither a Cell nor a Tensor.
        ValueError: a Tensor `scale_sense` whose shape is not () or (1,).

    >>> import mindseed as ms
    >>> net = ms.nn.WithLossCell(ms.nn.Dense(2, 1), ms.nn.MSELoss())
    >>> step = ms.nn.TrainOneStepWithLossScaleCell(net, ms.nn.SGD(net.trainable_params(), 0.1),
    ...                                            ms.Tensor(1024.0))
    >>> loss, overflow, scale = step(ms.ops.ones((3, 2), ms.float32), ms.ops.ones((3, 1), ms.float32))
    >>> bool(overflow), float(scale)
    (False, 1024.0)
    """

    def __init__(self, network, optimizer, scale_sense):
        super().__init__(network, optimizer, sens=None)
        self.base = Tensor(1, mstype.float32)
        self.base0 = Tensor(0, mstype.int32)
        # the operators MindSpore's cell carries, which subclasses with their own construct use
        self.hyper_map = ops.HyperMap()
        self.reduce_sum = ops.ReduceSum(keep_dims=False)
        self.reduce_all = ops.ReduceAll(keep_dims=False)
        self.less_equal = ops.LessEqual()
        self.equal = ops.Equal()
        self.logic_not = ops.LogicalNot()
        # data parallel: every rank must agree on overflow, or the ranks that skip a step and the ranks that
        # take it (with another rank's inf/nan in the reduced gradients) drift apart
        self.is_distributed = self.reducer_flag
        self.allreduce = ops.AllReduce()      # called in data parallel only
        self.gpu_target = False
        self.loss_scaling_manager = None
        if isinstance(scale_sense, Cell):
            self.loss_scaling_manager = scale_sense
            self.scale_sense = Parameter(Tensor(scale_sense.get_loss_scale(), mstype.float32), name="scale_sense")
        elif isinstance(scale_sense, Tensor):
            if scale_sense.shape in ((1,), ()):
                self.scale_sense = Parameter(scale_sense, name="scale_sense")
            else:
                raise ValueError(f"For 'TrainOneStepWithLossScaleCell', the shape of 'scale_sense' must be (1,) or (), "
                                 f"but got {scale_sense.shape}.")
        else:
            raise TypeError(f"For 'TrainOneStepWithLossScaleCell', the 'scale_sense' must be Cell or Tensor, but got "
                            f"'scale_sense' type: {type(scale_sense)}.")
        self.enable_tuple_broaden = True
        _get_attr_from_cell(self, network)

    def construct(self, *inputs):
        scaling_sens = self.scale_sense
        loss, grads = forward_and_grads(self.network, inputs, None, self.weights, scaling_sens)
        if _state.tracing is None:
            return loss, self._scaled_update(*grads), scaling_sens
        # in a graph: one opaque node (unscale, overflow check, scale update, the optimizer when no overflow)
        # whose overflow flag and scale (a copy after the manager's update) are read at every call
        cond, scale = _state.opaque_call(lambda *g: (self._scaled_update(*g), self.scale_sense.copy()), grads,
                                         outputs=True, writes=tuple(self.get_parameters()))
        return loss, cond, scale

    def _scaled_update(self, *grads):
        """The step after the backward pass; returns the overflow flag."""
        scale = _float(self.scale_sense)
        local = tuple(Tensor._from_raw(g) for g in K.scaled([g._data for g in grads], 1.0 / scale))
        cond = self.get_overflow_status(None, local)
        grads = self.grad_reducer(local)
        overflow = self.process_loss_scale(cond)
        if not bool(overflow):
            self.optimizer(grads)
        return cond

    def set_sense_scale(self, sens):
        """Set the loss scale (a Tensor)."""
        if isinstance(sens, Tensor):
            self.scale_sense.set_data(sens)
        else:
            raise TypeError(f"For 'TrainOneStepWithLossScaleCell', the type of 'sens' must be Tensor, but got "
                            f"{type(sens)}")

    def start_overflow_check(self, pre_cond, compute_input):
        """Start tracking overflow before the backward pass: returns (status, compute_input)."""
        return Tensor(np.zeros(8, np.int32)), compute_input

    def get_overflow_status(self, status, compute_output):
        """A bool Tensor: whether any of the tensors in `compute_output` holds inf or nan (on any rank, in data
        parallel training)."""
        outputs = compute_output if isinstance(compute_output, (tuple, list)) else (compute_output,)
        if _state.tracing is not None:
            # in a graph (a subclass's own construct): computed at every call
            finite = ops.stack([ops.isfinite(g).all() for g in outputs]).all() if outputs else Tensor(True)
            overflow = ops.logical_not(finite)
            if self.is_distributed:
                overflow = self.allreduce(overflow.astype(mstype.float32)) > 0
            return overflow
        overflow = not K.all_finite([g._data for g in outputs])
        if self.is_distributed:
            flags = self.allreduce(Tensor(np.float32(overflow)))
            overflow = _float(flags) > 0
        return Tensor(overflow, mstype.bool_)

    def process_loss_scale(self, overflow):
        """Let the loss-scale manager update the scale; returns whether to skip this step."""
        if self.loss_scaling_manager is not None:
            return self.loss_scaling_manager(self.scale_sense, overflow)
        return overflow

