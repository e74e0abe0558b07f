"""mindspore.device_context.ascend: the Ascend backend's queries and operator settings. mindseed has no Ascend
device: the queries say so and the settings are validated and recorded as MindSpore validates them."""
from mindseed.device_context.ascend.device import device_count, is_available
from mindseed.device_context.ascend.op_debug import aclinit_config, debug_option, execute_timeout
from mindseed.device_context.ascend.op_precision import (conv_allow_hf32, matmul_allow_hf32, op_precision_mode,
                                                         precision_mode)
from mindseed.device_context.ascend.op_tuning import aclnn_cache, aoe_job_type, aoe_tune_mode, op_compile

__all__ = ["device_count", "is_available", "aclinit_config", "debug_option", "execute_timeout", "conv_allow_hf32",
           "matmul_allow_hf32", "op_precision_mode", "precision_mode", "aclnn_cache", "aoe_job_type",
           "aoe_tune_mode", "op_compile"]
