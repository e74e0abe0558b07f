"""The ctc_stft kernels (`_kernels.ctc_stft`), bound when torch loads (`mindseed._backend._lazy`)."""
from mindseed._backend import _lazy

_lazy.face(__name__, "mindseed._backend._kernels.ctc_stft", stubs=True)
