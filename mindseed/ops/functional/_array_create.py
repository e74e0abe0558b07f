"""Array family, triangles/diagonals and creation: tril/triu, diag*, trace, eye, arange/range/linspace/
logspace, empty, one_hot, index grids and masks."""
import numbers

import numpy as np

from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.ops._prims import array as A
from mindseed.ops._prims import core as P
from mindseed.ops.functional._array_index import _inplace
from mindseed.ops.functional._array_shape import _int
from mindseed.ops.functional._core import _axis, _check_tensor, _dtype_arg, _shape_arg, cast

__all__ = [
    "tril", "triu", "diag", "diagflat", "diag_embed", "diagonal", "diagonal_scatter", "trace", "matrix_band_part",
    "eye", "arange", "range", "linspace", "logspace", "empty", "empty_like", "one_hot", "tril_indices",
    "triu_indices", "sequence_mask", "zero_", "fills", "padding", "tensor_range", "scalar_to_array",
    "view_as_real", "is_nonzero", "type_as", "dtype",
]


def _check_matrix(op, x, name="input"):
    _check_tensor(op, name, x)
    if x.ndim < 2:
        raise ValueError(f"For '{op}', the '{name}' must have at least 2 dimensions, but got shape {x.shape}.")


# ---------------------------------------------------------------- triangles and diagonals
def tril(input, diagonal=0):
    """The lower triangle (elements above the `diagonal`-th diagonal set to 0) of the last two dimensions.

    >>> import mindseed as ms
    >>> ms.ops.tril(ms.ops.ones((2, 2)))
    Tensor(shape=[2, 2], dtype=Float32, value=
    [[ 1.00000000e+00,  0.00000000e+00],
     [ 1.00000000e+00,  1.00000000e+00]])
    """
    _check_matrix("Tril", input)
    return A.tril_p(input, diagonal=_int("Tril", "diagonal", diagonal))


def triu(input, diagonal=0):
    """The upper triangle (elements below the `diagonal`-th diagonal set to 0) of the last two dimensions."""
    _check_matrix("Triu", input)
    return A.triu_p(input, diagonal=_int("Triu", "diagonal", diagonal))


def diag(input):
    """A tensor of shape input.shape * 2 with input on its diagonal (a 1-D input gives a square matrix)."""
    _check_tensor("Diag", "input", input)
    if input.ndim == 0:
        raise ValueError("For 'Diag', the 'input' must have at least 1 dimension, but got 0.")
    if input.ndim == 1:
        return A.diag_embed_p(input, offset=0, dim1=0, dim2=1)
    flat = A.diag_embed_p(P.reshape_p(input, shape=(-1,)), offset=0, dim1=0, dim2=1)
    return P.reshape_p(flat, shape=input.shape + input.shape)


def diagflat(input, offset=0):
    """A 2-D tensor with the flattened input on its `offset`-th diagonal."""
    _check_tensor("diagflat", "input", input)
    return A.diag_embed_p(P.reshape_p(input, shape=(-1,)), offset=_int("diagflat", "offset", offset), dim1=0, dim2=1)


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """A tensor whose `offset`-th diagonals in the planes (dim1, dim2) hold the last dimension of input."""
    _check_tensor("DiagEmbed", "input", input)
    nd = input.ndim + 1
    d1, d2 = _axis("DiagEmbed", dim1, nd), _axis("DiagEmbed", dim2, nd)
    if d1 == d2:
        raise ValueError(f"For 'DiagEmbed', 'dim1' and 'dim2' must differ, but both are {d1}.")
    return A.diag_embed_p(input, offset=_int("DiagEmbed", "offset", offset), dim1=d1, dim2=d2)


def diagonal(input, offset=0, dim1=0, dim2=1):
    """The `offset`-th diagonal of the planes (dim1, dim2), as the last dimension of the result."""
    _check_matrix("Diagonal", input)
    d1, d2 = _axis("Diagonal", dim1, input.ndim), _axis("Diagonal", dim2, input.ndim)
    if d1 == d2:
        raise ValueError(f"For 'Diagonal', 'dim1' and 'dim2' must differ, but both are {d1}.")
    return A.diagonal_p(input, offset=_int("Diagonal", "offset", offset), dim1=d1, dim2=d2)


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """input with its `offset`-th diagonal in the planes (dim1, dim2) replaced by src."""
    _check_matrix("DiagonalScatter", input)
    _check_tensor("DiagonalScatter", "src", src)
    d1, d2 = _axis("DiagonalScatter", dim1, input.ndim), _axis("DiagonalScatter", dim2, input.ndim)
    off = _int("DiagonalScatter", "offset", offset)
    want = A.diagonal_p(input, offset=off, dim1=d1, dim2=d2).shape
    if src.shape != want:
        raise ValueError(f"For 'DiagonalScatter', the 'src' shape {src.shape} must be the diagonal's shape {want}.")
    return A.diagonal_scatter_p(input, cast(src, input.dtype), offset=off, dim1=d1, dim2=d2)


