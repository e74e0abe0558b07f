"""Kernels of the core primitives (arithmetic, sums, shapes, casts, indexing)."""
import functools

import torch

from mindseed._backend._core import _TORCH_DTYPES, to_dtype


def _t(x, like):
    """A Python scalar as a 0-d tensor that promotes like MindSpore's scalar (weakly)."""
    if isinstance(x, torch.Tensor):
        return x
    return torch.scalar_tensor(x, dtype=_scalar_dtype(x, like), device=like.device)


def _scalar_dtype(x, like):
    if isinstance(x, bool):
        return torch.bool if like.dtype == torch.bool else like.dtype
    if isinstance(x, int):
        return like.dtype if like.dtype != torch.bool else torch.int64
    if isinstance(x, float):
        return like.dtype if like.is_floating_point() else torch.float32
    return torch.complex64


def promote_zero_dim(x, y):
    """Two tensor operands, one 0-d, brought to their promoted dtype: MindSpore promotes a 0-d tensor by its dtype
    like any tensor (float16 (2, 3) + float32 () is float32), where aten lets the dimensioned operand decide within
    a category. Python numbers and two dimensioned (or two 0-d) tensors are left as they are."""
    if isinstance(x, torch.Tensor) and isinstance(y, torch.Tensor) and x.dtype != y.dtype and \
            (x.dim() == 0) != (y.dim() == 0):
        dt = torch.promote_types(x.dtype, y.dtype)
        return x.to(dt), y.to(dt)
    return x, y


def _zero_dim_promoting(kernel):
    """`kernel` with a 0-d tensor operand promoting like any tensor (`promote_zero_dim`)."""
    def promoting(x, y):
        return kernel(*promote_zero_dim(x, y))
    promoting.__name__ = promoting.__qualname__ = kernel.__name__
    return promoting


def identity(x):
    """x's value as another tensor object (a view of the same data): a graph that keeps an identity of a
    Parameter it then updates (Assign gives the Parameter new storage) keeps the old value in it."""
    return torch.ops.aten.alias(x)


def contiguous(x):
    return x.contiguous()


_WIDE_UNSIGNED = (torch.uint16, torch.uint32, torch.uint64)


def _wrapping(op, x, y):
    """op on tensors of which one is uint16/32/64, for which torch has no CPU arithmetic: computed on int64, which
    wraps the same modulo 2**64, and cast back."""
    t = x if isinstance(x, torch.Tensor) and x.dtype in _WIDE_UNSIGNED else y
    wide = lambda v: v.view(torch.int64) if v.dtype == torch.uint64 else v.to(torch.int64)  # noqa: E731
    x = wide(x) if isinstance(x, torch.Tensor) else x
    y = wide(y) if isinstance(y, torch.Tensor) else y
    out = op(x, y)
    return out.view(torch.uint64) if t.dtype == torch.uint64 else out.to(t.dtype)


def _unsigned(x, y):
    return (isinstance(x, torch.Tensor) and x.dtype in _WIDE_UNSIGNED) or \
        (isinstance(y, torch.Tensor) and y.dtype in _WIDE_UNSIGNED)


def _bool_with_number(x, y):
    """One operand a bool tensor, the other of a number type (a bool pair stays the kernel's to refuse)."""
    kinds = [v.dtype == torch.bool if isinstance(v, torch.Tensor) else isinstance(v, bool) for v in (x, y)]
    return any(isinstance(v, torch.Tensor) and v.dtype == torch.bool for v in (x, y)) and not all(kinds)


def _scalar_operand(x):
    """A Python number as a 0-d tensor when both operands are numbers (Sub(10.11, 902)): int64, float32 or bool."""
    dtype = torch.bool if isinstance(x, bool) else torch.int64 if isinstance(x, int) else \
        torch.float32 if isinstance(x, float) else torch.complex64
    return torch.scalar_tensor(x, dtype=dtype)


