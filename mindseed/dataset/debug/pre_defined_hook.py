"""The debug hooks MindData predefines: print each column's type and shape, or its data."""
import collections.abc
import sys

import numpy as np

from mindseed.dataset.debug.debug_hook import DebugHook


def _is_pil_image(col):
    image = sys.modules.get("PIL.Image")     # a PIL image can only exist once Pillow is imported
    return image is not None and isinstance(col, image.Image)


class PrintMetaDataHook(DebugHook):
    """Prints the dtype and shape (numpy arrays), the type and size (PIL images, sized values) of each column."""

    def __init__(self):
        super().__init__()

    def compute(self, *args):
        for col_idx, col in enumerate(*args):
            message = f"Column {col_idx}. "
            if isinstance(col, np.ndarray):
                message += f"The dtype is [{col.dtype}]. The shape is [{col.shape}]."
            elif _is_pil_image(col):
                message += f"The type is [{type(col)}]. The shape is [{col.size}]."
            elif isinstance(col, collections.abc.Sized):
                message += f"The type is [{type(col)}]. The size is [{len(col)}]."
            print(message, flush=True)
        return args


class PrintDataHook(DebugHook):
    """Prints the data of each column (a PIL image as its array)."""

    def __init__(self):
        super().__init__()

    def compute(self, *args):
        for col_idx, col in enumerate(*args):
            data = np.asarray(col) if _is_pil_image(col) else col
            print(f"Column {col_idx}. The data is [{data}].", flush=True)
        return args
