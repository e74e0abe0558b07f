"""Shape and dtype rules of primitives: what a kernel returns, computed from its inputs' shapes and dtypes.

A rule is declared with its primitive (`Prim("Add", K.add, infer=binary)`) and called by `Prim.abstract_eval`
with each tensor input as an `Abstract(shape, dtype)` (dtype a MindSpore dtype name; a dim may be None:
unknown until run time) and every other input and attribute as given. It returns an `Abstract`, or a tuple of
them for a multi-output primitive. The rules follow the kernels (aten's semantics), not MindSpore's front-end
checks: an op's public function has already converted and checked its arguments. They do not validate: for
inputs the kernel rejects, the rule's answer means nothing.
"""
from collections import namedtuple

from mindseed.common import dtype as mstype

__all__ = ["Abstract", "same", "to_float", "predicate", "binary", "true_divide", "compare", "binary_full", "select",
           "reduce", "reduce_bool", "sum_", "reshape", "transpose", "cast", "broadcast_to", "matmul", "fill", "concat",
           "stack", "broadcast_shapes", "result_dtype", "gather", "gather_grad", "layer_norm", "layer_norm_grad"]

Abstract = namedtuple("Abstract", "shape dtype")

_INTS = frozenset(("Int8", "Int16", "Int32", "Int64", "UInt8", "UInt16", "UInt32", "UInt64"))
_FLOATS = frozenset(("Float16", "BFloat16", "Float32", "Float64"))
_COMPLEX = frozenset(("Complex64", "Complex128"))
_DEFAULT_FLOAT = "Float32"      # the kernels' default float dtype (a Python float, int / int)


def _category(name):
    return 0 if name == "Bool" else 1 if name in _INTS else 2 if name in _FLOATS else 3


def _promote(a, b):
    """Result dtype name of two tensor dtypes of one priority (aten's promotion table)."""
    if a is None or a == b:
        return b
    if b is None:
        return a
    ca, cb = _category(a), _category(b)
    if ca == 3 or cb == 3:
        # a complex with a float64 widens to complex128 (aten), not the complex's own width
        if "Complex128" in (a, b) or "Float64" in (a, b):
            return "Complex128"
        return "Complex64"
    return mstype.promote_types(mstype._by_name(a), mstype._by_name(b)).name


def _scalar_dtype(v):
    return "Bool" if isinstance(v, bool) else "Int64" if isinstance(v, int) else \
        "Complex64" if isinstance(v, complex) else _DEFAULT_FLOAT


def result_dtype(*operands, weak_0d=True):
    """The dtype an aten elementwise kernel gives operands (Abstract values and Python numbers): tensors with
    dims decide, unless a 0-d tensor or a Python number is of a higher category (bool < int < float < complex),
    which then decides the category at its own (0-d) or the default (numbers) width. Not `weak_0d`: a 0-d tensor
    promotes as a dimensioned one (the kernels that promote their operands first, `promoted`)."""
    tiers = [None, None, None]      # dimensioned tensors, 0-d tensors, Python numbers
    for x in operands:
        if isinstance(x, Abstract):
            k = 0 if x.shape is None or len(x.shape) or not weak_0d else 1
            tiers[k] = _promote(tiers[k], x.dtype)
        elif isinstance(x, (bool, int, float, complex)):
            tiers[2] = _promote(tiers[2], _scalar_dtype(x))
    out = None
    for dt in reversed(tiers):      # lowest priority first: each higher tier combines over it
        out = _combine(dt, out)
    return out


def _combine(higher, lower):
    if higher is None:
        return lower
    if lower is None:
        return higher
    ch, cl = _category(higher), _category(lower)
    if ch == 3:
        return higher
    if cl == 3:
        # the complex of the float's width (float64 -> complex128), else the lower tier's complex
        return ("Complex128" if higher == "Float64" else "Complex64") if ch == 2 else lower
    if ch == 2:
        return higher
    if higher == "Bool" or cl == 2:
        return _promote(higher, lower)
    return higher


