"""mindspore.mint.optim.adam: the Adam optimizer."""
from mindseed.experimental.optim.adam import Adam as _Adam
from mindseed.mint.optim._make import mint_optimizer

__all__ = ["Adam"]

Adam = mint_optimizer(_Adam, __name__, "Adam (Kingma and Ba), with L2 weight decay added to the gradient and optional "
                                       "AMSGrad.")
