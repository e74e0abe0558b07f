"""Functional ops, linear-algebra family: products, solves, decompositions, determinants and norms.

Products (bmm, tensor_dot, addmm, ...) are compositions of MatMul; decompositions, solves and norms
have primitives of their own in `ops/_prims/linalg.py` with gradients written in mindseed ops.
"""
import numpy as np

from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.ops._prims import array as A
from mindseed.ops._prims import core as P
from mindseed.ops._prims import linalg as L
from mindseed.ops.functional._array_index import _inplace
from mindseed.ops.functional._array_shape import _int, _ints
from mindseed.ops.functional._core import _axis, _check_tensor, _dtype_arg, cast
from mindseed.ops.functional._linalg_einsum import einsum

__all__ = [
    "bmm", "batch_dot", "tensor_dot", "einsum", "dot", "inner", "outer", "ger", "vecdot", "mv", "mm", "addmm",
    "addmv", "addr", "baddbmm", "addbmm", "matrix_power", "inverse", "det", "matrix_determinant", "logdet",
    "slogdet", "log_matrix_determinant", "norm", "vector_norm", "matrix_norm", "svd", "qr", "cholesky",
    "cholesky_solve", "cholesky_inverse", "pinv", "lstsq", "eig", "eigvals", "matrix_exp", "cross", "kron",
    "vander", "cov", "adjoint", "matrix_solve", "cond", "dist", "geqrf", "orgqr", "ormqr", "lu_solve", "lu_unpack",
    "einsum_ext", "baddbmm_ext", "renorm",
]

_INF = float("inf")


def _float_tensor(op, name, x):
    _check_tensor(op, name, x)
    if not (mstype.is_float(x.dtype) or mstype.is_complex(x.dtype)):
        raise TypeError(f"For '{op}', the '{name}' must be a float or complex Tensor, but got {x.dtype}.")


def _square(op, x, name="input"):
    _float_tensor(op, name, x)
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise ValueError(f"For '{op}', the '{name}' must be a (batch of) square matrices, but got shape {x.shape}.")


def _mT(x):
    return P.transpose_p(x, perm=tuple(range(x.ndim - 2)) + (x.ndim - 1, x.ndim - 2))


def _promote(x, y):
    if x.dtype != y.dtype:
        dt = mstype.promote_types(x.dtype, y.dtype)
        return cast(x, dt), cast(y, dt)
    return x, y


def _scaled_sum(op, input, prod, beta, alpha):
    """beta * input + alpha * prod (input ignored when beta == 0, as torch/MindSpore do)."""
    _check_tensor(op, "input", input)
    if alpha != 1:
        prod = P.mul_p(prod, alpha)
    if beta == 0:
        return prod if input.shape == prod.shape else P.add_p(prod, P.mul_p(P.zeros_like_p(input), 0))
    return P.add_p(input if beta == 1 else P.mul_p(input, beta), prod)


# ---------------------------------------------------------------- products
def mm(input, mat2):
    """The product of two matrices.

    >>> import mindseed as ms
    >>> ms.ops.mm(ms.ops.ones((2, 3)), ms.ops.ones((3, 4))).shape
    (2, 4)
    """
    for name, v in (("input", input), ("mat2", mat2)):
        _check_tensor("MatMul", name, v)
        if v.ndim != 2:
            raise ValueError(f"For 'MatMul', the '{name}' must be 2-D, but got shape {v.shape}.")
    if input.shape[1] != mat2.shape[0]:
        raise ValueError(f"For 'MatMul', the 'x' shape {input.shape} and 'y' shape {mat2.shape} cannot be "
                         f"multiplied.")
    return P.matmul_p(*_promote(input, mat2))


def bmm(input_x, mat2):
    """Batched matrix product of (..., n, m) and (..., m, p) tensors with equal batch shapes."""
    for name, v in (("input_x", input_x), ("mat2", mat2)):
        _check_tensor("BatchMatMul", name, v)
        if v.ndim < 2:
            raise ValueError(f"For 'BatchMatMul', the '{name}' must have at least 2 dimensions, but got {v.shape}.")
    if input_x.ndim != mat2.ndim or input_x.shape[:-2] != mat2.shape[:-2] or input_x.shape[-1] != mat2.shape[-2]:
        raise ValueError(f"For 'BatchMatMul', the 'x' shape {input_x.shape} and 'y' shape {mat2.shape} cannot be "
                         f"multiplied.")
    return P.matmul_p(*_promote(input_x, mat2))


def mv(mat, vec):
    """The product of a matrix (n, m) and a vector (m,)."""
    _check_tensor("mv", "mat", mat)
    _check_tensor("mv", "vec", vec)
    if mat.ndim != 2 or vec.ndim != 1 or mat.shape[1] != vec.shape[0]:
        raise ValueError(f"For 'mv', the 'mat' shape {mat.shape} and 'vec' shape {vec.shape} cannot be multiplied.")
    return P.matmul_p(*_promote(mat, vec))


