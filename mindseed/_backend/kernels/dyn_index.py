"""The dyn_index kernels (`_kernels.dyn_index`), bound when torch loads (`mindseed._backend._lazy`)."""
from mindseed._backend import _lazy

_lazy.face(__name__, "mindseed._backend._kernels.dyn_index", stubs=True)
