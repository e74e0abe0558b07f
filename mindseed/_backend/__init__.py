"""The kernel library: the only package of mindseed that imports torch, on first use.

Everything above this package sees backend tensors as opaque values and reaches kernels through
the names exported here (`mindseed._backend.kernels` and the helpers of `_core`). Backend tensors never
require grad: autodiff is mindseed's own.

This package is a face (`_lazy`): its names are `_core`'s, and reading one imports torch. The kernel families
(`kernels.<family>`) hand out stubs until then, so `import mindseed` does not import torch.
"""
from mindseed._backend import _lazy
from mindseed._backend import _placeholder as _ph
from mindseed._backend._rng import Generator  # noqa: F401 -- torch-free until it draws
from mindseed._backend.kernels.std_engine import KernelEngines, MinstdRand0, PhiloxLeftover, mix_seed  # noqa: F401,E501 -- numpy only

_lazy.face(__name__, "mindseed._backend._core")


def _export_library_path():
    """Importing MindSpore puts the directory of its native kernels on LD_LIBRARY_PATH, and code reads the variable
    after `import mindspore` (Golden Stick's GPTQ looks for a LAPACK there): ours are torch's, found without
    importing it."""
    import importlib.util  # noqa: PLC0415
    import os  # noqa: PLC0415
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.origin:
        return
    lib = os.path.join(os.path.dirname(spec.origin), "lib")
    paths = [p for p in os.environ.get("LD_LIBRARY_PATH", "").split(":") if p]
    if lib not in paths:
        os.environ["LD_LIBRARY_PATH"] = ":".join(paths + [lib])


_export_library_path()


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


def is_placeholder(x):
    """Whether x is a data-less array made before torch loaded (`materialize` turns it into a meta tensor)."""
    return isinstance(x, _ph.Placeholder)


def materialize(x):
    """The meta tensor of a Placeholder once torch is loaded (x itself otherwise)."""
    if isinstance(x, _ph.Placeholder) and _lazy.loaded():
        return _core_of().meta(x.shape, x.dtype)
    return x


def is_array(x):
    """(Before torch loads no torch tensor exists.)"""
    return isinstance(x, _ph.Placeholder) or (_lazy.loaded() and _core_of().is_array(x))


@_lazy.when_loaded
def _drop_readers():
    for name in ("meta", "is_array", *_ph.READERS):
        globals().pop(name, None)
