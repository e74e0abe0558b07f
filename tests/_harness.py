"""Table-driven op tests: one OpSpec per op generates value, gradient and second-order tests.

    SPECS = [
        OpSpec("exp", ops.exp, np.exp, shapes=[(3, 4)]),
        OpSpec("add", ops.add, np.add, shapes=[(3, 4), (4,)]),      # broadcasting
    ]
    test_value, test_grad, test_grad2, test_graph = make_tests(SPECS)

Values are checked against the numpy reference in float32 and float64; gradients of
sum(f(x) * v) for a random v against float64 central finite differences; second order (the
gradient of <grad, w>) likewise when `grad2=True`; and the op compiled with `ms.jit` gives what it gives in
PyNative (`graph=False` opts a row out, with a comment saying why). `tests/ops/test_rows.py` checks that every
registered primitive is exercised by some table row (or is exempt, with the reason).
"""
from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np
import pytest

import mindseed as ms


@dataclass
class OpSpec:
    name: str
    fn: Callable                     # mindseed function of Tensors (positional) -> Tensor or tuple
    ref: Optional[Callable] = None   # numpy function of arrays -> array (None: skip the value test)
    shapes: list = field(default_factory=lambda: [(3, 4)])
    gen: object = None               # rng, shape -> array in the op's domain, or one per input (default: normal)
    kwargs: dict = field(default_factory=dict)
    dtypes: tuple = ("float32", "float64")
    grad: bool = True                # check first-order gradients w.r.t. all float inputs
    grad2: bool = False              # also second order
    grad_inputs: Optional[tuple] = None  # which inputs to differentiate (default: all float inputs)
    graph: bool = True               # also check that ms.jit(fn) gives PyNative's values
    extra: tuple = ()                # non-tensor positional args appended after the tensors
    atol: float = 1e-5
    rtol: float = 1e-4
    grad_atol: float = 1e-5
    grad_rtol: float = 1e-4
    eps: float = 1e-6
    id: str = ""

    def __post_init__(self):
        if not self.id:
            self.id = self.name

    def arrays(self, dtype, seed=0):
        rng = np.random.RandomState(seed)
        gens = self.gen if isinstance(self.gen, (list, tuple)) else [self.gen] * len(self.shapes)
        out = []
        for s, gen in zip(self.shapes, gens):
            a = np.asarray((gen or _normal)(rng, s))
            out.append(a.astype(dtype) if a.dtype.kind == "f" else a)
        return out


def _normal(r, s):
    return r.standard_normal(s)


def _call(spec, arrays):
    tensors = [ms.Tensor(a) for a in arrays]
    return spec.fn(*tensors, *spec.extra, **spec.kwargs)


def _np(out):
    if isinstance(out, (tuple, list)):
        return [_np(o) for o in out]
    return out.asnumpy()


def check_value(spec, dtype):
    arrays = spec.arrays(dtype)
    got = _np(_call(spec, arrays))
    want = spec.ref(*arrays, *spec.extra, **spec.kwargs)
    tol = dict(atol=spec.atol * (100 if dtype == "float32" else 1), rtol=spec.rtol * (10 if dtype == "float32" else 1))
    if isinstance(got, list):
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, np.asarray(w), **tol)
    else:
        assert got.shape == np.shape(want), f"{spec.name}: shape {got.shape} != {np.shape(want)}"
        np.testing.assert_allclose(got, np.asarray(want, dtype=got.dtype) if np.asarray(want).dtype.kind != "b"
                                   else want, **tol)


def _diff_positions(spec, arrays):
    if spec.grad_inputs is not None:
        return spec.grad_inputs
    return tuple(i for i, a in enumerate(arrays) if a.dtype.kind == "f")


def _scalar_objective(spec, positions, arrays, cot):
    """f(*xs) -> sum over outputs of sum(out * cot) as a mindseed scalar."""
    def obj(*xs):
        args = [ms.Tensor(a) for a in arrays]
        for p, x in zip(positions, xs):
            args[p] = x
        out = spec.fn(*args, *spec.extra, **spec.kwargs)
        outs = out if isinstance(out, (tuple, list)) else (out,)
        total = None
        for o, c in zip(outs, cot):
            if c is None:
                continue
            term = (o * ms.Tensor(c)).sum()
            total = term if total is None else total + term
        return total
    return obj


def central_difference(f, x, eps=1e-6):
    """d f(x) / dx of a scalar function of one array, by central differences (float64 in, float64 out)."""
    return _numeric_grad(lambda xs: f(xs[0]), [np.array(x, copy=True)], eps)[0]


def _numeric_grad(f, xs, eps):
    grads = []
    for x in xs:
        g = np.zeros_like(x)
        flat = x.reshape(-1)
        for i in range(flat.size):
            old = flat[i]
            flat[i] = old + eps
            fp = f(xs)
            flat[i] = old - eps
            fm = f(xs)
            flat[i] = old
            g.reshape(-1)[i] = (fp - fm) / (2 * eps)
        grads.append(g)
    return grads


