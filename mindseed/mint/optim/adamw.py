"""mindspore.mint.optim.adamw: the AdamW optimizer."""
from mindseed.experimental.optim.adamw import AdamW as _AdamW
from mindseed.mint.optim._make import mint_optimizer

__all__ = ["AdamW"]

AdamW = mint_optimizer(_AdamW, __name__, "AdamW: Adam with weight decay decoupled from the gradient "
                                         "(p <- p (1 - lr wd) before the Adam step).")