def _contract(op, x1, x2, ax1, ax2, either_order=False):
    """tensordot: contract axes ax1 of x1 with ax2 of x2 by one matmul (x1's free axes then its contracted ones,
    flattened, times x2's contracted axes then its free ones). With `either_order` (MindSpore's tensor_dot) the sizes
    of ax1 may match ax2 read backwards instead: the same flattening then runs, as there."""
    if len(ax1) != len(ax2):
        raise ValueError(f"For '{op}', the two axes lists must have the same length, but got {ax1} and {ax2}.")
    ax1 = tuple(_axis(op, a, x1.ndim) for a in ax1)
    ax2 = tuple(_axis(op, a, x2.ndim) for a in ax2)
    sizes1, sizes2 = [x1.shape[a] for a in ax1], [x2.shape[b] for b in ax2]
    if sizes1 != sizes2 and not (either_order and sizes1 == sizes2[::-1]):
        if either_order:
            raise ValueError(f"For '{op}', the 'i' should exist such that 'x1_shape[axes[0][i]]' is equal to "
                             f"'x2_shape[axes[1][i]]' or 'x2_shape[axes[1][len(axes[0])-1-i]]', but got "
                             f"'x1_shape': {x1.shape}, 'x2_shape': {x2.shape}, 'axes': {(ax1, ax2)}.")
        a, b = next((a, b) for a, b in zip(ax1, ax2) if x1.shape[a] != x2.shape[b])
        raise ValueError(f"For '{op}', the contracted dimensions must match, but got {x1.shape} axis {a} and "
                         f"{x2.shape} axis {b}.")
    free1 = [i for i in range(x1.ndim) if i not in ax1]
    free2 = [i for i in range(x2.ndim) if i not in ax2]
    k = 1
    for a in ax1:
        k *= x1.shape[a]
    m = 1
    for i in free1:
        m *= x1.shape[i]
    n = 1
    for i in free2:
        n *= x2.shape[i]
    x1, x2 = _promote(x1, x2)
    a = P.reshape_p(_permute(x1, free1 + list(ax1)), shape=(m, k))
    b = P.reshape_p(_permute(x2, list(ax2) + free2), shape=(k, n))
    out_shape = tuple(x1.shape[i] for i in free1) + tuple(x2.shape[i] for i in free2)
    return P.reshape_p(P.matmul_p(a, b), shape=out_shape)


def _permute(x, perm):
    perm = tuple(perm)
    return x if perm == tuple(range(x.ndim)) else P.transpose_p(x, perm=perm)


def tensor_dot(x1, x2, axes):
    """Sum of products over axes: an int n (last n of x1 with first n of x2) or two lists of axes."""
    _check_tensor("tensor_dot", "x1", x1)
    _check_tensor("tensor_dot", "x2", x2)
    if isinstance(axes, (int, np.integer)) and not isinstance(axes, bool):
        n = int(axes)
        if n < 0 or n > min(x1.ndim, x2.ndim):
            raise ValueError(f"For 'tensor_dot', the 'axes' {n} is out of range for ranks {x1.ndim} and {x2.ndim}.")
        return _contract("tensor_dot", x1, x2, tuple(range(x1.ndim - n, x1.ndim)), tuple(range(n)))
    if not isinstance(axes, (tuple, list)) or len(axes) != 2:
        raise TypeError(f"For 'tensor_dot', the 'axes' must be an int or a pair of axis lists, but got {axes}.")
    return _contract("tensor_dot", x1, x2, _ints("tensor_dot", "axes", axes[0]), _ints("tensor_dot", "axes", axes[1]),
                     either_order=True)


def dot(input, other):
    """numpy's dot for tensors of rank >= 2: contract the last axis of input with the second-to-last of other."""
    _check_tensor("dot", "input", input)
    _check_tensor("dot", "other", other)
    if input.ndim < 2 or other.ndim < 2:
        raise ValueError(f"For 'dot', the inputs should have 'dimension >= 2', but got {input.ndim} and "
                         f"{other.ndim}.")
    return _contract("dot", input, other, (-1,), (-2,))


def inner(input, other):
    """Sum of products over the last axes (a plain product when either is 0-D)."""
    _check_tensor("inner", "input", input)
    _check_tensor("inner", "other", other)
    if input.ndim == 0 or other.ndim == 0:
        return P.mul_p(input, other)
    return _contract("inner", input, other, (-1,), (-1,))


