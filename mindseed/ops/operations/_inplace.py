"""Class API of the in-place arithmetic of MindSpore's generated ops: InplaceAddExt, InplaceSubExt, InplaceMul,
InplaceDiv. Each updates its first input (a Tensor or Parameter) and returns it, as `Tensor.add_` etc."""
from mindseed.common.tensor import Tensor
from mindseed.ops.operations._base import Primitive

__all__ = ["InplaceAddExt", "InplaceSubExt", "InplaceMul", "InplaceDiv"]


def _check(op, input, other):
    if not isinstance(input, Tensor):
        raise TypeError(f"For '{op}', 'input' must be a Tensor, but got {type(input).__name__}.")
    if not isinstance(other, (Tensor, int, float, bool)):
        raise TypeError(f"For '{op}', 'other' must be a Tensor or a number, but got {type(other).__name__}.")


class InplaceAddExt(Primitive):
    """input <- input + alpha * other; returns input.

    >>> import mindseed as ms
    >>> x = ms.Tensor([1.0, 2.0])
    >>> _ = ms.ops.auto_generate.InplaceAddExt()(x, ms.Tensor([1.0, 1.0]), 2)
    >>> x.asnumpy().tolist()
    [3.0, 4.0]
    """

    def __init__(self):
        super().__init__("InplaceAddExt")

    def __call__(self, input, other, alpha=1):
        _check(self.name, input, other)
        return input.add_(other, alpha=alpha)


class InplaceSubExt(Primitive):
    """input <- input - alpha * other; returns input."""

    def __init__(self):
        super().__init__("InplaceSubExt")

    def __call__(self, input, other, alpha=1):
        _check(self.name, input, other)
        return input.sub_(other, alpha=alpha)


class InplaceMul(Primitive):
    """input <- input * other; returns input."""

    def __init__(self):
        super().__init__("InplaceMul")

    def __call__(self, input, other):
        _check(self.name, input, other)
        return input.mul_(other)


class InplaceDiv(Primitive):
    """input <- input / other; returns input."""

    def __init__(self):
        super().__init__("InplaceDiv")

    def __call__(self, input, other):
        _check(self.name, input, other)
        return input.div_(other)
