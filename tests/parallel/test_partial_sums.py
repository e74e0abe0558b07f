"""Partial sums through linear calls: where the operands of Add and Sub are partial sums in one layout (the others
placed on one rank of the sum), or a partial sum is negated, multiplied or divided by a factor that is none, the
ranks compute on their parts and the result stays a partial sum (one reduction, where a consumer needs the value),
checked against a numpy model holding each rank's part."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mindseed as ms
from mindseed import Tensor, ops
from mindseed.parallel._layout import assemble
from mindseed.parallel._spmd import execute, record
from mindseed.parallel._world import SimulatedWorld


def _close(a, b):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=0, atol=1e-12)


def _parts(x, w, k, n):
    """The numpy model: rank r's part of x @ w when the contracted dim is cut in k pieces on n ranks (rank r holds
    piece r // (n / k), as the strategy's mesh (k, n / k) numbers them)."""
    step = x.shape[1] // k
    return [x[:, (r // (n // k)) * step:(r // (n // k) + 1) * step] @ w[(r // (n // k)) * step:
                                                                       (r // (n // k) + 1) * step]
            for r in range(n)]


@settings(max_examples=25, deadline=None)
@given(st.sampled_from([(2, 2), (4, 2), (4, 4), (8, 2), (8, 4), (8, 8)]), st.sampled_from(["Add", "Sub"]),
       st.integers(0, 2 ** 16))
def test_a_sum_of_partial_sums_stays_a_partial_sum(nk, op, seed):
    n, k = nk
    rng = np.random.default_rng(seed)
    x1, w1, x2, w2 = (rng.standard_normal(s) for s in ((4, 8), (8, 3), (4, 8), (8, 3)))
    mm1, mm2 = ops.MatMul().shard(((1, k), (k, 1))), ops.MatMul().shard(((1, k), (k, 1)))
    combine = {"Add": ops.Add(), "Sub": ops.Sub()}[op]
    sign = 1.0 if op == "Add" else -1.0

    def fn(a1, b1, a2, b2):
        c = combine(mm1(a1, b1), mm2(a2, b2))
        return ops.relu(c + mm1(a1, b1))     # a second sum of partial sums, then a consumer reading it whole

    args = [Tensor(a) for a in (x1, w1, x2, w2)]
    program = record(fn, *args)
    world = SimulatedWorld(n)
    ex = execute(program, world)
    # the numpy model: each rank's parts added, the one reduction at the ReLU
    a, b = _parts(x1, w1, k, n), _parts(x2, w2, k, n)
    want = [a[r] + sign * b[r] + a[r] for r in range(n)]
    total = next(c for c in program.calls if c.prim.name == "Add" and c is not program.calls[2])
    v = ex.value(total.out)
    assert v.layout.partial and v.layout.dims == ((), ())
    for r in range(n):
        _close(v.shards[r], want[r])
    _close(assemble(v.shards, v.layout), x1 @ w1 + sign * (x2 @ w2) + x1 @ w1)
    assert [rec.kind for rec in world.log] == ["AllReduce"]     # reduced once, for the ReLU
    _close(ex.whole(program.result), np.maximum(x1 @ w1 + sign * (x2 @ w2) + x1 @ w1, 0))


@pytest.mark.parametrize("other", ["cut rows", "other partial axis"])
def test_a_partial_sum_added_to_anything_else_is_reduced_first(other):
    # only operands in one layout of partial sums add up as parts: a cut one or one partial over other axes does not
    # line up with the parts
    rng = np.random.default_rng(0)
    x, w, y = rng.standard_normal((4, 8)), rng.standard_normal((8, 4)), rng.standard_normal((4, 4))
    mm = ops.MatMul().shard(((1, 2), (2, 1)))
    second = {"cut rows": ops.ReLU().shard(((2, 1),)),
              "other partial axis": ops.MatMul().shard(((1, 4), (4, 1)))}[other]

    def fn(a, b, c):
        y2 = second(c) if other == "cut rows" else second(c, c)
        return ops.add(mm(a, b), y2) * 2

    program = record(fn, Tensor(x), Tensor(w), Tensor(y))
    world = SimulatedWorld(4)
    ex = execute(program, world)
    add = next(p for p in ex.plans if p.call.prim.name == "Add")
    assert not any(lay.partial for lay in add.in_layouts + add.out_layouts)
    y2 = np.maximum(y, 0) if other == "cut rows" else y @ y
    _close(ex.whole(program.result), (x @ w + y2) * 2)


# name: (the function of the partial sum p, a second partial sum q and a factor f; the numpy model of a rank's part
# from its parts of p and q, the factor, and whether the rank is the first of the sum)
LINEAR_CALLS = {
    "Neg": (lambda p, q, f: ops.neg(p), lambda a, b, f, first: -a),
    "Mul by a factor": (lambda p, q, f: ops.mul(p, f), lambda a, b, f, first: a * f),
    "factor Mul": (lambda p, q, f: ops.mul(f, p), lambda a, b, f, first: f * a),
    "Mul by a broadcast row": (lambda p, q, f: ops.mul(p, f[0]), lambda a, b, f, first: a * f[0]),
    "Div by a factor": (lambda p, q, f: ops.div(p, f), lambda a, b, f, first: a / f),
    "AddN": (lambda p, q, f: ops.addn([p, q, p]), lambda a, b, f, first: a + b + a),
    "Add a replicated value": (lambda p, q, f: ops.add(p, f), lambda a, b, f, first: a + (f if first else 0)),
    "Sub from a replicated value": (lambda p, q, f: ops.sub(f, p), lambda a, b, f, first: (f if first else 0) - a),
    "Add a broadcast bias": (lambda p, q, f: ops.add(p, f[0]), lambda a, b, f, first: a + (f[0] if first else 0)),
}


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([(2, 2), (4, 2), (4, 4), (8, 2), (8, 4), (8, 8)]), st.sampled_from(sorted(LINEAR_CALLS)),
       st.integers(0, 2 ** 16))
def test_linear_calls_of_a_partial_sum_stay_partial_sums(nk, name, seed):
    """Each rank's part of the result is the numpy model's (its parts of the products, the factor the same on every
    rank, a replicated operand held by the first rank of the sum only), and one all-reduce gives the ReLU its input."""
    n, k = nk
    rng = np.random.default_rng(seed)
    x1, w1, x2, w2 = (rng.standard_normal(s) for s in ((4, 8), (8, 3), (4, 8), (8, 3)))
    f = rng.uniform(0.5, 2.0, (4, 3))
    mm1, mm2 = ops.MatMul().shard(((1, k), (k, 1))), ops.MatMul().shard(((1, k), (k, 1)))
    call, model = LINEAR_CALLS[name]

    def fn(a1, b1, a2, b2, c):
        return ops.relu(call(mm1(a1, b1), mm2(a2, b2), c))

    args = [Tensor(a) for a in (x1, w1, x2, w2, f)]
    program = record(fn, *args)
    world = SimulatedWorld(n)
    ex = execute(program, world)
    linear = program.calls[-2]     # the call under test, read by the ReLU
    v = ex.value(linear.out)
    assert v.layout.partial and v.layout.dims == ((), ())
    a, b = _parts(x1, w1, k, n), _parts(x2, w2, k, n)
    for r in range(n):
        _close(v.shards[r], model(a[r], b[r], f, r // (n // k) == 0))
    whole = model(x1 @ w1, x2 @ w2, f, True)
    _close(assemble(v.shards, v.layout), whole)
    assert [rec.kind for rec in world.log] == ["AllReduce"]     # reduced once, for the ReLU
    _close(ex.whole(program.result), np.maximum(whole, 0))


@pytest.mark.parametrize("name", ["product of partial sums", "quotient by a partial sum"])
def test_a_nonlinear_call_of_partial_sums_reduces_them_first(name):
    rng = np.random.default_rng(0)
    x, w = rng.uniform(0.5, 1.0, (4, 8)), rng.uniform(0.5, 1.0, (8, 3))   # no product near zero
    mm1, mm2 = ops.MatMul().shard(((1, 2), (2, 1))), ops.MatMul().shard(((1, 2), (2, 1)))

    def fn(a, b):
        p, q = mm1(a, b), mm2(a, b)
        return ops.mul(p, q) if name == "product of partial sums" else ops.div(p, q)

    program = record(fn, Tensor(x), Tensor(w))
    ex = execute(program, SimulatedWorld(4))
    last = ex.plans[-1]
    assert not any(lay.partial for lay in last.in_layouts + last.out_layouts)
    y = x @ w
    _close(ex.whole(program.result), y * y if name == "product of partial sums" else y / y)


def test_a_partial_sum_reduced_for_one_consumer_is_read_reduced_by_a_later_linear_call():
    # p * p reduces p; the later -p and p * 3 read that reduced copy (keeping p partial there would reduce it again)
    rng = np.random.default_rng(1)
    x, w = rng.standard_normal((4, 8)), rng.standard_normal((8, 3))
    mm = ops.MatMul().shard(((1, 2), (2, 1)))

    def fn(a, b):
        p = mm(a, b)
        return ops.relu(p * p) + ops.neg(p) + p * 3.0

    program = record(fn, Tensor(x), Tensor(w))
    world = SimulatedWorld(4)
    ex = execute(program, world)
    assert [rec.kind for rec in world.log] == ["AllReduce"]
    y = x @ w
    _close(ex.whole(program.result), np.maximum(y * y, 0) - y + 3 * y)


@pytest.mark.parametrize("mesh", ["2", "4", "2x2"])
def test_reshape_transpose_cast_and_reduce_sum_keep_a_partial_sum(mesh):
    # integer-valued float32 data: the parts and their sums are exact, so the float32 -> float64 Cast of each part
    # adds up to the Cast of the sum
    n, strategy = {"2": (2, ((1, 2), (2, 1))), "4": (4, ((1, 4), (4, 1))), "2x2": (4, ((2, 2), (2, 1)))}[mesh]
    rng = np.random.default_rng(3)
    x, w = rng.integers(-3, 4, (4, 8)).astype(np.float32), rng.integers(-3, 4, (8, 6)).astype(np.float32)
    mm = ops.MatMul().shard(strategy)

    def fn(a, b):
        h = ops.transpose(ops.reshape(mm(a, b), (4, 2, 3)), (1, 0, 2))
        return ops.relu(ops.reduce_sum(ops.cast(h, ms.float64), 2))

    program = record(fn, Tensor(x), Tensor(w))
    world = SimulatedWorld(n)
    ex = execute(program, world)
    names = [p.call.prim.name for p in ex.plans]
    assert names == ["MatMul", "Reshape", "Transpose", "Cast", "ReduceSum", "ReLU"]
    k = strategy[0][1]
    for p in ex.plans[1:5]:   # every linear call runs on the parts: no move, the output a partial sum over k
        assert not p.moves and p.out_layouts[0].partial and p.out_layouts[0].mesh.size == n
        assert math.prod(p.out_layouts[0].mesh.shape[a] for a in p.out_layouts[0].partial) == k
    want = (x @ w).reshape(4, 2, 3).transpose(1, 0, 2).astype(np.float64).sum(2)
    _close(assemble(ex.value(program.calls[4].out).shards, ex.value(program.calls[4].out).layout), want)
    np.testing.assert_array_equal(ex.whole(program.result), np.maximum(want, 0))
    # one reduction, for the ReLU, of the summed (2, 4) float64 values (the rows cut by 2 on (2, 2)) instead of the
    # (4, 6) float32 product
    rows = strategy[0][0]
    assert [(r.kind, r.input_bytes) for r in world.log] == [("AllReduce", 2 * 4 * 8 // rows)]


def test_an_integer_cast_of_a_partial_sum_reads_it_reduced():
    rng = np.random.default_rng(4)
    x, w = rng.standard_normal((4, 8)), rng.standard_normal((8, 6))
    mm = ops.MatMul().shard(((1, 2), (2, 1)))
    program = record(lambda a, b: ops.cast(mm(a, b) * 10, ms.int32), Tensor(x), Tensor(w))
    ex = execute(program, SimulatedWorld(2))
    cast = ex.plans[-1]
    assert cast.call.prim.name == "Cast" and not cast.out_layouts[0].partial and cast.moves
    np.testing.assert_array_equal(ex.whole(program.result), ((x @ w) * 10).astype(np.int32))


def test_a_narrowing_cast_of_a_partial_sum_reads_it_reduced():
    # float64 parts rounded to float32 one by one would not add up to the float32 rounding of their sum
    rng = np.random.default_rng(6)
    x, w = rng.standard_normal((4, 8)), rng.standard_normal((8, 6))
    mm = ops.MatMul().shard(((1, 2), (2, 1)))
    program = record(lambda a, b: ops.cast(mm(a, b), ms.float32), Tensor(x), Tensor(w))
    ex = execute(program, SimulatedWorld(2))
    assert not ex.plans[-1].out_layouts[0].partial
    np.testing.assert_array_equal(ex.whole(program.result), (x @ w).astype(np.float32))
