"""The optim_sparse kernels (`_kernels.optim_sparse`), bound when torch loads (`mindseed._backend._lazy`)."""
from mindseed._backend import _lazy

_lazy.face(__name__, "mindseed._backend._kernels.optim_sparse", stubs=True)
