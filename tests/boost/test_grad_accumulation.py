"""mindspore.boost.GradientAccumulation: the mean of the accumulated gradients is applied once per round."""
import numpy as np
import pytest

import mindseed as ms


def test_accumulates_then_updates_with_the_mean_gradient():
    net = ms.nn.Dense(2, 1, weight_init="ones", bias_init="zeros")
    opt = ms.nn.SGD(net.trainable_params(), 1.0)
    acc = ms.boost.GradientAccumulation(2, opt)
    grad = ms.ops.GradOperation(get_by_list=True)(net, opt.parameters)
    xs = [np.array([[1.0, 2.0]], np.float32), np.array([[1.0, 4.0]], np.float32)]
    assert float(acc(ms.Tensor(0.5), grad(ms.Tensor(xs[0])))) == 0.5
    np.testing.assert_allclose(net.weight.asnumpy(), [[1.0, 1.0]])          # no update yet
    np.testing.assert_allclose(acc._grad_accumulation[0].asnumpy(), [[0.5, 1.0]])
    acc(ms.Tensor(0.5), grad(ms.Tensor(xs[1])))
    np.testing.assert_allclose(net.weight.asnumpy(), [[0.0, -2.0]])         # 1 - mean([1, 1]), 1 - mean([2, 4])
    np.testing.assert_allclose(net.bias.asnumpy(), [-1.0])
    assert int(acc._accumulation_step.asnumpy()) == 0
    np.testing.assert_allclose(acc._grad_accumulation[0].asnumpy(), [[0.0, 0.0]])


def test_rejects_a_non_positive_step_count():
    opt = ms.nn.SGD(ms.nn.Dense(2, 1).trainable_params(), 0.1)
    with pytest.raises(ValueError, match="'max_accumulation_step' must be a positive int, but got 0"):
        ms.boost.GradientAccumulation(0, opt)
