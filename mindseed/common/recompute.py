"""mindspore.common.recompute: `recompute`, a call whose inner activations are recomputed in the backward pass."""
from mindseed._toplevel import recompute

__all__ = ["recompute"]
