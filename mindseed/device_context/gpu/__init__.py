"""mindspore.device_context.gpu: the GPU (CUDA) backend's device queries, TF32 switches and convolution
algorithm choices."""
from mindseed.device_context.gpu.device import device_count, is_available
from mindseed.device_context.gpu.op_precision import conv_allow_tf32, matmul_allow_tf32
from mindseed.device_context.gpu.op_tuning import conv_dgrad_algo, conv_fprop_algo, conv_wgrad_algo

__all__ = ["device_count", "is_available", "conv_allow_tf32", "matmul_allow_tf32", "conv_dgrad_algo",
           "conv_fprop_algo", "conv_wgrad_algo"]
