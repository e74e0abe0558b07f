"""The seeded legacy random ops (ops.rand, randn, randint, uniform, normal, standard_normal, the *_like forms and the
UniformReal / UniformInt / StandardNormal primitives) give MindSpore 2.10 CPU's numbers bit for bit.

The expected values were printed by MindSpore 2.10 on CPU running the same calls.
"""
import numpy as np
import pytest

import mindseed as ms
from mindseed import ops

F32 = np.float32


def _eq(tensor, values, dtype=F32):
    np.testing.assert_array_equal(tensor.asnumpy(), np.array(values, dtype))


def test_set_seed_sequence_of_functional_ops():
    # each call makes a new kernel whose op seed advances: (1, 0), then (1, 0 + step), per kernel name
    ms.set_seed(1)
    _eq(ops.rand(4), [0.5429620146751404, 0.8057862520217896, 0.36750099062919617, 0.7465748190879822])
    _eq(ops.rand(4), [0.5525726079940796, 0.052900295704603195, 0.7080819606781006, 0.43868568539619446])
    _eq(ops.randn(4), [0.22797997295856476, -0.9599476456642151, 0.5314622521400452, 0.5104778409004211])
    out = ops.randint(0, 100, (6,))
    assert out.dtype == ms.int64
    _eq(out, [88, 54, 96, 80, 21, 36], np.int64)


def test_set_seed_restarts_the_streams():
    ms.set_seed(1)
    first = ops.rand(3).asnumpy()
    ms.set_seed(1)
    np.testing.assert_array_equal(ops.rand(3).asnumpy(), first)


def test_float64_is_the_float32_draw_cast():
    ms.set_seed(3)
    out = ops.rand(2, 2, dtype=ms.float64)
    assert out.dtype == ms.float64
    _eq(out, [[0.6352812051773071, 0.5906005501747131], [0.15935371816158295, 0.8751829266548157]], np.float64)


def test_global_seed_zero_uses_the_default_graph_seed():
    ms.set_seed(0)
    _eq(ops.rand(3), [0.29337725043296814, 0.11669814586639404, 0.2932375371456146])
    _eq(ops.randn(3), [1.5750539302825928, -0.5141017436981201, 1.4896700382232666])


def test_like_forms_uniform_normal_and_standard_normal():
    ms.set_seed(2)
    out = ops.rand_like(ms.Tensor(np.zeros(3, np.float16)))
    assert out.dtype == ms.float16
    _eq(out, [0.358154296875, 0.75927734375, 0.3076171875], np.float16)
    _eq(ops.randn_like(ms.Tensor(np.zeros((1, 3), np.int32))),
        [[0.6124248504638672, 0.8653315305709839, 1.0171256065368652]])
    _eq(ops.randint_like(ms.Tensor(np.zeros(3, np.int32)), -5, 5), [-5, -2, -4], np.int32)
    _eq(ops.uniform((3,), ms.Tensor(1.0), ms.Tensor(3.0)), [1.7162911891937256, 2.5184326171875, 1.6149935722351074])
    _eq(ops.uniform((3,), ms.Tensor(1, ms.int32), ms.Tensor(30, ms.int32), dtype=ms.int32), [8, 20, 7], np.int32)
    _eq(ops.normal((3,), ms.Tensor(1.0), ms.Tensor(3.0)), [2.8372745513916016, 3.595994472503662, 4.051376819610596])
    _eq(ops.normal((3,), ms.Tensor(1.0), ms.Tensor(3.0), seed=7),
        [-0.6767997741699219, 2.7321581840515137, 3.8134469985961914])
    # the same op seed twice: the kernel's seed advances, so the draws differ
    _eq(ops.standard_normal((3,), seed=4), [-1.5288727283477783, 0.44707944989204407, 1.1155452728271484])
    _eq(ops.standard_normal((3,), seed=4), [0.8649724721908569, 1.2499768733978271, -0.4598037302494049])