def _commutative(op):
    """The kernel of a commutative binary op: wrapping unsigned arithmetic, and a number on the left swapped to
    the right (both numbers: the left one as a 0-d tensor)."""
    def kernel(x, y):
        if _unsigned(x, y):
            return _wrapping(op, x, y)
        if isinstance(x, torch.Tensor):
            return op(x, y)
        return op(y if isinstance(y, torch.Tensor) else _scalar_operand(y), x)
    kernel.__name__ = kernel.__qualname__ = op.__name__
    return kernel


add = _zero_dim_promoting(_commutative(torch.add))


@_zero_dim_promoting
def sub(x, y):
    # a Python bool beside a tensor that is not bool counts as 0 or 1 (MindSpore's `t - True`; aten refuses it)
    if isinstance(y, bool) and isinstance(x, torch.Tensor) and x.dtype != torch.bool:
        y = int(y)
    if isinstance(x, bool) and isinstance(y, torch.Tensor) and y.dtype != torch.bool:
        x = int(x)
    if _unsigned(x, y):
        return _wrapping(torch.sub, x, y)
    if _bool_with_number(x, y):     # torch refuses `-` on a bool tensor; MindSpore promotes it first
        dt = torch.result_type(x, y)
        x, y = (v.to(dt) if isinstance(v, torch.Tensor) else v for v in (x, y))
    if isinstance(x, torch.Tensor):
        return torch.sub(x, y)
    if not isinstance(y, torch.Tensor):
        return torch.sub(_scalar_operand(x), y)
    return torch.rsub(y, x)


mul = _commutative(torch.mul)


def div(x, y):
    if isinstance(x, torch.Tensor):
        return torch.div(x, y)
    if not isinstance(y, torch.Tensor):
        return torch.div(_scalar_operand(x), y)
    # a number over an integer tensor divides as a float32 number (`-3 / uint8_tensor` is -3.0 / x, not 253 / x)
    return torch.div(_t(x, y) if y.is_floating_point() or y.is_complex() else _scalar_operand(float(x)), y)


neg = torch.neg


def half_on_cpu(*ts):
    """Are these float16 tensors on the CPU? torch's CPU float16 matrix products accumulate in float16 and run an
    order of magnitude slower than float32 ones; MindSpore's CPU kernels (as Ascend's cubes) accumulate in float32
    and round the result once to float16, which is what the float32 product cast back gives."""
    return all(t.dtype == torch.float16 and t.device.type == "cpu" for t in ts)


def widen_half(kernel):
    """`kernel` run in float32 when its tensor arguments are float16 CPU tensors, its result rounded back to float16
    (see half_on_cpu): for the matrix-product kernels (convolutions and their gradients)."""
    def wide(v):
        return v.float() if isinstance(v, torch.Tensor) else v

    @functools.wraps(kernel)
    def run(*args, **kwargs):
        ts = [v for v in (*args, *kwargs.values()) if isinstance(v, torch.Tensor)]
        if not ts or not half_on_cpu(*ts):
            return kernel(*args, **kwargs)
        return kernel(*map(wide, args), **{k: wide(v) for k, v in kwargs.items()}).half()
    return run


def matmul(x, y, transpose_a=False, transpose_b=False):
    if transpose_a:
        x = x.transpose(-1, -2)
    if transpose_b:
        y = y.transpose(-1, -2)
    if half_on_cpu(x, y):
        return torch.matmul(x.float(), y.float()).half()
    return torch.matmul(x, y)


def reduce_sum(x, axis=None, keep_dims=False):
    if axis is None or axis == ():
        if keep_dims:
            return torch.sum(x, dim=tuple(range(x.dim())), keepdim=True) if x.dim() else x.clone()
        return torch.sum(x)
    return torch.sum(x, dim=axis, keepdim=keep_dims)


def reshape(x, shape):
    return torch.reshape(x, shape)


def transpose(x, perm):
    return x.permute(perm)


def cast(x, dtype):
    y = to_dtype(x, _TORCH_DTYPES[dtype])    # complex to real: the real part, as MindSpore's cast
    return torch.ops.aten.alias(x) if y is x else y     # never the input object itself (see identity)


