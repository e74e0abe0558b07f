"""MindSpore's `<name>_ext` functions in ops.auto_generate.gen_ops_def and ops.function.array_func are mint's."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import mint
from mindseed.ops.auto_generate import _ext, gen_ops_def
from mindseed.ops.function import array_func


def test_ext_names_are_mints_functions():
    for name in sorted(_ext.NAMES):
        fn = _ext.lookup("gen_ops_def", name + "_ext")
        assert fn is getattr(mint, name, None) or fn is getattr(mint.nn.functional, name)
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