def test_primitive_instances_keep_one_stream_per_shape():
    op = ops.UniformReal(seed=2)
    _eq(op((2,)), [0.3581455647945404, 0.7592162489891052])
    _eq(op((2,)), [0.3074967861175537, 0.052320994436740875])
    _eq(op((3,)), [0.3581455647945404, 0.7592162489891052, 0.3074967861175537])     # a new shape: a new kernel
    _eq(op((2,)), [0.9058195352554321, 0.03345999866724014])
    ui = ops.UniformInt(seed=7)
    lo, hi = ms.Tensor(0, ms.int32), ms.Tensor(10, ms.int32)
    _eq(ui((5,), lo, hi), [5, 7, 7, 9, 2], np.int32)
    _eq(ui((5,), lo, hi), [1, 1, 1, 4, 4], np.int32)
    sn = ops.StandardNormal(seed=3, seed2=4)
    _eq(sn((3,)), [-0.7900466918945312, -0.6551691889762878, 2.0359697341918945])
    # an odd count: the polar method's last spare value is dropped with the call's distribution
    _eq(sn((3,)), [0.3013676404953003, 1.512913465499878, -0.6401159763336182])


def test_large_tensors_are_one_stream():
    ms.set_seed(2)      # the seed pair (2, 3) of a first call with op seed 3
    z = ops.randn(1030, seed=3).asnumpy()
    np.testing.assert_array_equal(z[:3], np.array([-0.4736780822277069, -0.4000447690486908, -1.4482604265213013], F32))
    np.testing.assert_array_equal(z[1023:1027], np.array(
        [1.0954132080078125, 0.5592138171195984, 0.4801972806453705, -0.4097323715686798], F32))
    np.testing.assert_array_equal(z[-3:], np.array([-0.2265472114086151, 0.7478494048118591, -3.156494617462158], F32))
    u = ops.rand(33, 40, seed=3).asnumpy().ravel()
    np.testing.assert_array_equal(u[1023:1027], np.array(
        [0.2719443142414093, 0.3210756182670593, 0.9759342670440674, 0.662499189376831], F32))
    np.testing.assert_array_equal(u[-3:], np.array([0.5273663997650146, 0.9998359680175781, 0.5799090266227722], F32))
    k = ops.randint(-2 ** 31, 2 ** 31 - 1, (2000,), seed=9).asnumpy()
    np.testing.assert_array_equal(k[-4:], [-1134762457, -94034831, -392032031, 242093418])
    _eq(ops.randint(0, 2 ** 30 + 1, (3,), seed=9), [443557272, 633291587, 1021602319], np.int64)


def test_randn_statistics_of_a_large_draw():
    ms.set_seed(11)
    z = ops.randn(200000).asnumpy().astype(np.float64)
    assert abs(z.mean()) < 0.01 and abs(z.std() - 1.0) < 0.01
    u = ops.rand(200000).asnumpy().astype(np.float64)
    assert abs(u.mean() - 0.5) < 0.005 and u.min() >= 0.0 and u.max() < 1.0


def test_no_seed_at_all_draws_fresh_numbers():
    from mindseed.common import seed as _seed
    saved = _seed._global_seed
    _seed._global_seed = None
    try:
        assert not np.array_equal(ops.rand(8).asnumpy(), ops.rand(8).asnumpy())
    finally:
        _seed._global_seed = saved


def test_bad_arguments():
    with pytest.raises(ValueError, match="'randint'.*'high' must be in the int32 range"):
        ops.randint(0, 2 ** 31, (2,))
    with pytest.raises(ValueError, match="'UniformReal'.*'seed' must be a non-negative int"):
        ops.UniformReal(seed=-1)
    with pytest.raises(ValueError, match="'rand'.*float type"):
        ops.rand(2, dtype=ms.int32)


# ---------------------------------------------------------------- dropout (MindSpore's CPU Dropout kernel)
_X10 = np.arange(1, 11, dtype=np.float32)


