"""mindspore.boost.adasum: `AdaSum`, the boost's step of Adaptive Summation across data-parallel nodes."""
from mindseed import ops
from mindseed.nn.cell import Cell
from mindseed.nn.wrap.adasum import _AdaSum

__all__ = ["AdaSum"]


class AdaSum(Cell):
    r"""The Adaptive Summation of the nodes' weight changes (https://arxiv.org/abs/2006.02924), then each parameter
    set to its last value minus the combined change.

    Args:
        rank (int): this process's rank.
        device_number (int): ranks per node.
        group_number (int): number of nodes (a power of 2; 1: nothing to combine).
        parameter_tuple (tuple(Parameter)): the parameters.

    Inputs:
        - **delta_weights** (tuple(Tensor)) - each parameter's change on this node.
        - **parameters** (tuple(Parameter)) - the parameters to update.
        - **old_parameters** (tuple(Parameter)) - their values before the change.

    Outputs:
        tuple(Parameter), the updated parameters.

    >>> import numpy as np
    >>> import mindseed as ms
    >>> p = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="p")
    >>> old = ms.Parameter(ms.Tensor(np.full(2, 3.0, np.float32)), name="old")
    >>> AdaSum(0, 1, 1, (p,))((ms.Tensor(np.array([0.5, 1.0], np.float32)),), (p,), (old,))[0].asnumpy().tolist()
    [2.5, 2.0]
    """

    def __init__(self, rank, device_number, group_number, parameter_tuple):
        super().__init__()
        self.rank, self.device_number, self.group_number = rank, device_number, group_number
        self.parameter_tuple = parameter_tuple
        self._adasum = _AdaSum(rank, device_number, group_number, parameter_tuple)

    def construct(self, delta_weights, parameters, old_parameters):
        combined = self._adasum(tuple(delta_weights))
        out = []
        for delta, param, old in zip(combined, parameters, old_parameters):
            ops.assign(param, old - ops.reshape(delta, param.shape))
            out.append(param)
        return tuple(out)
