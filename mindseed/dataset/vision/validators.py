"""`mindspore.dataset.vision.validators`: argument checks of the vision transforms, with MindSpore's messages."""
from mindseed.dataset.vision._bbox import check_bboxes
from mindseed.dataset.vision._geometry import _inter, _padding_arg, _prob, _size_arg

__all__ = ["check_size", "check_prob", "check_interpolation", "check_padding", "check_bboxes"]


def check_size(size, name="size"):
    """An int or (h, w) pair of positive ints."""
    return _size_arg(size, name)


def check_prob(prob):
    """A probability in [0, 1]."""
    return _prob(prob)


def check_interpolation(interpolation, name="interpolation"):
    """An Inter member."""
    return _inter(interpolation, name)


def check_padding(padding):
    """An int, (left/right, top/bottom) or (left, top, right, bottom) of non-negative ints."""
    return _padding_arg(padding)
