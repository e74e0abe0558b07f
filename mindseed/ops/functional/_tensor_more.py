"""More Tensor methods of MindSpore: dtype shorthands, sparse and DLPack conversions, raw bytes and storage, host
memory queries; and the `data` / `is_meta` properties."""
import numbers

from mindseed import _backend as B
from mindseed._backend import interop as _I
from mindseed._utils import _state
from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.ops.functional import _core
from mindseed.ops.functional import _sparse as S

__all__ = ["UntypedStorage"]


class UntypedStorage:
    """The memory block under a Tensor: its address and size in bytes (`Tensor.untyped_storage()`)."""

    def __init__(self, tensor=None):
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"For 'UntypedStorage', the 'tensor' must be a Tensor, but got {type(tensor).__name__}.")
        self._ptr, self._nbytes = _I.storage_info(tensor._data) if tensor is not None else (0, 0)

    def data_ptr(self):
        """The address of the block."""
        return self._ptr

    def nbytes(self):
        """The size of the block in bytes."""
        return self._nbytes

    size = nbytes

    def __repr__(self):
        return f"UntypedStorage(data_ptr={self._ptr}, nbytes={self._nbytes})"


def _from_dlpack(dlpack):
    """A Tensor sharing the memory of a DLPack capsule or of an object with `__dlpack__`."""
    return Tensor._from_raw(_I.from_dlpack(dlpack))


def _convert_bytes_to_tensor(bytes_data, shape, dtype):
    """A Tensor of `shape` and `dtype` read from raw little-endian bytes (the inverse of `get_bytes`)."""
    if not isinstance(bytes_data, (bytes, bytearray)):
        raise TypeError(f"For 'convert_bytes_to_tensor', the 'bytes_data' must be bytes, but got "
                        f"{type(bytes_data).__name__}.")
    return Tensor._from_raw(B.from_bytes(bytes_data, tuple(shape), dtype.name))


def _get_data(self):
    """`tensor.data`: a Tensor sharing this one's memory, outside differentiation. In-place updates through it (`p.data
    .fill_(0)`, `p.data[0] = 1`) write this Tensor too; in a traced graph it is the stop-gradient of the value."""
    if _state.tracing is not None:
        return _core.stop_gradient(self)
    view = Tensor._from_raw(self._data)
    view._view = (self, ())     # a view with an empty index path (mindseed.ops._tensor_ops)
    return view


def _set_data(self, value):
    if not isinstance(value, Tensor):
        raise RuntimeError(f"For 'Tensor.data', the value set must be a Tensor, but got {type(value).__name__}.")
    self.assign_value(value)


TENSOR_METHODS = {
    "bfloat16": lambda self: self.astype(mstype.bfloat16),
    "short": lambda self: self.astype(mstype.int16),
    "to_coo": lambda self: S.dense_to_sparse_coo(self),
    "to_csr": lambda self: S.dense_to_sparse_csr(self),
    "to_dlpack": lambda self: _I.to_dlpack(self._data),
    "from_dlpack": staticmethod(_from_dlpack),
    "get_bytes": lambda self: B.bytes_of(self._data),
    "convert_bytes_to_tensor": staticmethod(_convert_bytes_to_tensor),
    "is_pinned": lambda self: _I.is_pinned(self._data),
    "pin_memory": lambda self: Tensor._from_raw(_I.pinned(self._data)),
    "is_shared": lambda self: _I.is_shared(self._data),
    "untyped_storage": lambda self: UntypedStorage(self),
    "storage": lambda self: UntypedStorage(self),
    "__contains__": lambda self, value: isinstance(value, (Tensor, numbers.Number)) and bool((self == value).any()),
    "data": property(_get_data, _set_data,
                     doc="A Tensor sharing this Tensor's (Parameter's) memory, outside differentiation (MindSpore's "
                         "`Tensor.data`); setting it replaces the data (`net.weight.data = w`): the Tensor then has "
                         "`w`'s value, shape and dtype."),
    "is_meta": property(lambda self: B.is_meta(self._data), doc="Whether the Tensor is a placeholder without data."),
}
for _name, _fn in TENSOR_METHODS.items():
    if not isinstance(_fn, (property, staticmethod)):
        _fn.__name__ = _fn.__qualname__ = _name
TENSOR_METHODS["__contains__"].__doc__ = "`value in tensor`: whether any element equals value (a Tensor or a number; " \
    "anything else is not in it)."
TENSOR_METHODS["bfloat16"].__doc__ = "The Tensor cast to bfloat16."
TENSOR_METHODS["short"].__doc__ = "The Tensor cast to int16."
TENSOR_METHODS["to_coo"].__doc__ = "The COOTensor of the non-zero elements."
TENSOR_METHODS["to_csr"].__doc__ = "The CSRTensor of the non-zero elements of a 2-D Tensor."
TENSOR_METHODS["to_dlpack"].__doc__ = "A DLPack capsule sharing the Tensor's memory."
TENSOR_METHODS["get_bytes"].__doc__ = "The raw little-endian bytes of the Tensor."
TENSOR_METHODS["is_pinned"].__doc__ = "Whether the Tensor is in page-locked host memory."
TENSOR_METHODS["pin_memory"].__doc__ = "The Tensor in page-locked host memory (without a GPU: itself)."
TENSOR_METHODS["is_shared"].__doc__ = "Whether the Tensor's memory is shared between processes."
TENSOR_METHODS["untyped_storage"].__doc__ = TENSOR_METHODS["storage"].__doc__ = "The memory block under the Tensor."
