"""Kernels of the math family: elementwise math, comparison/logic, reductions and scans.

Binary kernels accept a Python scalar on either side (it promotes weakly, like MindSpore's scalars).
"""
import math
import warnings

import torch

from mindseed._backend._core import _TORCH_DTYPES
from mindseed._backend._kernels.core import _t, promote_zero_dim

_special = torch.special
_WIDE_UNSIGNED = (torch.uint16, torch.uint32, torch.uint64)


def _pair(x, y, zero_dim_promotes=True):
    """Both operands as tensors (a Python number weakly typed beside the other); a 0-d tensor promotes like any
    tensor unless not `zero_dim_promotes` (MindSpore's Mod and CopySign keep aten's rule)."""
    if isinstance(x, torch.Tensor):
        if isinstance(y, torch.Tensor):
            return promote_zero_dim(x, y) if zero_dim_promotes else (x, y)
        return x, _t(y, x)
    return _t(x, y), y


def _float(x):
    """Integer/bool tensors promote to float32 for float-only kernels (as MindSpore's Ascend kernels do)."""
    return x if x.is_floating_point() or x.is_complex() else x.to(torch.float32)


def _dims(axis, ndim):
    """An axis attribute (None, int or tuple) as a tuple of dims for torch reductions."""
    if axis is None:
        return tuple(range(ndim))
    return (axis,) if isinstance(axis, int) else tuple(axis)


# ---------------------------------------------------------------- unary
def abs_(x):
    return x if x.dtype == torch.bool else torch.abs(x)


sqrt = torch.sqrt


def rsqrt(x):
    if x.dtype == torch.float16:
        # MindSpore's CPU Rsqrt of float16: 1 / sqrt(x) with the square root rounded to float16 first
        return torch.reciprocal(torch.sqrt(x.float()).half().float()).half()
    return torch.rsqrt(x)


square = torch.square
reciprocal = torch.reciprocal


def inv(x):
    """MindSpore's Inv: 1 / x, and for an integer x the truncated reciprocal (1, -1 or 0) in x's dtype."""
    if x.is_floating_point() or x.is_complex():
        return torch.reciprocal(x)
    return torch.trunc(torch.reciprocal(x)).to(x.dtype)
sin, cos, tan = torch.sin, torch.cos, torch.tan
asin, acos, atan = torch.asin, torch.acos, torch.atan
sinh, cosh, tanh = torch.sinh, torch.cosh, torch.tanh
asinh, acosh, atanh = torch.asinh, torch.acosh, torch.atanh


def sigmoid(x):
    if x.dtype == torch.float16:
        return sigmoid_half_steps(x)
    return torch.sigmoid(x)


def sigmoid_half_steps(x):
    """MindSpore's CPU Sigmoid of float16: 1 / (1 + exp(-x)) one operation at a time, each result rounded to
    float16 (exp(-x), then 1 + that, then its reciprocal); torch rounds the float32 value once, which differs on
    about one value in four."""
    e = torch.exp(-x.float()).half()
    return torch.reciprocal((e.float() + 1).half().float()).half()
erf, erfc, erfinv = torch.erf, torch.erfc, torch.erfinv
log1p, expm1, log2, log10, exp2 = torch.log1p, torch.expm1, torch.log2, torch.log10, torch.exp2
signbit = torch.signbit


def sgn(x):
    """sign for reals; z / |z| (0 at 0) for complex, the real and imaginary parts divided apart as MindSpore's
    kernel does (torch's complex division rounds (15+20j)/25 to 0.59999996+0.79999995j)."""
    if not x.is_complex():
        return torch.sgn(x)
    a = x.abs()
    return torch.where(a == 0, torch.zeros_like(x), torch.complex(x.real / a, x.imag / a))


lgamma, digamma = torch.lgamma, torch.digamma
isnan, isinf, isfinite, isneginf, isposinf = torch.isnan, torch.isinf, torch.isfinite, torch.isneginf, torch.isposinf
logical_not = torch.logical_not
angle = torch.angle


