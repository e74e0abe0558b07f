"""mindspore.nn.probability.distribution: distributions as Cells with prob/cdf/moments/entropy/KL/sample."""
from mindseed.nn.probability.distribution.distribution import Distribution
from mindseed.nn.probability.distribution._continuous import (Beta, Cauchy, Exponential, Gamma, Gumbel, HalfNormal,
                                                               Laplace, Logistic, LogNormal, Normal, StudentT,
                                                               Uniform)
from mindseed.nn.probability.distribution._discrete import Bernoulli, Categorical, Geometric, Poisson
from mindseed.nn.probability.distribution.transformed_distribution import TransformedDistribution
from mindseed.nn.probability.distribution import (bernoulli, beta, categorical, cauchy, distribution,  # noqa: F401
                                                  exponential, gamma, geometric, gumbel, half_normal, laplace,
                                                  log_normal, logistic, normal, poisson, student_t,
                                                  transformed_distribution, uniform)

__all__ = ["Distribution", "Bernoulli", "Beta", "Categorical", "Cauchy", "Exponential", "Gamma", "Geometric",
           "Gumbel", "HalfNormal", "Laplace", "LogNormal", "Logistic", "Normal", "Poisson", "StudentT",
           "TransformedDistribution", "Uniform"]
