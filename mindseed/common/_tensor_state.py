"""MindSpore's per-tensor flags and the Tensor methods reading and setting them (`const_arg`, `init_flag`,
`param_info`, ...), plus `requires_grad_`, `index`, `to_` and `set_`.

Tensors are slotted (no per-object dict): the flags of the few tensors that set one live in a side table keyed by
the tensor's id, dropped with the tensor. A tensor that never set a flag reads MindSpore's default.
"""
import weakref

from mindseed import _backend as B
from mindseed._utils._jit_forbidden import jit_forbidden_register

__all__ = ["attach"]

_flags = {}     # id(tensor) -> {flag: value}


def _get(t, key, default):
    d = _flags.get(id(t))
    return default if d is None else d.get(key, default)


def _set(t, key, value):
    d = _flags.get(id(t))
    if d is None:
        d = _flags[id(t)] = {}
        weakref.finalize(t, _flags.pop, id(t), None)
    d[key] = value


def _flag_property(key, default, doc):
    return property(lambda self: _get(self, key, default), lambda self, v: _set(self, key, v), doc=doc)


def _check_bool(method, name, value):
    if not isinstance(value, bool):
        raise TypeError(f"For 'Tensor.{method}', the type of '{name}' should be 'bool', but got "
                        f"'{type(value).__name__}'.")


@jit_forbidden_register
def set_const_arg(self, const_arg=True):
    """Mark the tensor as a constant when it is an argument of a compiled network (its value keys the graph).

    Raises:
        TypeError: `const_arg` is not a bool.
    """
    _check_bool("set_const_arg", "const_arg", const_arg)
    _set(self, "const_arg", const_arg)
    return self


def set_init_flag(self, flag):
    """Set the tensor's init_flag (whether its data was initialized on the device)."""
    _check_bool("set_init_flag", "flag", flag)
    _set(self, "init_flag", flag)


def is_init(self):
    """The tensor's init_flag."""
    return _get(self, "init_flag", False)


def set_param_info(self, param_info):
    """Attach a Parameter's info object to this tensor."""
    _set(self, "param_info", param_info)


def requires_grad_(self, requires_grad=True):
    """Set whether gradients are taken for this tensor (a Parameter's `requires_grad`); returns the tensor.

    Raises:
        TypeError: `requires_grad` is not a bool.
    """
    _check_bool("requires_grad_", "requires_grad", requires_grad)
    if isinstance(getattr(type(self), "requires_grad", None), property):     # a Parameter's attribute
        self.requires_grad = requires_grad
    else:
        _set(self, "requires_grad", requires_grad)
    return self


def index(self, indices):
    """`self[indices[0], indices[1], ...]`: advanced indexing by a list or tuple of index tensors (None keeps a dim).

    Raises:
        TypeError: `indices` is not a list or tuple.
    """
    if not isinstance(indices, (list, tuple)):
        raise TypeError(f"For 'Tensor.index', the 'indices' must be a list or tuple of Tensors, but got "
                        f"{type(indices).__name__}.")
    return self[tuple(slice(None) if i is None else i for i in indices)]


def device_data(raw, device, api):
    """`raw` on the device named `device` ('CPU', 'GPU', any case, optionally ':<id>'), for `api`'s messages.

    Raises:
        TypeError: `device` is not a str.
        RuntimeError: a device MindSpore knows that this machine does not have (Ascend, a GPU without CUDA).
        ValueError: a name that is no device.
    """
    if not isinstance(device, str):
        raise TypeError(f"For '{api}', the 'device' must be a str, but got {type(device).__name__}.")
    moved = B.to_device(raw, device)
    if moved is None:
        kind = RuntimeError if device.partition(":")[0].upper() in ("ASCEND", "GPU", "CUDA") else ValueError
        raise kind(f"For '{api}', the 'device' must be 'CPU' or, with a CUDA device, 'GPU', but got {device!r}.")
    return moved


