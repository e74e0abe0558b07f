"""A Cell's state dict, as MindSpore 2.x's Cell has it: `state_dict()` maps dotted names to the cell's parameters and
persistent buffers (and to `get_extra_state()` where a subclass defines it); `load_state_dict` copies such a dict
back, reporting missing and unexpected keys; pre/post hooks of both are registered like the forward hooks.

The hook tables live in the cell's `__dict__` (created on first registration), keyed by `HookHandle.handle_id`.
"""
import collections
import warnings
from collections import OrderedDict
from collections.abc import Mapping

from mindseed.common.tensor import Tensor
from mindseed._utils._jit_forbidden import jit_forbidden_register

_EXTRA_STATE_KEY_SUFFIX = "_extra_state"

_IncompatibleKeys = collections.namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])


class HookHandle:
    """Returned by register_*_hook; `remove()` unregisters the hook (MindSpore's class name: HookHandle)."""

    _next_id = 0

    def __init__(self, hooks):
        self._hooks = hooks
        self.handle_id = HookHandle._next_id
        HookHandle._next_id += 1

    def remove(self):
        self._hooks.pop(self.handle_id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def _hooks(cell, store):
    return cell.__dict__.setdefault(store, OrderedDict())


def _register(cell, store, hook):
    table = _hooks(cell, store)
    handle = HookHandle(table)
    table[handle.handle_id] = hook
    return handle


class CellStateDict:
    """State-dict methods of `nn.Cell` (a base class of it)."""

    def get_extra_state(self):
        """What a subclass adds to its state dict under ``<prefix>_extra_state`` (defined by that subclass)."""
        raise RuntimeError("Reached a code path in Cell.get_extra_state() that should never be called.")

    def set_extra_state(self, state):
        """Restore what `get_extra_state` returned (defined by a subclass)."""
        raise RuntimeError("Reached a code path in Cell.set_extra_state() that should never be called.")

    @jit_forbidden_register
    def register_state_dict_pre_hook(self, hook):
        """Call ``hook(cell, prefix, keep_vars)`` before this cell's `state_dict` collects; returns a HookHandle."""
        return _register(self, "_state_dict_pre_hooks", hook)

    @jit_forbidden_register
    def register_state_dict_post_hook(self, hook):
        """Call ``hook(cell, state_dict, prefix, local_metadata)`` (returning None) after this cell's `state_dict`
        collected; returns a HookHandle."""
        return _register(self, "_state_dict_hooks", hook)

    @jit_forbidden_register
    def register_load_state_dict_pre_hook(self, hook):
        """Call ``hook(cell, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)``
        before this cell loads its part of a state dict; returns a HookHandle."""
        return _register(self, "_load_state_dict_pre_hooks", hook)

    @jit_forbidden_register
    def register_load_state_dict_post_hook(self, hook):
        """Call ``hook(cell, incompatible_keys)`` (returning None; it may edit the key lists) after this cell and its
        sub cells loaded; returns a HookHandle."""
        return _register(self, "_load_state_dict_post_hooks", hook)

    def _has_own(self, name):
        return getattr(type(self), name) is not getattr(CellStateDict, name)

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        for name, param in self._params.items():
            if param is not None:
                destination[prefix + name] = param
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf
        if self._has_own("get_extra_state"):
            destination[prefix + _EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()

    @jit_forbidden_register
    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        """An OrderedDict of dotted name -> Parameter or persistent buffer, this cell's first, then its sub cells'.

        Args:
            destination (dict): the dict to fill and return. Default: a new OrderedDict.
            prefix (str): put before every name. Default ``""``.
            keep_vars (bool): passed on to the hooks. Default ``False``.

        Raises:
            TypeError: `destination` no dict, `prefix` no str or `keep_vars` no bool.

        >>> import mindseed as ms
        >>> list(ms.nn.Dense(2, 1).state_dict())
        ['weight', 'bias']
        """
        if args:
            warnings.warn("Positional args are being deprecated, use kwargs instead.", FutureWarning, stacklevel=2)
            if destination is None:
                destination = args[0]
            if len(args) > 1 and prefix == "":
                prefix = args[1]
            if len(args) > 2 and keep_vars is False:
                keep_vars = args[2]
        if destination is not None and not isinstance(destination, dict):
            raise TypeError(f"The type of destination must be OrderedDict, but got {type(destination)}")
        if not isinstance(prefix, str):
            raise TypeError(f"The type of prefix must be string, but got {type(prefix)}")
        if not isinstance(keep_vars, bool):
            raise TypeError(f"The type of keep_vars must be bool, but got {type(keep_vars)}")
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = {}
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in list(_hooks(self, "_state_dict_pre_hooks").values()):
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, cell in self._cells.items():
            if cell is not None:
                cell.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        for hook in list(_hooks(self, "_state_dict_hooks").values()):
            if hook(self, destination, prefix, local_metadata) is not None:
                raise RuntimeError("state_dict post-hook must return None")
        return destination

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        for hook in list(_hooks(self, "_load_state_dict_pre_hooks").values()):
            hook(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)
        local_state = {k: v for k, v in self._params.items() if v is not None}
        local_state.update((k, v) for k, v in self._buffers.items()
                           if v is not None and k not in self._non_persistent_buffers_set)
        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            value = state_dict[key]
            if not isinstance(value, Tensor):
                error_msgs.append(f'While copying the parameter named "{key}", expected Tensor or Tensor-like object '
                                  f'from checkpoint but received {type(value)}')
                continue
            if tuple(value.shape) != tuple(param.shape):
                error_msgs.append(f"size mismatch for {key}: copying a param with shape {value.shape} from "
                                  f"checkpoint, the shape in current model is {param.shape}.")
                continue
            param.assign_value(Tensor(value.asnumpy(), dtype=param.dtype))
        extra_key = prefix + _EXTRA_STATE_KEY_SUFFIX
        if self._has_own("set_extra_state"):
            if extra_key in state_dict:
                self.set_extra_state(state_dict[extra_key])
            elif strict:
                missing_keys.append(extra_key)
        elif strict and extra_key in state_dict:
            unexpected_keys.append(extra_key)
        if strict:
            for key in state_dict:
                if key.startswith(prefix) and key != extra_key:
                    head = key[len(prefix):].split(".", 1)
                    if (head[0] not in self._cells) if len(head) > 1 else (head[0] not in local_state):
                        unexpected_keys.append(key)

    @jit_forbidden_register
    def load_state_dict(self, state_dict, strict=True):
        """Copy the values of `state_dict` (dotted name -> Tensor, as `state_dict` gives) into this cell's
        parameters and persistent buffers.

        Args:
            state_dict (Mapping): the values.
            strict (bool): raise when a key is missing or unexpected. Default ``True``.

        Returns:
            a named tuple (missing_keys, unexpected_keys).

        Raises:
            TypeError: `state_dict` is no mapping.
            RuntimeError: missing / unexpected keys (with `strict`), a value that is no Tensor, or a shape mismatch.
        """
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing_keys, unexpected_keys, error_msgs = [], [], []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)

        def load(cell, local, prefix=""):
            local_metadata = {} if metadata is None else metadata.get(prefix[:-1], {})
            cell._load_from_state_dict(local, prefix, local_metadata, True, missing_keys, unexpected_keys,
                                       error_msgs)
            for name, child in cell._cells.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    load(child, {k: v for k, v in local.items() if k.startswith(child_prefix)}, child_prefix)
            incompatible = _IncompatibleKeys(missing_keys, unexpected_keys)
            for hook in list(_hooks(cell, "_load_state_dict_post_hooks").values()):
                if hook(cell, incompatible) is not None:
                    raise RuntimeError("Hooks registered with ``register_load_state_dict_post_hook`` are not "
                                       "expected to return new values, if incompatible_keys need to be modified, "
                                       "it should be done inplace.")

        load(self, state_dict)
        if strict:
            if unexpected_keys:
                error_msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected_keys)))
            if missing_keys:
                error_msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing_keys)))
        if error_msgs:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                type(self).__name__, "\n\t".join(error_msgs)))
        return _IncompatibleKeys(missing_keys, unexpected_keys)
