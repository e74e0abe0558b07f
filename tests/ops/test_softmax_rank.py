"""The softmax family on a 0-d input: MindSpore 2.10's ops refuse it, mint (torch-style) takes it."""
import pytest

import mindseed as ms
from mindseed import mint, nn, ops


def test_softmax_family_refuses_a_0d_input_but_mint_takes_it():
    # MindSpore 2.10: the Softmax primitive has no axis on a 0-d input; mint (torch-style) gives 1 / 0
    x = ms.Tensor(1.5)
    for fn, op in ((lambda: ops.softmax(x), "Softmax"), (lambda: ops.Softmax()(x), "Softmax"),
                   (lambda: nn.Softmax()(x), "Softmax"), (lambda: ops.softmin(x), "Softmax"),
                   (lambda: x.softmax(-1), "Softmax"), (lambda: ops.log_softmax(x), "LogSoftmax")):
        with pytest.raises(ValueError, match=rf"For primitive\[{op}\], the axis must be in \[0,0\), but got -1"):
            fn()
    assert float(mint.softmax(x, 0)) == 1.0
    assert float(mint.nn.functional.softmax(x)) == 1.0
    assert float(mint.nn.functional.log_softmax(x, 0)) == 0.0
    assert float(mint.nn.Softmax(0)(x)) == 1.0