def broadcast_to(x, shape):
    return torch.broadcast_to(x, shape)


zeros_like = torch.zeros_like
ones_like = torch.ones_like


def _flipped(x, index):
    """(the dims `index` slices with a negative step, the index with those slices counted from the other end),
    or None when it has none: torch has no negative strides, so x[::-2] is x.flip(0)[::2]."""
    parts = index if isinstance(index, tuple) else (index,)
    if not any(type(p) is slice and p.step is not None and p.step < 0 for p in parts):
        return None

    def width(p):        # how many dims of x the index part consumes
        if p is None or p is Ellipsis:
            return 0
        return p.dim() if isinstance(p, torch.Tensor) and p.dtype == torch.bool else 1
    rest = x.dim() - sum(width(p) for p in parts)
    dims, new, d = [], [], 0
    for p in parts:
        if p is Ellipsis:
            d += rest
        elif type(p) is slice and p.step is not None and p.step < 0:
            n = x.shape[d]
            start, stop, step = p.indices(n)      # stop -1: through element 0
            dims.append(d)
            p = slice(n - 1 - start, n - 1 - stop, -step)
        new.append(p)
        d += width(p)
    return dims, tuple(new)


def getitem(x, index):
    flip = _flipped(x, index)
    if flip is None:
        return x[index]
    dims, index = flip
    return x.flip(dims)[index]


def _put(out, index, value):
    """out[index] = value (in place on `out`, or on a flipped copy that is returned)."""
    flip = _flipped(out, index)
    if flip is None:
        out[index] = value
        return out
    dims, index = flip
    out = out.flip(dims)
    out[index] = value
    return out.flip(dims)


def _basic_index(index):
    """True for ints, forward slices, None and Ellipsis (alone or in a tuple): an index that never repeats an
    element and that torch can write through (no negative steps)."""
    parts = index if isinstance(index, tuple) else (index,)
    return all(p is None or p is Ellipsis or (isinstance(p, int) and not isinstance(p, bool))
               or isinstance(p, slice) and (p.step is None or isinstance(p.step, int) and p.step > 0)
               for p in parts)


def index_add_grad(dout, shape, index):
    """Gradient of x[index] w.r.t. x: dout scattered (summed over repeats) into zeros of `shape`."""
    if _basic_index(index):
        # a view of distinct elements: one write, no index arithmetic
        g = torch.zeros(shape, dtype=dout.dtype, device=dout.device)
        g[index] = dout
        return g
    n = 1
    for s in shape:
        n *= s
    pos = getitem(torch.arange(n, device=dout.device).reshape(shape), index).reshape(-1)
    g = torch.zeros(n, dtype=dout.dtype, device=dout.device)
    g.index_add_(0, pos, dout.reshape(-1))
    return g.reshape(shape)


def _first_axis_cover(douts, shape, indices):
    """The cotangents in first-axis order when `indices` are ints naming each of range(shape[0]) exactly once and
    every cotangent is a whole slice (q, k, v = qkv[0], qkv[1], qkv[2]); else None."""
    n = shape[0] if shape else 0
    if len(indices) != n:
        return None
    slots = [None] * n
    for d, index in zip(douts, indices):
        if type(index) is tuple and len(index) == 1:
            index = index[0]
        if type(index) is not int or not -n <= index < n or tuple(d.shape) != tuple(shape[1:]):
            return None
        if slots[index] is not None:
            return None
        slots[index] = d
    return slots


def index_add_grad_n(*douts, shape, indices, order=None):
    """The sum of index_add_grad(d, shape, index) over (douts, indices), every index basic: one buffer, each
    cotangent added into its view (or, when the views tile the first axis, copied into it: no fill).

    `order` (a permutation of the axes, outermost first) lays the buffer out so that `permute(order)` of the
    result is contiguous: q, k, v = qkv.reshape(B, T, 3, H, D).permute(2, 0, 3, 1, 4) gives back a gradient
    whose permute and reshape to (B, T, 3 * H * D) are views instead of a copy."""
    like = douts[0]
    if order is None:
        order = range(len(shape))
    buf = torch.empty([shape[i] for i in order], dtype=like.dtype, device=like.device)
    g = buf.permute([list(order).index(i) for i in range(len(shape))])
    slots = _first_axis_cover(douts, shape, indices)
    if slots is not None:
        for i, d in enumerate(slots):
            g[i].copy_(d)
        return g
    g.zero_()
    for d, index in zip(douts, indices):
        g[index].add_(d)
    return g


