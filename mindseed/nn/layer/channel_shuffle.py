"""`mindspore.nn.layer.channel_shuffle` (MindSpore's module path; the cell lives in nn.layer.image)."""
from mindseed.nn.layer.image import ChannelShuffle  # noqa: F401

__all__ = ["ChannelShuffle"]
