"""MindSpore's `<name>_ext` functions in ops.auto_generate.gen_ops_def and ops.function.array_func are mint's."""
import inspect

import numpy as np
import pytest

import mindseed as ms
from mindseed import mint
from mindseed.ops.auto_generate import _ext, gen_ops_def
from mindseed.ops.function import array_func


def test_ext_names_are_mints_functions():
    for name in sorted(_ext.NAMES):
        fn = _ext.lookup("gen_ops_def", name + "_ext")
        mints = getattr(fn, "__wrapped__", fn)     # wrapped where mint has keyword-only parameters
        assert mints is getattr(mint, name, None) or mints is getattr(mint.nn.functional, name)
        assert callable(getattr(gen_ops_def, name + "_ext"))   # mint's, or a form the module defines itself
    x = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    np.testing.assert_array_equal(gen_ops_def.add_ext(x, x, alpha=2).asnumpy(), 3 * x.asnumpy())
    parts = array_func.split_ext(x, 1, 0)
    assert [p.shape for p in parts] == [(1, 3), (1, 3)]
    from mindseed.ops.function.array_func import split_ext  # noqa: F401 -- `from ... import` reaches them too


def test_unknown_ext_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="gen_ops_def' has no attribute 'nothing_ext'"):
        gen_ops_def.nothing_ext  # noqa: B018
    with pytest.raises(AttributeError):
        array_func.inplace_add_ext  # noqa: B018


def test_ext_functions_take_mints_keyword_only_arguments_by_position():
    x = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    y = ms.Tensor(np.ones((2, 3), np.float32))
    np.testing.assert_array_equal(gen_ops_def.add_ext(x, y, 2.0).asnumpy(), x.asnumpy() + 2 * y.asnumpy())
    np.testing.assert_array_equal(gen_ops_def.sub_ext(x, y, 3).asnumpy(), x.asnumpy() - 3 * y.asnumpy())
    total = gen_ops_def.sum_ext(x, 1, True, ms.float64)
    assert total.dtype == ms.float64
    np.testing.assert_array_equal(total.asnumpy(), x.asnumpy().sum(1, keepdims=True))
    np.testing.assert_allclose(gen_ops_def.mean_ext(x, 0, False, ms.float32).asnumpy(), x.asnumpy().mean(0))
    values, indices = gen_ops_def.sort_ext(-x, 1, True)
    np.testing.assert_array_equal(values.asnumpy(), -x.asnumpy())
    np.testing.assert_array_equal(indices.asnumpy(), [[0, 1, 2], [0, 1, 2]])
    # the generated signature: every parameter positional-or-keyword
    assert str(inspect.signature(gen_ops_def.add_ext)) == "(input, other, alpha=1)"
    # a gradient through the positional alpha
    g = ms.grad(lambda a: gen_ops_def.add_ext(y, a, 2.5).sum())(x)
    np.testing.assert_array_equal(g.asnumpy(), np.full((2, 3), 2.5, np.float32))
    with pytest.raises(TypeError, match="add_ext.. got multiple values for argument 'alpha'"):
        gen_ops_def.add_ext(x, y, 2, alpha=3)
    with pytest.raises(TypeError, match="add_ext.. takes at most 3 positional arguments but 4 were given"):
        gen_ops_def.add_ext(x, y, 2, 3)
