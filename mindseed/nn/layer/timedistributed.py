"""`mindspore.nn.layer.timedistributed` (MindSpore's module path; the cell lives in nn.layer.combined)."""
from mindseed.nn.layer.combined import TimeDistributed  # noqa: F401

__all__ = ["TimeDistributed"]