def outer(input, vec2):
    """The outer product of two 1-D tensors: `input` as a column times `vec2` (as MindSpore's ops.outer computes
    it, an n-D `input` is flattened into the column and `vec2` broadcasts)."""
    _check_tensor("outer", "input", input)
    _check_tensor("outer", "vec2", vec2)
    return P.mul_p(P.reshape_p(input, shape=(-1, 1)), vec2)


def _outer_1d(input, vec2):
    """The outer product of two tensors that must be 1-D (ger, mint.outer)."""
    for name, v in (("input", input), ("vec2", vec2)):
        _check_tensor("outer", name, v)
        if v.ndim != 1:
            raise ValueError(f"For 'outer', the '{name}' must be 1-D, but got shape {v.shape}.")
    return outer(input, vec2)


def ger(input, vec2):
    """Same as outer, of 1-D tensors."""
    return _outer_1d(input, vec2)


def vecdot(x, y, *, axis=-1):
    """Dot products of vectors along `axis` (x conjugated), broadcasting the other dimensions."""
    _check_tensor("vecdot", "x", x)
    _check_tensor("vecdot", "y", y)
    if mstype.is_complex(x.dtype):
        x = L.adjoint_p(P.reshape_p(x, shape=x.shape + (1,)))
        x = P.reshape_p(x, shape=x.shape[:-2] + (x.shape[-1],))
    prod = P.mul_p(x, y)
    return P.reduce_sum_p(prod, axis=_axis("vecdot", axis, prod.ndim), keep_dims=False)


def batch_dot(x1, x2, axes=None):
    """Per-sample tensor dot of two batches (first dimension): contract axes[0] of x1 with axes[1] of x2.

    The default axes are (-1, -2) when x2 has more than 2 dimensions, else (-1, -1); a result with no
    dimension besides the batch gets a trailing dimension of 1.
    """
    _check_tensor("BatchDot", "x1", x1)
    _check_tensor("BatchDot", "x2", x2)
    if x1.ndim < 2 or x2.ndim < 2 or x1.shape[0] != x2.shape[0]:
        raise ValueError(f"For 'BatchDot', the inputs must have at least 2 dimensions and the same batch size, but "
                         f"got {x1.shape} and {x2.shape}.")
    if axes is None:
        axes = (x1.ndim - 1, x2.ndim - 2 if x2.ndim > 2 else x2.ndim - 1)
    elif isinstance(axes, int):
        axes = (axes, axes)
    a1, a2 = _axis("BatchDot", axes[0], x1.ndim), _axis("BatchDot", axes[1], x2.ndim)
    if a1 == 0 or a2 == 0 or x1.shape[a1] != x2.shape[a2]:
        raise ValueError(f"For 'BatchDot', cannot contract axis {a1} of {x1.shape} with axis {a2} of {x2.shape}.")
    b, k = x1.shape[0], x1.shape[a1]
    free1 = [i for i in range(1, x1.ndim) if i != a1]
    free2 = [i for i in range(1, x2.ndim) if i != a2]
    x1, x2 = _promote(x1, x2)
    lhs = P.reshape_p(_permute(x1, [0] + free1 + [a1]), shape=(b, -1, k))
    rhs = P.reshape_p(_permute(x2, [0, a2] + free2), shape=(b, k, -1))
    out_shape = (b,) + tuple(x1.shape[i] for i in free1) + tuple(x2.shape[i] for i in free2)
    if len(out_shape) == 1:
        out_shape = (b, 1)
    return P.reshape_p(P.matmul_p(lhs, rhs), shape=out_shape)


def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """beta * input + alpha * (mat1 @ mat2)."""
    return _scaled_sum("addmm", input, mm(mat1, mat2), beta, alpha)


def addmv(input, mat, vec, *, beta=1, alpha=1):
    """beta * input + alpha * (mat @ vec)."""
    return _scaled_sum("addmv", input, mv(mat, vec), beta, alpha)


def addr(x, vec1, vec2, *, beta=1, alpha=1):
    """beta * x + alpha * outer(vec1, vec2)."""
    return _scaled_sum("addr", x, outer(vec1, vec2), beta, alpha)


def baddbmm(input, batch1, batch2, beta=1, alpha=1):
    """beta * input + alpha * bmm(batch1, batch2)."""
    return _scaled_sum("baddbmm", input, bmm(batch1, batch2), beta, alpha)


def baddbmm_ext(input, batch1, batch2, *, beta=1, alpha=1):
    """Same as baddbmm with keyword-only beta and alpha."""
    return baddbmm(input, batch1, batch2, beta, alpha)


def einsum_ext(equation, *operands):
    """Same as einsum."""
    return einsum(equation, *operands)