def test_functional_dropout_masks():
    ms.set_seed(1)
    x = ms.Tensor(_X10)
    _eq(ops.dropout(x, 0.3), [1.4285714626312256, 2.857142925262451, 0.0, 0.0, 0.0, 8.571428298950195, 0.0,
                              11.428571701049805, 12.85714340209961, 14.285715103149414])
    _eq(ops.dropout(x, 0.3), [1.4285714626312256, 2.857142925262451, 0.0, 5.714285850524902, 7.142857551574707,
                              8.571428298950195, 10.0, 11.428571701049805, 12.85714340209961, 14.285715103149414])
    _eq(ops.dropout(x, 0.3, seed=5), [0.0, 2.857142925262451, 4.285714149475098, 5.714285850524902, 0.0,
                                      8.571428298950195, 10.0, 11.428571701049805, 12.85714340209961, 0.0])
    out = ops.dropout(ms.Tensor(np.arange(1, 7, dtype=np.float16) / 3), 0.3)
    assert out.dtype == ms.float16
    _eq(out, [0.47607421875, 0.9521484375, 0.0, 1.904296875, 2.380859375, 0.0], np.float16)
    _eq(ops.dropout(ms.Tensor(np.arange(1, 7, dtype=np.float64) / 3), 0.3),
        [0.4761904875437418, 0.9523809750874836, 0.0, 1.9047619501749673, 2.3809524377187095, 2.857142925262451],
        np.float64)


def test_dropout_layer_draws_its_seeds_when_made():
    ms.set_seed(1)
    x = ms.Tensor(_X10)
    for _ in range(4):      # four functional calls first: the layer's seeds are the fifth pair of kernel "dropout"
        ops.dropout(x, 0.3)
    d = ms.nn.Dropout(p=0.4).set_train()
    _eq(d(x), [0.0, 0.0, 5.0, 6.666666507720947, 8.333333015441895, 10.0, 11.666666030883789, 13.333333015441895,
               15.0, 16.66666603088379])
    _eq(d(x), [1.6666666269302368, 3.3333332538604736, 5.0, 6.666666507720947, 8.333333015441895, 10.0, 0.0,
               13.333333015441895, 0.0, 0.0])
    _eq(d(ms.Tensor(np.ones((2, 3), np.float32))), [[0.0, 0.0, 1.6666666269302368], [1.6666666269302368] * 3])
    d2 = ms.nn.Dropout(p=0.4).set_train()
    _eq(d2(x), [0.0, 0.0, 0.0, 6.666666507720947, 8.333333015441895, 10.0, 11.666666030883789, 13.333333015441895,
                15.0, 0.0])
    d2.set_train(False)
    _eq(d2(x), _X10)


def test_dropout_primitive_with_seeds():
    op = ops.Dropout(keep_prob=0.6, Seed0=3, Seed1=4)
    x = ms.Tensor(_X10)
    out, mask = op(x)
    _eq(out, [0.0, 3.3333332538604736, 5.0, 6.666666507720947, 8.333333015441895, 10.0, 11.666666030883789,
              13.333333015441895, 0.0, 16.66666603088379])
    _eq(mask, [0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0])
    _eq(op(x)[1], [1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0])


def test_dropout_large_tensor_and_keep_prob_rounding():
    ms.set_seed(1)
    r = ops.dropout(ms.Tensor(np.ones(3000, np.float32)), 0.5, seed=2).asnumpy()
    np.testing.assert_array_equal(r[:5], [0.0, 0.0, 2.0, 2.0, 0.0])
    np.testing.assert_array_equal(r[-5:], [0.0, 2.0, 0.0, 2.0, 0.0])
    assert float(r.sum()) == 3072.0
    ms.set_seed(4)
    # the scale is 1.f / keep_prob in float, applied after the mask
    _eq(ops.dropout(ms.Tensor(np.full(5, 0.7, np.float32)), 0.1), [0.7777777910232544] * 5)


