"""The Lite runtime's native path: a model compiled to C by `mindseed.lite.codegen` (weights packed at generation
time, residual additions and ReLUs in the convolutions' epilogues, a static arena), built as a shared library
with the system C compiler and called through ctypes.

`build_native(model_path, arrays)` returns a `NativeModel` for the inputs' shapes, or None when the model has no C
translation (an operator without a C kernel, control flow, a value neither float32 nor int32 index), no C compiler
is found, or the build fails: the caller keeps its kernel path then. Each NativeModel is its own library, loaded
from its own (then removed) file: the generated code keeps its state in static variables, so models and
ModelParallelRunner workers never share state.
"""
import ctypes
import os
import shutil
import subprocess
import tempfile

import numpy as np

__all__ = ["NativeModel", "build_native"]

_INPUT_DTYPES = (np.dtype(np.float32), np.dtype(np.int32))     # what the generated C's predict takes
_CFLAGS = ["-O3", "-std=c99", "-ffp-contract=fast", "-march=native", "-shared", "-fPIC"]


class NativeModel:
    """The generated C of one input signature: `run(*arrays) -> [float32 arrays]` (fresh outputs each call; each
    input float32, or int32 where the C takes indices, as `in_dtypes`); `arena_bytes`, its static activation arena."""

    def __init__(self, lib, in_dtypes, out_shapes, arena_bytes):
        self._lib, self.in_dtypes, self.out_shapes, self.arena_bytes = lib, in_dtypes, out_shapes, arena_bytes
        self._predict = lib.model_predict
        self._predict.restype = ctypes.c_int

    def run(self, *arrays):
        ins = [np.ascontiguousarray(a, dt) for a, dt in zip(arrays, self.in_dtypes)]
        outs = [np.empty(s, np.float32) for s in self.out_shapes]
        rc = self._predict(*[a.ctypes.data_as(ctypes.c_void_p) for a in ins + outs])
        if rc != 0:
            raise RuntimeError(f"For 'Model.predict', the native model failed: "
                               f"{self._lib.model_last_error().decode(errors='replace')}")
        return outs

    def __del__(self):
        lib = getattr(self, "_lib", None)
        if lib is not None:
            lib.model_free()


def _compiler():
    for cc in (os.environ.get("CC"), "gcc", "cc", "clang"):
        if cc and shutil.which(cc):
            return cc
    return None


def build_native(model_path, arrays):
    """The MindIR file `model_path` compiled to C for the shapes of `arrays` (numpy), or None (see the module)."""
    from mindseed.lite import codegen  # noqa: PLC0415 -- codegen imports the Lite compiler
    cc = _compiler()
    if cc is None or not arrays or any(
            np.dtype(a.dtype) not in _INPUT_DTYPES or a.ndim == 0 for a in arrays):
        return None
    folder = tempfile.mkdtemp(prefix="mindseed_lite_")
    try:
        codegen.generate(model_path, folder, name="model", input_shapes=[tuple(a.shape) for a in arrays])
        lib_path = os.path.join(folder, "model.so")
        r = subprocess.run([cc, *_CFLAGS, "-o", lib_path, os.path.join(folder, "model.c"), "-lm"],
                           capture_output=True, text=True, timeout=600)
        if r.returncode != 0:
            raise OSError(r.stderr)
        lib = ctypes.CDLL(lib_path)
        lib.model_last_error.restype = ctypes.c_char_p
        if lib.model_init(os.path.join(folder, "model.bin").encode()) != 0:
            raise OSError(lib.model_last_error().decode(errors="replace"))
        header = open(os.path.join(folder, "model.h"), encoding="utf-8").read()
    except (OSError, ValueError, subprocess.SubprocessError):   # CodegenError is a ValueError
        return None
    finally:        # the library is mapped and its weights read: the files are not needed any more
        shutil.rmtree(folder, ignore_errors=True)
    arena = [line.split()[2] for line in header.splitlines() if line.startswith("#define MODEL_ARENA_BYTES ")]
    ins = _declared(header, "input")
    if [np.dtype(dt) for dt, _ in ins] != [np.dtype(a.dtype) for a in arrays]:
        return None     # an input the C takes in another type (an int32 one read as floats, say): kernels only
    return NativeModel(lib, [dt for dt, _ in ins], [s for _, s in _declared(header, "output")], int(arena[0]))


def _declared(header, kind):
    """(dtype, shape) of each input or output from the generated header's comments ("/* output k: float32 [d0,
    d1] (...) */")."""
    found = []
    for line in header.splitlines():
        if line.startswith(f"/* {kind} "):
            dtype = line.split(":", 1)[1].split()[0]
            dims = line.split("[", 1)[1].split("]", 1)[0]
            found.append((np.dtype(dtype), tuple(int(d) for d in dims.split(",") if d.strip())))
    return found
