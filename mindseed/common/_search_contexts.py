"""Two small settings stores of MindSpore's top level: the parameters of AUTO_PARALLEL's strategy search
(`set_algo_parameters`; recorded and checked as MindSpore does; `mindseed.parallel._search` reads
``fully_use_devices``) and the parameter-server context (`set_ps_context`; mindseed trains without a parameter
server, so `enable_ps` only records the request)."""
import numpy as np

__all__ = ["set_algo_parameters", "get_algo_parameters", "reset_algo_parameters", "set_ps_context",
           "get_ps_context"]

_ALGO_DEFAULTS = {
    "fully_use_devices": False,
    "elementwise_op_strategy_follow": False,
    "tensor_slice_align_enable": False,
    "tensor_slice_align_size": 16,
    "enable_algo_approxi": False,
    "algo_approxi_epsilon": float(np.float32(0.1)),   # held as a float32, as MindSpore's cost-model context does
}
_algo = dict(_ALGO_DEFAULTS)

_PS_DEFAULTS = {"enable_ps": False, "config_file_path": "", "enable_ssl": False}
_PS_WRITE_ONLY = {"client_password": "", "server_password": ""}   # accepted by set, never read back
_ps = dict(_PS_DEFAULTS)


def _typed(name, value, kind):
    if type(value) is not kind:
        raise TypeError(f"The parameter '{name}' must be {kind}, but got {type(value)}")


def set_algo_parameters(**kwargs):
    """Set parameters of the parallel strategy search: ``fully_use_devices``, ``elementwise_op_strategy_follow``,
    ``tensor_slice_align_enable`` (bool), ``tensor_slice_align_size`` (int in [1, 1024]), ``enable_algo_approxi``
    (bool), ``algo_approxi_epsilon`` (float in (0, 1]).

    Raises:
        ValueError: an unknown keyword or a value out of range.
        TypeError: a value of the wrong type.
    """
    for key, value in kwargs.items():
        if key not in _ALGO_DEFAULTS:
            raise ValueError(f"Set context keyword {key} is not recognized!")
        _typed(key, value, type(_ALGO_DEFAULTS[key]))
        if key == "tensor_slice_align_size" and not 1 <= value <= 1024:
            raise ValueError(f"Align_size must be in [1, 1024], but got {value}")
        if key == "algo_approxi_epsilon":
            if not 0 < value <= 1:
                raise ValueError(f"'epsilon' must be in (0, 1], but got {value}")
            value = float(np.float32(value))
        _algo[key] = value


def get_algo_parameters(attr_key):
    """The value of one parameter of the parallel strategy search (see `set_algo_parameters`)."""
    if attr_key not in _algo:
        raise ValueError(f"Get context keyword {attr_key} is not recognized!")
    return _algo[attr_key]


def reset_algo_parameters():
    """Every parameter of the parallel strategy search back to its default."""
    _algo.clear()
    _algo.update(_ALGO_DEFAULTS)


def set_ps_context(**kwargs):
    """Set the parameter-server context: ``enable_ps`` (bool), ``config_file_path`` (str), ``enable_ssl`` (bool),
    ``client_password`` / ``server_password`` (str, not readable back).

    Raises:
        ValueError: an unknown keyword.
        TypeError: a value of the wrong type.
    """
    for key, value in kwargs.items():
        kinds = {**_PS_DEFAULTS, **_PS_WRITE_ONLY}
        if key not in kinds:
            raise ValueError(f"Set PS context keyword {key} is not recognized!")
        _typed(key, value, type(kinds[key]))
        if key in _ps:
            _ps[key] = value


def get_ps_context(attr_key):
    """The value of one key of the parameter-server context (see `set_ps_context`)."""
    if attr_key not in _ps:
        raise ValueError(f"Get PS context keyword {attr_key} is not recognized!")
    return _ps[attr_key]
