"""The stack kernels (`_kernels.stack`), bound when torch loads (`mindseed._backend._lazy`)."""
from mindseed._backend import _lazy

_lazy.face(__name__, "mindseed._backend._kernels.stack", stubs=True)
