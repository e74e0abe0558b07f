"""Bernoulli.log_prob clamps the probabilities to [eps, 1 - eps] as MindSpore 2.10's (values from it)."""
import numpy as np

import mindseed as ms
from mindseed import nn


def test_bernoulli_log_prob_clamps_probabilities():
    b = nn.probability.distribution.Bernoulli(0.5, dtype=ms.int32)
    out = b.log_prob(ms.Tensor([1, 0, 1], ms.int32), ms.Tensor([1.0, 1.0, 0.0])).asnumpy()
    np.testing.assert_allclose(out, [-1.1920929e-07, -1.5942385e+01, -1.5942385e+01], rtol=1e-6)
    out = b.log_prob(ms.Tensor([1, 0], ms.int32), ms.Tensor([1.5, 0.3])).asnumpy()     # 1.5 is clamped too
    np.testing.assert_allclose(out, [-1.1920929e-07, -3.5667497e-01], rtol=1e-6)
    np.testing.assert_allclose(b.log_prob(ms.Tensor([1, 0], ms.int32)).asnumpy(), [np.log(0.5)] * 2, rtol=1e-6)