# ---------------------------------------------------------------- permutations, categorical draws, bernoulli
def test_randperm_is_an_mt19937_shuffle_of_its_seed():
    # seed 0 by default: the same permutation whatever the global seed (MindSpore's RandpermV2)
    ms.set_seed(9)
    _eq(ops.randperm(6), [0, 2, 1, 5, 3, 4], np.int64)
    _eq(ops.randperm(6), [0, 2, 1, 5, 3, 4], np.int64)
    _eq(ops.randperm(7, seed=3), [3, 6, 0, 2, 5, 1, 4], np.int64)
    _eq(ops.randperm(10, seed=3, offset=5), [3, 8, 5, 2, 4, 6, 7, 1, 9, 0], np.int64)     # the offset wins
    _eq(ops.randperm(1000)[-5:], [896, 805, 342, 690, 312], np.int64)
    assert ops.randperm(5, dtype=ms.float32).dtype == ms.float32
    with pytest.raises(ValueError, match="'RandpermV2'.*'seed' must be greater than 0 or equal to 0 or -1"):
        ops.randperm(5, -2)


def test_shuffle_permutes_the_first_dimension():
    ms.set_seed(1)
    _eq(ops.shuffle(ms.Tensor(np.arange(6, dtype=np.float32))), [5.0, 2.0, 0.0, 3.0, 4.0, 1.0])
    _eq(ops.shuffle(ms.Tensor(np.arange(7, dtype=np.float32))), [6.0, 0.0, 2.0, 4.0, 1.0, 5.0, 3.0])
    _eq(ops.shuffle(ms.Tensor(np.arange(6).reshape(3, 2).astype(np.int32)), seed=4), [[4, 5], [0, 1], [2, 3]],
        np.int32)
    # 100000 rows: the engine's range no longer holds n^2, one draw per swap
    _eq(ops.shuffle(ms.Tensor(np.arange(100000, dtype=np.int32)), seed=2)[-5:], [85606, 3402, 179, 71463, 55608],
        np.int32)
    _eq(ops.shuffle(ms.Tensor(np.array(3.0, np.float32))), 3.0)


def test_multinomial_with_and_without_replacement():
    ms.set_seed(1)
    out = ops.multinomial(ms.Tensor(np.ones(6, np.float32)), 3)
    assert out.dtype == ms.int32
    _eq(out, [0, 3, 4], np.int32)
    _eq(ops.multinomial(ms.Tensor(np.array([[0.1, 0.2, 0.7], [0.5, 0.5, 0.0]], np.float32)), 4, seed=2),
        [[2, 2, 2, 2], [1, 1, 1, 1]], np.int32)
    _eq(ops.multinomial(ms.Tensor(np.array([0.1, 0.2, 0.3, 0.4], np.float32)), 3, replacement=False), [2, 3, 0],
        np.int32)
    op = ops.Multinomial(seed=3, seed2=1)
    x = ms.Tensor(np.array([0.2, 0.3, 0.5], np.float32))
    _eq(op(x, 5), [1, 2, 0, 0, 2], np.int32)
    _eq(op(x, 5), [2, 1, 2, 1, 2], np.int32)
    _eq(op(x, 2), [1, 2], np.int32)        # another output shape: another kernel, from the start


