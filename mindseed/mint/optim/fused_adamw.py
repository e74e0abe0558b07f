"""mindspore.mint.optim.fused_adamw: AdamW updating each parameter group in one primitive call."""
from mindseed.mint.optim._make import mint_optimizer
from mindseed.mint.optim.adamw import AdamW

__all__ = ["FusedAdamW"]

FusedAdamW = mint_optimizer(AdamW, __name__, "AdamW (same arguments, defaults and results) whose update of each "
                                             "parameter group is one fused primitive call over the group's "
                                             "parameters, which is how mindseed's AdamW runs: the two are one "
                                             "algorithm.", name="FusedAdamW")
