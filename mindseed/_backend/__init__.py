"""The kernel library: the only package of mindseed that imports torch, on first use.

Everything above this package sees backend tensors as opaque values and reaches kernels through
the names exported here (`mindseed._backend.kernels` and the helpers of `_core`). Backend tensors never
require grad: autodiff is mindseed's own.

This package is a face (`_lazy`): its names are `_core`'s, and reading one imports torch. The kernel families
(`kernels.<family>`) hand out stubs until then, so `import mindseed` does not import torch.
"""
from mindseed._backend import _lazy
from mindseed._backend._rng import Generator  # noqa: F401 -- torch-free until it draws

_lazy.face(__name__, "mindseed._backend._core")
