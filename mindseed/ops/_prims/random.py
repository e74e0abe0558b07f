"""Random-number primitives. They take the op's generator as the attribute `gen` and have no gradient:
distributions with parameters (normal's mean and stddev, uniform's bounds, ...) are built in
`ops.functional._random` as a sample of a standard distribution shifted and scaled by mindseed ops, so
gradients reach the parameters where MindSpore's do."""
from mindseed._backend.kernels import random as K
from mindseed.ops._infer import Abstract
from mindseed.ops._registry import RandomPrim

uniform_real_p = RandomPrim("RandExt", K.uniform_real)
standard_normal_p = RandomPrim("Randn", K.standard_normal)
uniform_int_p = RandomPrim("RandInt", K.uniform_int)
standard_gamma_p = RandomPrim("StandardGamma", K.standard_gamma)
poisson_p = RandomPrim("Poisson", K.poisson)
bernoulli_p = RandomPrim("BernoulliExt", K.bernoulli)
multinomial_p = RandomPrim("MultinomialExt", K.multinomial)
categorical_p = RandomPrim("RandomCategorical", K.categorical)
randperm_p = RandomPrim("Randperm", K.randperm)
exponential_p = RandomPrim("Exponential", K.exponential)
cauchy_p = RandomPrim("Cauchy", K.cauchy)
log_normal_p = RandomPrim("LogNormal", K.log_normal)
candidate_sampler_p = RandomPrim("CandidateSampler", K.candidate_sampler, multi_output=True)
uniform_candidate_sampler_p = RandomPrim("UniformCandidateSampler", K.uniform_candidate_sampler, multi_output=True)
std_engine = K.std_engine

# MindSpore's CPU kernels of the seeded legacy ops, drawing from the attribute `engines` (a `KernelEngines`: the
# primitive's per-shape C++ engines); their output shape is known without drawing
std_uniform_real_p = RandomPrim("UniformReal", K.std_uniform_real)
std_standard_normal_p = RandomPrim("StandardNormal", K.std_standard_normal)
std_uniform_int_p = RandomPrim("UniformInt", K.std_uniform_int)
std_uniform_real_p.def_infer(lambda *, shape, engines: Abstract(tuple(shape), "Float32"))
std_standard_normal_p.def_infer(lambda *, shape, engines: Abstract(tuple(shape), "Float32"))
std_uniform_int_p.def_infer(lambda *, shape, low, high, engines: Abstract(tuple(shape), "Int32"))
std_random_shuffle_p = RandomPrim("RandomShuffle", K.std_random_shuffle)
std_randperm_p = RandomPrim("RandpermV2", K.std_randperm)
std_multinomial_p = RandomPrim("Multinomial", K.std_multinomial)
std_bernoulli_p = RandomPrim("Bernoulli", K.std_bernoulli)
std_choice_with_mask_p = RandomPrim("RandomChoiceWithMask", K.std_choice_with_mask, multi_output=True)
std_standard_laplace_p = RandomPrim("StandardLaplace", K.std_standard_laplace)
std_standard_laplace_p.def_infer(lambda *, shape, engines: Abstract(tuple(shape), "Float32"))
