"""`nn.OptTFTWrapper`: an optimizer that reports when it is updating, for training fault tolerance
(`train.TrainFaultTolerance`)."""
import os

import numpy as np

from mindseed import ops
from mindseed.common import dtype as mstype
from mindseed.common.parameter import Parameter
from mindseed.common.tensor import Tensor
from mindseed.nn.optim.optimizer import Optimizer

__all__ = ["OptTFTWrapper"]

_SWITCHES = ("TTP:1", "UCE:1", "ARF:1")


class OptTFTWrapper(Optimizer):
    """Run `opt` and keep, in two Parameters, whether its update of the current step is under way
    (`tft_updating`: 1 from the moment the gradients arrive until every parameter is written) and how many
    updates completed (`tft_step`). A failure in the middle of the step can then tell whether the weights are
    those of the last completed step (`TrainFaultTolerance` saves them) or half updated. The flags are Parameters
    written in order with the update, so they hold in graph mode as in PyNative.

    Args:
        opt (Optimizer): the optimizer to wrap.

    Raises:
        TypeError: `opt` not an Optimizer.
        ValueError: the environment variable MS_ENABLE_TFT does not switch on TTP, UCE or ARF
            (``MS_ENABLE_TFT='{TTP:1,UCE:1,ARF:1}'``), as MindSpore requires.
    """

    def __init__(self, opt, **kwargs):
        if not isinstance(opt, Optimizer):
            raise TypeError(f"For 'OptTFTWrapper', the argument 'opt' must be Optimizer type, but got {type(opt)}.")
        tft_env = os.getenv("MS_ENABLE_TFT", "")
        if not any(s in tft_env for s in _SWITCHES):
            raise ValueError("MindIO TFT regitster need custom switch on[MS_ENABLE_TFT='{TTP:1,UCE:1,ARF:1}']!")
        super().__init__(opt.learning_rate, opt._parameters)
        self.opt = opt
        self.tft_updating = Parameter(Tensor(np.zeros([1], np.int32)), name="tft_updating", requires_grad=False)
        self.tft_step = Parameter(Tensor(np.zeros([1], np.int32)), name="tft_step", requires_grad=False)
        self._one = Tensor([1], mstype.int32)
        self._zero = Tensor([0], mstype.int32)
        for name in ("param_rank", "optim_filter", "loss_scale", "dynamic_weight_decay", "grad_centralization",
                     "dynamic_lr", "global_step", "is_group", "is_group_lr", "is_group_params_ordered",
                     "use_parallel", "learning_rate", "parameters", "decay_flags", "dynamic_decay_flags",
                     "weight_decay", "exec_weight_decay", "reciprocal_scale", "need_scale", "param_length"):
            if hasattr(opt, name):
                setattr(self, name, getattr(opt, name))
        self._parameters = opt._parameters

    def construct(self, gradients):
        started = ops.assign(self.tft_updating, self._one)
        grads = ops.depend(gradients, started)
        out = self.opt(grads)
        ops.assign_add(self.tft_step, ops.depend(self._one, out))
        ops.assign(self.tft_updating, ops.depend(self._zero, out))
        return out