def _cotangents(spec, arrays, rng):
    out = _call(spec, arrays)
    outs = out if isinstance(out, (tuple, list)) else (out,)
    return [rng.standard_normal(o.shape) if o.dtype in (ms.float32, ms.float64) else None for o in outs]


def _as_tuple(grads):
    # as MindSpore, a grad_position tuple of one input gives that input's gradient itself
    return grads if isinstance(grads, tuple) else (grads,)


def check_grad(spec):
    arrays = spec.arrays("float64")
    positions = _diff_positions(spec, arrays)
    rng = np.random.RandomState(1)
    cot = _cotangents(spec, arrays, rng)
    obj = _scalar_objective(spec, positions, arrays, cot)
    xs = [ms.Tensor(arrays[p]) for p in positions]
    got = _as_tuple(ms.grad(obj, grad_position=tuple(range(len(xs))))(*xs))

    def f(np_xs):
        return float(obj(*[ms.Tensor(x) for x in np_xs]).asnumpy())
    want = _numeric_grad(f, [arrays[p].copy() for p in positions], spec.eps)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.asnumpy(), w, atol=spec.grad_atol, rtol=spec.grad_rtol)


def check_grad2(spec):
    arrays = spec.arrays("float64")
    positions = _diff_positions(spec, arrays)
    rng = np.random.RandomState(2)
    cot = _cotangents(spec, arrays, rng)
    obj = _scalar_objective(spec, positions, arrays, cot)
    ws = [rng.standard_normal(arrays[p].shape) for p in positions]
    n = len(positions)

    def inner(*xs):
        gs = _as_tuple(ms.grad(obj, grad_position=tuple(range(n)))(*xs))
        total = None
        for g, w in zip(gs, ws):
            term = (g * ms.Tensor(w)).sum()
            total = term if total is None else total + term
        return total

    xs = [ms.Tensor(arrays[p]) for p in positions]
    got = _as_tuple(ms.grad(inner, grad_position=tuple(range(n)))(*xs))

    def f(np_xs):
        return float(inner(*[ms.Tensor(x) for x in np_xs]).asnumpy())
    want = _numeric_grad(f, [arrays[p].copy() for p in positions], spec.eps * 10)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.asnumpy(), w, atol=spec.grad_atol * 100, rtol=spec.grad_rtol * 100)


def check_graph(spec):
    """The op compiled (`ms.jit`) gives what it gives in PyNative, in float32."""
    arrays = spec.arrays("float32")
    want = _np(_call(spec, arrays))

    def run(*xs):
        return spec.fn(*xs, *spec.extra, **spec.kwargs)

    got = _np(ms.jit(run)(*[ms.Tensor(a) for a in arrays]))
    for g, w in zip(got, want) if isinstance(want, list) else ((got, want),):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape and g.dtype == w.dtype, \
            f"{spec.name}: graph {g.shape} {g.dtype} != {w.shape} {w.dtype}"
        np.testing.assert_allclose(g, w, atol=1e-5, rtol=1e-5, equal_nan=True)


def make_tests(specs):
    """Module-level pytest functions for a table of OpSpecs: value, gradient, second order, graph == PyNative."""
    value_cases = [pytest.param(s, d, id=f"{s.id}-{d}") for s in specs if s.ref is not None for d in s.dtypes]
    grad_cases = [pytest.param(s, id=s.id) for s in specs if s.grad]
    grad2_cases = [pytest.param(s, id=s.id) for s in specs if s.grad2]
    graph_cases = [pytest.param(s, id=s.id) for s in specs if s.graph]

    @pytest.mark.parametrize("spec,dtype", value_cases)
    def test_value(spec, dtype):
        check_value(spec, dtype)

    @pytest.mark.parametrize("spec", grad_cases)
    def test_grad(spec):
        check_grad(spec)

    @pytest.mark.parametrize("spec", grad2_cases)
    def test_grad2(spec):
        check_grad2(spec)

    @pytest.mark.parametrize("spec", graph_cases)
    def test_graph(spec):
        check_graph(spec)

    return test_value, test_grad, test_grad2, test_graph


@dataclass
class ErrorSpec:
    """Bad input must raise `exc` with a message naming the op (`match`, a substring)."""
    name: str
    call: Callable                   # no-argument function making the bad call
    exc: type = ValueError
    match: str = ""


def make_error_tests(specs):
    @pytest.mark.parametrize("spec", [pytest.param(s, id=s.name) for s in specs])
    def test_bad_input(spec):
        with pytest.raises(spec.exc) as info:
            spec.call()
        assert spec.match in str(info.value), f"message {str(info.value)!r} lacks {spec.match!r}"
    return test_bad_input


# generators for common domains
def positive(r, s):
    return r.uniform(0.5, 2.0, s)


def unit_open(r, s):
    return r.uniform(-0.9, 0.9, s)


def away_from_zero(r, s):
    return r.uniform(0.5, 2.0, s) * r.choice([-1, 1], s)


def ints(low=0, high=5, dtype=np.int64):
    return lambda r, s: r.randint(low, high, s).astype(dtype)


def bools(r, s):
    return r.uniform(size=s) > 0.5
