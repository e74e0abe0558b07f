"""mindspore.mint.distributed: torch.distributed-style process groups and collectives (see `distributed`)."""
from mindseed.mint.distributed import distributed  # noqa: F401
from mindseed.mint.distributed.distributed import *  # noqa: F401,F403
from mindseed.mint.distributed.distributed import __all__  # noqa: F401