def broadcast_shapes(*shapes):
    """numpy/aten broadcasting of shapes (tuples, None dims unknown); None if a shape is unknown."""
    if any(s is None for s in shapes):
        return None
    n = max((len(s) for s in shapes), default=0)
    out = []
    for i in range(n):
        dims = [s[len(s) - n + i] for s in shapes if len(s) - n + i >= 0]
        known = [d for d in dims if d is not None and d != 1]
        if known:
            out.append(known[0])
        elif any(d is None for d in dims):
            out.append(None)
        else:
            out.append(1)
    return tuple(out)


def _shape_of(x):
    return x.shape if isinstance(x, Abstract) else ()


# ---------------------------------------------------------------- elementwise
def same(x, *args, **attrs):
    """The first input's shape and dtype (ReLU, Neg, Softmax, a gradient shaped like its input)."""
    return Abstract(x.shape, x.dtype)


def to_float(x, *args, **attrs):
    """Shape kept; bool and integer inputs give the default float (exp, sqrt, sigmoid on an int tensor)."""
    return Abstract(x.shape, _DEFAULT_FLOAT if _category(x.dtype) < 2 else x.dtype)


def predicate(x, *args, **attrs):
    """Shape kept, Bool (isnan, logical_not)."""
    return Abstract(x.shape, "Bool")


def binary(*operands, **attrs):
    """Elementwise on broadcast operands (tensors or Python numbers): the promoted dtype."""
    return Abstract(broadcast_shapes(*[_shape_of(x) for x in operands]), result_dtype(*operands))


def binary_full(*operands, **attrs):
    """As `binary`, a 0-d tensor promoting as a dimensioned one (Add, Sub, Pow, Maximum, Minimum)."""
    return Abstract(broadcast_shapes(*[_shape_of(x) for x in operands]), result_dtype(*operands, weak_0d=False))


def true_divide(x, y, **attrs):
    """Division: as `binary`, with integer and bool results as the default float."""
    out = binary(x, y)
    return Abstract(out.shape, _DEFAULT_FLOAT if _category(out.dtype) < 2 else out.dtype)


def compare(x, y, **attrs):
    """Comparisons: the broadcast shape, Bool."""
    return Abstract(broadcast_shapes(_shape_of(x), _shape_of(y)), "Bool")


def select(cond, x, y, **attrs):
    """where(cond, x, y): the broadcast of the three; x and y's promoted dtype."""
    return Abstract(broadcast_shapes(_shape_of(cond), _shape_of(x), _shape_of(y)), result_dtype(x, y))


# ---------------------------------------------------------------- reductions
def _reduced_shape(shape, axis, keep_dims, empty_is_all=True):
    n = len(shape)
    if axis is None or empty_is_all and axis in ((), []):
        dims = set(range(n))
    else:
        dims = {a % n if n else 0 for a in ((axis,) if isinstance(axis, int) else axis)}
    if keep_dims:
        return tuple(1 if i in dims else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in dims)


def reduce(x, axis=None, keep_dims=False, **attrs):
    """A reduction over `axis` (None or (): all dims) keeping the dtype (max, min, mean of a float)."""
    return Abstract(_reduced_shape(x.shape, axis, keep_dims), x.dtype)


def reduce_bool(x, axis=None, keep_dims=False, **attrs):
    """all / any: as `reduce` (but an empty `axis` reduces no dim), Bool."""
    return Abstract(_reduced_shape(x.shape, axis, keep_dims, empty_is_all=False), "Bool")


def sum_(x, axis=None, keep_dims=False, **attrs):
    """A sum: as `reduce`, with bool and integer inputs summed in Int64 (aten)."""
    return Abstract(_reduced_shape(x.shape, axis, keep_dims), "Int64" if _category(x.dtype) < 2 else x.dtype)


# ---------------------------------------------------------------- shapes and dtypes
def _numel(shape):
    n = 1
    for d in shape:
        if d is None:
            return None
        n *= d
    return n


