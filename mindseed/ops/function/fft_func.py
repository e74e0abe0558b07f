"""mindspore.ops.function.fft_func: the FFT family (same objects as `mindspore.ops`)."""
from mindseed.ops.function._rows import generated

_rows = generated("fft")
globals().update(_rows)
__all__ = sorted(_rows)
