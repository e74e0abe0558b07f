"""Building C++ operator modules (`ops.CustomOpBuilder`) with torch's extension loader: the sources are compiled
with the kernel library's headers (ATen) and pybind11 into a Python module; its functions take and return backend
tensors, which `wrap_module` converts from and to the caller's tensors."""
import os

from torch.utils import cpp_extension

__all__ = ["build_module"]


def build_module(name, sources, include_paths, cflags, ldflags, build_dir):
    """Compile `sources` into the Python module `name` in `build_dir` (reused when up to date) and import it."""
    os.makedirs(build_dir, exist_ok=True)
    return cpp_extension.load(name=name, sources=list(sources), extra_include_paths=list(include_paths),
                              extra_cflags=list(cflags), extra_ldflags=list(ldflags), build_directory=build_dir,
                              verbose=False)


def is_backend_tensor(x):
    import torch  # noqa: PLC0415 -- torch is loaded with this package
    return isinstance(x, torch.Tensor)
