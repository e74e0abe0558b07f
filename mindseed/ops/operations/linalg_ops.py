"""mindspore.ops.operations.linalg_ops: matrix decomposition primitives, by MindSpore's module layout (the same
classes as `mindspore.ops.operations`)."""
from mindseed.ops.operations import (  # noqa: F401
    Geqrf, Svd)

from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.ops._prims.linalg import eigh_p
from mindseed.ops.operations._base import Primitive

__all__ = [
    "Geqrf", "Svd", "Eigh"]


class Eigh(Primitive):
    """`Eigh(compute_eigenvectors=True, lower=True)(a)`: the eigenvalues (ascending) and, with
    `compute_eigenvectors`, the eigenvectors (columns) of the symmetric / Hermitian matrices `a`, read from their
    lower (or upper) triangle. Differentiable.

    Raises:
        TypeError: a flag not a bool; `a` not a float or complex Tensor.
        ValueError: `a` not a batch of square matrices.
    """

    def __init__(self, compute_eigenvectors=True, lower=True):
        super().__init__("Eigh")
        for name, flag in (("compute_eigenvectors", compute_eigenvectors), ("lower", lower)):
            if not isinstance(flag, bool):
                raise TypeError(f"For 'Eigh', the '{name}' must be bool, but got {type(flag).__name__}.")
        self.compute_eigenvectors, self.lower = compute_eigenvectors, lower
        self.add_prim_attr("compute_eigenvectors", compute_eigenvectors)
        self.add_prim_attr("lower", lower)

    def __call__(self, a):
        if not isinstance(a, Tensor) or not (mstype.is_float(a.dtype) or mstype.is_complex(a.dtype)):
            got = a.dtype if isinstance(a, Tensor) else type(a).__name__
            raise TypeError(f"For 'Eigh', the 'a' must be a float or complex Tensor, but got {got}.")
        if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
            raise ValueError(f"For 'Eigh', the 'a' must be a batch of square matrices, but got shape {a.shape}.")
        w, v = eigh_p(a, lower=self.lower)
        return (w, v) if self.compute_eigenvectors else w
