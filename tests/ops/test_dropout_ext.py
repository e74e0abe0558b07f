"""The counter-based random interface mindformers' mcore models use: Generator._step's (seed, offset) counter and the
DropoutExt primitive (a mask that is a function of (seed, offset) alone)."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import Tensor, ops
from mindseed.ops.auto_generate import DropoutExt, dropout_ext_op
from mindseed.ops.function.nn_func import dropout_ext


def _pair(seed, offset):
    return Tensor(seed, ms.int64), Tensor(offset, ms.int64)


def test_step_returns_seed_and_offset_then_advances_the_offset():
    g = ms.Generator().manual_seed(5)
    seed, offset = g._step(Tensor(4, ms.int64))
    assert (seed.dtype, seed.shape, int(seed), int(offset)) == (ms.int64, (), 5, 0)
    assert [int(t) for t in g._step(Tensor(3, ms.int64))] == [5, 4]
    assert [int(t) for t in g._step(Tensor(1, ms.int64))] == [5, 7]
    g.manual_seed(9)  # a new seed restarts the counter
    assert [int(t) for t in g._step(Tensor(2, ms.int64))] == [9, 0]
    with pytest.raises(RuntimeError, match="step"):
        g._step(2)  # MindSpore wants a Tensor


def test_default_generator_counter_restarts_with_manual_seed_only():
    ms.manual_seed(21)
    first = [int(t) for t in ms.default_generator._step(Tensor(12, ms.int64))]
    second = [int(t) for t in ms.default_generator._step(Tensor(12, ms.int64))]
    assert first == [21, 0] and second == [21, 12]
    ms.set_seed(21)  # as in MindSpore 2.10, set_seed leaves the counter where it was
    assert int(ms.default_generator._step(Tensor(12, ms.int64))[1]) == 24
    ms.manual_seed(21)
    assert [int(t) for t in ms.default_generator._step(Tensor(12, ms.int64))] == [21, 0]


def test_dropout_ext_keeps_one_minus_p_and_scales_by_its_inverse():
    x = ops.ones((300, 200))
    out, mask = DropoutExt()(x, 0.3, *_pair(1234, 0))
    out, mask = out.asnumpy(), mask.asnumpy()
    assert mask.dtype == np.bool_ and mask.shape == (300, 200)
    # 60000 Bernoulli(0.7) draws: the kept fraction is within 5 standard deviations of 0.7
    assert abs(mask.mean() - 0.7) < 5 * np.sqrt(0.7 * 0.3 / mask.size)
    np.testing.assert_allclose(out[mask], 1 / 0.7, rtol=1e-6)
    assert (out[~mask] == 0).all()


def test_dropout_ext_mask_is_a_function_of_seed_and_offset():
    x = Tensor(np.random.RandomState(0).randn(64, 32).astype(np.float32))
    a = DropoutExt()(x, 0.5, *_pair(7, 12))[1].asnumpy()
    ops.rand(100)  # other draws from the global stream do not move it
    b = dropout_ext_op(x, 0.5, *_pair(7, 12))[1].asnumpy()
    np.testing.assert_array_equal(a, b)
    other_offset = DropoutExt()(x, 0.5, *_pair(7, 24))[1].asnumpy()
    other_seed = DropoutExt()(x, 0.5, *_pair(8, 12))[1].asnumpy()
    # independent masks agree on about half the 2048 elements, identical ones on all
    assert 0.4 < (a == other_offset).mean() < 0.6 and 0.4 < (a == other_seed).mean() < 0.6


def test_dropout_ext_gradient_goes_through_the_mask():
    x = Tensor(np.random.RandomState(1).randn(40, 10).astype(np.float32))
    seed, offset = _pair(3, 0)
    g = ms.grad(lambda z: (DropoutExt()(z, 0.25, seed, offset)[0] * 3).sum())(x).asnumpy()
    mask = DropoutExt()(x, 0.25, seed, offset)[1].asnumpy()
    np.testing.assert_allclose(g, np.where(mask, 3 / 0.75, 0.0), rtol=1e-6)


def test_dropout_ext_edges_and_errors():
    x = ops.ones((4, 5))
    np.testing.assert_array_equal(DropoutExt()(x, 0.0, *_pair(1, 0))[0].asnumpy(), np.ones((4, 5)))
    np.testing.assert_array_equal(DropoutExt()(x, 1.0, *_pair(1, 0))[0].asnumpy(), np.zeros((4, 5)))
    with pytest.raises(ValueError, match="DropoutExt.*'p'"):
        DropoutExt()(x, 1.5, *_pair(1, 0))
    with pytest.raises(TypeError, match="DropoutExt.*'seed'"):
        DropoutExt()(x, 0.5, 1.5, Tensor(0, ms.int64))


def test_functional_dropout_ext_draws_from_the_default_generator():
    x = ops.ones((100, 100))
    ms.manual_seed(4)
    a = dropout_ext(x, 0.4).asnumpy()
    b = dropout_ext(x, 0.4).asnumpy()  # the counter moved: a new mask
    ms.manual_seed(4)
    np.testing.assert_array_equal(dropout_ext(x, 0.4).asnumpy(), a)
    assert 0.4 < ((a != 0) == (b != 0)).mean() < 0.6
    assert abs((a != 0).mean() - 0.6) < 0.03
    assert dropout_ext(x, 0.4, training=False) is x
