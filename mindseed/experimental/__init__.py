"""mindspore.experimental: MapParameter (a hash-table parameter) and the experimental optimizers."""
from mindseed.experimental import map_parameter  # noqa: F401
from mindseed.experimental.map_parameter import MapParameter

__all__ = ["MapParameter"]