def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """beta * input + alpha * sum over the batch of batch1[i] @ batch2[i]."""
    if getattr(batch1, "ndim", 0) != 3 or getattr(batch2, "ndim", 0) != 3:
        raise ValueError("For 'addbmm', 'batch1' and 'batch2' must be 3-D Tensors.")
    prod = P.reduce_sum_p(bmm(batch1, batch2), axis=0, keep_dims=False)
    return _scaled_sum("addbmm", input, prod, beta, alpha)


# ---------------------------------------------------------------- inverse, determinants, powers
def inverse(input):
    """The inverse of a (batch of) square matrices."""
    _square("MatrixInverse", input)
    return L.inverse_p(input)


def det(input):
    """The determinant of a (batch of) square matrices."""
    _square("MatrixDeterminant", input)
    return L.det_p(input)


def matrix_determinant(input):
    """Same as det."""
    return det(input)


def slogdet(input):
    """(sign, log|det|) of a (batch of) square matrices."""
    _square("LogMatrixDeterminant", input)
    return tuple(L.slogdet_p(input))


def log_matrix_determinant(input):
    """Same as slogdet."""
    return slogdet(input)


def logdet(input):
    """log(det(input)): nan for a negative determinant, -inf for a zero one."""
    sign, logabs = slogdet(input)
    return P.add_p(logabs, P.log_p(P.stop_gradient_p(sign)))


def matrix_power(input, n):
    """input multiplied by itself n times (n < 0: of the inverse; n = 0: identity)."""
    _check_tensor("MatrixPower", "input", input)
    n = _int("MatrixPower", "n", n)
    if input.ndim < 2 or input.shape[-1] != input.shape[-2]:
        raise ValueError(f"For 'MatrixPower', the 'input' must be a (batch of) square matrices, but got "
                         f"{input.shape}.")
    if n == 0:
        eye = A.eye_p(n=input.shape[-1], m=input.shape[-1], dtype=input.dtype.name)
        return P.broadcast_to_p(eye, shape=input.shape)
    base = inverse(input) if n < 0 else input
    n = abs(n)
    result = None
    while n:
        if n & 1:
            result = base if result is None else P.matmul_p(result, base)
        n >>= 1
        if n:
            base = P.matmul_p(base, base)
    return result


# ---------------------------------------------------------------- norms
def _norm_dtype(op, x, dtype):
    _check_tensor(op, "input", x)
    if dtype is not None:
        return cast(x, _dtype_arg(op, dtype))
    if not (mstype.is_float(x.dtype) or mstype.is_complex(x.dtype)):
        return cast(x, mstype.float32)
    return x


def _vector_norm(x, ord, axes, keepdims):  # noqa: A002
    if isinstance(ord, bool) or not isinstance(ord, (int, float, np.number)):
        raise TypeError(f"For 'vector_norm', the 'ord' must be a number, but got {ord!r}.")
    return L.vector_norm_p(x, ord=float(ord), axis=axes, keepdims=bool(keepdims))


def vector_norm(x, ord=2, axis=None, keepdims=False, *, dtype=None):  # noqa: A002 -- MindSpore's names
    """(sum |x|^ord)^(1/ord) over `axis` (all dimensions when None); ord inf/-inf: max/min |x|; 0: count non-zero.

    >>> import mindseed as ms
    >>> ms.ops.vector_norm(ms.Tensor([3.0, 4.0]))
    Tensor(shape=[], dtype=Float32, value= 5)
    """
    x = _norm_dtype("vector_norm", x, dtype)
    axes = None if axis is None else tuple(_axis("vector_norm", a, x.ndim) for a in _ints("vector_norm", "axis",
                                                                                          axis))
    return _vector_norm(x, ord, axes, keepdims)


def _matrix_norm(x, ord, rows, cols, keepdims):  # noqa: A002
    if ord == "fro":
        return L.vector_norm_p(x, ord=2.0, axis=(rows, cols), keepdims=keepdims)
    if ord in ("nuc", 2, -2):
        moved = _permute(x, [i for i in range(x.ndim) if i not in (rows, cols)] + [rows, cols])
        s = L.svd_p(moved, full_matrices=False)[0]
        if ord == "nuc":
            out = P.reduce_sum_p(s, axis=s.ndim - 1, keep_dims=False)
        else:
            out = P.getitem_p(s, index=(Ellipsis, 0 if ord == 2 else -1))
        if keepdims:
            shape = list(x.shape)
            shape[rows] = shape[cols] = 1
            out = P.reshape_p(out, shape=tuple(shape))
        return out
    if ord in (1, -1, _INF, -_INF):
        # 1: max column sum of |x|; inf: max row sum. The outer max/min of non-negative sums is a vector norm.
        summed, other = (rows, cols) if ord in (1, -1) else (cols, rows)
        sums = L.vector_norm_p(x, ord=1.0, axis=(summed,), keepdims=True)
        out = L.vector_norm_p(sums, ord=_INF if ord > 0 else -_INF, axis=(other,), keepdims=True)
        if not keepdims:
            out = P.reshape_p(out, shape=tuple(d for i, d in enumerate(x.shape) if i not in (rows, cols)))
        return out
    raise ValueError(f"For 'matrix_norm', the 'ord' must be 'fro', 'nuc', inf, -inf, 1, -1, 2 or -2, but got {ord}.")


