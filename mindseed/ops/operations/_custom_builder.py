"""`ops.CustomOpBuilder`: custom operators written in C++, compiled and loaded as a module of functions.

The sources are C++ against the kernel library's tensor API (ATen, `#include <torch/extension.h>`) exposing
functions with pybind11 (`PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("add", &add); }`). `load()` builds
them once per name (in `build_dir`, default `$MS_COMPILER_CACHE_PATH/<name>`, `./kernel_meta/<name>`) and returns
the module, whose functions take and return mindseed Tensors."""
import functools
import os
import types

from mindseed.common.tensor import Tensor

__all__ = ["CustomOpBuilder"]


def _strs(api, name, v):
    if v is None:
        return []
    if isinstance(v, str):
        return [v]
    if isinstance(v, (list, tuple)) and all(isinstance(s, str) for s in v):
        return list(v)
    raise TypeError(f"For '{api}', the '{name}' must be a str or a list/tuple of str, but got {v!r}.")


def _to_backend(x):
    if isinstance(x, Tensor):
        return x._data
    if isinstance(x, (tuple, list)):
        return type(x)(_to_backend(v) for v in x)
    return x


def _from_backend(x):
    from mindseed._backend.extension import is_backend_tensor  # noqa: PLC0415
    if is_backend_tensor(x):
        return Tensor._from_raw(x)
    if isinstance(x, (tuple, list)):
        return type(x)(_from_backend(v) for v in x)
    return x


def _wrap(fn):
    @functools.wraps(fn)
    def call(*args, **kwargs):
        out = fn(*[_to_backend(a) for a in args], **{k: _to_backend(v) for k, v in kwargs.items()})
        return _from_backend(out)
    return call


class CustomOpBuilder:
    """Compile and load a C++ custom operator module.

    Args:
        name (str): the module's unique name.
        sources (Union[str, list[str], tuple[str]]): the C++ source file(s).
        backend (str): "CPU" or "GPU" (None: the current device). "Ascend" is refused.
        include_paths (Union[str, list[str]]): extra include directories. Default: ``None``.
        cflags (str): extra compiler flags. Default: ``None``.
        ldflags (str): extra linker flags. Default: ``None``.
        kwargs: ``build_dir`` (str): where the build files go.

    Raises:
        TypeError: a bad argument type. ValueError: an empty name or an unavailable backend. FileNotFoundError: a
            missing source (at build or load).
    """

    _loaded_ops = {}

    def __init__(self, name, sources, backend=None, include_paths=None, cflags=None, ldflags=None, **kwargs):
        api = "CustomOpBuilder"
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"For '{api}', the 'name' must be a non-empty identifier, but got {name!r}.")
        self.name = name
        self.source = _strs(api, "sources", sources)
        if not self.source:
            raise ValueError(f"For '{api}', the 'sources' must name at least one file.")
        if backend not in (None, "CPU", "GPU"):
            raise ValueError(f"For '{api}', the 'backend' must be 'CPU' or 'GPU' here (mindseed runs on the devices "
                             f"PyTorch supports), but got {backend!r}.")
        self.backend = backend
        self.include_paths = _strs(api, "include_paths", include_paths)
        for flag, v in (("cflags", cflags), ("ldflags", ldflags)):
            if v is not None and not isinstance(v, str):
                raise TypeError(f"For '{api}', the '{flag}' must be a str, but got {type(v).__name__}.")
        self.cflags, self.ldflags = cflags, ldflags
        self.build_dir = kwargs.get("build_dir")

    def get_sources(self):
        return list(self.source)

    def get_include_paths(self):
        return list(self.include_paths)

    def get_cflags(self):
        return self.cflags.split() if self.cflags else []

    def get_ldflags(self):
        return self.ldflags.split() if self.ldflags else []

    def _get_build_directory(self):
        if self.build_dir:
            return os.path.realpath(self.build_dir)
        return os.path.realpath(os.path.join(os.getenv("MS_COMPILER_CACHE_PATH", "./kernel_meta"), self.name))

    def build(self):
        """Compile the module; returns the built library's path."""
        module = self._build_module()
        return module.__file__

    def _build_module(self):
        # as MindSpore: a missing source is found when the module is built (the builder is made without looking)
        missing = [s for s in self.source if not os.path.isfile(s)]
        if missing:
            raise FileNotFoundError(f"For 'CustomOpBuilder', the source files {missing} do not exist.")
        from mindseed._backend.extension import build_module  # noqa: PLC0415 -- loads the C++ toolchain support
        return build_module(self.name, self.get_sources(), self.get_include_paths(), self.get_cflags(),
                            self.get_ldflags(), self._get_build_directory())

    def load(self):
        """Build (once per name) and load the module: its functions take and return Tensors."""
        if self.name in CustomOpBuilder._loaded_ops:
            return CustomOpBuilder._loaded_ops[self.name]
        so = self._build_module()
        mod = types.ModuleType(self.name, getattr(so, "__doc__", None))
        for attr in dir(so):
            if not attr.startswith("__"):
                value = getattr(so, attr)
                setattr(mod, attr, _wrap(value) if callable(value) else value)
        mod.__file__ = so.__file__
        CustomOpBuilder._loaded_ops[self.name] = mod
        return mod
