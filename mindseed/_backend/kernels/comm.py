"""The comm kernels (`_kernels.comm`), bound when torch loads (`mindseed._backend._lazy`)."""
from mindseed._backend import _lazy

_lazy.face(__name__, "mindseed._backend._kernels.comm", stubs=True)
