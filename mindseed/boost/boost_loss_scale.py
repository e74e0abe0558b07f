"""mindspore.boost.BoostTrainOneStepWithLossScaleCell: the boost training step with loss scaling, one scale for the
whole network (a Tensor or an update cell) or, with the boost option ``loss_scale_group``, one scale per group of
layers kept by a `GroupLossScaleManager` placed inside the network."""
from mindseed._utils import _state
from mindseed.amp import _OutputTo16, _replace_child
from mindseed.boost.boost_cell_wrapper import BoostTrainOneStepCell
from mindseed.common import dtype as mstype
from mindseed.common.parameter import Parameter
from mindseed.common.tensor import Tensor
from mindseed.nn.cell import Cell
from mindseed.nn.wrap.cell_wrapper import forward_and_grads
from mindseed.nn.wrap.loss_scale import TrainOneStepWithLossScaleCell
from mindseed.ops import functional as F

__all__ = ["BoostTrainOneStepWithLossScaleCell"]


class BoostTrainOneStepWithLossScaleCell(BoostTrainOneStepCell):
    r"""Boost training step with loss scaling: the backward pass is seeded with the loss scale, the gradients are
    divided by it and checked for inf/nan, the scale is updated by the update cell, and the boost update (gradient
    accumulation or the optimizer) runs only without overflow.

    With the boost option ``loss_scale_group`` (`AutoBoost`'s configuration), `scale_sense` is a
    `GroupLossScaleManager` called inside the network between groups of layers: each group's gradients are divided
    by the group's scale, each scale shrinks by :math:`\sqrt{2}` on an overflow in its group and otherwise grows by
    :math:`2^{1/1000}`.

    Args:
        network (Cell): the network with its loss (a single output).
        optimizer (Cell): the optimizer.
        scale_sense (Union[Tensor, Cell]): an update cell (`DynamicLossScaleUpdateCell`, ...), a scale Tensor of
            shape () or (1,), or (loss_scale_group) a `GroupLossScaleManager`.

    Outputs: (loss, overflow (bool Tensor), the loss scale).

    Raises:
        TypeError: `scale_sense` is neither a Cell nor a Tensor, or not a group manager with ``loss_scale_group``.
        ValueError: a Tensor `scale_sense` of shape other than () or (1,).

    >>> import numpy as np
    >>> import mindseed as ms
    >>> net = ms.nn.WithLossCell(ms.nn.Dense(2, 1, "ones", "zeros"), ms.nn.MSELoss())
    >>> opt = ms.nn.SGD(net.trainable_params(), 0.1)
    >>> step = ms.boost.BoostTrainOneStepWithLossScaleCell(net, opt, ms.Tensor(np.float32(1024)))
    >>> loss, overflow, scale = step(ms.ops.ones((3, 2), ms.float32), ms.ops.zeros((3, 1), ms.float32))
    >>> float(loss), bool(overflow), float(scale)
    (4.0, False, 1024.0)
    """

    # the overflow check and the scale update are TrainOneStepWithLossScaleCell's
    get_overflow_status = TrainOneStepWithLossScaleCell.get_overflow_status
    process_loss_scale = TrainOneStepWithLossScaleCell.process_loss_scale
    set_sense_scale = TrainOneStepWithLossScaleCell.set_sense_scale
    start_overflow_check = TrainOneStepWithLossScaleCell.start_overflow_check

    def __init__(self, network, optimizer, scale_sense):
        super().__init__(network, optimizer, sens=None)
        self.base = Tensor(1, mstype.float32)
        self.is_distributed = self.reducer_flag
        self.allreduce = None
        if self.is_distributed:
            from mindseed.ops import operations as P  # noqa: PLC0415 -- only data-parallel training reduces flags
            self.allreduce = P.AllReduce()
        self.gpu_target = False
        self.loss_scaling_manager = None
        self.enable_enhanced_amp = bool(self.auto_boost.boost_config.get("loss_scale_group", False))
        if self.enable_enhanced_amp:
            if not isinstance(scale_sense, Cell) or not hasattr(scale_sense, "set_loss_scale_status"):
                raise TypeError(f"The scale_sense must be enhanced amp Cell, bug got {type(scale_sense)}")
            self.loss_scaling_manager = scale_sense
            self.loss_scale_groups = scale_sense.loss_scale_groups
            self._init_enhanced_amp()
            self._do_keep_mix_fp32(self.network)
        elif isinstance(scale_sense, Cell):
            self.loss_scaling_manager = scale_sense
            self.scale_sense = Parameter(Tensor(scale_sense.get_loss_scale(), dtype=mstype.float32),
                                         name="scale_sense")
        elif isinstance(scale_sense, Tensor):
            if scale_sense.shape not in ((1,), ()):
                raise ValueError(f"The shape of scale_sense must be (1,) or (), but got {scale_sense.shape}")
            self.scale_sense = Parameter(scale_sense, name="scale_sense")
        else:
            raise TypeError(f"The scale_sense must be Cell or Tensor, but got {type(scale_sense)}")

    def construct(self, *inputs):
        if self.enable_enhanced_amp:
            loss, grads = forward_and_grads(self.network, inputs, None, self.weights, 1.0)
            cond, scale = self._run(self._enhanced_amp_update, self.grad_reducer(grads))
            return loss, cond, scale
        scaling_sens = self.scale_sense
        loss, grads = forward_and_grads(self.network, inputs, None, self.weights, F.cast(scaling_sens, mstype.float32))
        grads = tuple(g * F.cast(F.reciprocal(scaling_sens), g.dtype) for g in grads)
        cond, _ = self._run(lambda *g: (self._scaled_update(loss, inputs, *g), scaling_sens), self.grad_reducer(grads))
        return loss, cond, scaling_sens

    def _run(self, update, grads):
        """`update(*grads)` -> (overflow, scale): now in PyNative; in a graph, one opaque node run at every call."""
        if _state.tracing is None:
            return update(*grads)
        return _state.opaque_call(lambda *g: tuple(x.copy() for x in update(*g)), grads, outputs=True,
                                  writes=tuple(self.get_parameters()))

    def _scaled_update(self, loss, inputs, *grads):
        """Overflow check, scale update, and the boost update when the step did not overflow."""
        cond = self.get_overflow_status(None, grads)
        overflow = self.process_loss_scale(cond)
        if not bool(overflow):
            if self.use_grad_accumulation:
                self.gradient_accumulation_process(loss, grads, None, *inputs)
            else:
                self.optimizer(grads)
        return cond

    def _init_enhanced_amp(self):
        """Group the optimizer's parameters as `loss_scale_groups` lists them (consecutive parameters of a group
        share a scale) and create the manager's scales."""
        self.params_len = len(self.optimizer.parameters)
        self.parent = list(range(self.params_len))
        self.layer_rank = [0] * self.params_len
        index = 0
        for group in self.loss_scale_groups:
            for i, _ in enumerate(group):
                if i:
                    self._union(index - 1, index)
                index += 1
        self.optimizer_loss_scale = [self.parent.count(x) for x in sorted(set(self.parent))]
        self.reduce_ratio = Tensor(1.0 / (2 ** 0.5), mstype.float32)
        self.growth_ratio = Tensor(2 ** (1.0 / 1000.0), mstype.float32)
        self.loss_scaling_manager.set_loss_scale_status(len(self.loss_scale_groups),
                                                        self.loss_scaling_manager.get_loss_scale())

    def _get_root(self, i):
        if self.parent[i] != self.parent[self.parent[i]]:
            self.parent[i] = self._get_root(self.parent[i])
        return self.parent[i]

    def _union(self, i, j):
        i_root, j_root = self._get_root(i), self._get_root(j)
        if self.layer_rank[i_root] == self.layer_rank[j_root]:
            self.parent[j_root] = i_root
            self.layer_rank[i_root] += 1
        elif self.layer_rank[i_root] > self.layer_rank[j_root]:
            self.parent[j_root] = i_root
        else:
            self.parent[i_root] = j_root

    def _enhanced_amp_update(self, *grads):
        """Per group: an overflow in its gradients shrinks its scale, else the scale grows; without any overflow the
        gradients, each divided by its group's scale, update the weights. Returns (overflow count, first scale)."""
        overflows, scales, start = 0, (), 0
        for layer in range(len(self.loss_scale_groups)):
            count = self.optimizer_loss_scale[layer]
            overflow = bool(self.get_overflow_status(None, grads[start:start + count]))
            overflows += overflow
            scale = self.loss_scaling_manager.update_loss_scale_status(
                layer, self.reduce_ratio if overflow else self.growth_ratio)
            scales += (scale,) * count
            start += count
        if overflows < 1:
            self.optimizer(tuple(g * F.cast(F.reciprocal(s), g.dtype) for s, g in zip(scales, grads)))
        return Tensor(overflows, mstype.int32), scales[0]

    def _do_keep_mix_fp32(self, network):
        """The GroupLossScaleManager cells of the network compute in float32 and return float16."""
        for name, subcell in list(network.name_cells().items()):
            if subcell is network:
                continue
            if "GroupLossScaleManager" in subcell.cls_name:
                _replace_child(network, name, _OutputTo16(subcell.to_float(mstype.float32)))
            else:
                self._do_keep_mix_fp32(subcell)
