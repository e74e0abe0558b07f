"""Parameter behaviours checked against MindSpore 2.10: copy() is a Parameter."""
import numpy as np

import mindseed as ms


def test_parameter_copy_is_a_parameter_of_the_same_name():
    p = ms.Parameter(ms.Tensor(np.array([8.0, 7.0], np.float32)), name="p3", requires_grad=False)
    c = p.copy()
    assert type(c) is ms.Parameter and c.name == "p3" and c.requires_grad is False
    np.testing.assert_array_equal(c.asnumpy(), [8.0, 7.0])
    p.set_data(ms.Tensor(np.array([1.0, 1.0], np.float32)))
    np.testing.assert_array_equal(c.asnumpy(), [8.0, 7.0])     # its own data


def test_is_parameter_generated_tells_default_names_from_chosen_ones():
    from mindseed.common.parameter import _is_parameter_generated
    assert _is_parameter_generated(ms.Parameter(ms.Tensor([1.0])).name)
    assert _is_parameter_generated("Parameter#3")
    assert not _is_parameter_generated(ms.Parameter(ms.Tensor([1.0]), name="w").name)
    assert not _is_parameter_generated("") and not _is_parameter_generated(None)


def test_unnamed_parameters_get_unique_generated_names():
    a, b = ms.Parameter(ms.Tensor([1.0])), ms.Parameter(ms.Tensor([2.0]))
    assert a.name != b.name and a.name.startswith("Parameter#") and b.name.startswith("Parameter#")
    a.name = None               # a new generated name
    assert a.name.startswith("Parameter#") and a.name != b.name

    class Net(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.pair = (ms.Parameter(ms.Tensor([5.0])), ms.Parameter(ms.Tensor([6.0])))
            self.w = ms.Parameter(ms.Tensor([7.0]))

        def construct(self):
            return self.pair[0] + self.pair[1] + self.w

    net = Net()
    assert net.w.name == "w" and net().asnumpy().tolist() == [18.0]
    assert len({p.name for p in net.pair}) == 2


def test_requires_grad_must_be_bool_and_is_init_starts_false():
    # MindSpore 2.10: `requires_grad` is checked in the constructor and the setter; `is_init` (a GE-device flag)
    # is False on a new parameter and after set_data
    import pytest
    import mindseed as ms
    with pytest.raises(TypeError, match="The argument `requires_grad` must be bool type"):
        ms.Parameter(ms.Tensor([1.0]), name="a", requires_grad="yes")
    p = ms.Parameter(ms.Tensor([1.0]), name="p")
    with pytest.raises(TypeError, match="must be bool type"):
        p.requires_grad = 1
    p.requires_grad = False
    p.set_data(ms.Tensor([2.0]))
    assert p.requires_grad is False and p.is_init is False


def test_parameter_unique_flag_is_settable():
    p = ms.Parameter(ms.Tensor(np.array([1.0, 2.0], np.float32)), name="param")
    assert p.unique is False
    p.unique = True
    assert p.unique is True and p.clone().unique is False      # as MindSpore 2.10: clone starts unflagged
