"""repr/str of Tensors match MindSpore 2.10 exactly (expected strings recorded from real MindSpore)."""
import json
import os

import numpy as np
import pytest

import mindseed as ms

_CASES = json.load(open(os.path.join(os.path.dirname(os.path.dirname(__file__)), "fixtures", "tensor",
                                     "print_mindspore210.json")))


@pytest.mark.parametrize("expr, want_repr, want_str", _CASES, ids=[c[0][:60] for c in _CASES])
def test_print_like_mindspore(expr, want_repr, want_str):
    t = eval(expr, {"Tensor": ms.Tensor, "np": np, "ms": ms})  # noqa: S307 -- our own recorded expressions
    assert repr(t) == want_repr
    assert str(t) == want_str


def test_print_0d_float32_shortest_and_nd_scientific():
    assert str(ms.Tensor(np.float32(6.456193))) == "6.456193"
    assert repr(ms.Tensor(np.float32(6.456193))) == "Tensor(shape=[], dtype=Float32, value= 6.45619)"
    assert repr(ms.Tensor([0.1])) == "Tensor(shape=[1], dtype=Float32, value= [ 1.00000001e-01])"
