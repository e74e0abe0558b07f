"""The initializer module's internals that user-written initializers use (MindSpore's names)."""
import numpy as np
import pytest

import mindseed as ms
from mindseed.common import initializer as init


def test_alias_table_assignment_and_register():
    assert init._INITIALIZER_ALIAS["truncatednormal"] is init.TruncatedNormal
    arr = np.zeros((2, 2), np.float32)
    assert init._assignment(arr, np.arange(4).reshape(2, 2)) is arr
    np.testing.assert_array_equal(arr, [[0, 1], [2, 3]])

    @init._register("ramp_alias")
    class Ramp(init.Initializer):
        def _initialize(self, arr):
            init._assignment(arr, np.arange(arr.size).reshape(arr.shape))
    try:
        for name in ("ramp", "ramp_alias"):
            np.testing.assert_array_equal(init.initializer(name, (2, 3), ms.float32).asnumpy(),
                                          np.arange(6).reshape(2, 3))
    finally:
        init._ALIASES.pop("ramp")
        init._ALIASES.pop("ramp_alias")


def test_truncated_normal_stays_in_bounds_with_the_truncated_moments():
    ms.set_seed(3)
    v = init.initializer(init.TruncatedNormal(sigma=1.0, a=-1.0, b=1.0), (20000,), ms.float32).asnumpy()
    assert v.min() >= -1.0 and v.max() <= 1.0
    # N(0, 1) truncated to [-1, 1]: variance 1 - 2 phi(1) / (Phi(1) - Phi(-1)) = 0.2911
    assert abs(v.mean()) < 0.02 and abs(v.var() - 0.2911) < 0.01


def test_a_tensor_init_is_returned_as_is_with_its_dtype():
    t = ms.Tensor(np.full((2, 3), 0.5, np.float16))
    assert init.initializer(t, (2, 3), ms.float32) is t
    conv = ms.nn.Conv2d(2, 2, 1, weight_init=ms.Tensor(np.ones((2, 2, 1, 1), np.float16)))
    assert conv.weight.dtype == ms.float16
    out = conv(ms.Tensor(np.full((1, 2, 1, 1), 2.0, np.float16)))
    assert out.dtype == ms.float16
    np.testing.assert_array_equal(out.asnumpy().ravel(), [4.0, 4.0])


@pytest.mark.parametrize("name", ["normal", "zeros", "ones"])
@pytest.mark.parametrize("shape", [(0, 3), (2, 0), 0])
def test_an_empty_shape_is_refused_as_mindspore(name, shape):
    with pytest.raises(ValueError, match="For 'initializer', the argument 'shape' is invalid, the value of 'shape' "
                                         "must be positive integer"):
        init.initializer(name, shape)
    with pytest.raises(ValueError, match="must be positive integer, but got \\(0, 3\\)"):
        ms.nn.Embedding(0, 3)
