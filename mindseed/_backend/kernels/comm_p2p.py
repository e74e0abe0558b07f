"""The comm_p2p kernels (`_kernels.comm_p2p`), bound when torch loads (`mindseed._backend._lazy`)."""
from mindseed._backend import _lazy

_lazy.face(__name__, "mindseed._backend._kernels.comm_p2p", stubs=True)
