"""GPU operator precision: TF32 for MatMul and convolutions."""
from mindseed._backend import devices
from mindseed._checkparam import args_type_check
from mindseed.device_context import _conf


def _tf32(kind, value):
    if _conf.first_call_elsewhere("GPU", f"{kind}_allow_tf32"):
        return
    if _conf.set_once("GPU", f"{kind}_allow_tf32", value) and devices.available("GPU"):
        devices.set_tf32(kind, value)


@args_type_check(value=bool)
def matmul_allow_tf32(value):
    """Let float32 MatMul compute in TF32 on the GPU (default False)."""
    _tf32("matmul", value)


@args_type_check(value=bool)
def conv_allow_tf32(value):
    """Let float32 convolutions compute in TF32 on the GPU (default True)."""
    _tf32("conv", value)
