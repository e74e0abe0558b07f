"""mindseed.numpy.utils_const and mindseed._extends.parse.standard_method: MindSpore's helper functions."""
import numpy as np
import pytest

import mindseed as ms
from mindseed._extends.parse import standard_method as S
from mindseed.numpy.utils_const import _canonicalize_axis, _infer_out_shape


def test_infer_out_shape_broadcasts_like_numpy():
    assert _infer_out_shape((5,), (6, 1), (7, 1, 5), (8, 1, 6, 1)) == (8, 7, 6, 5)
    assert _infer_out_shape((0, 3), (1, 3)) == np.broadcast_shapes((0, 3), (1, 3))
    with pytest.raises(ValueError, match="could not be broadcast"):
        _infer_out_shape((2, 3), (4,))


def test_canonicalize_axis():
    assert _canonicalize_axis(-1, 3) == 2 and _canonicalize_axis((2, -3), 3) == (0, 2)
    with pytest.raises(ValueError, match="out of bounds"):
        _canonicalize_axis(3, 3)
    with pytest.raises(ValueError, match="duplicate axes"):
        _canonicalize_axis((1, -2), 3)


def test_standard_method_functions_call_the_tensor_methods():
    x = ms.Tensor(np.array([[4.0, 9.0, 2.0, 10.0]], np.float32))
    assert S.unsqueeze(x, 0).shape == (1, 1, 4) and S.swapaxes(x, 0, 1).shape == (4, 1)
    assert S.reshape(x, 2, 2).shape == (2, 2) and int(S.argmax(x, 1).asnumpy()[0]) == 3
    assert bool(S.tensor_bool(ms.Tensor([4.0])))
    with pytest.raises(ValueError, match="ambiguous"):
        S.tensor_bool(x)
