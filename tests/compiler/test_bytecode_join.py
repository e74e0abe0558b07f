"""jit(capture_mode="bytecode") (MindSpore's PIJit) breaks the graph where an `if` on a tensor gives values of
different dtypes: the function runs in the interpreter with PyNative's result, where jit(capture_mode="ast")
raises MindSpore's TypeError."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import Tensor


def mixed(x, w):
    out = x
    if (x > 0).all():
        out = out + w          # int32 + float32: float32 on this side, int32 on the other
    return out


def test_bytecode_capture_runs_unjoinable_branches_in_the_interpreter():
    x, w = Tensor(np.array([1, 2], np.int32)), Tensor(np.array([0.5, 0.5], np.float32))
    with pytest.warns(UserWarning, match="Cannot join the return values of different branches"):
        out = ms.jit(mixed, capture_mode="bytecode")(x, w)
    np.testing.assert_allclose(out.asnumpy(), [1.5, 2.5])
    assert out.dtype == ms.float32
    out = ms.jit(mixed, capture_mode="bytecode")(-x, w)
    np.testing.assert_array_equal(out.asnumpy(), [-1, -2])


def test_ast_capture_raises_the_join_error():
    x, w = Tensor(np.array([1, 2], np.int32)), Tensor(np.array([0.5, 0.5], np.float32))
    with pytest.raises(TypeError, match="Type Join Failed: dtype1 = Float32, dtype2 = Int32"):
        ms.jit(mixed)(x, w)
