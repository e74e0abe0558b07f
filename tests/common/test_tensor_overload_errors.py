"""Tensor methods with several signatures refuse arguments none of them takes with MindSpore's overload TypeError
(the texts below are what MindSpore 2.10 prints in graph mode), in a jitted function and in PyNative."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import Tensor

MAX_SIGNATURES = ('"Tensor.max()"\n"Tensor.max(dim=<int>, keepdim=<bool>)"\n',
                  '"Tensor.max(axis=<int,Tuple,None,List>, keepdims=<bool>, *, initial=<number,None>, '
                  'where=<bool,Tensor>, return_indices=<bool>)"\n')


def _error(call, *args, jit=True):
    fn = ms.jit(call) if jit else call
    with pytest.raises(TypeError) as info:
        fn(*args)
    return str(info.value)


def _first(call, *args):
    # a jitted function's error carries the user's lines after the message
    return _error(call, *args).splitlines()[0]


def _max_int_list(x):
    return x.max(1, [1])


def _max_bad_keywords(x):
    return x.max(a=1, b=2)


def _add_two(x, y):
    return x.add(y, 1)


def _roll_float_dims(x):
    return x.roll(shifts=2, dims=1.1)


@pytest.mark.parametrize("jit", [True, False])
def test_every_signature_is_listed_with_why_it_failed(jit):
    msg = _error(_max_int_list, Tensor(1), jit=jit)
    assert msg.startswith('Failed calling max with "max(int, list<int>)".\nThe valid calling should be:\n')
    # the first argument fits both candidates that take two: only the list is underlined
    mismatch = ("    match failed because invalid types: (int, list<int>)\n"
                "                                              ~~~~~~~~~~~\n")
    assert msg.count(mismatch) == 2
    for sig in MAX_SIGNATURES:
        assert sig.replace("\n", "") in msg.replace("\n", "")
    # Tensor.max() takes no argument: listed without a reason
    assert '"Tensor.max()"\n"Tensor.max(dim' in msg


def test_keyword_names_and_types():
    msg = _error(_max_bad_keywords, Tensor(1))
    assert 'Failed calling max with "max(a=int, b=int)"' in msg
    assert msg.count("\tmatch failed because incorrect keyword name: a\n") == 2
    msg = _error(_roll_float_dims, Tensor(np.arange(4.0, dtype=np.float32)))
    assert ("match failed because invalid types: (shifts=int, dims=float)\n"
            + " " * 41 + "~" * 24 + "\n") in msg
    assert msg.count('"Tensor.roll(') == 1


def test_too_many_positional_arguments_underlines_all():
    x = Tensor(np.array([2.0], np.float32))
    msg = _error(_add_two, x, x)
    assert 'Failed calling add with "add(Tensor, int)"' in msg
    assert msg.count("(Tensor, int)\n" + " " * 41 + "~" * 13 + "\n") == 2
    assert '"Tensor.add(other=<any,Tensor>)"\n\n' in msg + "\n"


def test_single_candidate_gives_its_reason_only():
    t = Tensor(1)
    assert _first(lambda x: x.max(0, 1, initial=None), t) == \
        "max(): argument 'keepdims' (position 2) must be bool, not int."
    assert _first(lambda x: x.max(0, True, initial=[1]), t) == \
        "max(): argument 'initial' must be Number but got list of Any"
    assert _first(lambda x: x.max(1, True, il=2), t) == "match failed because incorrect keyword name: il"
    assert _first(lambda x: x.min(None, False, None), t) == "min() takes 2 positional arguments but 3 were given."
    assert _first(lambda x: x.abs(1), t) == "abs() takes 0 positional arguments but 1 was given."
    assert _first(lambda x: x.reshape(1, 1.1), t) == \
        "reshape(): argument 'shape' (position 2) must be tuple of int, not float."
    assert _first(lambda x: x.reshape(1.1), t) == \
        "reshape(): argument 'shape' (position 1) must be tuple of int, not float."


def test_no_candidate_of_that_size_lists_the_signatures_only():
    x = Tensor(np.array([1.0, 2.0], np.float32))
    msg = _error(lambda a, b: a.div(b, rounding_mode="floor", mode="floor"), x, x)
    assert msg.startswith('Failed calling div with "div(Tensor, rounding_mode=string, mode=string)".')
    assert '"Tensor.div(other=<number,Tensor>)"' in msg and "match failed" not in msg
    assert msg.count('"Tensor.div(other=<number,Tensor>, *, rounding_mode=<str,None>)"') == 1
    msg = _error(lambda a: a.clamp(1, [1], 1), x)
    assert 'Failed calling clamp with "clamp(int, list<int>, int)"' in msg
    assert '"Tensor.clamp(min=<Tensor,None>, max=<Tensor,None>)"\n"Tensor.clamp(min=<number,None>, ' in msg
    msg = _error(lambda a: Tensor.add(a), x)
    assert msg.startswith('Failed calling add with "add()".')
    nested = _error(lambda a: a.max([1, "2", (1, 2.0)], (True, None)), Tensor(1))
    assert 'max(list<int, string, tuple<int, float>>, tuple<bool, None>)' in nested


def test_calls_that_fit_a_signature_still_work_and_keep_their_errors():
    x = Tensor(np.array([[1.0, 5.0], [3.0, 2.0]], np.float32))
    np.testing.assert_allclose(x.max().asnumpy(), 5.0)
    values, indices = x.max(1, True)
    np.testing.assert_allclose(values.asnumpy(), [[5.0], [3.0]])
    np.testing.assert_array_equal(indices.asnumpy(), [[1], [0]])
    np.testing.assert_allclose(x.max(axis=0).asnumpy(), [3.0, 5.0])
    np.testing.assert_allclose(x.clamp(2, 4).asnumpy(), [[2.0, 4.0], [3.0, 2.0]])
    np.testing.assert_allclose(x.add(1, alpha=2).asnumpy(), [[3.0, 7.0], [5.0, 4.0]])
    np.testing.assert_allclose(x.reshape(4).asnumpy(), [1.0, 5.0, 3.0, 2.0])
    np.testing.assert_allclose(x.roll(1, 0).asnumpy(), [[3.0, 2.0], [1.0, 5.0]])
    # an axis out of range fits a signature: the method's own error stays
    with pytest.raises(ValueError, match="ReduceMax"):
        x.max(axis=5)


def test_repeat_takes_the_repeats_keyword_in_graph_mode_only():
    x = Tensor(np.array([[0, 1], [2, 3]], np.float32))
    out = ms.jit(lambda t: t.repeat(repeats=(2, 1, 3)))(x)
    np.testing.assert_array_equal(out.asnumpy(), np.tile(x.asnumpy(), (2, 1, 3)))
    assert "unexpected keyword argument 'repeats'" in _error(lambda t: t.repeat(repeats=(2, 1)), x, jit=False)
    np.testing.assert_array_equal(x.repeat((2, 1)).asnumpy(), np.tile(x.asnumpy(), (2, 1)))


def test_string_operand_of_add_sub_mul():
    x = ms.Tensor(np.ones((2, 3), np.float32))
    for name, fn in (("Add", lambda: x + "ok"), ("Sub", lambda: x - "ok"), ("Mul", lambda: x * "ok"),
                     ("Add", lambda: "ok" + x)):
        with pytest.raises(TypeError, match=rf'Failed calling {name} with "{name}\(\)\(input=Tensor, other=string\)"'):
            fn()
    assert (x + 1).sum().item() == 12.0