def trace(input):
    """The sum of the main diagonal of a 2-D tensor.

    >>> import mindseed as ms
    >>> ms.ops.trace(ms.Tensor([[1.0, 2.0], [3.0, 4.0]]))
    Tensor(shape=[], dtype=Float32, value= 5)
    """
    _check_tensor("Trace", "input", input)
    if input.ndim != 2:
        raise ValueError(f"For 'Trace', the rank of the input must be 2, but got {input.ndim}.")
    return _trace(input, 0, 0, 1, None)


def _trace(x, offset, axis1, axis2, dtype):
    d = A.diagonal_p(x, offset=offset, dim1=axis1, dim2=axis2)
    out = P.reduce_sum_p(d, axis=d.ndim - 1, keep_dims=False)
    want = dtype or x.dtype
    return out if out.dtype == want else P.cast_p(out, dtype=want.name)


def matrix_band_part(x, lower, upper):
    """x with everything outside the band (lower sub-diagonals, upper super-diagonals; -1: all) set to 0."""
    _check_matrix("MatrixBandPart", x, "x")
    return A.matrix_band_part_p(x, lower=_int("MatrixBandPart", "lower", lower),
                                upper=_int("MatrixBandPart", "upper", upper))


# ---------------------------------------------------------------- creation
def eye(n, m=None, dtype=None):
    """An n x m matrix (m = n by default) with ones on the diagonal (Float32 unless `dtype`)."""
    n = _int("Eye", "n", n)
    m = n if m is None else _int("Eye", "m", m)
    if n < 0 or m < 0:
        raise ValueError(f"For 'Eye', 'n' and 'm' must be non-negative, but got {n} and {m}.")
    return A.eye_p(n=n, m=m, dtype=_dtype_arg("Eye", dtype).name if dtype is not None else "Float32")


def _number(op, name, v):
    if isinstance(v, Tensor):
        if v.size != 1:
            raise ValueError(f"For '{op}', the '{name}' must be a scalar, but got a Tensor of shape {v.shape}.")
        return v.item(), not mstype.is_float(v.dtype)
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (numbers.Real, np.number)):
        raise TypeError(f"For '{op}', the '{name}' must be int, float or a scalar Tensor, but got "
                        f"{type(v).__name__}.")
    return v, isinstance(v, (int, np.integer))


def _range(op, start, end, step, dtype):
    (s, si), (e, ei), (d, di) = (_number(op, n, v) for n, v in (("start", start), ("end", end), ("step", step)))
    if d == 0:
        raise ValueError(f"For '{op}', the 'step' cannot be equal to zero.")
    if (e - s) * d < 0:
        raise ValueError(f"For '{op}', the 'step' {d} goes away from 'end' {e} starting at {s}.")
    if dtype is None:
        dtype = mstype.int64 if si and ei and di else mstype.float32
    else:
        dtype = _dtype_arg(op, dtype)
    if dtype == mstype.bool_:   # the numbers, then nonzero
        return cast(A.range_p(start=s, end=e, step=d, dtype="Float64"), mstype.bool_)
    return A.range_p(start=s, end=e, step=d, dtype=dtype.name)


def arange(start=0, end=None, step=1, *, dtype=None):
    """Numbers from start (inclusive) to end (exclusive) spaced by step: Int64 when all are ints, else Float32.

    >>> import mindseed as ms
    >>> ms.ops.arange(3)
    Tensor(shape=[3], dtype=Int64, value= [0 1 2])
    """
    if end is None:
        start, end = 0, start
    return _range("arange", start, end, step, dtype)


def range(start, end, step, maxlen=1000000):  # noqa: A001 -- MindSpore's name
    """Numbers from start to end (exclusive) spaced by step (ints: Int64, floats: Float32)."""
    out = _range("Range", start, end, step, None)
    if out.shape[0] > maxlen:
        raise ValueError(f"For 'Range', the number of elements {out.shape[0]} exceeds 'maxlen' {maxlen}.")
    return out