def matrix_norm(A, ord="fro", axis=(-2, -1), keepdims=False, *, dtype=None):  # noqa: A002,N803
    """Matrix norm over the two dimensions `axis`: 'fro', 'nuc', 1/-1 (columns), inf/-inf (rows), 2/-2 (singular
    values)."""
    x = _norm_dtype("matrix_norm", A, dtype)
    if x.ndim < 2:
        raise ValueError(f"For 'matrix_norm', the input must have at least 2 dimensions, but got {x.shape}.")
    axes = _ints("matrix_norm", "axis", axis)
    if len(axes) != 2:
        raise ValueError(f"For 'matrix_norm', the 'axis' must have 2 elements, but got {axis}.")
    r, c = _axis("matrix_norm", axes[0], x.ndim), _axis("matrix_norm", axes[1], x.ndim)
    if r == c:
        raise ValueError(f"For 'matrix_norm', the two axes must differ, but got {axis}.")
    return _matrix_norm(x, ord, r, c, keepdims)


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):  # noqa: A002,N803
    """Vector or matrix norm, chosen as MindSpore does: with `dim` an int (or ord given for a 1-D input) a
    vector norm, with `dim` two axes (or ord given for a 2-D input) a matrix norm; no ord and no dim: the
    2-norm of all elements.

    Raises:
        ValueError: ord given with no dim for an input of rank other than 1 or 2; an unknown ord.
        TypeError: a string ord for a vector norm.
    """
    x = _norm_dtype("norm", A, dtype)
    if dim is None:
        if ord is None:
            return L.vector_norm_p(x, ord=2.0, axis=None, keepdims=bool(keepdim))
        if x.ndim == 1:
            dims = (0,)
        elif x.ndim == 2:
            dims = (0, 1)
        else:
            raise ValueError(f"For 'norm', with 'ord' {ord!r} and no 'dim' the input must be 1-D or 2-D, but got "
                             f"shape {x.shape}.")
    else:
        dims = tuple(_axis("norm", d, x.ndim) for d in _ints("norm", "dim", dim))
    if len(dims) == 1:
        if isinstance(ord, str):
            raise TypeError(f"For 'norm', the 'ord' can not be str for vectors, but got {ord}.")
        return _vector_norm(x, 2 if ord is None else ord, dims, keepdim)
    if len(dims) != 2:
        raise ValueError(f"For 'norm', the 'dim' must have 1 or 2 elements, but got {dim}.")
    return _matrix_norm(x, "fro" if ord is None else ord, dims[0], dims[1], bool(keepdim))


def renorm(input, p, axis, maxnorm):
    """Each slice along `axis` whose p-norm exceeds maxnorm scaled down to norm maxnorm."""
    _float_tensor("Renorm", "input", input)
    ax = _axis("Renorm", axis, input.ndim)
    if not isinstance(p, (int, float)) or p <= 0:
        raise ValueError(f"For 'Renorm', the 'p' must be a positive number, but got {p}.")
    if isinstance(maxnorm, bool) or not isinstance(maxnorm, (int, float)):
        raise TypeError(f"For 'Renorm', the 'maxnorm' must be a float, but got {type(maxnorm).__name__}.")
    others = tuple(i for i in range(input.ndim) if i != ax)
    norms = L.vector_norm_p(input, ord=float(p), axis=others, keepdims=True) if others else \
        L.vector_norm_p(input, ord=float(p), axis=None, keepdims=True)
    over = P.greater_p(norms, float(maxnorm))
    scale = P.where_p(over, P.div_p(float(maxnorm), P.add_p(norms, 1e-7)), P.ones_like_p(norms))
    return P.mul_p(input, scale)


def dist(input, other, p=2):
    """The p-norm of input - other."""
    _check_tensor("dist", "input", input)
    _check_tensor("dist", "other", other)
    return vector_norm(P.sub_p(input, other), p)


def cond(A, p=None):  # noqa: N803
    """The condition number of a matrix in the norm p (None or 2: ratio of extreme singular values)."""
    _float_tensor("cond", "A", A)
    if p is None or p in (2, -2):
        s = L.svd_p(A, full_matrices=False)[0]
        hi, lo = P.getitem_p(s, index=(Ellipsis, 0)), P.getitem_p(s, index=(Ellipsis, -1))
        return P.div_p(hi, lo) if p != -2 else P.div_p(lo, hi)
    return P.mul_p(matrix_norm(A, p), matrix_norm(inverse(A), p))


