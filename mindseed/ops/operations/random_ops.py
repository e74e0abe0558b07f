"""mindspore.ops.operations.random_ops: random sampling primitives, by MindSpore's module layout (the same classes as
`mindspore.ops.operations`)."""
from mindseed.ops.operations import (  # noqa: F401
    Bernoulli, Cauchy, Gamma, LogNormalReverse, LogUniformCandidateSampler, Multinomial,
    MultinomialWithReplacement, NonDeterministicInts, ParameterizedTruncatedNormal, Poisson, RandomCategorical,
    RandomChoiceWithMask, RandomGamma, RandomPoisson, RandomShuffle, RandpermV2, StandardLaplace, StandardNormal,
    TruncatedNormal, UniformCandidateSampler, UniformInt, UniformReal)

__all__ = [
    "Bernoulli", "Cauchy", "Gamma", "LogNormalReverse", "LogUniformCandidateSampler", "Multinomial",
    "MultinomialWithReplacement", "NonDeterministicInts", "ParameterizedTruncatedNormal", "Poisson",
    "RandomCategorical", "RandomChoiceWithMask", "RandomGamma", "RandomPoisson", "RandomShuffle", "RandpermV2",
    "StandardLaplace", "StandardNormal", "TruncatedNormal", "UniformCandidateSampler", "UniformInt", "UniformReal"]
