"""mindspore.nn.utils: `no_init_parameters`."""
from mindseed.nn.utils.init import no_init_parameters

__all__ = ["no_init_parameters"]
