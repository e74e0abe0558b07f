"""mindspore.nn.probability.distribution.TransformedDistribution: a distribution pushed through a bijector."""
from mindseed.nn.probability.bijector.bijector import Bijector
from mindseed.nn.probability.distribution.distribution import Distribution
from mindseed._utils._props import readonly


class TransformedDistribution(Distribution):
    """Y = bijector(X) with X ~ distribution; the per-call parameters are the base distribution's."""

    def __init__(self, bijector, distribution, seed=None, name="transformed_distribution"):
        if not isinstance(bijector, Bijector):
            raise TypeError(f"For '{name}', 'bijector' must be a Bijector, but got {type(bijector).__name__}.")
        if not isinstance(distribution, Distribution):
            raise TypeError(f"For '{name}', 'distribution' must be a Distribution, but got "
                            f"{type(distribution).__name__}.")
        if not distribution._continuous:
            raise TypeError(f"For '{name}', 'distribution' must be continuous, but got {distribution.get_dist_type()}.")
        self._param_names = distribution._param_names
        self._base_check = distribution._check_param
        super().__init__(distribution.seed if seed is None else seed, distribution.dtype, name,
                         distribution.parameters)
        self._bijector, self._distribution = bijector, distribution
        self._values = distribution._values

    bijector = readonly("_bijector")
    distribution = readonly("_distribution")
    is_linear_transformation = readonly("_bijector.is_constant_jacobian")

    def _check_param(self, p, t):
        return self._base_check(p, t)

    def _log_prob(self, y, *p):
        x = self._bijector._inverse(y)
        return self._distribution._log_prob(x, *p) + self._bijector._inverse_log_jacobian(y)

    def _cdf(self, y, *p):
        return self._distribution._cdf(self._bijector._inverse(y), *p)

    def _log_cdf(self, y, *p):
        return self._distribution._log_cdf(self._bijector._inverse(y), *p)

    def _survival(self, y, *p):
        return self._distribution._survival(self._bijector._inverse(y), *p)

    def _log_survival(self, y, *p):
        return self._distribution._log_survival(self._bijector._inverse(y), *p)

    def _mean(self, *p):
        if not self.is_linear_transformation:
            self._unsupported("mean (for a non-linear bijector)")
        return self._bijector._forward(self._distribution._mean(*p))

    def _sample(self, shape, *p):
        return self._bijector._forward(self._distribution._sample_full(shape, *p))
