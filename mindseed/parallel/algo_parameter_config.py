"""MindSpore's `mindspore.parallel.algo_parameter_config`: the strategy search's parameters."""
from mindseed.common._search_contexts import get_algo_parameters, reset_algo_parameters, set_algo_parameters

__all__ = ["get_algo_parameters", "reset_algo_parameters", "set_algo_parameters"]
