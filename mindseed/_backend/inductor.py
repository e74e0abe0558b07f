"""`_inductor`, imported with torch on first use (`mindseed._backend._lazy`)."""
from mindseed._backend import _lazy

_lazy.face(__name__, "mindseed._backend._inductor")
