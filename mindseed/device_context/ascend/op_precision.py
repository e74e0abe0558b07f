"""Ascend operator precision modes (validated and recorded)."""
import os

from mindseed._checkparam import args_type_check
from mindseed.device_context import _conf
from mindseed.device_context.ascend.device import setting

_MODES = ["force_fp16", "allow_fp32_to_fp16", "allow_mix_precision", "must_keep_origin_dtype", "force_fp32",
          "allow_fp32_to_bf16", "allow_mix_precision_fp16", "allow_mix_precision_bf16"]


def precision_mode(mode):
    """The global precision mode of Ascend operators: one of MindSpore's eight modes."""
    def check(value):
        if value not in _MODES:
            raise ValueError(f"For 'precision_mode', the value of mode {value} must be one of {_MODES}, but got "
                             f"{value}.")
    setting("precision_mode", mode, check)


@args_type_check(path=str)
def op_precision_mode(path):
    """The path of an operator precision-mode configuration file (it must exist)."""
    def check(value):
        if not os.path.exists(os.path.realpath(value)):
            raise ValueError(f"For 'op_precision_mode', the 'path' is invalid, got '{value}'.")
    setting("op_precision_mode", path, check)


def _hf32(name):
    def set_hf32(value):
        setting(name, value, lambda v: _conf.one_of(name, "type of input value", v, [True, False]))
    set_hf32.__name__ = set_hf32.__qualname__ = name
    set_hf32.__doc__ = f"Whether {name.split('_')[0].capitalize()} operators may compute float32 in HF32."
    return set_hf32


matmul_allow_hf32 = _hf32("matmul_allow_hf32")
conv_allow_hf32 = _hf32("conv_allow_hf32")