def test_bernoulli_restarts_philox_but_first_uses_the_last_block_left():
    z6 = ms.Tensor(np.zeros(6, np.float32))
    first = [1.0, 0.0, 0.0, 0.0, 1.0, 1.0]
    _eq(ops.bernoulli(z6, 0.5, seed=3), first)
    _eq(ops.bernoulli(z6, 0.5, seed=3), [0.0, 1.0, 1.0, 0.0, 0.0, 0.0])     # 2 left of block 1, then block 0
    _eq(ops.bernoulli(z6, 0.5, seed=3), first)
    _eq(ops.bernoulli(ms.Tensor(np.zeros(12, np.float32)), 0.5, seed=3),
        first + [0.0, 1.0, 1.0, 1.0, 0.0, 0.0])
    x = ms.Tensor(np.zeros((2, 3), np.float32))
    _eq(ops.bernoulli(x, ms.Tensor(np.full((2, 3), 0.5, np.float64)), seed=1), [[0.0, 1.0, 0.0], [1.0, 1.0, 0.0]])
    out = ops.bernoulli(ms.Tensor(np.zeros(5, np.int32)), ms.Tensor(np.array([0.1, 0.3, 0.5, 0.7, 0.9], np.float32)),
                        seed=7)
    assert out.dtype == ms.int32
    _eq(out, [0, 1, 1, 0, 1], np.int32)
    op = ops.Bernoulli(seed=2, offset=5)       # the kernel reads the seed only
    _eq(op(z6, ms.Tensor(0.5)), [0.0, 0.0, 1.0, 0.0, 0.0, 1.0])
    _eq(op(z6, ms.Tensor(0.5)), [1.0, 0.0, 0.0, 0.0, 1.0, 0.0])
    with pytest.raises(ValueError, match="'x' and 'p' should have same shape"):
        ops.bernoulli(x, ms.Tensor(np.full(3, 0.5, np.float32)), seed=1)
    with pytest.raises(ValueError, match=r"p should be in \[0, 1\], but got 1.5"):
        ops.bernoulli(x, 1.5, seed=1)


def _choice(out):
    return [o.asnumpy().tolist() for o in out]


def test_choice_with_mask_shuffles_the_true_positions():
    ms.set_seed(1)
    ones = ms.Tensor(np.ones((3, 4), np.bool_))
    assert _choice(ops.choice_with_mask(ones, 5)) == [[[1, 1], [0, 2], [2, 3], [0, 3], [1, 0]], [True] * 5]
    assert _choice(ops.choice_with_mask(ones, 5)) == [[[2, 1], [2, 2], [2, 0], [1, 2], [1, 0]], [True] * 5]
    # rank 3: MindSpore's kernel divides by d1 * d2 at both leading axes (flat 6 -> (0, 0, 6)); padded rows are 0
    x = np.zeros((2, 3, 4), np.bool_)
    x[0, 1, 2] = x[1, 2, 3] = x[1, 0, 0] = True
    assert _choice(ops.choice_with_mask(ms.Tensor(x), 5, seed=3)) == [
        [[0, 0, 6], [1, 0, 11], [1, 0, 0], [0, 0, 0], [0, 0, 0]], [True, True, True, False, False]]
    out = _choice(ops.choice_with_mask(ms.Tensor(np.array([True, False, True, True, False, True])), 3))
    assert out == [[[0], [3], [2]], [True, True, True]]
    op = ops.RandomChoiceWithMask(count=4, seed=2, seed2=7)
    y = ms.Tensor(np.ones(10, np.bool_))
    assert _choice(op(y)) == [[[2], [6], [3], [0]], [True] * 4]
    assert _choice(op(y)) == [[[4], [2], [8], [5]], [True] * 4]


def test_channel_dropout_kernels_share_one_unseeded_stream_per_keep_prob_and_shape():
    from mindseed.ops.functional import _nn as Fnn
    Fnn._CHANNEL_DROPOUT_KERNELS.clear()     # MindSpore's kernels live as long as the process
    x = ms.Tensor(np.ones((2, 5, 1, 1), np.float32))
    _eq(ops.dropout2d(x, 0.5).reshape(-1), [2.0, 2.0, 2.0, 0.0, 0.0, 0.0, 2.0, 0.0, 2.0, 2.0])
    _eq(ops.dropout2d(x, 0.5).reshape(-1), [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 2.0, 0.0, 2.0])
    ms.set_seed(3)      # no effect: the kernel's engine is never seeded
    k = 1.4285714626312256
    _eq(ops.dropout2d(x, 0.3).reshape(-1), [k, k, k, k, 0.0, k, k, k, k, k])
    d = ms.nn.Dropout2d(p=0.5).set_train()      # the same kernel as ops.dropout2d(x, 0.5): its stream goes on
    _eq(d(x).reshape(-1), [0.0, 0.0, 2.0, 0.0, 2.0, 2.0, 2.0, 2.0, 0.0, 2.0])
    _eq(d(x).reshape(-1), [0.0, 2.0, 2.0, 2.0, 2.0, 2.0, 0.0, 2.0, 2.0, 0.0])
    out, mask = ops.Dropout2D(keep_prob=0.6)(x)
    k = 1.6666666269302368
    _eq(out.reshape(-1), [k, k, k, 0.0, 0.0, k, k, k, k, k])
    assert mask.dtype == ms.bool_ and mask.shape == (2, 5, 1, 1)
    _eq(ops.dropout3d(ms.Tensor(np.ones((2, 3, 1, 1, 2), np.float32)), 0.5).reshape(-1), [2.0] * 6 + [0.0] * 6)
    # another shape: another kernel, from the engine's start
    _eq(ops.dropout2d(ms.Tensor(np.arange(8, dtype=np.float32).reshape(1, 2, 2, 2) / 3), 0.3).reshape(-1),
        [0.0, 0.4761905074119568, 0.9523810148239136, 1.4285714626312256, 1.9047620296478271, 2.3809523582458496,
         2.857142925262451, 3.3333332538604736])