def reshape(x, shape, **attrs):
    """The target shape, its -1 dim computed from the element count."""
    shape = tuple(shape)
    if -1 in shape:
        total, rest = _numel(x.shape), _numel(d for d in shape if d != -1)
        fill = None if total is None or rest is None else (total // rest if rest else 0)
        shape = tuple(fill if d == -1 else d for d in shape)
    return Abstract(shape, x.dtype)


def transpose(x, perm, **attrs):
    return Abstract(tuple(x.shape[p] for p in perm), x.dtype)


def cast(x, dtype, **attrs):
    return Abstract(x.shape, dtype if isinstance(dtype, str) else dtype.name)


def broadcast_to(x, shape, **attrs):
    """The target shape; a -1 keeps the input's dim."""
    n = len(shape)
    lead = n - len(x.shape)
    return Abstract(tuple(x.shape[i - lead] if d == -1 else d for i, d in enumerate(shape)), x.dtype)


def fill(*args, shape, dtype, **attrs):
    """A new tensor of the attributes' shape and dtype (Fill, the random draws)."""
    return Abstract(tuple(shape), dtype if isinstance(dtype, str) else dtype.name)


def matmul(x, y, transpose_a=False, transpose_b=False, **attrs):
    """aten's matmul: 1-D operands are a row / a column (dropped from the result), leading dims broadcast."""
    a, b = list(x.shape), list(y.shape)
    if transpose_a and len(a) >= 2:
        a[-1], a[-2] = a[-2], a[-1]
    if transpose_b and len(b) >= 2:
        b[-1], b[-2] = b[-2], b[-1]
    if len(a) == 1 and len(b) == 1:
        shape = ()
    elif len(b) == 1:
        shape = tuple(a[:-1])
    elif len(a) == 1:
        shape = tuple(b[:-2]) + (b[-1],)
    else:
        shape = broadcast_shapes(tuple(a[:-2]), tuple(b[:-2])) + (a[-2], b[-1])
    return Abstract(shape, x.dtype)


def concat(*xs, axis=0, **attrs):
    """Joined along `axis`: the sum of the inputs' sizes there; the promoted dtype (aten's cat)."""
    n = len(xs[0].shape)
    ax = axis % n
    sizes = [x.shape[ax] for x in xs]
    size = None if None in sizes else sum(sizes)
    return Abstract(tuple(size if i == ax else d for i, d in enumerate(xs[0].shape)), result_dtype(*xs))


def stack(*xs, axis=0, **attrs):
    """A new dim of size len(xs) at `axis`."""
    shape = list(xs[0].shape)
    shape.insert(axis % (len(shape) + 1), len(xs))
    return Abstract(tuple(shape), result_dtype(*xs))


# ---------------------------------------------------------------- gathers and normalizations
def gather(x, indices, axis=0, batch_dims=0, **attrs):
    """MindSpore's Gather: x's dims before `axis`, the indices' dims after `batch_dims`, x's dims after `axis`."""
    ax = axis % len(x.shape)
    return Abstract(tuple(x.shape[:ax]) + tuple(indices.shape[batch_dims:]) + tuple(x.shape[ax + 1:]), x.dtype)


def gather_grad(dout, indices, shape, axis=0, batch_dims=0, **attrs):
    """The gathered tensor's `shape`, the gradient's dtype."""
    return Abstract(tuple(shape), dout.dtype)


def layer_norm(x, weight, bias, normalized_shape, eps, **attrs):
    """(y, mean, rstd): y like x; mean and rstd keep the normalized dims as 1s, in x's dtype (the CPU kernel's)."""
    k = len(normalized_shape)
    stats = Abstract(tuple(x.shape[:len(x.shape) - k]) + (1,) * k, x.dtype)
    return Abstract(x.shape, x.dtype), stats, stats


def layer_norm_grad(dy, x, weight, mean, rstd, normalized_shape, eps, **attrs):
    """(dx, dw, db) shaped like x and the weight; (dx,) without a weight."""
    dx = Abstract(x.shape, x.dtype)
    return (dx,) if weight is None else (dx, Abstract(weight.shape, weight.dtype), Abstract(weight.shape, weight.dtype))
