"""mindspore.nn.probability: distributions and bijectors for probabilistic networks."""
from mindseed.nn.probability import distribution, bijector  # noqa: F401,I001
