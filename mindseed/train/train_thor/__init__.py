"""mindspore.train.train_thor: the conversions that make a network and a Model train with THOR."""
from mindseed.train.train_thor.convert_utils import ConvertModelUtils, ConvertNetUtils
from mindseed.train.train_thor.model_thor import ModelThor

__all__ = ["ConvertNetUtils", "ConvertModelUtils", "ModelThor"]