def _rounding(fn):
    def kernel(x):
        if x.dtype == torch.bool:
            return x.clone()
        return fn(x) if x.is_floating_point() else x.clone()
    return kernel


floor = _rounding(torch.floor)
ceil = _rounding(torch.ceil)
trunc = _rounding(torch.trunc)


def round_(x, decimals=0):
    if not x.is_floating_point():
        return x.clone()
    return torch.round(x, decimals=decimals) if decimals else torch.round(x)


def frac(x):
    return torch.frac(x) if x.is_floating_point() else torch.zeros_like(x)


def sinc(x):
    return torch.sinc(x)


def polygamma(x, n):
    return torch.polygamma(n, x)


def bessel(name):
    """A Bessel function evaluated in double precision and rounded to the input's float type: torch's float32
    series lose up to 1e-5 of relative accuracy near the zeros (y0(4)), where MindSpore's kernels are exact."""
    fn = getattr(_special, name)

    def kernel(x):
        x = _float(x)
        return fn(x.double()).to(x.dtype) if x.dtype != torch.float64 else fn(x)
    return kernel


def real(x):
    return torch.real(x) if x.is_complex() else torch.ops.aten.alias(x)


def imag(x):
    return torch.imag(x) if x.is_complex() else torch.zeros_like(x)


def conj(x):
    return torch.conj_physical(x) if x.is_complex() else x


def complex_(real_part, imag_part):
    real_part, imag_part = _pair(real_part, imag_part)
    return torch.complex(_float(real_part), _float(imag_part))


def nan_to_num(x, nan=0.0, posinf=None, neginf=None):
    if not x.is_floating_point():
        return x.clone()
    return torch.nan_to_num(x, nan=nan, posinf=posinf, neginf=neginf)


def finite_mask(x):
    return torch.isfinite(x)


def bitwise_not(x):
    return torch.bitwise_not(x)


def isreal(x):
    return torch.isreal(x)


def population_count(x):
    bits = torch.iinfo(x.dtype).bits
    u = x.to(torch.int64)
    if bits < 64:
        u = u & ((1 << bits) - 1)
    count = torch.zeros_like(u)
    for i in range(bits):
        count += (u >> i) & 1
    return count.to(torch.uint8)


# ---------------------------------------------------------------- binary
def _binary(fn, to_float=False, zero_dim_promotes=True):
    """The kernel fn(x, y) of two operands brought to tensors (`_pair`), as floats when `to_float`."""
    def kernel(x, y):
        x, y = _pair(x, y, zero_dim_promotes)
        return fn(_float(x), _float(y)) if to_float else fn(x, y)
    return kernel


def _unsigned_zero(fn):
    """fn, with a zero result +0.0: MindSpore's remainders (`-4.0 % 2.0`, fmod(-2.0, 2.0)) never give -0.0."""
    def kernel(x, y):
        out = fn(x, y)
        return out.add_(0.0) if out.is_floating_point() else out    # -0.0 + 0.0 is +0.0; every other value stays
    return kernel


def _bool_pair(fn, by_false):
    """fn, also on two bool tensors (which torch refuses): as MindSpore's CPU kernels, a Bool result of the 0/1
    arithmetic where the divisor is True and `by_false(x)` where it is False."""
    def kernel(x, y):
        if x.dtype != torch.bool or y.dtype != torch.bool:
            return fn(x, y)
        q = fn(x.to(torch.int8), torch.ones_like(y, dtype=torch.int8)).bool()
        return torch.where(y, q, by_false(x))
    return kernel


floor_divide = _binary(_bool_pair(torch.floor_divide, lambda x: x))
floor_mod = _binary(_bool_pair(_unsigned_zero(torch.remainder), lambda x: x))
fmod = _binary(_bool_pair(_unsigned_zero(torch.fmod), lambda x: x), zero_dim_promotes=False)
atan2 = _binary(torch.atan2)
hypot = _binary(torch.hypot, to_float=True)
logaddexp = _binary(torch.logaddexp, to_float=True)
logaddexp2 = _binary(torch.logaddexp2, to_float=True)
copysign = _binary(torch.copysign, zero_dim_promotes=False)
fmax = _binary(torch.fmax)
fmin = _binary(torch.fmin)
gcd = _binary(torch.gcd)
lcm = _binary(torch.lcm)
nextafter = _binary(torch.nextafter, to_float=True)


