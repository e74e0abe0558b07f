"""`mindspore.nn.optim.adasum` (MindSpore's module path; the wrap cells live in nn.wrap.adasum)."""
from mindseed.nn.wrap.adasum import AdaSumByDeltaWeightWrapCell, AdaSumByGradWrapCell  # noqa: F401

__all__ = ["AdaSumByDeltaWeightWrapCell", "AdaSumByGradWrapCell"]
