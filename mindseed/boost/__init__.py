"""mindspore.boost: training accelerations: gradient accumulation, gradient freezing, LessBN, gradient
centralization (OptimizerProcess), parameter grouping (ParameterProcess) and per-group loss scaling."""
from mindseed.boost.boost import AutoBoost  # noqa: F401
from mindseed.boost.boost_cell_wrapper import BoostTrainOneStepCell  # noqa: F401
from mindseed.boost.boost_loss_scale import BoostTrainOneStepWithLossScaleCell  # noqa: F401
from mindseed.boost.base import OptimizerProcess, ParameterProcess  # noqa: F401
from mindseed.boost.grad_accumulation import GradientAccumulation  # noqa: F401
from mindseed.boost.group_loss_scale_manager import GroupLossScaleManager  # noqa: F401
from mindseed.boost.grad_freeze import FreezeOpt, GradientFreeze, freeze_cell  # noqa: F401
from mindseed.boost.less_batch_normalization import LessBN  # noqa: F401

__all__ = ["AutoBoost", "OptimizerProcess", "ParameterProcess", "BoostTrainOneStepCell",
           "BoostTrainOneStepWithLossScaleCell", "LessBN", "GradientFreeze",
           "FreezeOpt", "freeze_cell", "GradientAccumulation", "GroupLossScaleManager"]
