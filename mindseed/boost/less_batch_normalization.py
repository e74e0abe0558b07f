"""mindspore.boost.less_batch_normalization: LessBN, and the normalized last layer (CommonHeadLastFN) it can put in
place of a network's last Dense."""
import numpy as np

from mindseed.common import dtype as mstype
from mindseed.common.initializer import initializer
from mindseed.common.parameter import Parameter
from mindseed.common.tensor import Tensor
from mindseed.nn.cell import Cell
from mindseed.nn.layer.basic import Dense
from mindseed.ops import operations as P

__all__ = ["CommonHeadLastFN", "LessBN"]


class CommonHeadLastFN(Cell):
    r"""The last "full normalization" layer: ``multiplier * (norm(x) @ norm(weight).T + bias)``, rows L2-normalized.

    Args:
        in_channels (int): input channels.
        out_channels (int): output channels.
        weight_init (Union[Tensor, str, Initializer, numbers.Number]): the weight, shape (out_channels, in_channels).
            Default: ``'normal'``.
        bias_init (Union[Tensor, str, Initializer, numbers.Number]): the bias. Default: ``'zeros'``.
        has_bias (bool): whether there is a bias. Default: ``True``.
    """

    def __init__(self, in_channels, out_channels, weight_init="normal", bias_init="zeros", has_bias=True):
        super().__init__()
        self.weight = Parameter(initializer(weight_init, [out_channels, in_channels]), requires_grad=True,
                                name="weight")
        self.x_norm = P.L2Normalize(axis=1)
        self.w_norm = P.L2Normalize(axis=1)
        self.fc = P.MatMul(transpose_a=False, transpose_b=True)
        self.multiplier = Parameter(Tensor(np.ones([1]), mstype.float32), requires_grad=True, name="multiplier")
        self.has_bias = has_bias
        if self.has_bias:
            self.bias_add = P.BiasAdd()
            self.bias = Parameter(initializer(bias_init, [out_channels]), requires_grad=True, name="bias")

    def construct(self, x):
        x = self.fc(self.x_norm(x), self.w_norm(self.weight))
        if self.has_bias:
            x = self.bias_add(x, self.bias)
        return self.multiplier * x


class LessBN(Cell):
    """Marks a network for fewer batch normalizations (the ``less_bn`` boost flag); with `fn_flag` the last Dense of
    each cell that has one becomes a CommonHeadLastFN (its weight kept, no bias).

    Args:
        network (Cell): the network.
        fn_flag (bool, optional): replace the last Dense by a CommonHeadLastFN. Default: ``False``.

    >>> import mindseed as ms
    >>> net = ms.boost.LessBN(ms.nn.Dense(2, 1))
    """

    def __init__(self, network, fn_flag=False):
        super().__init__()
        self.network = network
        if "less_bn" not in self.network.get_flags():
            self.network.set_boost("less_bn")
            self.network.update_cell_prefix()
            if fn_flag:
                self._convert_to_less_bn_net(self.network)
            self.network.add_flags(defer_inline=True)

    @staticmethod
    def _convert_dense(subcell):
        """A CommonHeadLastFN over the Dense's weight, its parameters named under the Dense's prefix."""
        prefix = subcell.param_prefix
        new_subcell = CommonHeadLastFN(subcell.in_channels, subcell.out_channels, subcell.weight, subcell.bias, False)
        new_subcell.update_parameters_name(prefix + ".")
        return new_subcell

    def construct(self, *inputs):
        return self.network(*inputs)

    def _convert_to_less_bn_net(self, net):
        cells = net.name_cells()
        dense_name = []
        dense_list = []
        for name in cells:
            subcell = cells[name]
            if subcell == net:
                continue
            if isinstance(subcell, Dense):
                dense_name.append(name)
                dense_list.append(subcell)
            else:
                self._convert_to_less_bn_net(subcell)
        if dense_list:
            net.insert_child_to_cell(dense_name[-1], LessBN._convert_dense(dense_list[-1]))