def test_set_seed_leaves_the_default_generators_seed_and_offset():
    ms.manual_seed(5)
    ms.set_seed(7)      # MindSpore's set_seed does not reseed the default generator
    assert ms.initial_seed() == 5
    np.testing.assert_array_equal(ms.get_rng_state().asnumpy()[:16], [5] + [0] * 15)


def test_standard_laplace_and_laplace():
    ms.set_seed(1)
    _eq(ops.standard_laplace((4,)), [-1.4387108087539673, 0.19985570013523102, 0.9283266067504883, 0.9932975769042969])
    _eq(ops.standard_laplace((4,)),
        [-0.38727501034736633, -1.065369725227356, 1.2006032466888428, -0.12700271606445312])
    _eq(ops.laplace((3,), ms.Tensor(1.0), ms.Tensor(2.0)),
        [-1.8774216175079346, 1.3997113704681396, 2.8566532135009766])
    op = ops.StandardLaplace(seed=5, seed2=6)
    _eq(op((3,)), [-2.1619651317596436, -0.7694758176803589, 2.810361623764038])
    _eq(op((3,)), [-0.6926435232162476, 1.3199405670166016, 4.533726215362549])
    z = ops.standard_laplace((3000,), seed=4).asnumpy()
    np.testing.assert_array_equal(z[-3:], np.array([-1.8098440170288086, -0.03795864060521126, -0.01496084127575159],
                                                   F32))
    np.testing.assert_array_equal(z[1024:1026], np.array([1.2065582275390625, -0.08616342395544052], F32))


def test_random_categorical_shares_each_draw_across_rows():
    _eq(ops.random_categorical(ms.Tensor([[0.0, 1.0, 2.0]]), 6, seed=1), [[1, 1, 1, 2, 2, 2]], np.int64)
    logits = ms.Tensor(np.array([[0.0, 1.0, 2.0], [1.0, 0.5, -1.0]], np.float32))
    want = [[1, 1, 2, 2, 2, 2, 2, 2], [0, 0, 0, 0, 1, 1, 1, 0]]
    _eq(ops.random_categorical(logits, 8, seed=3), want, np.int64)
    _eq(ops.random_categorical(logits, 8, seed=3), want, np.int64)      # each call makes a new kernel
    _eq(ops.random_categorical(logits, 8, seed=4), [[0, 2, 2, 2, 0, 1, 2, 2], [0, 0, 0, 1, 0, 0, 2, 1]], np.int64)
    r = ops.random_categorical(ms.Tensor(np.random.RandomState(0).randn(4, 50).astype(np.float32)), 300, seed=7,
                               dtype=ms.int32)
    assert r.dtype == ms.int32
    _eq(r[:, -6:], [[29, 37, 36, 28, 4, 0], [41, 45, 44, 39, 20, 1], [35, 44, 43, 31, 9, 0],
                    [42, 48, 47, 39, 11, 1]], np.int32)
