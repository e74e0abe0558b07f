"""mindspore.boost.group_loss_scale_manager: loss scales per layer group (a scale for each group boundary)."""
from mindseed.common import dtype as mstype
from mindseed.common.parameter import Parameter, ParameterTuple
from mindseed.common.tensor import Tensor
from mindseed.nn.cell import Cell
from mindseed.ops import functional as F
from mindseed.ops.operations._base import Primitive

__all__ = ["GroupLossScaleManager"]


class _DynamicLossScale(Primitive):
    """`_DynamicLossScale(layer=-1)(input_x, loss_scale)`: `input_x` unchanged; its gradient is multiplied by
    `loss_scale` (the layer's loss scale), `loss_scale` gets no gradient."""

    def __init__(self, layer=-1):
        super().__init__("_DynamicLossScale")
        if isinstance(layer, bool) or not isinstance(layer, int):
            raise TypeError(f"For '_DynamicLossScale', the type of 'layer' should be 'int', but got type "
                            f"'{type(layer).__name__}'.")
        self.add_prim_attr("layer", layer)
        self.init_prim_io_names(inputs=["input_x", "loss_scale"], outputs=["output"])

    def __call__(self, input_x, loss_scale):
        scaled = input_x * F.stop_gradient(loss_scale)
        # the value is input_x; the gradient reaching input_x is dout * loss_scale
        return F.stop_gradient(input_x) + (scaled - F.stop_gradient(scaled))


class GroupLossScaleManager(Cell):
    """Loss scales for groups of layers: the gradient flowing from group `layer2` into group `layer1` is scaled by
    ``scale[layer1] / scale[layer2]``.

    Args:
        init_loss_scale (Number): the initial loss scale.
        loss_scale_groups (list): the groups of parameters, one list each.

    >>> import mindseed as ms
    >>> manager = ms.boost.GroupLossScaleManager(4.0, [[], []])
    >>> manager.set_loss_scale_status(2, 8.0)
    """

    def __init__(self, init_loss_scale, loss_scale_groups):
        super().__init__()
        self._loss_scale = init_loss_scale
        self.loss_scale_groups = loss_scale_groups
        self.loss_scale_number = 0
        self.layer_loss_scale = None
        self.dynamic_loss_scale = None

    def set_loss_scale_status(self, loss_scale_number, init_loss_scale):
        """Create `loss_scale_number` group scales (plus 1.0 at both ends), set to `init_loss_scale` (a number, or a
        list of one value per group)."""
        self.loss_scale_number = loss_scale_number
        self.layer_loss_scale = tuple(_DynamicLossScale(layer=x) for x in range(loss_scale_number + 1))
        self.dynamic_loss_scale = ParameterTuple(
            Parameter(Tensor(1, mstype.float32), name=f"layer_loss_scale_{x}", requires_grad=False)
            for x in range(loss_scale_number + 2))
        if isinstance(init_loss_scale, list):
            for i, value in enumerate(init_loss_scale):
                self.dynamic_loss_scale[i + 1].set_data(value)
        else:
            for i in range(self.loss_scale_number):
                self.dynamic_loss_scale[i + 1].set_data(init_loss_scale)

    def update_loss_scale_status(self, layer, update_ratio):
        """Multiply group `layer`'s scale by `update_ratio`; returns the new scale."""
        layer = layer + 1
        new_loss_scale = self.dynamic_loss_scale[layer] * update_ratio
        F.assign(self.dynamic_loss_scale[layer], new_loss_scale)
        return new_loss_scale

    def construct(self, x, layer1, layer2):
        return self.layer_loss_scale[layer1](x, self.dynamic_loss_scale[layer1] / self.dynamic_loss_scale[layer2])

    def get_loss_scale(self):
        """The initial loss scale."""
        return self._loss_scale

    def get_update_cell(self):
        """The manager itself (it updates the scales)."""
        return self