def tensor_range(start, end, step):
    """Same as range (MindSpore's tensor spelling)."""
    return range(start, end, step)


def scalar_to_array(input_x):
    """A Python number as a 0-D tensor (ints: Int64, floats: Float32)."""
    if isinstance(input_x, bool) or not isinstance(input_x, numbers.Number):
        raise TypeError(f"For 'scalar_to_array', the input must be int or float, but got {type(input_x).__name__}.")
    return Tensor(input_x)


def linspace(start, end, steps):
    """`steps` evenly spaced numbers from start to end inclusive (Float32)."""
    s, _ = _number("LinSpace", "start", start)
    e, _ = _number("LinSpace", "end", end)
    steps = _int("LinSpace", "steps", steps)
    if steps <= 0:
        raise ValueError(f"For 'LinSpace', the 'steps' must be positive, but got {steps}.")
    return A.linspace_p(start=s, end=e, steps=steps, dtype="Float32")


def logspace(start, end, steps, base=10, *, dtype=mstype.float32):
    """`steps` numbers base**x for x evenly spaced from start to end inclusive."""
    s, _ = _number("LogSpace", "start", start)
    e, _ = _number("LogSpace", "end", end)
    steps = _int("LogSpace", "steps", steps)
    if steps < 0:
        raise ValueError(f"For 'LogSpace', the 'steps' must be non-negative, but got {steps}.")
    dtype = _dtype_arg("LogSpace", dtype)
    if not mstype.is_float(dtype):
        raise TypeError(f"For 'LogSpace', the 'dtype' should be one of [Float16, Float32, Float64], but got "
                        f"{dtype}.")
    return A.logspace_p(start=s, end=e, steps=steps, base=float(base), dtype=dtype.name)


def empty(*size, dtype=None, device=None):
    """An uninitialized tensor of `size` (Float32 unless `dtype`)."""
    if len(size) == 1 and isinstance(size[0], (tuple, list, Tensor)):
        size = size[0]
    shape = _shape_arg("empty", size)
    return A.empty_p(shape=shape, dtype=(_dtype_arg("empty", dtype) if dtype is not None else mstype.float32).name)


def empty_like(input, *, dtype=None, device=None):
    """An uninitialized tensor of input's shape (and dtype unless given)."""
    _check_tensor("empty_like", "input", input)
    return A.empty_p(shape=input.shape, dtype=(_dtype_arg("empty_like", dtype) if dtype is not None
                                               else input.dtype).name)


def one_hot(indices, depth, on_value=1, off_value=0, axis=-1):
    """on_value at each index (out-of-range indices: none) and off_value elsewhere, in a new `axis` of size depth.

    Raises:
        TypeError: indices is not an int tensor.
        ValueError: depth is negative or axis is out of range.

    >>> import mindseed as ms
    >>> ms.ops.one_hot(ms.Tensor([0, 2]), 3)
    Tensor(shape=[2, 3], dtype=Int64, value=
    [[1, 0, 0],
     [0, 0, 1]])
    """
    _check_tensor("OneHot", "indices", indices)
    if indices.dtype not in (mstype.int32, mstype.int64, mstype.uint8):
        raise TypeError(f"For 'OneHot', the 'indices' must be a Tensor of int32 or int64, but got {indices.dtype}.")
    depth = _int("OneHot", "depth", depth)
    if depth < 0:
        raise ValueError(f"For 'OneHot', the 'depth' must be non-negative, but got {depth}.")
    if axis != -1:
        axis = _axis("OneHot", axis, indices.ndim + 1)
    if isinstance(on_value, Tensor) or isinstance(off_value, Tensor):
        dt = on_value.dtype if isinstance(on_value, Tensor) else off_value.dtype
        on_value = cast(on_value, dt) if isinstance(on_value, Tensor) else Tensor(on_value, dt)
        off_value = cast(off_value, dt) if isinstance(off_value, Tensor) else Tensor(off_value, dt)
    elif isinstance(on_value, float) or isinstance(off_value, float):
        on_value, off_value = Tensor(float(on_value), mstype.float32), Tensor(float(off_value), mstype.float32)
    else:
        on_value, off_value = Tensor(on_value, mstype.int64), Tensor(off_value, mstype.int64)
    return A.one_hot_p(indices, on_value, off_value, depth=depth, axis=axis)


