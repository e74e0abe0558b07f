"""`mindspore.ops._grad_experimental.grad_comm_ops`: the Parameter holding the squared local norm of the gradients.

With the auto-parallel option `dump_device_local_norm`, MindSpore's bprops of its communication operators add the
squared norm of each gradient slice a device holds to one float32 scalar Parameter, `_squared_device_local_norm`;
trainers (mindformers' `TrainOneStepCell`) read it after the step and set it back to zero.
"""
from mindseed.common import dtype as mstype
from mindseed.common._parallel import get_auto_parallel_context
from mindseed.common.parameter import Parameter
from mindseed.common.tensor import Tensor

__all__ = ["get_squared_device_local_norm_param"]

_squared_device_local_norm = None


def get_squared_device_local_norm_param():
    """The Parameter `_squared_device_local_norm` (float32 scalar, created at 0.0 on the first call).

    Raises:
        ValueError: the auto-parallel option `dump_device_local_norm` is off.
    """
    global _squared_device_local_norm
    if _squared_device_local_norm is None:
        if not get_auto_parallel_context("dump_device_local_norm"):
            raise ValueError("The parallel config 'dump_device_local_norm' is False.")
        _squared_device_local_norm = Parameter(Tensor(0.0, mstype.float32), name="_squared_device_local_norm",
                                               requires_grad=False)
    return _squared_device_local_norm