# ---------------------------------------------------------------- decompositions
def svd(input, full_matrices=False, compute_uv=True):
    """Singular value decomposition input = U diag(S) V^H; returns (S, U, V) (S only when not compute_uv).

    >>> import mindseed as ms
    >>> s, u, v = ms.ops.svd(ms.Tensor([[3.0, 0.0], [0.0, 2.0]]))
    >>> s
    Tensor(shape=[2], dtype=Float32, value= [ 3.00000000e+00  2.00000000e+00])
    """
    _float_tensor("Svd", "input", input)
    if input.ndim < 2:
        raise ValueError(f"For 'Svd', the input must have at least 2 dimensions, but got shape {input.shape}.")
    out = L.svd_p(input, full_matrices=bool(full_matrices))
    return tuple(out) if compute_uv else out[0]


def qr(input, mode="reduced"):
    """QR decomposition: (Q, R) with Q orthonormal columns and R upper triangular."""
    _float_tensor("Qr", "input", input)
    if mode not in ("reduced", "complete"):
        raise ValueError(f"For 'Qr', the 'mode' must be 'reduced' or 'complete', but got '{mode}'.")
    if input.ndim < 2:
        raise ValueError(f"For 'Qr', the input must have at least 2 dimensions, but got shape {input.shape}.")
    return tuple(L.qr_p(input, mode=mode))


def cholesky(input_x, upper=False):
    """The Cholesky factor of symmetric positive-definite matrices: lower L (A = L L^T), or upper U = L^T."""
    _square("Cholesky", input_x, "input_x")
    low = L.cholesky_p(input_x)
    return _mT(low) if upper else low


def _tri_solve(a, b, upper):
    return L.solve_triangular_p(a, b, upper=upper, unitriangular=False)


def cholesky_solve(input, input2, upper=False):
    """The solution x of A x = input given the Cholesky factor input2 of A (lower, or upper if `upper`)."""
    _float_tensor("CholeskySolve", "input", input)
    _square("CholeskySolve", input2, "input2")
    if input.ndim < 2 or input.shape[-2] != input2.shape[-1]:
        raise ValueError(f"For 'CholeskySolve', the 'input' shape {input.shape} does not fit the factor "
                         f"{input2.shape}.")
    low = _mT(input2) if upper else input2
    y = _tri_solve(low, input, False)
    return _tri_solve(_mT(low), y, True)


def cholesky_inverse(input_x, upper=False):
    """The inverse of A = U^T U (upper) or L L^T from its Cholesky factor. As MindSpore's kernel, the whole
    matrix given is the factor (entries outside its triangle are not ignored)."""
    _square("CholeskyInverse", input_x, "input_x")
    gram = P.matmul_p(_mT(input_x), input_x) if upper else P.matmul_p(input_x, _mT(input_x))
    return L.inverse_p(gram)


def matrix_solve(matrix, rhs, adjoint=False):
    """The solution x of matrix @ x = rhs (matrix^H @ x = rhs when `adjoint`)."""
    _square("MatrixSolve", matrix, "matrix")
    _float_tensor("MatrixSolve", "rhs", rhs)
    if rhs.ndim < 2 or rhs.shape[-2] != matrix.shape[-1]:
        raise ValueError(f"For 'MatrixSolve', the 'rhs' shape {rhs.shape} does not fit 'matrix' {matrix.shape}.")
    a = L.adjoint_p(matrix) if adjoint else matrix
    return L.solve_p(*_promote(a, rhs))


def pinv(x, *, atol=None, rtol=None, hermitian=False):
    """The Moore-Penrose pseudo-inverse (singular values below max(atol, rtol * s_max) treated as zero)."""
    _float_tensor("Pinv", "x", x)
    if x.ndim < 2:
        raise ValueError(f"For 'Pinv', the input must have at least 2 dimensions, but got shape {x.shape}.")
    to_float = lambda v: v.item() if isinstance(v, Tensor) else v  # noqa: E731
    return L.pinv_p(x, atol=to_float(atol), rtol=to_float(rtol), hermitian=bool(hermitian))


def lstsq(input, A):  # noqa: N803
    """The least-squares solution X of input @ X = A (minimum-norm when input has more columns than rows)."""
    _float_tensor("Lstsq", "input", input)
    _check_tensor("Lstsq", "A", A)
    if input.ndim != 2 or A.ndim not in (1, 2) or A.shape[0] != input.shape[0]:
        raise ValueError(f"For 'Lstsq', the 'input' must be 2-D and 'A' 1-D or 2-D with the same number of rows, "
                         f"but got {input.shape} and {A.shape}.")
    a, b = _promote(input, A)
    vec = b.ndim == 1
    if vec:
        b = P.reshape_p(b, shape=(b.shape[0], 1))
    at = _mT(a)
    if a.shape[0] >= a.shape[1]:
        out = L.solve_p(P.matmul_p(at, a), P.matmul_p(at, b))
    else:
        out = P.matmul_p(at, L.solve_p(P.matmul_p(a, at), b))
    return P.reshape_p(out, shape=(out.shape[0],)) if vec else out