def xlogy(x, y):
    """x * log(y), 0 where x is 0 (also for complex operands, which torch.xlogy does not take). A Python number is
    a float32 0-d tensor first, as MindSpore's xlogy makes it (so xlogy(float16 t, 2) is float32)."""
    x, y = (v if isinstance(v, torch.Tensor) else torch.scalar_tensor(v, dtype=torch.float32) for v in (x, y))
    x, y = _pair(x, y)
    if not (x.is_complex() or y.is_complex()):
        return torch.xlogy(x, y)
    dt = torch.promote_types(x.dtype, y.dtype)
    x, y = x.to(dt), y.to(dt)
    return torch.where(x == 0, torch.zeros((), dtype=dt, device=x.device), x * torch.log(y))


def truncate_div(x, y):
    x, y = _pair(x, y)
    return _bool_pair(lambda a, b: torch.div(a, b, rounding_mode="trunc"), torch.ones_like)(x, y)


def heaviside(x, values):
    x, values = _pair(x, values)
    if values.dtype != x.dtype:
        dt = torch.promote_types(x.dtype, values.dtype)
        x, values = x.to(dt), values.to(dt)
    return torch.heaviside(x, values)


def _div_zero_where_zero(operand):
    """x / y, and 0 where operand 0 (x: xdivy) or 1 (y: div_no_nan) is 0."""
    def kernel(x, y):
        x, y = _pair(x, y)
        q = torch.div(x, y)
        return torch.where((x, y)[operand] == 0, torch.zeros((), dtype=q.dtype, device=q.device), q)
    return kernel


xdivy = _div_zero_where_zero(0)
div_no_nan = _div_zero_where_zero(1)


bitwise_and = _binary(torch.bitwise_and)
bitwise_or = _binary(torch.bitwise_or)
bitwise_xor = _binary(torch.bitwise_xor)
bitwise_left_shift = _binary(torch.bitwise_left_shift)
bitwise_right_shift = _binary(torch.bitwise_right_shift)
logical_and = _binary(torch.logical_and)
logical_or = _binary(torch.logical_or)
logical_xor = _binary(torch.logical_xor)


def isclose(x, y, rtol=1e-5, atol=1e-8, equal_nan=False):
    x, y = _pair(x, y)
    return torch.isclose(x, y, rtol=rtol, atol=atol, equal_nan=equal_nan)


def igamma(a, x):
    a, x = _pair(a, x)
    return _special.gammainc(_float(a), _float(x))


def igammac(a, x):
    a, x = _pair(a, x)
    return _special.gammaincc(_float(a), _float(x))


def zeta(x, q):
    x, q = _pair(x, q)
    return _special.zeta(x, q)


def clamp(x, lo, hi):
    if isinstance(lo, torch.Tensor) or isinstance(hi, torch.Tensor):
        # tensor bounds promote by dtype like any tensor, 0-d ones too (MindSpore: float16 x, float32 () min ->
        # float32)
        dt = x.dtype
        for b in (lo, hi):
            dt = torch.promote_types(dt, b.dtype) if isinstance(b, torch.Tensor) else dt
        x = x.to(dt)
        lo, hi = (None if b is None else b.to(dt) if isinstance(b, torch.Tensor) else _t(b, x) for b in (lo, hi))
    return torch.clamp(x, lo, hi)


def in_range_mask(x, lo, hi):
    """Where clamp(x, lo, hi) passes x through (the support of its gradient w.r.t. x)."""
    mask = torch.ones(x.shape, dtype=torch.bool, device=x.device)
    if lo is not None:
        mask = mask & (x >= lo)
    if hi is not None:
        mask = mask & (x <= hi)
    return mask


