"""mindspore.boost.adasum.AdaSum on one node: the combined change is the node's own, and each parameter becomes its
old value minus it."""
import numpy as np

from mindseed import Parameter, Tensor
from mindseed.boost.adasum import AdaSum


def test_adasum_one_node_updates_parameters_from_old_values():
    w = Parameter(Tensor(np.ones((2, 2), np.float32)), name="w")
    b = Parameter(Tensor(np.zeros(2, np.float32)), name="b")
    old_w = Parameter(Tensor(np.full((2, 2), 3.0, np.float32)), name="old_w")
    old_b = Parameter(Tensor(np.array([1.0, -1.0], np.float32)), name="old_b")
    dw, db = np.arange(4, dtype=np.float32).reshape(2, 2), np.array([0.5, 0.25], np.float32)
    out = AdaSum(0, 1, 1, (w, b))((Tensor(dw), Tensor(db)), (w, b), (old_w, old_b))
    assert out[0] is w and out[1] is b
    np.testing.assert_allclose(w.asnumpy(), 3.0 - dw)
    np.testing.assert_allclose(b.asnumpy(), np.array([1.0, -1.0]) - db)
