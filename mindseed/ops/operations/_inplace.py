"""Class API of the in-place arithmetic of MindSpore's generated ops: InplaceAddExt, InplaceSubExt, InplaceMul,
InplaceDiv. Each updates its first input (a Tensor or Parameter) and returns it, as `Tensor.add_` etc."""
from mindseed.common.tensor import Tensor
from mindseed.ops.operations._base import Primitive, subclass

__all__ = ["InplaceAddExt", "InplaceSubExt", "InplaceMul", "InplaceDiv"]


def _check(op, input, other):
    if not isinstance(input, Tensor):
        raise TypeError(f"For '{op}', 'input' must be a Tensor, but got {type(input).__name__}.")
    if not isinstance(other, (Tensor, int, float, bool)):
        raise TypeError(f"For '{op}', 'other' must be a Tensor or a number, but got {type(other).__name__}.")


class _Inplace(Primitive):
    """Checks the inputs, then calls the Tensor's in-place method `_method` on `input`."""

    _method = None

    def __call__(self, input, other):
        _check(self.name, input, other)
        return getattr(input, self._method)(other)


class _InplaceAlpha(Primitive):
    """As _Inplace, for the methods that scale `other` by `alpha`."""

    _method = None

    def __call__(self, input, other, alpha=1):
        _check(self.name, input, other)
        return getattr(input, self._method)(other, alpha=alpha)


class InplaceAddExt(_InplaceAlpha):
    """input <- input + alpha * other; returns input.

    >>> import mindseed as ms
    >>> x = ms.Tensor([1.0, 2.0])
    >>> _ = ms.ops.auto_generate.InplaceAddExt()(x, ms.Tensor([1.0, 1.0]), 2)
    >>> x.asnumpy().tolist()
    [3.0, 4.0]
    """

    _method = "add_"


InplaceSubExt = subclass(_InplaceAlpha, "InplaceSubExt", "input <- input - alpha * other; returns input.",
                         _method="sub_")
InplaceMul = subclass(_Inplace, "InplaceMul", "input <- input * other; returns input.", _method="mul_")
InplaceDiv = subclass(_Inplace, "InplaceDiv", "input <- input / other; returns input.", _method="div_")