# ---------------------------------------------------------------- reductions
def reduce_mean(x, axis=None, keep_dims=False):
    dims = _dims(axis, x.dim())
    if x.is_floating_point() or x.is_complex():
        if x.dim() == 0:
            return x.clone()
        return torch.mean(x, dim=dims, keepdim=keep_dims)
    # MindSpore keeps the integer dtype (the mean truncated)
    if x.dim() == 0:
        return x.clone()
    return torch.mean(x.to(torch.float64), dim=dims, keepdim=keep_dims).to(x.dtype)


def _reduce_each(fn, x, dims, keep_dims):
    """Apply a one-dim torch reduction over several dims, highest first."""
    for d in sorted(dims, reverse=True):
        x = fn(x, d, keepdim=keep_dims)
    return x


def reduce_prod(x, axis=None, keep_dims=False, dtype=None):
    if dtype is not None:
        x = x.to(_TORCH_DTYPES[dtype])
    if x.dim() == 0:
        return x.clone() if dtype is not None or x.dtype != torch.bool else x.to(torch.int64)
    if axis is None and not keep_dims:
        out = torch.prod(x)
    else:
        out = _reduce_each(torch.prod, x, _dims(axis, x.dim()), keep_dims)
    return out if dtype is None else out.to(x.dtype)     # aten multiplies narrow integers in Int64


def reduce_max(x, axis=None, keep_dims=False):
    if x.dim() == 0:
        return x.clone()
    return torch.amax(x, dim=_dims(axis, x.dim()), keepdim=keep_dims)


def reduce_min(x, axis=None, keep_dims=False):
    if x.dim() == 0:
        return x.clone()
    return torch.amin(x, dim=_dims(axis, x.dim()), keepdim=keep_dims)


def reduce_all(x, axis=None, keep_dims=False):
    if x.dim() == 0:
        return x.to(torch.bool)
    return _reduce_each(torch.all, x, _dims(axis, x.dim()), keep_dims).to(torch.bool)


def reduce_any(x, axis=None, keep_dims=False):
    if x.dim() == 0:
        return x.to(torch.bool)
    return _reduce_each(torch.any, x, _dims(axis, x.dim()), keep_dims).to(torch.bool)


def reduce_var(x, axis=None, ddof=0, keep_dims=False):
    if x.dim() == 0:
        return torch.zeros_like(x) if ddof == 0 else torch.full_like(x, math.nan)
    dims = _dims(axis, x.dim())
    count = math.prod(x.shape[d] for d in dims)
    if count <= ddof:   # no degrees of freedom left: NaN (or inf), without torch's warning
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return torch.var(x, dim=dims, correction=ddof, keepdim=keep_dims)
    return torch.var(x, dim=dims, correction=ddof, keepdim=keep_dims)


def logsumexp(x, axis=None, keep_dims=False):
    x = _float(x)
    if x.dim() == 0:
        return x.clone()
    return torch.logsumexp(x, dim=_dims(axis, x.dim()), keepdim=keep_dims)


def count_nonzero(x, axis=None, keep_dims=False, dtype="Int32"):
    nz = x != 0
    if x.dim() == 0:
        out = nz.to(torch.int64)
    else:
        out = torch.sum(nz, dim=_dims(axis, x.dim()), keepdim=keep_dims)
    return out.to(_TORCH_DTYPES[dtype])


def arg_reduce(x, axis=None, keep_dims=False, dtype="Int64", largest=True):
    fn = torch.argmax if largest else torch.argmin
    if x.dtype == torch.bool:
        x = x.to(torch.uint8)
    if axis is None:
        out = fn(x.reshape(-1))
        if keep_dims:
            out = out.reshape((1,) * x.dim())
    else:
        out = fn(x, dim=axis, keepdim=keep_dims) if x.dim() else torch.zeros((), dtype=torch.int64, device=x.device)
    return out.to(_TORCH_DTYPES[dtype])


