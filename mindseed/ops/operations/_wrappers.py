"""Primitive classes that are thin forms of existing ones: ConjugateTranspose (conj of Transpose) and
ApplyAdamWithAmsgrad (ApplyAdamWithAmsgradV2 with beta1 / beta2 / epsilon as attributes)."""
from mindseed.common.tensor import Tensor
from mindseed.ops import functional as F
from mindseed.ops.operations._base import Primitive
from mindseed.ops.operations._optim import ApplyAdamWithAmsgradV2

__all__ = ["ConjugateTranspose", "ApplyAdamWithAmsgrad"]


class ConjugateTranspose(Primitive):
    """`ConjugateTranspose()(x, perm)`: the complex conjugate of `x` with its axes permuted by `perm` (for a real
    tensor, the transpose).

    >>> import mindseed as ms
    >>> ms.ops.ConjugateTranspose()(ms.Tensor([[1 + 2j, 3j]]), (1, 0)).asnumpy().tolist()
    [[(1-2j)], [-3j]]
    """

    def __init__(self):
        super().__init__("ConjugateTranspose")

    def __call__(self, x, perm):
        if not isinstance(x, Tensor):
            raise TypeError(f"For 'ConjugateTranspose', 'x' must be a Tensor, but got {type(x).__name__}.")
        return F.conj(F.transpose(x, perm))


class ApplyAdamWithAmsgrad(Primitive):
    """Adam with the running maximum `vhat` of v in the denominator, `beta1`, `beta2`, `epsilon` fixed at
    construction: `(var, m, v, vhat, beta1_power, beta2_power, lr, grad)` -> (var, m, v, vhat), updated in place."""

    def __init__(self, beta1=0.9, beta2=0.999, epsilon=1e-8, use_locking=False):
        super().__init__("ApplyAdamWithAmsgrad")
        for name, value in (("beta1", beta1), ("beta2", beta2), ("epsilon", epsilon)):
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TypeError(f"For 'ApplyAdamWithAmsgrad', '{name}' must be a float, but got "
                                f"{type(value).__name__}.")
            self.add_prim_attr(name, float(value))
        if not isinstance(use_locking, bool):
            raise TypeError(f"For 'ApplyAdamWithAmsgrad', 'use_locking' must be a bool, but got "
                            f"{type(use_locking).__name__}.")
        self.add_prim_attr("use_locking", use_locking)
        self._v2 = ApplyAdamWithAmsgradV2(use_locking=use_locking)
        self._v2.name = self.name

    def __call__(self, var, m, v, vhat, beta1_power, beta2_power, lr, grad):
        return self._v2(var, m, v, vhat, beta1_power, beta2_power, lr, self.beta1, self.beta2, self.epsilon, grad)
