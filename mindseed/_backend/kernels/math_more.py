"""The math_more kernels (`_kernels.math_more`), bound when torch loads (`mindseed._backend._lazy`)."""
from mindseed._backend import _lazy

_lazy.face(__name__, "mindseed._backend._kernels.math_more", stubs=True)
