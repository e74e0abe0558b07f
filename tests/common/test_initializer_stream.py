"""Initializers draw MindSpore's own numbers: a seed from numpy's global generator, then MindSpore's Philox stream
(uniform, Box-Muller normal, inverse-CDF truncated normal). The values below were printed by MindSpore 2.10."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import nn
from mindseed.common import _init_random as R
from mindseed.common.initializer import (HeUniform, Normal, Orthogonal, Sparse, TruncatedNormal, VarianceScaling,
                                         XavierUniform, initializer)


def _first(t, k=4):
    return np.round(t.asnumpy().ravel()[:k].astype(np.float64), 5).tolist()


def test_the_three_streams_bit_for_bit():
    # MindSpore's `_c_expression._random_uniform/_random_normal/_truncated_normal` on the same seeds
    assert R.uniform(1, (5,), -0.3, 0.7).view(np.uint32).tolist() == [
        3196816226, 3173295749, 3181256166, 1040406467, 3180054926]
    assert R.normal(123456789123, (5,), 0.5, 2.0)[:3].view(np.uint32).tolist() == [1070440616, 3221410493, 1072174517]
    assert R.truncated_normal(2 ** 62 + 12345, (5,), -2.0, 2.0, 0.0, 1.0)[:3].view(np.uint32).tolist() == [
        1063020084, 1025004810, 1051425358]


def test_seeded_layers_start_from_mindspores_weights():
    ms.set_seed(3)
    d = nn.Dense(3, 2)
    assert _first(d.weight) == [-0.26343, -0.0035, -0.13078, -0.33877] and _first(d.bias, 2) == [0.55713, -0.02209]
    c = nn.Conv2d(1, 2, 3, has_bias=True)
    assert _first(c.weight) == [-0.00908, 0.18857, -0.26324, -0.11394] and _first(c.bias, 2) == [-0.00849, 0.30948]
    lstm = nn.LSTM(4, 3, num_layers=2, bidirectional=True, batch_first=True)   # numpy's generator directly
    assert _first(lstm.trainable_params()[0]) == [0.45374, 0.4576, -0.43234, -0.33805]
    cell = nn.GRUCell(3, 2)     # numpy normal draws, then every parameter re-initialized uniformly
    assert _first(cell.trainable_params()[3]) == [0.17986, 0.3588, -0.35721, 0.01705]
    assert _first(nn.Embedding(5, 3).embedding_table) == [0.00992, -0.00983, 0.0028, -0.00164]


def test_initializer_classes_and_numpy_state():
    ms.set_seed(3)
    expected = [(Normal(0.2, 1.0), [0.65545, 1.11174, 1.13723, 0.40659]),
                (TruncatedNormal(0.5), [1.05374, -0.02398, -0.51502, 0.23824]),
                (XavierUniform(), [-0.02224, 0.46189, -0.6448, -0.2791]),
                ("he_uniform", [-0.02792, 1.01705, 0.34653, -0.08963])]
    for init, values in expected:
        assert _first(initializer(init, (4, 5), ms.float32)) == values, init
    np.testing.assert_array_equal(initializer(Normal(), (3,), ms.float16).asnumpy(),
                                  np.array([-0.0095062255859375, 0.0156097412109375, 0.0002727508544921875],
                                           np.float16))
    assert np.random.rand() == 0.8962930889334381      # each initializer took one numpy seed, as in MindSpore


def test_variance_scaling_sparse_orthogonal():
    ms.set_seed(0)
    # MindSpore 2.10 tests for 'truncated_norm', so its default 'truncated_normal' draws uniformly
    vs = initializer(VarianceScaling(), (4, 5), ms.float32).asnumpy()
    assert np.abs(vs).max() <= np.sqrt(3.0 / 5) and len(np.unique(np.round(vs, 6))) == 20
    sparse = initializer(Sparse(0.5), (4, 3), ms.float32).asnumpy()
    assert ((sparse == 0).sum(axis=0) == 2).all()
    q = initializer(Orthogonal(), (3, 5), ms.float32).asnumpy()
    np.testing.assert_allclose(q @ q.T, np.eye(3), atol=1e-5)
    np.testing.assert_allclose(q[0], [0.18731, -0.00998, -0.11398, -0.68616, -0.69355], atol=1e-5)
    with pytest.raises(RuntimeError, match="invalid sigma"):
        R.truncated_normal(1, (2,), -1.0, 1.0, 0.0, 0.0)
    assert HeUniform().negative_slope == 0


@pytest.mark.parametrize("draw", [lambda: R.uniform(77, (1 << 20 | 5,), -0.3, 0.7),
                                  lambda: R.normal(123456789123, (1025, 1031), 0.5, 2.0),
                                  lambda: R.truncated_normal(2 ** 62 + 12345, (1 << 20 | 3,), -2.0, 2.0, 0.0, 1.0)])
def test_large_arrays_fill_in_slices_on_threads_with_the_same_numbers(monkeypatch, draw):
    """A large array is filled by several threads, each from its own place in the Philox stream: the numbers do
    not depend on the number of threads (MindSpore's own fill is multi-threaded too)."""
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    one = draw()
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    three = draw()
    assert one.dtype == three.dtype == np.float32 and one.shape == three.shape
    np.testing.assert_array_equal(one.view(np.uint32), three.view(np.uint32))
    assert np.isfinite(one).all() and 0.2 < float(np.std(one)) < 2.5
