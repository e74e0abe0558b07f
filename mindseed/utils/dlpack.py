"""DLPack: Tensors shared with other array libraries (PyTorch, CuPy, JAX, numpy >= 1.22) without a copy."""
from mindseed._backend import interop as _I
from mindseed.common.tensor import Tensor

__all__ = ["to_dlpack", "from_dlpack"]


def to_dlpack(tensor):
    """A DLPack capsule sharing `tensor`'s memory.

    Raises:
        TypeError: `tensor` is not a Tensor.

    >>> import numpy as np, mindseed as ms
    >>> from mindseed.utils import from_dlpack, to_dlpack
    >>> from_dlpack(to_dlpack(ms.Tensor([1.0, 2.0]))).asnumpy()
    array([1., 2.], dtype=float32)
    """
    if not isinstance(tensor, Tensor):
        raise TypeError(f"For 'to_dlpack', the argument 'tensor' must be a Tensor, but got {type(tensor).__name__}.")
    return _I.to_dlpack(tensor._data)


def from_dlpack(dlpack):
    """A Tensor sharing the memory of a DLPack capsule (or of an array with `__dlpack__`).

    Raises:
        TypeError: `dlpack` is neither.
    """
    if type(dlpack).__name__ != "PyCapsule" and not hasattr(dlpack, "__dlpack__"):
        raise TypeError(f"For 'from_dlpack', the argument 'dlpack' must be a DLPack capsule or an object with "
                        f"__dlpack__, but got {type(dlpack).__name__}.")
    return Tensor._from_raw(_I.from_dlpack(dlpack))
