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


def test_internal_names_of_mint_functions_are_mints():
    """MindSpore's mint docstrings call its functions by their internal names (`math_func.amax_ext`,
    `gen_ops_def.narrow_view`, `functional_overload.any`): the same objects as mint's."""
    from mindseed import ops
    for (module_name, source_name), names in _ext.ALIASES.items():
        module = ops
        for part in module_name.split("."):
            module = getattr(module, part)
        source = {"mint": mint, "mint.nn.functional": mint.nn.functional, "mint.linalg": mint.linalg}[source_name]
        for item in names.split():
            name, _, attr = item.partition("=")
            assert getattr(module, name) is getattr(source, attr or name), (module_name, name)
    assert ops.auto_generate.narrow_view is mint.narrow


def test_internal_names_compute_the_oracles_values():
    from mindseed import ops
    x = ms.tensor(np.arange(1, 10, dtype=np.float32).reshape(3, 1, 3).repeat(2, 1))
    np.testing.assert_array_equal(ops.function.math_func.amax_ext(x, dim=2, keepdim=True).asnumpy().ravel(),
                                  [3, 3, 6, 6, 9, 9])
    assert ops.function.math_func.amin_ext(x).asnumpy() == 1.0
    out = ops.auto_generate.broadcast_to_view(ms.tensor([[1], [2]], ms.float32), (-1, 2))
    np.testing.assert_array_equal(out.asnumpy(), [[1, 1], [2, 2]])
    m = ms.tensor(np.arange(1, 10).reshape(3, 3), ms.int32)
    np.testing.assert_array_equal(ops.auto_generate.gen_ops_def.narrow_view(m, 1, 1, 2).asnumpy(),
                                  [[2, 3], [5, 6], [8, 9]])
    assert bool(ops.functional_overload.any(ms.tensor([[True, False], [True, True]])).asnumpy())
    soft = ops.function.nn_func.softmax_ext(ms.tensor([-1.0, -2.0, 0.0, 2.0, 1.0]), 0)
    np.testing.assert_allclose(soft.asnumpy(), [0.03168492, 0.01165623, 0.08612854, 0.6364086, 0.23412165],
                               rtol=1e-6)
    glu = ops.function.nn_func.glu_ext(ms.tensor([[0.1, 0.2, 0.3, 0.4], [0.5, 0.6, 0.7, 0.8]]))
    np.testing.assert_allclose(glu.asnumpy(), [[0.05744425, 0.11973753], [0.33409387, 0.41398472]], rtol=1e-6)
