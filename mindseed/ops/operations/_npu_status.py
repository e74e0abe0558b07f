"""The Ascend float-status primitives `NPUAllocFloatStatus`, `NPUGetFloatStatus`, `NPUClearFloatStatus`.

On Ascend they read and clear the device's overflow registers, which the kernels set as they run; MindSpore has
no CPU or GPU kernel for them and 2.x deprecates them for `amp.all_finite` / `nn.TrainOneStepWithLossScaleCell`.
mindseed runs on CPU and GPU, so it behaves as MindSpore does there: the classes exist (training cells written
for MindSpore make them when their device is not a GPU, and choose another path on CPU/GPU), constructing one
warns of the deprecation, and calling one raises MindSpore's RuntimeError naming the op and the device.
"""
import logging

from mindseed.ops.operations._base import Primitive

__all__ = ["NPUAllocFloatStatus", "NPUGetFloatStatus", "NPUClearFloatStatus"]

logger = logging.getLogger("mindseed")


class _NPUFloatStatus(Primitive):
    def __init__(self):
        name = type(self).__name__
        super().__init__(name)
        logger.warning("The '%s' operator will be deprecated in the future, please use "
                       "'nn.TrainOneStepWithLossScaleCell' or 'amp.all_finite'.", name)

    def __call__(self, *args):
        from mindseed.common import context  # noqa: PLC0415
        raise RuntimeError(f"Unsupported op [{self.name}] on {context.get_context('device_target')}: it reads the "
                           f"overflow registers of an Ascend device. Use 'amp.all_finite' or 'ops.FloatStatus' to "
                           f"check the values for inf/nan.")


class NPUAllocFloatStatus(_NPUFloatStatus):
    """Allocates the (8,) float32 flag of the overflow status (Ascend only)."""


class NPUGetFloatStatus(_NPUFloatStatus):
    """Updates the flag made by `NPUAllocFloatStatus` with the device's overflow status (Ascend only)."""


class NPUClearFloatStatus(_NPUFloatStatus):
    """Clears the device's overflow status (Ascend only)."""
