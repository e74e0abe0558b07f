"""mindspore.hal.event: `Event`."""
from mindseed.runtime.event import Event  # noqa: F401

__all__ = ["Event"]
