"""mindspore.ops.composite.multitype_ops: the syntax operators as MultitypeFuncGraph objects, each in its `_impl`
module; called directly they compute what the Python operator does (values as MindSpore 2.10 gives them)."""
import importlib

import numpy as np

from mindseed import Tensor
from mindseed.ops.composite import multitype_ops as M
from mindseed.ops.operations._composite import MultitypeFuncGraph


def test_operators_compute_what_python_does():
    x = Tensor(np.array([1.0, 2.0], np.float32))
    assert isinstance(M.add, MultitypeFuncGraph)
    assert M.add(1, 2) == 3 and M.add((1,), (2,)) == (1, 2) and M.add("a", "b") == "ab"
    np.testing.assert_allclose(M.add(x, 1).asnumpy(), [2.0, 3.0])
    np.testing.assert_allclose(M.div(x, 2).asnumpy(), [0.5, 1.0])
    np.testing.assert_allclose(M.pow_(x, 2).asnumpy(), [1.0, 4.0])
    np.testing.assert_allclose(M.negative(x).asnumpy(), [-1.0, -2.0])
    assert M.floordiv(7, 2) == 3 and M.mod(7, 3) == 1 and M.invert(True) == -2 and M.bitwise_and(6, 3) == 2
    assert M.left_shift(1, 2) == 4 and M.less(1, 2) is True and M.in_(1, (1, 2)) and M.not_in_(1, (2,))
    assert M.getitem({"a": 1}, "a") == 1 and M.setitem([1, 2], 0, 5) == [5, 2] and M.logical_not(True) is False
    np.testing.assert_array_equal(M.equal(x, x).asnumpy(), [True, True])
    np.testing.assert_array_equal(M.logical_and(Tensor([True, False]), Tensor([True, True])).asnumpy(),
                                  [True, False])
    np.testing.assert_allclose(M.zeros_like(x).asnumpy(), [0.0, 0.0])
    np.testing.assert_allclose(M.ones_like(x).asnumpy(), [1.0, 1.0])
    assert M.zeros_like(3) == 0 and M.augassign_add(1, 2) == 3


def test_each_operator_has_its_impl_module():
    for module_name, name in (("zeros_like_impl", "zeros_like"), ("add_impl", "add"), ("pow_impl", "pow_"),
                              ("in_impl", "in_"), ("not_in_impl", "not_in_"), ("getitem_impl", "getitem")):
        module = importlib.import_module(f"mindseed.ops.composite.multitype_ops.{module_name}")
        assert getattr(module, name) is getattr(M, name)
    from mindseed.ops.composite.multitype_ops.zeros_like_impl import zeros_like
    np.testing.assert_allclose(zeros_like(Tensor(np.ones((2, 2), np.float32))).asnumpy(), np.zeros((2, 2)))
