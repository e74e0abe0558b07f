"""mindspore.mint.optim.sgd: stochastic gradient descent."""
from mindseed.experimental.optim.sgd import SGD as _SGD
from mindseed.mint.optim._make import mint_optimizer

__all__ = ["SGD"]

SGD = mint_optimizer(_SGD, __name__, "Stochastic gradient descent with momentum, dampening, Nesterov momentum and "
                                     "weight decay.")