def eig(A):  # noqa: N803
    """Eigenvalues and right eigenvectors of a square matrix (complex; no gradient)."""
    _square("Eig", A, "A")
    return tuple(L.eig_p(A))


def eigvals(A):  # noqa: N803
    """Eigenvalues of a square matrix (complex; no gradient)."""
    _square("Eigvals", A, "A")
    return L.eigvals_p(A)


def matrix_exp(input):
    """The matrix exponential of a (batch of) square matrices."""
    _square("MatrixExp", input)
    return L.matrix_exp_p(input)


def adjoint(x):
    """The conjugate transpose of the last two dimensions."""
    _check_tensor("adjoint", "x", x)
    if x.ndim < 2:
        raise ValueError(f"For 'adjoint', the input must have at least 2 dimensions, but got shape {x.shape}.")
    return L.adjoint_p(x)


def geqrf(input):
    """The Householder form (a, tau) of a QR decomposition (no gradient)."""
    _float_tensor("Geqrf", "input", input)
    return tuple(L.geqrf_p(input))


def orgqr(input, input2):
    """Q from the Householder form of geqrf (no gradient)."""
    _float_tensor("Orgqr", "input", input)
    return L.orgqr_p(input, input2)


def _ormqr_method(self, input2, input3, left=True, transpose=False):
    return ormqr(self, input2, input3, left, transpose)


def ormqr(input, tau, other, left=True, transpose=False):
    """other multiplied by Q (from Householder form), on the left or right, optionally transposed (no gradient)."""
    _float_tensor("Ormqr", "input", input)
    return L.ormqr_p(input, tau, other, left=bool(left), transpose=bool(transpose))


def lu_solve(b, LU_data, LU_pivots):  # noqa: N803
    """The solution of A x = b from a packed LU factorization with 1-based pivots (no gradient)."""
    _float_tensor("LuSolve", "b", b)
    return L.lu_solve_p(b, LU_data, LU_pivots)


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):  # noqa: N803
    """(P, L, U) from a packed LU factorization (no gradient)."""
    _float_tensor("LuUnpack", "LU_data", LU_data)
    return tuple(L.lu_unpack_p(LU_data, LU_pivots, unpack_data=unpack_data, unpack_pivots=unpack_pivots))


# ---------------------------------------------------------------- products of structure
def cross(input, other, dim=None):
    """The cross product along `dim` (the first dimension of size 3 when None)."""
    _check_tensor("Cross", "input", input)
    _check_tensor("Cross", "other", other)
    if input.shape != other.shape:
        raise ValueError(f"For 'Cross', the 'input' shape {input.shape} and 'other' shape {other.shape} must match.")
    if dim is None:
        dims = [i for i, s in enumerate(input.shape) if s == 3]
        if not dims:
            raise ValueError(f"For 'Cross', the size of inputs dim must contain 3, but got {input.shape}.")
        d = dims[0]
    else:
        d = _axis("Cross", dim, input.ndim)
        if input.shape[d] != 3:
            raise ValueError(f"For 'Cross', the size of dimension {d} must be 3, but got {input.shape[d]}.")
    return L.cross_p(*_promote(input, other), dim=d)


def kron(input, other):
    """The Kronecker product (ranks are aligned by prepending size-1 dimensions)."""
    _check_tensor("kron", "input", input)
    _check_tensor("kron", "other", other)
    n = max(input.ndim, other.ndim)
    a = P.reshape_p(input, shape=(1,) * (n - input.ndim) + input.shape)
    b = P.reshape_p(other, shape=(1,) * (n - other.ndim) + other.shape)
    sa = [d for s in a.shape for d in (s, 1)]
    sb = [d for s in b.shape for d in (1, s)]
    prod = P.mul_p(P.reshape_p(a, shape=tuple(sa)), P.reshape_p(b, shape=tuple(sb)))
    return P.reshape_p(prod, shape=tuple(x * y for x, y in zip(a.shape, b.shape)))


def vander(x, N=None):  # noqa: N803
    """The Vandermonde matrix with columns x^(N-1), ..., x^1, x^0."""
    _check_tensor("vander", "x", x)
    if x.ndim != 1:
        raise ValueError(f"For 'vander', x must be 1-D, but got dimension = {x.ndim}.")
    n = x.shape[0] if N is None else _int("vander", "N", N)
    if n < 0:
        raise ValueError(f"For 'vander', N must be non-negative, but got {n}.")
    exps = A.range_p(start=n - 1, end=-1, step=-1, dtype=x.dtype.name)
    return P.pow_p(P.reshape_p(x, shape=(x.shape[0], 1)), exps)


