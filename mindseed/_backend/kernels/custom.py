"""The custom kernels (`_kernels.custom`), bound when torch loads (`mindseed._backend._lazy`)."""
from mindseed._backend import _lazy

_lazy.face(__name__, "mindseed._backend._kernels.custom", stubs=True)
