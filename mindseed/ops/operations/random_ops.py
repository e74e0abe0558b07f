"""mindspore.ops.operations.random_ops: random sampling primitives, by MindSpore's module layout (the same classes as
`mindspore.ops.operations`)."""
from mindseed.ops.operations import (  # noqa: F401
    Bernoulli, Cauchy, Gamma, LogNormalReverse, LogUniformCandidateSampler, Multinomial, MultinomialWithReplacement,
    NonDeterministicInts, ParameterizedTruncatedNormal, Poisson, RandomCategorical, RandomChoiceWithMask,
    RandomGamma, RandomPoisson, RandomShuffle, RandpermV2, StandardLaplace, StandardNormal, TruncatedNormal,
    UniformCandidateSampler, UniformInt, UniformReal)

__all__ = [
    "Bernoulli", "Cauchy", "Gamma", "LogNormalReverse", "LogUniformCandidateSampler", "Multinomial",
    "MultinomialWithReplacement", "NonDeterministicInts", "ParameterizedTruncatedNormal", "Poisson",
    "RandomCategorical", "RandomChoiceWithMask", "RandomGamma", "RandomPoisson", "RandomShuffle", "RandpermV2",
    "StandardLaplace", "StandardNormal", "TruncatedNormal", "UniformCandidateSampler", "UniformInt", "UniformReal"]

from mindseed import _checkparam as _validator  # noqa: E402
from mindseed.common import dtype as _mstype  # noqa: E402
from mindseed.common.tensor import Tensor as _Tensor  # noqa: E402
from mindseed.ops._prims import core as _P  # noqa: E402
from mindseed.ops._prims import random as _R  # noqa: E402
from mindseed.ops.functional._random import _gen  # noqa: E402
from mindseed.ops.operations._base import Primitive as _Primitive  # noqa: E402


class Uniform(_Primitive):
    """`Uniform(minval=0., maxval=1., seed=0, offset=0)(x)`: samples uniform in [minval, maxval) of `x`'s shape and
    float dtype (`x`'s values are not read).

    Raises:
        TypeError: `seed` / `offset` not ints, `minval` / `maxval` not floats, `x` not a float Tensor.
        ValueError: `minval` larger than `maxval`, or either negative.
    """

    def __init__(self, minval=0., maxval=1., seed=0, offset=0):
        super().__init__("Uniform")
        self.init_prim_io_names(inputs=["x"], outputs=["y"])
        _validator.check_value_type("seed", seed, [int], self.name)
        _validator.check_value_type("offset", offset, [int], self.name)
        _validator.check_value_type("minval", minval, [float], self.name)
        _validator.check_value_type("maxval", maxval, [float], self.name)
        if minval > maxval:
            raise ValueError(f"For '{self.name}', the 'minval' must be less than or equal to 'maxval', but got "
                             f"minval {minval} and maxval {maxval}.")
        _validator.check_non_negative_float(minval, "minval", self.name)
        _validator.check_non_negative_float(maxval, "maxval", self.name)
        self.minval, self.maxval, self.seed, self.offset = minval, maxval, seed, offset
        for name, value in (("from", minval), ("to", maxval), ("seed", seed), ("offset", offset)):
            self.add_prim_attr(name, value)

    def __call__(self, x):
        if not isinstance(x, _Tensor) or x.dtype not in (_mstype.float16, _mstype.float32, _mstype.float64):
            got = x.dtype if isinstance(x, _Tensor) else type(x).__name__
            raise TypeError(f"For '{self.name}', the 'x' must be a Tensor of float16, float32 or float64, but got "
                            f"{got}.")
        u = _R.uniform_real_p(shape=tuple(x.shape), dtype=x.dtype.name, gen=_gen(self.seed, self.offset))
        return _P.add_p(_P.mul_p(u, self.maxval - self.minval), self.minval)


__all__ += ["Uniform"]

# more names MindSpore's module holds (its imports and classes), the same objects as in ops.operations
from mindseed.ops.operations._base import Primitive, PrimitiveWithInfer  # noqa: E402,F401
