"""Hooks on the PyNative tape: gradient hooks of tensors (`Tensor.register_hook`) and hooks packing the tensors a
tape saves for the backward pass (`saved_tensors_hooks`).

A tensor's gradient hooks run when its gradient is complete: for a tensor computed on the tape, when the backward
pass reaches the primitive that produced it (before that primitive's bprop reads it); for an input, at the end.
A hook returns the new gradient (or None to keep it).
"""
import itertools
import weakref
from collections import OrderedDict

from mindseed._utils import _state
from mindseed.common.parameter import Parameter
from mindseed.common.tensor import Tensor

__all__ = ["register_hook", "remove_hook", "hooks", "saved_tensors_hooks", "register_saved_tensors_hooks"]

_grad_hooks = _state.tensor_grad_hooks
_ids = itertools.count()


class _TensorHookHandle:
    """Returned by `Tensor.register_hook`; `remove()` unregisters the hook."""

    def __init__(self, tensor_id, handle_id):
        self._tensor_id = tensor_id
        self.handle_id = handle_id

    def remove(self):
        table = _grad_hooks.get(self._tensor_id)
        if table is not None:
            table.pop(self.handle_id, None)
            if not table:
                _grad_hooks.pop(self._tensor_id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def register_hook(self, hook):
    """Register a backward hook `hook(grad) -> new grad` on this tensor (PyNative): it runs when the tensor's
    gradient is computed, and what it returns replaces the gradient that flows on.

    Args:
        hook (function): the hook.

    Returns:
        A handle whose `remove()` unregisters the hook.

    Raises:
        TypeError: `hook` is not callable.
        ValueError: a Parameter's hook registered inside a graph (MindSpore refuses it).

    >>> import mindseed as ms
    >>> def f(x, y):
    ...     z = x * y
    ...     z.register_hook(lambda g: g * 2)
    ...     return z * y
    >>> ms.grad(f, grad_position=(0, 1))(ms.Tensor(1.0), ms.Tensor(2.0))
    (Tensor(shape=[], dtype=Float32, value= 8), Tensor(shape=[], dtype=Float32, value= 6))
    """
    if not callable(hook):
        raise TypeError(f"For 'Tensor.register_hook', the type of 'hook' must be a python function, but got "
                        f"{type(hook).__name__}.")
    if _state.tracing is not None and isinstance(self, Parameter):
        raise ValueError("Register hook for Parameter inside graph is not supported.")
    key = id(self)
    table = _grad_hooks.get(key)
    if table is None:
        table = _grad_hooks[key] = OrderedDict()
        weakref.finalize(self, _grad_hooks.pop, key, None)
    handle = _TensorHookHandle(key, next(_ids))
    table[handle.handle_id] = hook
    return handle


def remove_hook(handle_id):
    """Remove the gradient hook registered under `handle_id` (the handle's `handle_id`), on whichever tensor."""
    for key, table in list(_grad_hooks.items()):
        if table.pop(handle_id, None) is not None and not table:
            _grad_hooks.pop(key, None)


def hooks(self):
    """The gradient hooks registered on this tensor: an OrderedDict handle id -> hook, in registration order."""
    return OrderedDict(_grad_hooks.get(id(self), ()))


def run_grad_hooks(t, grad):
    """`grad`, the complete gradient of `t`, passed through t's hooks (the backward engine calls this)."""
    for hook in list(_grad_hooks.get(id(t), {}).values()):
        new = hook(grad)
        if new is None:
            continue
        if not isinstance(new, Tensor):
            raise TypeError(f"For 'Tensor.register_hook', the hook must return a Tensor (the new gradient) or None, "
                            f"but got {type(new).__name__}.")
        if tuple(new.shape) != tuple(grad.shape):
            raise ValueError(f"For 'Tensor.register_hook', the hook returned a gradient of shape {new.shape}, but "
                             f"the tensor's gradient has shape {grad.shape}.")
        grad = new
    return grad


class saved_tensors_hooks:  # noqa: N801 -- MindSpore's name
    """Within it, each tensor a gradient tape saves for the backward pass is packed by `pack_hook(tensor) -> any`
    when the forward primitive runs, and the backward pass computes with `unpack_hook(packed) -> Tensor`
    (PyNative; inside `jit`, a gradient taken in the compiled function applies them at compile time).

    Args:
        pack_hook (Callable): tensor -> its stored form.
        unpack_hook (Callable): stored form -> tensor.

    Raises:
        TypeError: a hook is not callable, or `unpack_hook` returns no Tensor.

    >>> import mindseed as ms
    >>> def f(x, y):
    ...     with ms.saved_tensors_hooks(lambda t: t + 1, lambda t: t):
    ...         return x * y
    >>> ms.grad(f, grad_position=(0, 1))(ms.Tensor(1.0), ms.Tensor(1.0))
    (Tensor(shape=[], dtype=Float32, value= 2), Tensor(shape=[], dtype=Float32, value= 2))
    """

    def __init__(self, pack_hook, unpack_hook):
        for name, hook in (("pack_hook", pack_hook), ("unpack_hook", unpack_hook)):
            if not callable(hook):
                raise TypeError(f"For 'saved_tensors_hooks', the '{name}' must be callable, but got "
                                f"{type(hook).__name__}.")
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def __enter__(self):
        _state.saved_tensors_hooks.append((self.pack_hook, self.unpack_hook))
        return self

    def __exit__(self, *exc):
        _state.saved_tensors_hooks.pop()


def register_saved_tensors_hooks(pack_hook, unpack_hook):
    """Decorator: the function runs within `saved_tensors_hooks(pack_hook, unpack_hook)` (MindSpore's graph-mode
    spelling of the same thing)."""
    def wrap(fn):
        def run(*args, **kwargs):
            with saved_tensors_hooks(pack_hook, unpack_hook):
                return fn(*args, **kwargs)
        run.__wrapped__ = fn
        run.__name__ = getattr(fn, "__name__", "fn")
        return run
    return wrap


class _Packed:
    """A tape node's saved inputs in packed form: `unpack()` gives them back through the unpack hook."""

    __slots__ = ("items",)

    def __init__(self, args, pack, unpack):
        self.items = [(unpack, pack(a)) if isinstance(a, Tensor) else (None, a) for a in args]

    def unpack(self):
        out = []
        for unpack, v in self.items:
            if unpack is not None:
                v = unpack(v)
                if not isinstance(v, Tensor):
                    raise TypeError(f"For 'saved_tensors_hooks', the 'unpack_hook' must return a Tensor, but got "
                                    f"{type(v).__name__}.")
            out.append(v)
        return tuple(out)


def pack_saved(args):
    """The packed form of a node's inputs under the innermost `saved_tensors_hooks`."""
    stack, tapes = _state.saved_tensors_hooks, _state.tapes
    pack, unpack = stack[-1]
    held = stack[:], tapes[:]
    stack.clear()   # what the pack hook computes is neither packed again nor differentiated
    tapes.clear()
    try:
        return _Packed(args, pack, unpack)
    finally:
        stack.extend(held[0])
        tapes.extend(held[1])
