"""Top-level names: the default generator and Generator, from_numpy/frombuffer, swap_tensors, recompute, hints."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import ops


def test_manual_seed_and_rng_state_replay_random_ops():
    # mint's random functions draw from the default generator (ops.rand does not: MindSpore's UniformReal kernel is
    # seeded by set_seed and the op seed alone)
    ms.manual_seed(5)
    assert ms.initial_seed() == 5
    a = ms.mint.rand(4).asnumpy()
    state = ms.get_rng_state()
    b = ms.mint.rand(4).asnumpy()
    ms.set_rng_state(state)
    np.testing.assert_array_equal(ms.mint.rand(4).asnumpy(), b)
    ms.manual_seed(5)
    np.testing.assert_array_equal(ms.mint.rand(4).asnumpy(), a)
    s = ms.seed()
    assert ms.initial_seed() == s
    with pytest.raises(TypeError, match="'seed' must be int"):
        ms.manual_seed(1.5)
    with pytest.raises(ValueError, match="1-D uint8 Tensor"):
        ms.set_rng_state(ms.Tensor([1.0]))


def test_generator_is_its_own_stream():
    g = ms.Generator().manual_seed(7)
    x = ops.ones((3,), ms.float32)
    first = ops.uniform_(x.copy(), generator=g).asnumpy()
    g.manual_seed(7)
    np.testing.assert_array_equal(ops.uniform_(x.copy(), generator=g).asnumpy(), first)
    assert g.initial_seed() == 7 and ms.default_generator.get_state().dtype == ms.uint8


def test_from_numpy_frombuffer_is_tensor_swap():
    a = np.array([1.0, 2.0], np.float32)
    t = ms.from_numpy(a)
    a[0] = 9.0
    assert t.asnumpy()[0] == 9.0 and ms.is_tensor(t) and not ms.is_tensor(a)
    assert ms.frombuffer(bytearray(np.array([3, 4, 5], np.int32).tobytes()), ms.int32, count=2, offset=4
                         ).tolist() == [4, 5]
    with pytest.raises(ValueError, match="'count' must be -1 or in \\[1, 2\\]"):
        ms.frombuffer(b"\x00" * 8, ms.int32, count=3)
    with pytest.raises(TypeError, match="buffer protocol"):
        ms.frombuffer([1, 2], ms.int8)
    x, y = ms.Tensor([1]), ms.Tensor([2.0, 3.0])
    ms.swap_tensors(x, y)
    assert x.tolist() == [2.0, 3.0] and y.tolist() == [1]
    with pytest.raises(TypeError, match="'t2' must be a Tensor"):
        ms.swap_tensors(x, 1)


def test_recompute_gives_the_plain_gradient_of_a_function_and_a_cell():
    f = lambda x: ops.sin(x) * x  # noqa: E731
    x = ms.Tensor(np.array([0.3, 1.2], np.float64))
    g = ms.grad(lambda x: ms.recompute(f, x).sum())(x).asnumpy()
    np.testing.assert_allclose(g, np.sin(x.asnumpy()) + x.asnumpy() * np.cos(x.asnumpy()), rtol=1e-12)
    net = ms.nn.Dense(2, 1)
    w_plain = ms.grad(lambda x: net(x).sum(), None, net.trainable_params())(ms.Tensor(np.ones((1, 2), np.float32)))
    w_rec = ms.grad(lambda x: ms.recompute(net, x).sum(), None, net.trainable_params())(
        ms.Tensor(np.ones((1, 2), np.float32)))
    for a, b in zip(w_plain, w_rec):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy())


def test_compile_hints_keep_results_and_run_check_prints(capsys):
    @ms.no_inline
    def f(x):
        return x + 1

    assert f(ms.Tensor(1)).item() == 2 and f._ms_compile_hints == {"no_inline": True}
    assert ms.lazy_inline(attrs="x")(f)._ms_compile_hints["lazy_inline"] == "x"
    with pytest.raises(ValueError, match="'policy' must be None or 'front'"):
        ms.lazy_inline(f, policy="back")
    ms.run_check()
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"MindSpore version:  {ms.__version__}"       # print("MindSpore version: ", version)
    assert out[1] == ("The result of multiplication calculation is correct, MindSpore has been installed on platform "
                      f"[{ms.get_context('device_target')}] successfully!")


def test_ops_carries_the_collectives_of_mint_distributed():
    from mindseed.mint import distributed
    for name in ("all_reduce", "all_gather_into_tensor", "broadcast", "barrier", "isend", "irecv", "new_group",
                 "get_rank", "reduce_scatter_tensor", "all_to_all_single"):
        assert getattr(ops, name) is getattr(distributed, name)


def test_dtype_to_pytype_covers_numbers_and_containers():
    assert [ms.dtype_to_pytype(t) for t in (ms.bool_, ms.uint16, ms.float16, ms.complex64, ms.list_, ms.tuple_,
                                            ms.string, ms.type_none)] == [bool, int, float, complex, list, tuple, str,
                                                                          type(None)]


def test_generator_state_carries_seed_and_offset():
    # MindSpore's state starts with the seed and offset (int64 each): a generator set from it steps on from there
    g1 = ms.Generator().manual_seed(5)
    one = ms.Tensor(1, ms.int64)
    g1._step(one), g1._step(one)
    state = g1.get_state()
    assert state.asnumpy()[:16].view(np.int64).tolist() == [5, 2]
    a = ops.uniform_(ops.ones((3,), ms.float32), generator=g1).asnumpy()
    g2 = ms.Generator().set_state(state)
    assert g2.initial_seed() == 5 and [int(v) for v in g2._step(one)] == [5, 2]
    np.testing.assert_array_equal(ops.uniform_(ops.ones((3,), ms.float32), generator=g2).asnumpy(), a)
    g3 = ms.Generator().set_state(ms.Tensor(np.array([9, 4], np.int64).view(np.uint8)))   # MindSpore's 16 bytes
    assert [int(v) for v in g3._step(one)] == [9, 4]
    fresh = ms.Generator().manual_seed(9)
    np.testing.assert_array_equal(ops.uniform_(ops.ones((3,), ms.float32), generator=g3).asnumpy(),
                                  ops.uniform_(ops.ones((3,), ms.float32), generator=fresh).asnumpy())


def test_builtin_named_dtype_aliases():
    # MindSpore 2.10: mindspore.bool / int / float are Bool / Int32 / Float32, and not in __all__
    assert (ms.bool, ms.int, ms.float) == (ms.bool_, ms.int32, ms.float32)
    assert (ms.dtype.bool, ms.dtype.int, ms.dtype.float) == (ms.bool_, ms.int32, ms.float32)
    assert not {"bool", "int", "float"} & set(ms.__all__)
    scope = {}
    exec("from mindseed import *\nr = (int('3'), float('1.5'), bool(0))", scope)
    assert scope["r"] == (3, 1.5, False)
    assert ms.dtype.dtype_to_pytype(ms.int32) is int and ms.dtype.pytype_to_dtype(float) == ms.float64
    x = ms.Tensor([1, 0, 1], ms.bool)
    y = ms.Tensor([0, 0, 1], ms.bool)
    assert ops.logical_and(x, y).asnumpy().tolist() == [False, False, True]
    assert ms.Tensor([1, 2], ms.int).dtype == ms.int32
    # as strings they are numpy's names: astype("float") is Float64 in MindSpore
    z = ms.Tensor([1.5, 2.0])
    assert (z.astype("float").dtype, z.astype("int").dtype, z.astype("bool").dtype) == (ms.float64, ms.int64,
                                                                                        ms.bool_)