def to_(self, device=None, non_blocking=False):
    """Move the tensor's data to `device` in place; returns the tensor.

    Raises:
        ValueError: `device` is not a device this backend has.
    """
    if device is not None:
        self._data = device_data(self._data, device, "Tensor.to_")
    return self


def set_(self, source=None, storage_offset=0, size=None, stride=None):
    """Make this tensor a view of `source`'s storage (all of it, or `size`/`stride` from `storage_offset`); with
    no source, an empty tensor of the same dtype. Returns the tensor."""
    if source is None:
        self._data = B.empty((0,), B.dtype_name(self._data))
        return self
    raw = getattr(source, "_data", None)
    if raw is None:
        raise TypeError(f"For 'Tensor.set_', the 'source' must be a Tensor, but got {type(source).__name__}.")
    if source.dtype != self.dtype:
        raise RuntimeError(f"Could not set tensor of type {source.dtype} to a tensor of type {self.dtype}")
    if size is None:
        if storage_offset or stride is not None:
            raise ValueError("For 'Tensor.set_', 'storage_offset' and 'stride' need 'size'.")
        self._data = raw
        return self
    size = _ints("size", size)
    if stride is None:
        stride, acc = [], 1
        for n in reversed(size):
            stride.insert(0, acc)
            acc *= n
    stride = _ints("stride", stride)
    offset = _ints("storage_offset", (storage_offset,))[0]
    if len(stride) != len(size):
        raise ValueError(f"For 'Tensor.set_', 'stride' {stride} must have one entry per dimension of 'size' {size}.")
    last = offset + sum((n - 1) * st for n, st in zip(size, stride)) if all(size) else offset - 1
    if last >= source.size:
        raise ValueError(f"For 'Tensor.set_', a view of size {size}, stride {stride} and offset {offset} reaches "
                         f"element {last}, past the {source.size} elements of 'source'.")
    self._data = B.as_strided(raw, size, stride, offset)
    return self


def _ints(name, values):
    try:
        out = tuple(values)
    except TypeError:
        out = (values,)
    if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in out):
        raise TypeError(f"For 'Tensor.set_', '{name}' must be non-negative ints, but got {values!r}.")
    return out


def wait_pipeline(self):
    """Wait for the tasks computing this tensor: kernels here run synchronously, so there are none."""


def attach(tensor_cls):
    tensor_cls.const_arg = _flag_property("const_arg", False, "Whether the tensor is a constant argument of a "
                                                              "compiled network.")
    tensor_cls.init_flag = _flag_property("init_flag", False, "Whether the tensor's data was initialized.")
    tensor_cls.virtual_flag = _flag_property("virtual_flag", False, "Whether the tensor is virtual (no data).")
    tensor_cls.param_info = _flag_property("param_info", None, "The Parameter info of the tensor (None).")
    tensor_cls.symbolic_shape = _flag_property("symbolic_shape", None, "The symbolic shape (None: static).")
    tensor_cls.delta_seed = _flag_property("delta_seed", None, "The seed offset of a random initializer.")
    tensor_cls.index_of_parent_ = _flag_property("index_of_parent_", None, "Index into the parent tensor.")
    tensor_cls.parent_tensor_ = _flag_property("parent_tensor_", None, "The tensor this one indexes.")
    # MindSpore 2.3-2.5's `Tensor.grad` (2.10 keeps only the internal `_grad`): code with torch-style optimizers over
    # Tensors (mindnlp's `core.optim`) stores gradients there; mindseed's own gradient functions never write it
    tensor_cls.grad = _flag_property("grad", None, "A gradient stored with the tensor by the caller (None).")
    tensor_cls.init_finished = property(lambda self: not getattr(self, "has_init", False),
                                        doc="Whether the tensor's initialization is finished.")
    for fn in (set_const_arg, set_init_flag, is_init, set_param_info, requires_grad_, index, to_, set_,
               wait_pipeline):
        setattr(tensor_cls, fn.__name__, fn)
    tensor_cls.assign_value_cpp = tensor_cls.assign_value
