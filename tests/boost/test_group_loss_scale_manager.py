"""boost.GroupLossScaleManager against MindSpore 2.10 (its scale bookkeeping on CPU; the scaled gradient follows
MindSpore's _DynamicLossScale gradient rule, dout * loss_scale, as the op has no CPU kernel there)."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import Tensor, boost
from mindseed.boost.group_loss_scale_manager import _DynamicLossScale


def _scales(manager):
    return [float(p.asnumpy()) for p in manager.dynamic_loss_scale]


def test_scale_status():
    manager = boost.GroupLossScaleManager(4.0, [[1], [2]])
    assert manager.get_loss_scale() == 4.0 and manager.get_update_cell() is manager
    assert manager.loss_scale_number == 0 and manager.layer_loss_scale is None and manager.dynamic_loss_scale is None
    manager.set_loss_scale_status(2, 8.0)
    assert [p.name for p in manager.dynamic_loss_scale] == [f"layer_loss_scale_{i}" for i in range(4)]
    assert _scales(manager) == [1.0, 8.0, 8.0, 1.0]
    manager.set_loss_scale_status(2, [3.0, 5.0])
    assert _scales(manager) == [1.0, 3.0, 5.0, 1.0]
    assert float(manager.update_loss_scale_status(0, 0.5).asnumpy()) == 1.5
    assert _scales(manager) == [1.0, 1.5, 5.0, 1.0]


def test_scaled_gradient():
    manager = boost.GroupLossScaleManager(4.0, [[1], [2]])
    manager.set_loss_scale_status(2, [1.5, 5.0])
    x = Tensor(np.array([1., 2.], np.float32))
    np.testing.assert_array_equal(manager(x, 1, 2).asnumpy(), [1., 2.])
    np.testing.assert_allclose(ms.grad(lambda v: manager(v, 2, 1).sum())(x).asnumpy(), [5 / 1.5] * 2, rtol=1e-6)
    np.testing.assert_allclose(ms.grad(lambda v: manager(v * v, 1, 0).sum())(x).asnumpy(), [3., 6.])
    with pytest.raises(TypeError, match="the type of 'layer' should be 'int', but got type 'float'"):
        _DynamicLossScale(layer=1.5)