def setitem(x, value, index):
    if isinstance(value, torch.Tensor) and value.dtype != x.dtype:
        value = to_dtype(value, x.dtype)
    return _put(x.clone(), index, value)


def setitem_zero(x, index):
    return _put(x.clone(), index, 0)


def concat(*xs, axis=0):
    return torch.cat(xs, dim=axis)


def split_sizes(x, sizes, axis=0):
    return torch.split(x, sizes, dim=axis)


def stack(*xs, axis=0):
    return torch.stack(xs, dim=axis)


def where(cond, x, y):
    return torch.where(cond, x, y)


def fill(shape, value, dtype):
    return torch.full(tuple(shape), value, dtype=_TORCH_DTYPES[dtype], device=_device())


def raise_error(*, error, shape, dtype):
    """Raise a fresh copy of the exception `error` (a graph's `raise` on the path that ran)."""
    try:
        fresh = type(error)(*error.args)
    except Exception:  # noqa: BLE001 -- an exception class whose constructor takes other arguments
        fresh = error
    raise fresh


def _device():
    from mindseed._backend import _core as _backend  # noqa: PLC0415 -- current device, set at run time
    return _backend.device()


def exp(x):
    return torch.exp(x)


def log(x):
    return torch.log(x)


@_zero_dim_promoting
def pow_(x, y):
    if not isinstance(x, torch.Tensor) and not isinstance(y, torch.Tensor):   # two numbers: a 0-d result
        x = _scalar_operand(x)
    if isinstance(y, int) and not isinstance(y, bool) and y < 0 and isinstance(x, torch.Tensor) and \
            not (x.is_floating_point() or x.is_complex()):
        return _integer_negative_power(x, y)
    return torch.pow(x, y)


def _integer_negative_power(x, y):
    """An integer (or bool) tensor to a negative int power, as MindSpore's Pow: 1 / x ** -y truncated toward zero in
    the integer dtype (aten refuses it); 0 ** -n is the int32/int64 minimum, narrower dtypes keeping its low bits."""
    dtype = torch.int64 if x.dtype == torch.bool else x.dtype
    out = torch.trunc(torch.pow(x.to(torch.float64), y))
    return out.to(torch.int64 if dtype == torch.int64 else torch.int32).to(dtype)


def _extremum(op):
    def kernel(x, y):
        if not isinstance(x, torch.Tensor) and not isinstance(y, torch.Tensor):   # two numbers: a 0-d result
            x = _scalar_operand(x)
        return op(_t(x, y), _t(y, x))
    kernel.__name__ = kernel.__qualname__ = op.__name__
    return kernel


maximum = _zero_dim_promoting(_extremum(torch.maximum))
minimum = _zero_dim_promoting(_extremum(torch.minimum))


def _comparison(op, flipped, numbers=True, exact=False):
    """x op y, a Python number on either side (`flipped`: the same comparison with its operands swapped); two
    numbers give a 0-d bool tensor where MindSpore's kernel takes them (`numbers`; its Less and Equal do not). A 0-d
    tensor operand promotes (int8 [1] == Tensor(257) is False); a Python int wraps into an integer tensor's dtype
    (uint8 [1] <= -3 is True), except for an `exact` kernel (MindSpore's Less: uint8 [1] < -3 is False)."""
    def kernel(x, y):
        x, y = promote_zero_dim(x, y)
        if exact:
            x, y = _exact(x, y)
        if isinstance(x, torch.Tensor):
            return op(x, y)
        if numbers and not isinstance(y, torch.Tensor):
            return op(_scalar_operand(x), y)
        return flipped(y, x)
    return kernel