def arg_with_value(x, axis=0, keep_dims=False, largest=True, index_dtype="Int64"):
    """MindSpore's ArgMaxWithValue/ArgMinWithValue: (index, value) along one axis."""
    if x.dim() == 0:
        return torch.zeros((), dtype=_TORCH_DTYPES[index_dtype], device=x.device), x.clone()
    # NOTE: argmax + gather; torch.max(x, dim) is many times slower on a busy multi-threaded CPU
    src = x.to(torch.uint8) if x.dtype == torch.bool else x
    index = (torch.argmax if largest else torch.argmin)(src, dim=axis, keepdim=True)
    values = torch.gather(x, axis, index)
    if not keep_dims:
        index, values = index.squeeze(axis), values.squeeze(axis)
    return index.to(_TORCH_DTYPES[index_dtype]), values


def median(x, axis=-1, keep_dims=False, ignore_nan=False):
    fn = torch.nanmedian if ignore_nan else torch.median
    if x.dim() == 0:
        return x.clone(), torch.zeros((), dtype=torch.int64, device=x.device)
    if x.shape[axis] == 0:
        # an empty reduction gives NaN (float) or 0 (integer) at index 0, as MindSpore's CPU kernel
        shape = list(x.shape)
        if keep_dims:
            shape[axis] = 1
        else:
            del shape[axis]
        fill = float("nan") if x.is_floating_point() else 0
        return (torch.full(shape, fill, dtype=x.dtype, device=x.device),
                torch.zeros(shape, dtype=torch.int64, device=x.device))
    values, index = fn(x, dim=axis, keepdim=keep_dims)
    return values, index


def arg_reduce_grad(dout, index, shape=(), axis=0, keep_dims=False):
    """dout scattered (summed over repeated indices) into zeros of `shape` at `index` along `axis`."""
    if len(shape) == 0:
        return dout.clone()
    if not keep_dims and index.dim() < len(shape):
        index, dout = index.unsqueeze(axis), dout.unsqueeze(axis)
    out = torch.zeros(shape, dtype=dout.dtype, device=dout.device)
    return out.scatter_add(axis, index.to(torch.int64), dout)


def arg_reduce_take(x, index, axis=0, keep_dims=False):
    """x gathered at `index` along `axis` (the adjoint of arg_reduce_grad)."""
    if x.dim() == 0:
        return x.clone()
    squeeze = not keep_dims and index.dim() < x.dim()
    if squeeze:
        index = index.unsqueeze(axis)
    out = torch.gather(x, axis, index.to(torch.int64))
    return out.squeeze(axis) if squeeze else out


# ---------------------------------------------------------------- scans
def _shift(out, axis, fill):
    """Exclusive scan from an inclusive one: shift by one along axis, `fill` entering first."""
    n = out.shape[axis]
    head = torch.full_like(out.narrow(axis, 0, 1), fill) if n else out.narrow(axis, 0, 0)
    return torch.cat([head, out.narrow(axis, 0, max(n - 1, 0))], dim=axis)


def _scan(fn, fill):
    def kernel(x, axis=0, exclusive=False, reverse=False, dtype=None):
        if x.dim() == 0:
            x = x.reshape(1)
            return kernel(x, 0, exclusive, reverse, dtype).reshape(())
        if reverse:
            x = x.flip(axis)
        out = fn(x, axis, dtype)
        if exclusive:
            out = _shift(out, axis, fill(out))
        return out.flip(axis) if reverse else out
    return kernel


def _stepwise(x, axis, step):
    """An inclusive scan rounding the running value to x's dtype at every step (MindSpore's CPU kernels, as numpy,
    for the half types; torch keeps the accumulator in float32 until the end)."""
    parts = x.unbind(axis)
    outs = [parts[0]]
    for p in parts[1:]:
        outs.append(step(outs[-1], p))
    return torch.stack(outs, axis)


def _cumsum(x, axis, dtype):
    dt = _TORCH_DTYPES[dtype] if dtype is not None else (torch.int64 if x.dtype == torch.bool else x.dtype)
    if dt in (torch.float16, torch.bfloat16) and x.shape[axis] > 1:
        return _stepwise(x.to(dt), axis, torch.add)
    return torch.cumsum(x, axis, dtype=dt)


