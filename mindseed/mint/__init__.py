"""mindspore.mint: the PyTorch-style API (`input`, `dim`, `keepdim`, `other`, ...) on mindseed's ops.

    from mindseed import mint
    mint.sum(x, dim=1, keepdim=True); mint.max(x, 0); mint.nn.Linear(4, 2); mint.optim.AdamW(net.trainable_params())

Every name calls the primitives the `ops` names call, so it has their kernels, gradients and graph mode.
Names whose signature is the op's own are the op itself; the others are one table line each (`_compile`),
or, where the signature needs real code (overloads, argument translation), a function of `_impl`/`_random`.
"""
from mindseed import ops as _ops
from mindseed.common import dtype as _mstype
from mindseed.common.tensor import Tensor  # noqa: F401  (mindspore.mint.Tensor)
from mindseed.mint import _impl as _h
from mindseed.mint import _random as _rand
from mindseed.mint._compile import compile_table as _compile_table, reexport as _reexport
from mindseed.ops import functional as _functional

_T = type("_TensorMethods", (), {})()
for _table in _functional.TENSOR_METHOD_TABLES:
    _T.__dict__.update(_table)

# the op's own signature is mint's
_SAME = _reexport(_ops, """
abs acos acosh addbmm addmm addmv allclose arange arccos arccosh arcsin arcsinh arctan arctan2 arctanh argmax asin
asinh atan atan2 atanh bincount bitwise_and bitwise_or bitwise_xor broadcast_to ceil cos cosh cross cumprod divide
dstack einsum erf erfc erfinv exp exp2 expm1 eye flip float_power floor full_like gcd greater gt hstack
inverse isclose isfinite isinf isneginf le less_equal log log10 log1p log2 logaddexp logaddexp2 logical_and
logical_not logical_or logical_xor masked_select matmul maximum minimum mm nan_to_num ne neg negative
nonzero not_equal ones_like polar pow ravel reciprocal roll round rsqrt searchsorted sigmoid sign sin
sinc sinh square sum swapaxes take tan tanh tile trace tril triu unbind unique_consecutive unsqueeze zeros_like trunc
""")

