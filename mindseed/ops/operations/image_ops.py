"""mindspore.ops.operations.image_ops: image resizing primitives, by MindSpore's module layout (the same classes as
`mindspore.ops.operations`)."""
from mindseed.ops.operations import (  # noqa: F401
    AdjustContrastv2, AdjustHue, AdjustSaturation, CombinedNonMaxSuppression, CropAndResize, HSVToRGB,
    NonMaxSuppressionV3, NonMaxSuppressionWithOverlaps, RGBToHSV, ResizeArea, ResizeBicubic, ResizeBilinearV2)
from mindseed.ops.operations._image_prims import ScaleAndTranslate  # noqa: F401
from mindseed.ops.operations._prims_more import CropAndResizeGradBoxes, CropAndResizeGradImage  # noqa: F401

__all__ = [
    "AdjustContrastv2", "AdjustHue", "AdjustSaturation", "CombinedNonMaxSuppression", "CropAndResize",
    "CropAndResizeGradBoxes", "CropAndResizeGradImage", "HSVToRGB", "NonMaxSuppressionV3",
    "NonMaxSuppressionWithOverlaps", "RGBToHSV", "ResizeArea", "ResizeBicubic",
    "ResizeBilinearV2", "ScaleAndTranslate"]

# more names MindSpore's module holds (its imports and classes), the same objects as in ops.operations
from mindseed.ops.operations._base import Primitive  # noqa: E402,F401
from mindseed.ops.operations import (ExtractGlimpse, ResizeLinear1D)  # noqa: E402,F401
__all__ += ["ExtractGlimpse"]
