"""Ascend operator compilation and tuning settings (validated and recorded)."""
from mindseed.device_context import _conf
from mindseed.device_context.ascend.device import setting


def op_compile(value):
    """Whether operators are compiled online (True) or taken precompiled (False)."""
    setting("op_compile", value, lambda v: _conf.one_of("op_compile", "type of input value", v, [True, False],
                                                        TypeError))


def aoe_tune_mode(tune_mode):
    """AOE tuning: 'online' or 'offline'."""
    def check(value):
        if value not in ("online", "offline"):
            raise ValueError(f"For 'device_context.ascend.op_tuning.aoe_tune_mode', the argument 'tune_mode' must be "
                             f"in ['online', 'offline'], but got {value}.")
    setting("aoe_tune_mode", tune_mode, check)


def aoe_job_type(config):
    """The AOE job type: '1' (subgraph tuning) or '2' (operator tuning)."""
    setting("aoe_job_type", config, lambda v: _conf.one_of("aoe_job_type", "config", v, ["1", "2"]))


def aclnn_cache(enable_global_cache=False, cache_queue_length=10000):
    """The aclnn operator cache: a global cache, and the length of its queue."""
    def check(value):
        enable, length = value
        _conf.one_of("aclnn_cache", "config", enable, [True, False])
        if length < 0:
            raise ValueError(f"For 'aclnn_cache', the config must greater than 0, but got {length}.")
    setting("aclnn_cache", (enable_global_cache, cache_queue_length), check)
