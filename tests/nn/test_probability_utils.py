"""mindspore.nn.probability.distribution._utils: parameter checks, the common dtype, CheckTuple / CheckTensor and the
generic exp / log."""
import numpy as np
import pytest

import mindseed as ms
from mindseed.nn.probability.distribution._utils import (
    CheckTensor, CheckTuple, broadcast_to, cast_to_tensor, check_greater, check_greater_equal_zero,
    check_greater_zero, check_prob, exp_generic, log_generic, set_param_type)


def test_set_param_type():
    f16, f32, f64 = (ms.Tensor(0.1, d) for d in (ms.float16, ms.float32, ms.float64))
    assert set_param_type({"a": f32, "b": 1.0}, ms.float16) == ms.float32
    assert set_param_type({"a": ms.Tensor(1, ms.int32)}, ms.float16) == ms.float32
    assert set_param_type({"a": np.array(1.0, np.float32), "c": f32}, ms.float16) == ms.float32
    assert set_param_type({"a": 1.0}, ms.float32) == ms.float32 and set_param_type({"a": 1.0}, ms.int32) == ms.float32
    assert set_param_type({"a": f16, "b": f16}, ms.float32) == ms.float16
    assert set_param_type({"a": f64}, ms.float16) == ms.float32
    with pytest.raises(TypeError, match="c should have the same dtype as other arguments"):
        set_param_type({"a": f32, "b": 1.0, "c": f64}, ms.float32)
    with pytest.raises(TypeError):
        set_param_type({"a": np.array(1.0, np.float32), "c": np.array(1, np.int32)}, ms.float32)


def test_check_tuple_and_tensor():
    assert CheckTuple()((1, 2), "input") == (1, 2)
    with pytest.raises(TypeError, match="For input, input type must be a tuple"):
        CheckTuple()("tuple", "input")
    t = ms.Tensor([1.0])
    assert CheckTensor()(t, "x") is t and CheckTensor()(None, "x") is None
    with pytest.raises(TypeError, match="For x, input type must be a Tensor or Parameter"):
        CheckTensor()("t", "x")


def test_value_checks_and_casts():
    assert cast_to_tensor([1, 2]).dtype == ms.float32
    with pytest.raises(TypeError, match="Bool"):
        cast_to_tensor(True)
    check_greater_equal_zero(ms.Tensor([0.0, 1.0]), "rate")
    with pytest.raises(ValueError, match="rate must be greater than or equal to zero"):
        check_greater_equal_zero(ms.Tensor([-1.0]), "rate")
    with pytest.raises(ValueError, match="sd must be greater than zero"):
        check_greater_zero(ms.Tensor([0.0]), "sd")
    with pytest.raises(ValueError, match="low must be less than high"):
        check_greater(ms.Tensor([1.0]), ms.Tensor([1.0]), "low", "high")
    check_prob(ms.Tensor([0.5]))
    with pytest.raises(ValueError, match="less than one"):
        check_prob(ms.Tensor([1.0]))


def test_generic_exp_log_and_broadcast():
    np.testing.assert_allclose(log_generic(ms.Tensor([-1, 0, 1, 4])).asnumpy(), [np.nan, -np.inf, 0.0, np.log(4)])
    np.testing.assert_allclose(exp_generic(ms.Tensor([0, 1])).asnumpy(), [1.0, np.e], rtol=1e-6)
    out = broadcast_to(ms.Tensor([1.0, 2.0]), ms.Tensor(np.zeros((3, 2), np.float32)))
    np.testing.assert_array_equal(out.asnumpy(), [[1.0, 2.0]] * 3)


class _NothingDefined(ms.nn.probability.distribution.Distribution):
    def __init__(self, rate=None):
        param = dict(locals())
        param["param_dict"] = {"rate": rate}
        super().__init__(None, ms.float32, "NothingDefined", param)


class _OnlyLogProb(_NothingDefined):
    def _log_prob(self, x, rate):
        return ms.ops.log(rate) - rate * x


@pytest.mark.parametrize("method", ["prob", "log_prob", "cdf", "log_cdf", "survival_function", "log_survival", "sd",
                                    "var", "mode", "mean", "entropy", "sample"])
def test_unimplemented_method_is_not_implemented_before_parameters_are_checked(method):
    # no 'rate' anywhere: the missing method is reported, not the missing parameter
    with pytest.raises(NotImplementedError, match=method):
        getattr(_NothingDefined(), method)(ms.Tensor([0.2]))
    with pytest.raises(NotImplementedError):
        _NothingDefined()(method, ms.Tensor([0.2]))


def test_derived_method_from_the_rule_a_subclass_gives():
    d = _OnlyLogProb(ms.Tensor([2.0]))
    np.testing.assert_allclose(d.prob(ms.Tensor([0.5])).asnumpy(), [2.0 * np.exp(-1.0)], rtol=1e-6)
    with pytest.raises(ValueError, match="'rate' was given neither"):
        _OnlyLogProb().prob(ms.Tensor([0.5]))
    with pytest.raises(NotImplementedError):
        d.kl_loss("NothingDefined", ms.Tensor([1.0]))
