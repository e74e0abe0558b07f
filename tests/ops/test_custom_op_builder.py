"""ops.CustomOpBuilder: a C++ module compiled with the kernel library's extension loader, loaded once per name, its
functions taking and returning Tensors (a pybind11-only source keeps the compile short; the build directory is
kept between runs, so only the first run compiles)."""
import os
import shutil
import sysconfig
import tempfile

import numpy as np
import pytest

import mindseed as ms
from mindseed import ops

_SOURCE = r"""
#include <pybind11/pybind11.h>
namespace py = pybind11;

double axpy(double a, double x, double y) { return a * x + y; }

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("axpy", &axpy, "a * x + y");
  m.def("identity", [](py::object o) { return o; }, "the argument itself");
  m.def("pair", [](py::object a, py::object b) { return py::make_tuple(b, a); }, "(b, a)");
}
"""


@pytest.fixture(scope="module")
def source_dir():
    if shutil.which("c++") is None and shutil.which("g++") is None:
        pytest.skip("no C++ compiler on this machine")
    if shutil.which("ninja") is None:
        pytest.skip("the C++ extension loader needs ninja, which this machine lacks")
    if not os.path.isfile(os.path.join(sysconfig.get_paths()["include"], "Python.h")):
        pytest.skip("no Python development headers (Python.h) on this machine")
    root = os.path.join(tempfile.gettempdir(), "mindseed_custom_op_builder_test")
    os.makedirs(root, exist_ok=True)
    path = os.path.join(root, "ms_test_ops.cpp")
    if not os.path.isfile(path) or open(path).read() != _SOURCE:
        with open(path, "w") as f:
            f.write(_SOURCE)
    return root


def test_build_and_load(source_dir):
    builder = ops.CustomOpBuilder("ms_test_ops", os.path.join(source_dir, "ms_test_ops.cpp"), "CPU",
                                  cflags="-O1", build_dir=os.path.join(source_dir, "build"))
    mod = builder.load()
    assert mod.axpy(2.0, 3.0, 1.0) == 7.0
    x = ms.Tensor(np.arange(3, dtype=np.float32))
    same = mod.identity(x)                                    # through C++ as the backend tensor and back
    assert isinstance(same, ms.Tensor) and same.tolist() == [0.0, 1.0, 2.0]
    b, a = mod.pair(x, ms.Tensor(np.ones(2, np.int32)))
    assert a.tolist() == [0.0, 1.0, 2.0] and b.dtype == ms.int32
    assert builder.load() is mod                              # once per name
    assert os.path.isfile(builder.build())
    assert builder.get_cflags() == ["-O1"] and builder.get_sources() == [os.path.join(source_dir, "ms_test_ops.cpp")]


def test_bad_arguments(tmp_path):
    builder = ops.CustomOpBuilder("x_ops", str(tmp_path / "none.cpp"))    # MindSpore 2.10: found at load()
    with pytest.raises(FileNotFoundError, match="do not exist"):
        builder.load()
    src = tmp_path / "a.cpp"
    src.write_text("")
    with pytest.raises(ValueError, match="'backend' must be 'CPU' or 'GPU'"):
        ops.CustomOpBuilder("x_ops", str(src), "Ascend")
    with pytest.raises(ValueError, match="non-empty identifier"):
        ops.CustomOpBuilder("", str(src))
    with pytest.raises(TypeError, match="the 'sources' must be a str or a list"):
        ops.CustomOpBuilder("x_ops", 3)
    with pytest.raises(TypeError, match="the 'cflags' must be a str"):
        ops.CustomOpBuilder("x_ops", str(src), cflags=["-O2"])
