"""`mindspore.train.loss_scale_manager`: the loss-scale managers (the same classes as `mindspore.amp`'s and
`mindspore.train`'s)."""
from mindseed.amp import DynamicLossScaleManager, FixedLossScaleManager, LossScaleManager

__all__ = ["LossScaleManager", "FixedLossScaleManager", "DynamicLossScaleManager"]
