"""mindspore.nn.probability.distribution._utils: the argument checks and numeric helpers MindSpore's distributions
(and user distributions written against them) use."""
from mindseed.nn.probability.distribution._utils.custom_ops import broadcast_to, exp_generic, log_generic
from mindseed.nn.probability.distribution._utils.utils import (
    CheckTensor, CheckTuple, cast_to_tensor, check_greater, check_greater_equal_zero, check_greater_zero, check_prob,
    set_param_type)

__all__ = ["cast_to_tensor", "check_greater", "check_greater_equal_zero", "check_greater_zero", "check_prob",
           "exp_generic", "log_generic", "broadcast_to", "set_param_type", "CheckTensor", "CheckTuple"]
