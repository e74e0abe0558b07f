"""Ascend operator debugging settings (validated and recorded)."""
from mindseed._checkparam import args_type_check
from mindseed.device_context import _conf
from mindseed.device_context.ascend.device import setting

_ACLINIT = {"max_opqueue_num": (str,), "err_msg_mode": ["0", "1"],
            "dump": [{"dump_scene": "lite_exception"}, {"dump_scene": "lite_exception:disable"}]}


@args_type_check(op_timeout=int)
def execute_timeout(op_timeout):
    """The operators' execution timeout in seconds (0: none)."""
    def check(value):
        if value < 0:
            raise ValueError("The num of execute_timeout must bigger than or equal to 0.")
    setting("execute_timeout", op_timeout, check)


def debug_option(option_value):
    """A debugging option of the Ascend runtime; 'oom' (memory checks) is the one there is."""
    def check(value):
        op = "device_context.ascend.op_debug.debug_option(option_value)"
        if not isinstance(value, str):
            raise TypeError(f"For '{op}', the type of 'option_value' must be str, but got {type(value)}.")
        if value != "oom":
            raise ValueError(f"For '{op}', the 'option_value' supports being set to 'oom' currently, but got {value}.")
    setting("debug_option", option_value, check)


def aclinit_config(config):
    """aclInit options: a dict of `max_opqueue_num` (str), `err_msg_mode` ('0'/'1') and `dump`."""
    op = "ms.device_context.ascend.op_debug.aclinit_config"
    for key, value in config.items():
        if key not in _ACLINIT:
            raise ValueError(f"For '{op}', the key must be one of {tuple(_ACLINIT)}, but got {key}.")
        allowed = _ACLINIT[key]
        if isinstance(allowed, tuple) and not isinstance(value, allowed):
            raise TypeError(f"For '{op}', the type of argument {key} must be one of {allowed}, but got {type(value)}.")
        if isinstance(allowed, list):
            _conf.one_of(op, f"value of argument {key}", value, allowed)
        _conf.SETTINGS["Ascend", f"aclinit_config.{key}"] = value