def cov(input, *, correction=1, fweights=None, aweights=None):
    """The covariance matrix of the variables in the rows of input (observations in columns)."""
    _check_tensor("cov", "input", input)
    if input.ndim > 2:
        raise ValueError(f"For 'cov', the input must be at most 2-D, but got shape {input.shape}.")
    x = input if mstype.is_float(input.dtype) or mstype.is_complex(input.dtype) else cast(input, mstype.float32)
    if x.ndim < 2:
        x = P.reshape_p(x, shape=(1, -1))
    n = x.shape[1]
    w = None
    if fweights is not None:
        w = cast(fweights, x.dtype)
    if aweights is not None:
        w = cast(aweights, x.dtype) if w is None else P.mul_p(w, cast(aweights, x.dtype))
    if w is None:
        wsum = float(n)
        mean = P.div_p(P.reduce_sum_p(x, axis=1, keep_dims=True), wsum)
        norm_ = max(wsum - correction, 0.0)
    else:
        wsum = P.reduce_sum_p(w, axis=None, keep_dims=False)
        mean = P.div_p(P.reduce_sum_p(P.mul_p(x, w), axis=1, keep_dims=True), wsum)
        if correction == 0:
            norm_ = wsum
        elif aweights is None:
            norm_ = P.sub_p(wsum, correction)
        else:
            aw = cast(aweights, x.dtype)
            norm_ = P.sub_p(wsum, P.div_p(P.mul_p(P.reduce_sum_p(P.mul_p(w, aw), axis=None, keep_dims=False),
                                                  correction), wsum))
    xm = P.sub_p(x, mean)
    xw = xm if w is None else P.mul_p(xm, w)
    c = P.matmul_p(xw, _mT(xm))
    out = P.div_p(c, norm_)
    return P.reshape_p(out, shape=()) if input.ndim < 2 else out


# ---------------------------------------------------------------- Tensor methods
def _dot_method(self, other):
    if getattr(self, "ndim", 0) == 1 and getattr(other, "ndim", 0) == 1:
        if self.shape != other.shape:
            raise ValueError(f"For 'dot', the 1-D inputs must have the same length, but got {self.shape} and "
                             f"{other.shape}.")
        return P.reduce_sum_p(P.mul_p(*_promote(self, other)), axis=None, keep_dims=False)
    return dot(self, other)


def _triangular_solve(self, A, upper=True, transpose=False, unitriangular=False):  # noqa: N803
    """(X, A) with X the solution of A X = self (A^T X = self when `transpose`), A triangular."""
    _float_tensor("triangular_solve", "A", A)
    a = _mT(A) if transpose else A
    return L.solve_triangular_p(a, self, upper=bool(upper) != bool(transpose), unitriangular=bool(unitriangular)), A


def _addmm_(self, mat1, mat2, *, beta=1, alpha=1):
    return _inplace(self, lambda old: addmm(old, mat1, mat2, beta=beta, alpha=alpha), mat1, mat2)


def _qr_method(self, some=True):
    return qr(self, "reduced" if some else "complete")


def _norm_method(self, ord=None, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    return norm(self, ord, dim, keepdim, dtype=dtype)


TENSOR_METHODS = {
    "addbmm": addbmm, "addmm": addmm, "addmm_": _addmm_, "addmv": addmv, "adjoint": adjoint,
    "addr": lambda self, vec1, vec2, beta=1, alpha=1: addr(self, vec1, vec2, beta=beta, alpha=alpha),
    "baddbmm": lambda self, batch1, batch2, *, beta=1, alpha=1: baddbmm(self, batch1, batch2, beta, alpha),
    "bmm": bmm, "cholesky": cholesky, "cholesky_inverse": cholesky_inverse, "cholesky_solve": cholesky_solve,
    "cov": cov, "cross": cross, "det": det, "dot": _dot_method, "eigvals": eigvals, "ger": ger, "geqrf": geqrf,
    "inner": inner, "inverse": inverse, "logdet": logdet, "log_matrix_determinant": log_matrix_determinant,
    "lstsq": lstsq, "lu_solve": lu_solve, "matrix_determinant": matrix_determinant, "matrix_power": matrix_power,
    "mm": mm, "mv": mv, "norm": _norm_method, "orgqr": orgqr, "ormqr": _ormqr_method, "outer": outer, "qr": _qr_method,
    "slogdet": slogdet, "svd": svd, "triangular_solve": _triangular_solve, "kron": kron, "vecdot": vecdot,
    "renorm": renorm,
}
