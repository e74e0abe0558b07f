"""mindspore.mint.optim: Adam, AdamW, FusedAdamW and SGD with torch-style parameter groups."""
from mindseed.mint.optim import adam, adamw, fused_adamw, sgd  # noqa: F401
from mindseed.mint.optim.adam import Adam
from mindseed.mint.optim.adamw import AdamW
from mindseed.mint.optim.fused_adamw import FusedAdamW
from mindseed.mint.optim.sgd import SGD

__all__ = ["Adam", "AdamW", "FusedAdamW", "SGD"]
