"""mindspore.nn.probability: distributions and bijectors for probabilistic networks."""
from mindseed.nn.probability import distribution, bijector, bnn_layers  # noqa: F401,I001