def _index_dtype(op, dtype):
    dtype = _dtype_arg(op, dtype)
    if dtype not in (mstype.int32, mstype.int64):
        raise TypeError(f"For '{op}', the 'dtype' should be one of [mindspore.int32, mindspore.int64], but got "
                        f"'{dtype!r}'.")
    return dtype.name


def tril_indices(row, col, offset=0, *, dtype=mstype.int64):
    """A (2, N) tensor of the (row, col) indices of the lower triangle of a row x col matrix."""
    row, col, offset = (_int("TrilIndices", n, v) for n, v in (("row", row), ("col", col), ("offset", offset)))
    return A.tril_indices_p(row=row, col=col, offset=offset, dtype=_index_dtype("TrilIndices", dtype))


def triu_indices(row, col, offset=0, *, dtype=mstype.int64):
    """A (2, N) tensor of the (row, col) indices of the upper triangle of a row x col matrix."""
    row, col, offset = (_int("TriuIndices", n, v) for n, v in (("row", row), ("col", col), ("offset", offset)))
    return A.triu_indices_p(row=row, col=col, offset=offset, dtype=_index_dtype("TriuIndices", dtype))


def sequence_mask(lengths, maxlen=None):
    """mask[..., j] = j < lengths[...]: a Bool tensor with a new last dimension of size maxlen (max of lengths)."""
    _check_tensor("SequenceMask", "lengths", lengths)
    if lengths.dtype not in (mstype.int32, mstype.int64):
        raise TypeError(f"For 'SequenceMask', the 'lengths' doesn't support '{lengths.dtype}' and expect to receive "
                        f"[mindspore.int64, mindspore.int32].")
    if maxlen is None:
        maxlen = int(lengths.asnumpy().max()) if lengths.size else 0
    maxlen = _int("SequenceMask", "maxlen", maxlen)
    if maxlen <= 0 and lengths.size:
        raise ValueError(f"For 'SequenceMask', the 'maxlen' must be positive, but got {maxlen}.")
    pos = A.range_p(start=0, end=maxlen, step=1, dtype=lengths.dtype.name)
    return P.less_p(pos, P.reshape_p(lengths, shape=lengths.shape + (1,)))


def zero_(input):
    """Fill input with zeros in place and return it."""
    _check_tensor("zero_", "input", input)
    return _inplace(input, P.zeros_like_p)


def fills(x, value):
    """A tensor of x's shape and dtype filled with `value`."""
    _check_tensor("fills", "x", x)
    if isinstance(value, Tensor):
        value = value.item()
    return P.fill_p(shape=x.shape, value=value, dtype=x.dtype.name)


def padding(x, pad_dim_size=8):
    """x whose last dimension (of size 1) is extended to pad_dim_size with zeros."""
    _check_tensor("Padding", "x", x)
    pad_dim_size = _int("Padding", "pad_dim_size", pad_dim_size)
    if x.ndim < 1 or x.shape[-1] != 1 or pad_dim_size < 1:
        raise ValueError(f"For 'Padding', the last dimension of 'x' must be 1 and 'pad_dim_size' positive, but got "
                         f"shape {x.shape} and {pad_dim_size}.")
    if pad_dim_size == 1:
        return x
    zeros = P.fill_p(shape=x.shape[:-1] + (pad_dim_size - 1,), value=0, dtype=x.dtype.name)
    return P.concat_p(x, zeros, axis=x.ndim - 1)



def view_as_real(input):
    """A complex tensor as a real one with a last dimension of size 2 (real, imaginary)."""
    _check_tensor("view_as_real", "input", input)
    if not mstype.is_complex(input.dtype):
        raise TypeError(f"For 'view_as_real', the input must be a complex Tensor, but got {input.dtype}.")
    return A.view_as_real_p(input)


def is_nonzero(input):
    """Whether the single element of input is non-zero (a Python bool).

    Raises:
        ValueError: input does not have exactly one element.
    """
    _check_tensor("is_nonzero", "input", input)
    if input.size != 1:
        raise ValueError(f"For 'is_nonzero', the input must have exactly one element, but got shape {input.shape}.")
    return bool(input.item())


def type_as(input, other):
    """input cast to other's dtype."""
    _check_tensor("type_as", "other", other)
    return cast(input, other.dtype)


def dtype(x):
    """The dtype of a tensor."""
    _check_tensor("DType", "x", x)
    return x.dtype
