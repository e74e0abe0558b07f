"""`mindspore.mint.nn.layer.pooling` (MindSpore's module path; the same Cells as mint.nn)."""
from mindseed.mint.nn.layer import (AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveAvgPool3d, AdaptiveMaxPool1d,
                                    MaxUnpool2d)

__all__ = ["AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "MaxUnpool2d"]
