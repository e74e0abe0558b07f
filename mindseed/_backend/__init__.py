"""The kernel library: the only package of mindseed that imports torch, on first use.

Everything above this package sees backend tensors as opaque values and reaches kernels through
the names exported here (`mindseed._backend.kernels` and the helpers of `_core`). Backend tensors never
require grad: autodiff is mindseed's own.

This package is a face (`_lazy`): its names are `_core`'s, and reading one imports torch. The kernel families
(`kernels.<family>`) hand out stubs until then, so `import mindseed` does not import torch.
"""
import weakref

from mindseed._backend import _lazy
from mindseed._backend import _placeholder as _ph
from mindseed._backend._rng import Generator  # noqa: F401 -- torch-free until it draws

_lazy.face(__name__, "mindseed._backend._core")


# ---------------------------------------------------------------- before torch loads
# A shapes-only recording (the parallel planner's) makes data-less arrays: `Placeholder`s while torch is not loaded.
# These readers take both; once torch loads they are dropped and the names are `_core`'s again.
def meta(shape, dtype_name_):
    if _lazy.loaded():
        return _core_of().meta(shape, dtype_name_)
    return _ph.Placeholder(shape, dtype_name_)


def _reader(name, on_placeholder):
    def read(x, *args):
        if isinstance(x, _ph.Placeholder):
            return on_placeholder(x, *args)
        return getattr(_core_of(), name)(x, *args)
    read.__name__ = name
    return read


def _core_of():
    _lazy.load()
    from mindseed._backend import _core  # noqa: PLC0415
    return _core


globals().update({name: _reader(name, fn) for name, fn in _ph.READERS.items()})


def is_array(x):
    """(Before torch loads no torch tensor exists.)"""
    return isinstance(x, _ph.Placeholder) or (_lazy.loaded() and _core_of().is_array(x))


@_lazy.when_loaded
def _drop_readers():
    for name in ("meta", "is_array", *_ph.READERS):
        globals().pop(name, None)


# objects (Tensors) holding a Placeholder as their `_data`: torch meta arrays of the same shape replace them when torch
# loads, so the placeholders made first (`Tensor(shape=[3, None], dtype=...)` for set_inputs) read as any array after
_placeholder_holders = weakref.WeakSet()


def hold_placeholder(owner):
    """Note that `owner._data` may be a Placeholder (made before torch loaded); returns owner."""
    if isinstance(owner._data, _ph.Placeholder):
        _placeholder_holders.add(owner)
    return owner


@_lazy.when_loaded
def _upgrade_placeholders():
    from mindseed._backend import _core  # noqa: PLC0415
    for owner in list(_placeholder_holders):
        p = owner._data
        if isinstance(p, _ph.Placeholder):
            owner._data = _core.meta(p.shape, p.dtype)
    _placeholder_holders.clear()
