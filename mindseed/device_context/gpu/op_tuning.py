"""GPU operator tuning: cuDNN's convolution algorithm choices (recorded; torch picks its own algorithms)."""
from mindseed.device_context import _conf

_FPROP = ["normal", "performance", "implicit_gemm", "precomp_gemm", "gemm", "direct", "fft", "fft_tiling", "winograd",
          "winograd_nonfused"]
_WGRAD = ["normal", "performance", "algo_0", "algo_1", "fft", "algo_3", "fft_tiling", "winograd_nonfused"]
_DGRAD = ["normal", "performance", "algo_0", "algo_1", "fft", "fft_tiling", "winograd", "winograd_nonfused"]


def _algo(name, mode, modes):
    if _conf.first_call_elsewhere("GPU", name):
        return
    if mode not in modes:
        raise ValueError(f"For 'mindspore.device_context.gpu.op_tuning.{name}', the argument must be in {modes} but "
                         f"got {mode}.")
    _conf.SETTINGS["GPU", name] = mode      # may be changed, as in MindSpore


def conv_fprop_algo(mode):
    """The algorithm of the convolutions' forward pass."""
    _algo("conv_fprop_algo", mode, _FPROP)


def conv_wgrad_algo(mode):
    """The algorithm of the convolutions' weight gradient."""
    _algo("conv_wgrad_algo", mode, _WGRAD)


def conv_dgrad_algo(mode):
    """The algorithm of the convolutions' input gradient."""
    _algo("conv_dgrad_algo", mode, _DGRAD)
