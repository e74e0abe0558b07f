"""Padding layers: constant (incl. zero), reflection and replication padding of the last 1/2/3 dimensions.

`padding` is PyTorch-ordered: (left, right) for the last dimension first, then (top, bottom), (front, back).
"""
from mindseed.nn.cell import Cell
from mindseed.ops import functional as F

__all__ = ["ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ReflectionPad1d", "ReflectionPad2d",
           "ReflectionPad3d", "ZeroPad2d", "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d"]


def _check_result_shape(name, shape, padding):
    """Negative paddings crop; the padded shape must stay positive."""
    pairs = [(padding[2 * i], padding[2 * i + 1]) for i in range(len(padding) // 2)]
    if len(pairs) > len(shape):
        raise ValueError(f"For '{name}', the dimension of input must more than or equal to len(padding)/2, but got "
                         f"{len(shape)}")
    for i, (lo, hi) in enumerate(pairs):
        dim = len(shape) - 1 - i
        if shape[dim] + lo + hi <= 0:
            raise ValueError(f"For '{name}', the shape of input after padding must be positive, the input shape is "
                             f"{shape}, but the {dim + 1}th dimension of input shape {shape[dim]} plus padding {lo} "
                             f"and {hi} resulted in a non-positive output shape.")


class _ConstantPadNd(Cell):
    _LEN = 2

    def __init__(self, padding, value):
        super().__init__()
        name = type(self).__name__
        if isinstance(padding, bool) or not isinstance(padding, (int, tuple)):
            raise TypeError(f"For '{name}', the type of parameter 'padding' must be in [int, tuple], but got "
                            f"{type(padding)}")
        if isinstance(padding, int):
            padding = (padding,) * self._LEN
        else:
            if len(padding) % 2 != 0:
                raise ValueError(f"For '{name}', the length of parameter 'padding' with tuple type must be a multiple "
                                 f"of 2, but got {len(padding)}")
            if name == "ConstantPad1d" and len(padding) != 2:
                raise ValueError(f"For '{name}', the length of parameter 'padding' with tuple type must equal to 2."
                                 f"but got {len(padding)}")
            if len(padding) > self._LEN:
                raise ValueError(f"For '{name}', the length of parameter 'padding' with tuple type must no more than "
                                 f"{self._LEN}.but got {len(padding)}")
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"For '{name}', the type of parameter 'value' must be in [int, float], but got "
                            f"{type(value)}")
        self.value = value
        self.padding = padding
        self._name = name

    def construct(self, x):
        _check_result_shape(self._name, x.shape, self.padding)
        return F.pad(x, self.padding, mode="constant", value=self.value)


class ConstantPad1d(_ConstantPadNd):
    """Pad the last dimension with `value`; padding an int or (left, right)."""

    _LEN = 2


class ConstantPad2d(_ConstantPadNd):
    """Pad the last two dimensions with `value`; padding an int or (left, right, top, bottom)."""

    _LEN = 4


class ConstantPad3d(_ConstantPadNd):
    """Pad the last three dimensions with `value`; padding an int or a 6-tuple."""

    _LEN = 6


class ZeroPad2d(_ConstantPadNd):
    """Pad the last two dimensions with zeros; padding an int or (left, right, top, bottom)."""

    _LEN = 4

    def __init__(self, padding):
        super().__init__(padding, 0)


class _MirrorPadNd(Cell):
    _LEN = 2
    _MODE = "reflect"

    def __init__(self, padding, name):
        super().__init__()
        if isinstance(padding, int) and not isinstance(padding, bool):
            padding = (padding,) * self._LEN
        if not isinstance(padding, tuple):
            raise TypeError(f"For '{name}' the input 'padding' must be an integer or tuple, but got "
                            f"{type(padding).__name__}")
        if len(padding) % 2 != 0:
            raise ValueError(f"For '{name}' the length of input 'padding' must be divisible by 2, but got padding of "
                             f"length {len(padding)}. ")
        if not all(isinstance(i, int) and not isinstance(i, bool) for i in padding):
            raise TypeError(f"For '{name}' every element in 'padding' must be integer, but got {padding}. ")
        if self._MODE == "reflect" and not all(i >= 0 for i in padding):
            raise ValueError(f"For '{name}' every element in 'padding' must be >= 0. but got {padding}. ")
        self.name = name
        self.padding = padding

    def construct(self, x):
        if not self.padding:
            return x
        if len(self.padding) // 2 > x.ndim:
            raise ValueError(f"For padding with length {len(self.padding)}, the dimension of the tensor should be at "
                             f"least {len(self.padding) // 2}, but got {x.ndim}")
        return F.pad(x, self.padding, mode=self._MODE)


class ReflectionPad1d(_MirrorPadNd):
    """Reflect-pad the last dimension (edge not repeated); padding an int or (left, right)."""

    def __init__(self, padding):
        super().__init__(padding, "ReflectionPad1d")


class ReflectionPad2d(_MirrorPadNd):
    """Reflect-pad the last two dimensions; padding an int or (left, right, top, bottom)."""

    _LEN = 4

    def __init__(self, padding):
        super().__init__(padding, "ReflectionPad2d")


class ReflectionPad3d(_MirrorPadNd):
    """Reflect-pad the last three dimensions; padding an int or a 6-tuple."""

    _LEN = 6

    def __init__(self, padding):
        super().__init__(padding, "ReflectionPad3d")


class ReplicationPad1d(_MirrorPadNd):
    """Repeat the edge values of the last dimension; padding an int or (left, right)."""

    _MODE = "replicate"

    def __init__(self, padding):
        super().__init__(padding, "ReplicationPad1d")


class ReplicationPad2d(_MirrorPadNd):
    """Repeat the edge values of the last two dimensions; padding an int or (left, right, top, bottom)."""

    _LEN = 4
    _MODE = "replicate"

    def __init__(self, padding):
        super().__init__(padding, "ReplicationPad2d")


class ReplicationPad3d(_MirrorPadNd):
    """Repeat the edge values of the last three dimensions; padding an int or a 6-tuple."""

    _LEN = 6
    _MODE = "replicate"

    def __init__(self, padding):
        super().__init__(padding, "ReplicationPad3d")