def _cumprod(x, axis, dtype):
    dt = _TORCH_DTYPES[dtype] if dtype is not None else x.dtype
    if dt in (torch.float16, torch.bfloat16) and x.shape[axis] > 1:
        return _stepwise(x.to(dt), axis, torch.mul)
    if dtype is not None:
        return torch.cumprod(x, axis, dtype=dt)
    return torch.cumprod(x, axis)


def _logcumsumexp(x, axis, dtype):
    return torch.logcumsumexp(_float(x), axis)


def _lowest(out):
    return torch.finfo(out.dtype).min if out.is_floating_point() else 0


cumsum = _scan(_cumsum, lambda out: 0)
cumprod = _scan(_cumprod, lambda out: 1)
logcumsumexp = _scan(_logcumsumexp, _lowest)


def cum_extreme(x, axis=0, largest=True):
    """(values, indices) of the running maximum (or minimum) along axis."""
    if x.dim() == 0:
        return x.clone(), torch.zeros((), dtype=torch.int64, device=x.device)
    if x.dtype in _WIDE_UNSIGNED:
        # torch has no cummax/cummin for these: run on int64 (for uint64 its bits with the sign bit flipped, which
        # order as the unsigned values)
        bits = x.view(torch.int64) if x.dtype == torch.uint64 else x.to(torch.int64)
        key = bits ^ torch.iinfo(torch.int64).min if x.dtype == torch.uint64 else bits
        _, index = (torch.cummax if largest else torch.cummin)(key, axis)
        values = torch.gather(bits, axis, index)
        return (values.view(torch.uint64) if x.dtype == torch.uint64 else values.to(x.dtype)), index
    values, index = (torch.cummax if largest else torch.cummin)(x, axis)
    return values, index


# ---------------------------------------------------------------- quantiles (linear interpolation)
def _quantile_plan(x, q, axis, ignore_nan):
    """x with the reduced axis last, and per quantile the sorted positions to interpolate between."""
    xm = x.reshape(-1) if axis is None else x.movedim(axis, -1)
    n = xm.shape[-1]
    order = torch.argsort(xm, dim=-1, stable=True)  # NaN sorts last
    qs = torch.tensor(q if isinstance(q, tuple) else (q,), dtype=xm.dtype, device=xm.device)
    nan = torch.isnan(xm)
    if ignore_nan:
        count = (~nan).sum(-1, keepdim=True).to(xm.dtype)
        invalid = count == 0
    else:
        count = torch.full(xm.shape[:-1] + (1,), n, dtype=xm.dtype, device=xm.device)
        invalid = nan.any(-1, keepdim=True)
    last = (count - 1).clamp(min=0)
    pos = qs.reshape((-1,) + (1,) * xm.dim()) * last
    lo = pos.floor()
    weight = pos - lo
    hi = torch.minimum(lo + 1, last.expand_as(lo))
    order_k = order.expand((qs.numel(),) + tuple(order.shape))
    return xm, torch.gather(order_k, -1, lo.long()), torch.gather(order_k, -1, hi.long()), weight, invalid


def _quantile_out(vals, x, q, axis, keep_dims):
    vals = vals.squeeze(-1)
    if keep_dims:
        vals = vals.reshape((vals.shape[0],) + (1,) * x.dim()) if axis is None else vals.unsqueeze(axis + 1)
    return vals if isinstance(q, tuple) else vals.squeeze(0)


def _quantile_in(dout, x, q, axis, keep_dims):
    if not isinstance(q, tuple):
        dout = dout.unsqueeze(0)
    if keep_dims:
        return dout.reshape(dout.shape[0], 1) if axis is None else dout.squeeze(axis + 1).unsqueeze(-1)
    return dout.unsqueeze(-1)