def _exact(x, y):
    """Comparison operands compared by value: an integer tensor beside a Python int its dtype cannot hold
    (`uint8_tensor < -3`, `int8_tensor < 200`) compares as int64 (torch would wrap the number into the dtype)."""
    for t, v in ((x, y), (y, x)):
        if isinstance(t, torch.Tensor) and type(v) is int and t.dtype in _NARROW_INTS:
            info = torch.iinfo(t.dtype)
            if not info.min <= v <= info.max:
                return (t.to(torch.int64), v) if t is x else (v, t.to(torch.int64))
    return x, y


_NARROW_INTS = (torch.uint8, torch.int8, torch.int16, torch.int32)


greater = _comparison(torch.gt, torch.lt)
less = _comparison(torch.lt, torch.gt, numbers=False, exact=True)
greater_equal = _comparison(torch.ge, torch.le)
less_equal = _comparison(torch.le, torch.ge)
equal = _comparison(torch.eq, torch.eq, numbers=False)
not_equal = _comparison(torch.ne, torch.ne)


def relu(x):
    return x.clone() if x.dtype == torch.bool else torch.relu(x)   # MindSpore's ReLU takes a bool (unchanged)


def relu_(x):
    """ReLU written over x (a graph uses it when x is a fresh buffer read by nothing else)."""
    return x if x.dtype == torch.bool else torch.relu_(x)


def add_relu(x, y):
    """relu(x + y) in one pass on the CPU (aten's fused kernel; same values as the two ops). Under torch.compile
    (jit_level O1) the two plain ops, which inductor fuses with their neighbours (it has no lowering for aten's
    fused kernel, so that would stay a separate call)."""
    if torch.compiler.is_compiling():
        return torch.relu(torch.add(x, y))
    if x.device.type == "cpu" and x.dtype in (torch.float32, torch.float64) and y.dtype == x.dtype:
        return torch.ops.aten._add_relu(x, y)
    return torch.relu_(torch.add(x, y))


def relu_grad(dout, out):
    # threshold_backward is one vectorized pass; where() on a bool mask is ~20x slower on CPU
    return torch.ops.aten.threshold_backward(dout, out, 0)


def relu_grad_(dout, out):
    """relu_grad written over dout (a graph uses it when dout is a fresh buffer read by nothing else). When the two
    are laid out differently (NCHW / NHWC) it allocates, as relu_grad does: the result then takes the layout
    aten picks for the pair, which the kernels after it expect."""
    if torch.compiler.is_compiling() or dout.stride() != out.stride():
        return relu_grad(dout, out)
    return torch.ops.aten.threshold_backward.grad_input(dout, out, 0, grad_input=dout)


def add_(x, y):
    """x + y written over x (a graph uses it when x is a fresh buffer of the sum's shape and dtype read by nothing
    else); a new buffer, as `add`, when x and y are laid out differently."""
    if torch.compiler.is_compiling() or x.stride() != y.stride():
        return torch.add(x, y)
    return x.add_(y)


def sign(x):
    return torch.sign(x)


def identity_n(*xs, hook=None):
    return xs


def py_call(*xs, fn):
    """Run a Python function on backend tensors (an opaque, state-updating step inside a graph); its results
    are the tuple of backend tensors fn returns."""
    return fn(*xs)


def assign(dst, src):
    """dst <- src (a Parameter update inside a graph): the same tensor object holds the new value. When dst owns
    its storage it gets a new one, so views of it read before the update (p[0], p.T, a reshape) keep the old
    value, as in PyNative, where an update rebinds the Parameter's data; a view into a larger buffer is written
    in place (the buffer must see it)."""
    if dst.storage_offset() == 0 and dst.untyped_storage().nbytes() == dst.numel() * dst.element_size():
        dst.set_(to_dtype(src, dst.dtype).to(memory_format=torch.contiguous_format, copy=True))
    else:
        dst.copy_(to_dtype(src, dst.dtype) if src.dtype != dst.dtype else src)
    return dst
