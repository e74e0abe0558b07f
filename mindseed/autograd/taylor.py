"""Forward-mode extras with MindSpore's API: `linearize`, and Taylor-mode `jet` / `derivative`.

`jet(fn, primals, series)` pushes a truncated Taylor series through `fn`: the input moves along the curve
x(t) = x0 + sum_k series[k-1] * t**k / k!  and the output series holds d^k/dt^k fn(x(t)) at t = 0, k = 1..order
(`series[0]` is the tangent, `series[1]` the second derivative of the curve, ...). Each order is one more nested
forward-mode derivative of t -> fn(x(t)), so the gradient rules of the primitives are all that is needed.
"""
from mindseed.autograd.grad import _flatten_outputs, _zeros_like, jvp, vjp
from mindseed.common.tensor import Tensor
from mindseed.ops import functional as F

__all__ = ["linearize", "jet", "derivative"]


def _as_tuple(op, name, x):
    xs = (x,) if isinstance(x, Tensor) else x
    if not isinstance(xs, (tuple, list)) or not xs or not all(isinstance(t, Tensor) for t in xs):
        raise TypeError(f"For '{op}', '{name}' must be a Tensor or a tuple of Tensors, but got {type(x).__name__}.")
    return tuple(xs)


def linearize(fn, inputs):
    """`(output, jvp_fn)`: fn evaluated at `inputs` once, and its linearization there.

    `jvp_fn(v)` gives the Jacobian-vector product along `v` (shaped like `inputs`: a Tensor or a tuple of Tensors)
    without evaluating fn again: it applies the transpose of fn's (linear) pullback at `inputs`.

    >>> import mindseed as ms
    >>> out, f = ms.ops.linearize(lambda x: x * x, ms.Tensor([3.0]))
    >>> f(ms.Tensor([1.0]))
    Tensor(shape=[1], dtype=Float32, value= [ 6.00000000e+00])
    """
    xs = _as_tuple("linearize", "inputs", inputs)
    output, pullback = vjp(fn, *xs)
    us = [_zeros_like(o) for o in _flatten_outputs(output)]
    _, transpose = vjp(lambda *u: pullback(*u), *us)

    def jvp_fn(v):
        vs = _as_tuple("linearize", "v", v)
        if len(vs) != len(xs):
            raise ValueError(f"For 'linearize', 'v' must have one Tensor per input ({len(xs)}), but got {len(vs)}.")
        for x, t in zip(xs, vs):
            if tuple(t.shape) != tuple(x.shape):
                raise ValueError(f"For 'linearize', each 'v' must have the shape of its input {tuple(x.shape)}, "
                                 f"but got {tuple(t.shape)}.")
        tangents = transpose(*vs)
        return tangents[0] if isinstance(output, Tensor) else tuple(tangents)

    return output, jvp_fn


def _curve(primals, series, t, order):
    """x(t) = x0 + sum_k s_k t^k / k!, with powers of t by products (smooth at t = 0 to every order)."""
    points = []
    for x0, s in zip(primals, series):
        x, power, fact = x0, t, 1.0
        for k in range(order):
            fact *= k + 1
            x = x + s[k] * power / fact
            power = power * t
        points.append(x)
    return points


def _taylor(op, fn, primals, series):
    order = series[0].shape[0]
    t0 = F.zeros((), primals[0].dtype)
    one = F.ones((), primals[0].dtype)

    def along(t):
        return fn(*_curve(primals, series, t, order))

    out = fn(*primals)
    derivs, g = [], along
    for _ in range(order):
        g = (lambda inner: lambda t: jvp(inner, t, one)[1])(g)
        derivs.append(g(t0))
    if isinstance(out, Tensor):
        return out, F.stack(derivs, 0)
    return out, tuple(F.stack([d[i] for d in derivs], 0) for i in range(len(out)))


def jet(fn, primals, series):
    """Taylor-mode derivatives: `(out_primals, out_series)` of fn along the curve the input `series` describes.

    Args:
        fn (Union[Cell, function]): the function; returns a Tensor or a tuple of Tensors.
        primals (Union[Tensor, tuple[Tensor]]): the point x0.
        series (Union[Tensor, tuple[Tensor]]): per input, a Tensor of shape (order, *x0.shape): the 1st..order-th
            derivatives of the input curve at t = 0.

    Returns:
        `out_primals` = fn(x0) and `out_series`, shaped (order, *out.shape) (a tuple of them for a tuple output): the
        1st..order-th derivatives of fn(x(t)) at t = 0.
    """
    xs = _as_tuple("jet", "primals", primals)
    ss = _as_tuple("jet", "series", series)
    if len(xs) != len(ss):
        raise ValueError(f"For 'jet', 'series' must have one Tensor per primal ({len(xs)}), but got {len(ss)}.")
    order = None
    for x, s in zip(xs, ss):
        if s.ndim != x.ndim + 1 or tuple(s.shape[1:]) != tuple(x.shape):
            raise ValueError(f"For 'jet', each series must have the shape (order, *primal.shape) = (order, "
                             f"{', '.join(map(str, x.shape))}), but got {tuple(s.shape)}.")
        if order is not None and s.shape[0] != order:
            raise ValueError(f"For 'jet', every series must have the same order, but got {order} and {s.shape[0]}.")
        order = s.shape[0]
    if order < 1:
        raise ValueError("For 'jet', the series must have at least one order, but got 0.")
    return _taylor("jet", fn, xs, ss)


# the Taylor series is carried as a stack of `order` coefficients and costs O(order^2): beyond this, float
# precision has long been lost and the work is unbounded
_MAX_ORDER = 1024


def derivative(fn, primals, order):
    """`(out_primals, out_series)`: fn at `primals` and its `order`-th derivative there, every input moving with
    unit speed (x(t) = x0 + t): for one input, the `order`-th derivative of fn along the all-ones direction.
    """
    xs = _as_tuple("derivative", "primals", primals)
    if not isinstance(order, int) or isinstance(order, bool) or not 1 <= order <= _MAX_ORDER:
        raise ValueError(f"For 'derivative', 'order' must be an int in [1, {_MAX_ORDER}], but got {order!r}.")
    ss = tuple(F.stack([F.ones_like(x)] + [F.zeros_like(x)] * (order - 1), 0) for x in xs)
    out, series = _taylor("derivative", fn, xs, ss)
    if isinstance(out, Tensor):
        return out, series[order - 1]
    return out, tuple(s[order - 1] for s in series)