def quantile_take(v, x, q=0.5, axis=None, keep_dims=False, ignore_nan=False):
    """The quantiles of x (v is x), or v interpolated at the positions x's quantiles come from."""
    _, lo, hi, weight, invalid = _quantile_plan(x, q, axis, ignore_nan)
    vm = v.reshape(-1) if axis is None else v.movedim(axis, -1)
    vk = vm.expand((lo.shape[0],) + tuple(vm.shape))
    vals = torch.lerp(torch.gather(vk, -1, lo), torch.gather(vk, -1, hi), weight)
    vals = torch.where(invalid, torch.full((), math.nan, dtype=vals.dtype, device=vals.device), vals)
    return _quantile_out(vals, x, q, axis, keep_dims)


def quantile(x, q=0.5, axis=None, keep_dims=False, ignore_nan=False):
    return quantile_take(x, x, q, axis, keep_dims, ignore_nan)


def quantile_grad(dout, x, q=0.5, axis=None, keep_dims=False, ignore_nan=False):
    """The adjoint of quantile_take in v: dout spread back over the two interpolated elements."""
    xm, lo, hi, weight, invalid = _quantile_plan(x, q, axis, ignore_nan)
    d = torch.where(invalid, torch.zeros((), dtype=dout.dtype, device=dout.device),
                    _quantile_in(dout, x, q, axis, keep_dims))
    out = torch.zeros((lo.shape[0],) + tuple(xm.shape), dtype=dout.dtype, device=dout.device)
    out = out.scatter_add(-1, lo, d * (1 - weight)).scatter_add(-1, hi, d * weight).sum(0)
    return out.reshape(x.shape) if axis is None else out.movedim(-1, axis)


# ---------------------------------------------------------------- segment reductions
def _segment_layout(x, ids):
    """x as (N, rest) rows, ids as (N,), and the rows whose id is negative (dropped, as MindSpore)."""
    flat_ids = ids.reshape(-1).to(torch.int64)
    rows = x.reshape((flat_ids.numel(),) + tuple(x.shape[ids.dim():]))
    return rows, flat_ids, flat_ids >= 0


_SEGMENT_INIT = {"sum": 0, "prod": 1}


def unsorted_segment(x, ids, num_segments=1, mode="sum"):
    """Reduce the rows of x with the same id: out[k] = reduce(x[ids == k]); empty segments hold the identity."""
    if x.dtype == torch.uint64 and mode in ("amin", "amax"):
        # torch has no uint64 scatter min/max: reduce its bits with the sign bit flipped (ordered as the unsigned
        # values) as int64; the empty segments' identity maps back to the uint64 extremes
        key = x.view(torch.int64) ^ torch.iinfo(torch.int64).min
        out = unsorted_segment(key, ids, num_segments, mode)
        return (out ^ torch.iinfo(torch.int64).min).view(torch.uint64)
    rows, flat_ids, keep = _segment_layout(x, ids)
    if not bool(keep.all()):
        rows, flat_ids = rows[keep], flat_ids[keep]
    shape = (num_segments,) + tuple(rows.shape[1:])
    if mode in _SEGMENT_INIT:
        init = _SEGMENT_INIT[mode]
    elif x.is_floating_point():
        init = torch.finfo(x.dtype).min if mode == "amax" else torch.finfo(x.dtype).max
    else:
        init = torch.iinfo(x.dtype).min if mode == "amax" else torch.iinfo(x.dtype).max
    out = torch.full(shape, init, dtype=x.dtype, device=x.device)
    if flat_ids.numel() == 0:
        return out
    index = flat_ids.reshape((-1,) + (1,) * (rows.dim() - 1)).expand_as(rows)
    return out.scatter_reduce(0, index, rows, reduce=mode, include_self=True)


def segment_gather(v, ids, num_segments=1):
    """v[ids] with zeros where an id is negative: the adjoint of the segment sum."""
    flat = ids.reshape(-1).to(torch.int64)
    keep = flat >= 0
    out = v.index_select(0, flat.clamp(min=0))
    if not bool(keep.all()):
        out = out * keep.reshape((-1,) + (1,) * (out.dim() - 1)).to(out.dtype)
    return out.reshape(tuple(ids.shape) + tuple(v.shape[1:]))