_TABLE = """
add(input, other, *, alpha=1) -> _T.add(input, other, alpha=alpha)  # input + alpha * other.
sub(input, other, *, alpha=1) -> _T.sub(input, other, alpha=alpha)  # input - alpha * other.
mul(input, other) -> _ops.mul(input, other)  # Elementwise product.
logsumexp(input, dim, keepdim=False) -> _ops.logsumexp(input, dim, keepdim)  # log(sum(exp(input))) over `dim`.
permute(input, dims) -> _ops.permute(input, dims)  # The dimensions of input reordered by dims.
div(input, other, *, rounding_mode=None) -> _ops.div(input, other, rounding_mode=rounding_mode)  # Quotient.
addcdiv(input, tensor1, tensor2, *, value=1) -> _ops.addcdiv(input, tensor1, tensor2, value)  # input + value * t1 /
    t2.
addcmul(input, tensor1, tensor2, *, value=1) -> _ops.addcmul(input, tensor1, tensor2, value)  # input + value * t1 *
    t2.
addr_(input, vec1, vec2, beta=1, alpha=1) -> _h.inplace(input, lambda old: _ops.addr(old, vec1, vec2, beta=beta,
    alpha=alpha), vec1, vec2)  # In place: beta * input + alpha * outer(vec1, vec2).
baddbmm(input, batch1, batch2, *, beta=1, alpha=1) -> _ops.baddbmm(input, batch1, batch2, beta, alpha)  # beta *
    input + alpha * bmm(batch1, batch2).
all(input, dim=None, keepdim=False) -> _ops.all(input, dim, keepdim)  # True where every element over `dim` is.
any(input, dim=None, keepdim=False) -> _ops.any(input, dim, keepdim)  # True where some element over `dim` is.
amax(input, dim=(), keepdim=False) -> _ops.amax(input, _h.dims(dim), keepdim)  # Maximum over `dim` (all when ()).
amin(input, dim=(), keepdim=False) -> _ops.amin(input, _h.dims(dim), keepdim)  # Minimum over `dim` (all when ()).
argmin(input, dim=None, keepdim=False) -> _h.long(_ops.argmin(input, dim, keepdim))  # Index of the minimum.
argsort(input, dim=-1, descending=False, stable=False) -> _h.long(_T.argsort(input, dim=dim,
    descending=descending, stable=stable))  # Indices that sort `input` along `dim`.
bernoulli(input, *, generator=None) -> _ops.bernoulli_ext(input, generator=generator)  # 1 with probability input,
    else 0.
bitwise_not(input) -> _ops.bitwise_not(input)  # Bitwise NOT.
bmm(input, mat2) -> _ops.bmm(input, mat2)  # Batched matrix product.
cat(tensors, dim=0) -> _ops.cat(tensors, dim)  # Tensors joined along `dim`.
concat(tensors, dim=0) -> _ops.cat(tensors, dim)  # Tensors joined along `dim` (alias of cat).
cdist(x1, x2, p=2.0, compute_mode='use_mm_for_euclid_dist_if_necessary') -> _h.cdist(x1, x2, p, compute_mode)  #
    p-norm distances between the rows of x1 and x2.
chunk(input, chunks, dim=0) -> _ops.chunk(input, chunks, dim)  # `chunks` pieces along `dim`.
clamp(input, min=None, max=None) -> _ops.clamp(input, min, max)  # Elements limited to [min, max].
clip(input, min=None, max=None) -> _ops.clamp(input, min, max)  # Alias of clamp.
clone(input) -> _T.clone(_h.check_tensor('clone', 'input', input))  # A copy of input.
conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) -> _h.conv(_ops.conv2d, 2, input,
    weight, bias, stride, padding, dilation, groups)  # 2-D convolution, torch-style padding.
conv_tbc(input, weight, bias, pad=0) -> _h.conv_tbc(input, weight, bias, pad)  # 1-D convolution in (time, batch,
    channel) layout.
count_nonzero(input, dim=None) -> _h.long(_T.count_nonzero(_h.check_tensor('count_nonzero', 'input', input),
    dim))  # Number of nonzero elements over `dim`.
cummax(input, dim) -> _ops.cummax(input, dim)  # Running maximum and its index along `dim`.
cummin(input, dim) -> _h.with_long_indices(_ops.cummin(input, dim))  # Running minimum and its index along `dim`.
cumsum(input, dim, dtype=None) -> _ops.cumsum(input, dim, dtype)  # Running sum along `dim`.
diag(input, diagonal=0) -> _h.diag(input, diagonal)  # Diagonal matrix of a vector, or a diagonal of a matrix.
diff(input, n=1, dim=-1, prepend=None, append=None) -> _ops.diff(input, n, dim, prepend, append)  # n-th forward
    difference along `dim`.
empty(*size, dtype=None, device=None) -> _ops.empty(*size, dtype=dtype, device=device)  # Uninitialised Tensor of
    shape `size`.
empty_like(input, *, dtype=None, device=None) -> _ops.empty_like(input, dtype=dtype, device=device)  # Uninitialised
    Tensor of input's shape.
eq(input, other) -> _ops.eq(input, other)  # input == other elementwise.
equal(input, other) -> _h.equal(input, other)  # Whether both have one shape and equal elements (a bool).
ge(input, other) -> _ops.greater_equal(input, other)  # input >= other elementwise.
greater_equal(input, other) -> _ops.greater_equal(input, other)  # input >= other elementwise.
less(input, other) -> _ops.less(input, other)  # input < other elementwise.
lt(input, other) -> _ops.less(input, other)  # input < other elementwise.
fix(input) -> _ops.trunc(input)  # Rounded toward zero.
flatten(input, start_dim=0, end_dim=-1) -> _ops.flatten(input, start_dim=start_dim, end_dim=end_dim)  # Dimensions
    start_dim..end_dim merged.
floor_divide(input, other) -> _ops.floor_divide(input, other)  # Quotient rounded down.
fmod(input, other) -> _ops.fmod(input, other)  # Remainder with the sign of input.
remainder(input, other) -> _ops.remainder(input, other)  # Remainder with the sign of other.
frac(input) -> _ops.frac(input)  # Fractional part.
gather(input, dim, index) -> _ops.gather_elements(input, dim, index)  # Values of input at `index` along `dim`.
histc(input, bins=100, min=0, max=0) -> _ops.histc(input, bins, min, max)  # Histogram of `bins` equal bins.
imag(input) -> _ops.imag(input)  # Imaginary part.
real(input) -> _ops.real(input)  # Real part.
index_add(input, dim, index, source, *, alpha=1) -> _T.index_add(_h.check_tensor('index_add', 'input', input), dim,
    index, source, alpha=alpha)  # input with alpha * source added at `index` along `dim`.
index_select(input, dim, index) -> _ops.index_select(input, dim, index)  # Slices of input at `index` along `dim`.
isnan(tensor) -> _ops.isnan(tensor)  # True where NaN.
item(input) -> _h.check_tensor('item', 'input', input).item()  # The value of a one-element Tensor as a Python
    number.
kthvalue(input, k, dim=-1, keepdim=False) -> _T.kthvalue(_h.check_tensor('kthvalue', 'input', input), k, dim,
    keepdim)  # k-th smallest value and its index along `dim`.
lerp(input, end, weight) -> _ops.lerp(input, end, weight)  # input + weight * (end - input).
linspace(start, end, steps, *, dtype=None) -> _h.linspace(start, end, steps, dtype=dtype)  # `steps` evenly spaced
    values from start to end.
max(input, *args, **kwargs) -> _h.extreme('max', input, args, kwargs)  # max(input), max(input, dim, keepdim=False)
    -> (values, indices), max(input, other).
min(input, *args, **kwargs) -> _h.extreme('min', input, args, kwargs)  # min(input), min(input, dim, keepdim=False)
    -> (values, indices), min(input, other).
mean(input, dim=None, keepdim=False, *, dtype=None) -> _T.mean(_h.check_tensor('mean', 'input', input), dim=dim,
    keepdim=keepdim, dtype=dtype)  # Mean over `dim`.
median(input, dim=None, keepdim=False) -> _h.median(input, dim, keepdim)  # Lower median (with indices along `dim`).
meshgrid(*tensors, indexing=None) -> _ops.meshgrid(*tensors, indexing='ij' if indexing is None else indexing)  #
    Coordinate grids ('ij' unless `indexing`).
multinomial(input, num_samples, replacement=False, *, generator=None) -> _rand.multinomial(input, num_samples,
    replacement, generator=generator)  # Category indices drawn per row.
mv(input, vec) -> _ops.mv(input, vec)  # Matrix-vector product.
nansum(input, dim=None, keepdim=False, *, dtype=None) -> _T.nansum(_h.check_tensor('nansum', 'input', input), dim,
    keepdim, dtype=dtype)  # Sum treating NaN as 0.
narrow(input, dim, start, length) -> _ops.narrow(input, dim, start, length)  # `length` slices from `start` along
    `dim`.
norm(input, p='fro', dim=None, keepdim=False, *, dtype=None) -> _h.norm(input, p, dim, keepdim, dtype=dtype)  #
    Matrix or vector norm.
normal(mean=0.0, std=1.0, size=None, generator=None) -> _rand.normal(mean, std, size, generator)  # Samples of
    N(mean, std^2).
npu_gelu(input, approximate='none') -> _ops.gelu(input, approximate=approximate)  # GELU.
ones(size, *, dtype=None) -> _ops.ones(_h.creation_size('ones', size), dtype)  # Tensor of ones.
zeros(size, *, dtype=None) -> _ops.zeros(_h.creation_size('zeros', size), dtype)  # Tensor of zeros.
prod(input, dim=None, keepdim=False, *, dtype=None) -> _T.prod(_h.check_tensor('prod', 'input', input), dim,
    keepdim, dtype)  # Product over `dim`.
reshape(input, shape) -> _ops.reshape(input, shape)  # The elements in a new shape.
repeat_interleave(input, repeats, dim=None, *, output_size=None) ->
    _T.repeat_interleave(_h.check_tensor('repeat_interleave', 'input', input), repeats, dim,
    output_size=output_size)  # Each element repeated.
scatter(input, dim, index, src) -> _T.scatter(_h.check_tensor('scatter', 'input', input), dim, index, src)  # input
    with `src` written at `index` along `dim`.
scatter_add(input, dim, index, src) -> _ops.tensor_scatter_elements(input, index, src, dim, 'add')  # input with
    `src` added at `index` along `dim`.
select(input, dim, index) -> _T.select(_h.check_tensor('select', 'input', input), dim, index)  # The slice at
    `index` of `dim`, that dimension removed.
softmax(input, dim, *, dtype=None) -> _h.any_rank_softmax(_ops.softmax, input, _h.implicit_softmax_dim(input, dim),
    dtype=dtype)  # Softmax along `dim` (None: torch's implicit dim, as mint.nn.functional.softmax).
sort(input, *, dim=-1, descending=False, stable=False) -> _h.with_long_indices(_T.sort(_h.check_tensor('sort',
    'input', input), dim=dim, descending=descending, stable=stable))  # (sorted values, indices) along `dim`.
split(tensor, split_size_or_sections, dim=0) -> _ops.split(tensor, split_size_or_sections, dim)  # Pieces along
    `dim`.
sqrt(input) -> _ops.sqrt(input)  # Square root.
squeeze(input, dim=None) -> _ops.squeeze(input, dim)  # Size-1 dimensions (of `dim`) removed.
stack(tensors, dim=0) -> _ops.stack(tensors, dim)  # Tensors stacked along a new `dim`.
std(input, dim=None, *, correction=1, keepdim=False) -> _ops.std(input, dim, correction, keepdim)  # Standard
    deviation (N - correction).
var(input, dim=None, *, correction=1, keepdim=False) -> _ops.var(input, dim, correction, keepdim)  # Variance (N -
    correction).
std_mean(input, dim=None, *, correction=1, keepdim=False) -> _ops.std_mean(input, dim, correction, keepdim)  # (std,
    mean).
var_mean(input, dim=None, *, correction=1, keepdim=False) -> _ops.var_mean(input, dim, correction, keepdim)  # (var,
    mean).
t(input) -> _ops.t(input)  # Transpose of a matrix (<= 2-D).
outer(input, vec2) -> _h.outer(input, vec2)  # The outer product of two 1-D tensors.
full(size, fill_value, *, dtype=None) -> _h.full_ext(size, fill_value, dtype=dtype)  # A tensor of `size` filled
    with `fill_value`, of its dtype unless `dtype` is given.
topk(input, k, dim=-1, largest=True, sorted=True) -> _h.topk(input, k, dim, largest, sorted)  # k largest
    (smallest) values and indices along `dim`.
transpose(input, dim0, dim1) -> _ops.swapaxes(input, dim0, dim1)  # dim0 and dim1 swapped.
triangular_solve(b, A, upper=True, transpose=False, unitriangular=False) ->
    _T.triangular_solve(_h.check_tensor('triangular_solve', 'b', b), A, upper, transpose, unitriangular)  #
    (solution X of A X = b, A).
unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None) ->
    _T.unique(_h.check_tensor('unique', 'input', input), sorted, return_inverse, return_counts, dim)  # Unique
    elements (and inverse, counts).
vdot(input, other) -> _h.vdot(input, other)  # sum(conj(input) * other) of 1-D tensors.
dot(input, other) -> _h.dot(input, other)  # sum(input * other) of 1-D tensors of one dtype.
where(condition, input=None, other=None) -> _h.where(condition, input, other)  # input where condition else other;
    where(condition) the indices of True.
xlogy(input, other) -> _ops.xlogy(input, other)  # input * log(other), 0 where input is 0.
batch_norm_stats(input, eps) -> _h.batch_norm_stats(input, eps)  # Per-channel (mean, invstd).
batch_norm_elemt(input, weight=None, bias=None, mean=None, invstd=None, eps=1e-05) -> _h.batch_norm_elemt(input,
    weight, bias, mean, invstd, eps)  # Normalise with given per-channel statistics.
batch_norm_gather_stats_with_counts(input, mean, invstd, running_mean=None, running_var=None, momentum=0.1,
    eps=1e-05, counts=None) -> _h.batch_norm_gather_stats_with_counts(input, mean, invstd, running_mean,
    running_var, momentum, eps, counts)  # Global (mean, invstd) of per-device statistics.
rand(*size, generator=None, dtype=None, device=None) -> _rand.rand(*size, generator=generator, dtype=dtype)  #
    Uniform samples in [0, 1).
rand_like(input, *, dtype=None, device=None) -> _rand.rand_like(input, dtype=dtype)  # Uniform samples of
    input's shape.
randn(*size, generator=None, dtype=None, device=None) -> _rand.randn(*size, generator=generator, dtype=dtype)  #
    Standard normal samples.
randn_like(input, *, dtype=None, device=None) -> _rand.randn_like(input, dtype=dtype)  # Standard normal samples of
    input's shape.
randint(*args, generator=None, dtype=None, device=None) -> _rand.randint(*args, generator=generator, dtype=dtype)  #
    Random integers: randint([low,] high, size).
randint_like(*args, dtype=None, device=None) -> _rand.randint_like(*args, dtype=dtype)  # Random integers of
    input's shape: randint_like(input, [low,] high).
randperm(n, *, generator=None, dtype=_mstype.int64) -> _rand.randperm(n, generator=generator, dtype=dtype)  # A
    random permutation of 0..n-1.
"""

_FUNCTIONS = dict(_SAME)
_FUNCTIONS.update(_compile_table(_TABLE, {"_ops": _ops, "_T": _T, "_h": _h, "_rand": _rand, "_mstype": _mstype},
                                 __name__))
globals().update(_FUNCTIONS)

from mindseed.mint import distributed, linalg, nn, optim, special  # noqa: E402,F401  (they use the functions above)
from mindseed.mint.nn import functional  # noqa: E402,F401  (mindspore.mint.functional, as MindSpore has it)

__all__ = sorted(_FUNCTIONS)
