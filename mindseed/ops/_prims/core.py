"""Core primitives: arithmetic, sums, shape, casting and indexing — what the autodiff engine itself uses."""
from math import log

from mindseed._backend.kernels import core as K
from mindseed.common import dtype as mstype
from mindseed.ops import _infer as I
from mindseed.ops import _sharding as S
from mindseed.ops._registry import Prim

# ---------------------------------------------------------------- identity / stop_gradient
identity_p = Prim("Identity", K.identity, identity=True, infer=I.same, sharding=S.elementwise)


@identity_p.def_bprop
def _identity_bprop(x, out, dout):
    return (dout,)


# x's value in contiguous memory (Tensor.contiguous): differentiated as the identity
contiguous_p = Prim("Contiguous", K.contiguous, sharding=S.elementwise)


@contiguous_p.def_bprop
def _contiguous_bprop(x, out, dout):
    return (dout,)


# no bprop: the tape never records it, so nothing flows back through it
stop_gradient_p = Prim("StopGradient", K.identity, infer=I.same, sharding=S.elementwise)

# ---------------------------------------------------------------- arithmetic
add_p = Prim("Add", K.add, fresh=True, commutative=True, left_identity=0, right_identity=0, infer=I.binary_promoting,
             sharding=S.elementwise)


@add_p.def_bprop
def _add_bprop(x, y, out, dout):
    return dout, dout


sub_p = Prim("Sub", K.sub, fresh=True, right_identity=0, infer=I.binary_promoting, sharding=S.elementwise)


@sub_p.def_bprop
def _sub_bprop(x, y, out, dout):
    return dout, neg_p(dout)


mul_p = Prim("Mul", K.mul, fresh=True, commutative=True, left_identity=1, right_identity=1, infer=I.binary,
             sharding=S.elementwise)


@mul_p.def_bprop(takes_needs=True)
def _mul_bprop(x, y, out, dout, needs):
    # complex operands: dout * conj(other), as MatMul and PyTorch (MindSpore 2.10's CPU Mul has no complex gradient)
    return (mul_p(dout, _conj(y)) if needs[0] else None), (mul_p(dout, _conj(x)) if needs[1] else None)


def _conj(t):
    """conj(t) for a complex Tensor or number, else t."""
    if isinstance(t, complex):
        return t.conjugate()
    dtype = getattr(t, "dtype", None)
    return conj_if_complex(t) if dtype is not None and mstype.is_complex(dtype) else t


div_p = Prim("Div", K.div, right_identity=1, infer=I.true_divide, sharding=S.elementwise)


@div_p.def_bprop(takes_needs=True)
def _div_bprop(x, y, out, dout, needs):
    # NOTE: out = x / y, so d/dy = -dout * out / y; reusing out saves a multiply.
    dx = div_p(dout, _conj(y))
    return dx, neg_p(mul_p(dx, _conj(out))) if needs[1] else None


neg_p = Prim("Neg", K.neg, infer=I.same, sharding=S.elementwise)


@neg_p.def_bprop
def _neg_bprop(x, out, dout):
    return (neg_p(dout),)


matmul_p = Prim("MatMul", K.matmul, fresh=True, heavy=True, infer=I.matmul, sharding=S.matmul)


def conj_if_complex(t):
    """conj(t) for a complex tensor, else t: the other operand in a product's gradient (MindSpore's complex rule)."""
    if not mstype.is_complex(t.dtype):
        return t
    from mindseed.ops._prims.math import conj_p  # noqa: PLC0415 -- math's rows build on this module
    return conj_p(t)


@matmul_p.def_bprop(takes_needs=True)
def _matmul_bprop(x, y, out, dout, needs, transpose_a=False, transpose_b=False):
    x, y = conj_if_complex(x), conj_if_complex(y)
    if x.ndim == 1 or y.ndim == 1:
        return _matmul_vec_bprop(x, y, dout)
    dx = dy = None
    if needs[0]:
        dx = (matmul_p(y, dout, transpose_a=transpose_b, transpose_b=True) if transpose_a
              else matmul_p(dout, y, transpose_b=not transpose_b))
    if needs[1]:
        dy = (matmul_p(dout, x, transpose_a=True, transpose_b=transpose_a) if transpose_b
              else matmul_p(x, dout, transpose_a=not transpose_a))
    return dx, dy


def _matmul_vec_bprop(x, y, dout):
    # promote vectors to matrices as matmul does, then drop the added axis again
    x2 = reshape_p(x, shape=(1,) + x.shape) if x.ndim == 1 else x
    y2 = reshape_p(y, shape=y.shape + (1,)) if y.ndim == 1 else y
    d2_shape = x2.shape[:-1] + y2.shape[-1:] if x2.ndim >= y2.ndim else y2.shape[:-2] + x2.shape[-2:-1] + y2.shape[-1:]
    d2 = reshape_p(dout, shape=d2_shape)
    dx = matmul_p(d2, y2, transpose_b=True)
    dy = matmul_p(x2, d2, transpose_a=True)
    if x.ndim == 1:
        dx = reshape_p(reduce_sum_p(dx, axis=tuple(range(dx.ndim - 2))) if dx.ndim > 2 else dx, shape=x.shape)
    if y.ndim == 1:
        dy = reshape_p(reduce_sum_p(dy, axis=tuple(range(dy.ndim - 2))) if dy.ndim > 2 else dy, shape=y.shape)
    return dx, dy


pow_p = Prim("Pow", K.pow_, infer=I.binary_promoting, sharding=S.elementwise)


@pow_p.def_bprop
def _pow_bprop(x, y, out, dout):
    if isinstance(y, (int, float)):
        return mul_p(dout, mul_p(pow_p(x, y - 1), y)), None
    dx = mul_p(dout, mul_p(y, pow_p(x, sub_p(y, 1))))
    if isinstance(x, (int, float)):
        return None, mul_p(dout, _pow_exponent_grad(x, y, out))
    return dx, mul_p(dout, _pow_exponent_grad(x, y, out))


def _pow_exponent_grad(x, y, out):
    """d(x ** y)/dy = x ** y * log(x), 0 where x == 0 and y >= 0 (MindSpore's rule: no nan from 0 * log(0)); nan for
    a negative base."""
    if isinstance(x, (int, float)):
        g = mul_p(out, log(x) if x > 0 else float("-inf") if x == 0 else float("nan"))
        return where_p(greater_equal_p(y, 0), zeros_like_p(g), g) if x == 0 else g
    g = mul_p(out, log_p(x))
    at_zero = equal_p(x, 0)
    return where_p(where_p(at_zero, greater_equal_p(y, 0), at_zero), zeros_like_p(g), g)


exp_p = Prim("Exp", K.exp, infer=I.to_float, sharding=S.elementwise)


@exp_p.def_bprop
def _exp_bprop(x, out, dout):
    return (mul_p(dout, _conj(out)),)


log_p = Prim("Log", K.log, infer=I.to_float, sharding=S.elementwise)


@log_p.def_bprop
def _log_bprop(x, out, dout):
    return (div_p(dout, _conj(x)),)


maximum_p = Prim("Maximum", K.maximum, commutative=True, infer=I.binary_promoting, sharding=S.elementwise)
minimum_p = Prim("Minimum", K.minimum, commutative=True, infer=I.binary_promoting, sharding=S.elementwise)


def _select_bprop(pick_x):
    def bprop(x, y, out, dout):
        # as MindSpore: where x == y the gradient is split evenly between x and y; where either is NaN, both get
        # the whole gradient
        dt = dout.dtype.name
        mask = add_p(cast_p(pick_x(x, y), dtype=dt), mul_p(cast_p(equal_p(x, y), dtype=dt), 0.5))
        floats = [t for t in (x, y) if hasattr(t, "dtype") and mstype.is_float(t.dtype)]
        if not floats:
            dx = mul_p(dout, mask)
            return dx, sub_p(dout, dx)
        ordered = cast_p(equal_p(floats[0], floats[0]), dtype=dt)       # 0 where a NaN is
        if len(floats) == 2:
            ordered = mul_p(ordered, cast_p(equal_p(y, y), dtype=dt))
        unordered = sub_p(1.0, ordered)
        return (mul_p(dout, add_p(mul_p(mask, ordered), unordered)),
                mul_p(dout, add_p(mul_p(sub_p(1.0, mask), ordered), unordered)))
    return bprop


maximum_p.def_bprop(_select_bprop(lambda x, y: greater_p(x, y)))
minimum_p.def_bprop(_select_bprop(lambda x, y: less_p(x, y)))

relu_p = Prim("ReLU", K.relu, infer=I.same, sharding=S.elementwise)


@relu_p.def_bprop
def _relu_bprop(x, out, dout):
    return (relu_grad_p(dout, out),)


relu_grad_p = Prim("ReluGrad", K.relu_grad, fresh=True, infer=I.same, sharding=S.elementwise)


@relu_grad_p.def_bprop
def _relu_grad_bprop(dout, out, _out, ddout):
    return relu_grad_p(ddout, out), None


# made by the fuse_relu pass: ReLU over its input's own buffer, and relu(x + y) in one kernel
relu_inplace_p = Prim("ReLUInplace", K.relu_, in_place_of=relu_p, infer=I.same)
relu_inplace_p.def_bprop(_relu_bprop)
add_relu_p = Prim("AddReLU", K.add_relu, fresh=True, commutative=True, infer=I.binary)


@add_relu_p.def_bprop
def _add_relu_bprop(x, y, out, dout):
    g = relu_grad_p(dout, out)
    return g, g


# made by the inplace pass: a gradient kernel written over an input buffer that dies with it
relu_grad_inplace_p = Prim("ReluGradInplace", K.relu_grad_, in_place_of=relu_grad_p, infer=I.same)
relu_grad_inplace_p.def_bprop(_relu_grad_bprop)
add_inplace_p = Prim("AddInplace", K.add_, in_place_of=add_p, infer=I.same)
add_inplace_p.def_bprop(_add_bprop)

sign_p = Prim("Sign", K.sign, infer=I.same, sharding=S.elementwise)

# ---------------------------------------------------------------- comparison (no gradient)
greater_p = Prim("Greater", K.greater, infer=I.compare, sharding=S.elementwise)
less_p = Prim("Less", K.less, infer=I.compare, sharding=S.elementwise)
greater_equal_p = Prim("GreaterEqual", K.greater_equal, infer=I.compare, sharding=S.elementwise)
less_equal_p = Prim("LessEqual", K.less_equal, infer=I.compare, sharding=S.elementwise)
equal_p = Prim("Equal", K.equal, commutative=True, infer=I.compare, sharding=S.elementwise)
not_equal_p = Prim("NotEqual", K.not_equal, commutative=True, infer=I.compare, sharding=S.elementwise)

# ---------------------------------------------------------------- reductions and shapes
reduce_sum_p = Prim("ReduceSum", K.reduce_sum, infer=I.sum_, sharding=S.reduction)


@reduce_sum_p.def_bprop
def _reduce_sum_bprop(x, out, dout, axis=None, keep_dims=False):
    if not keep_dims and axis not in (None, ()):
        axes = (axis,) if isinstance(axis, int) else axis
        kept = list(x.shape)
        for a in axes:
            kept[a % max(x.ndim, 1)] = 1
        dout = reshape_p(dout, shape=tuple(kept))
    return (broadcast_to_p(dout, shape=x.shape),)


reshape_p = Prim("Reshape", K.reshape, retype=True, infer=I.reshape, sharding=S.reshape)


@reshape_p.def_bprop
def _reshape_bprop(x, out, dout, shape):
    return (reshape_p(dout, shape=x.shape),)


transpose_p = Prim("Transpose", K.transpose, infer=I.transpose, sharding=S.transpose)


@transpose_p.def_bprop
def _transpose_bprop(x, out, dout, perm):
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return (transpose_p(dout, perm=tuple(inv)),)


cast_p = Prim("Cast", K.cast, retype=True, infer=I.cast, sharding=S.elementwise)


@cast_p.def_bprop
def _cast_bprop(x, out, dout, dtype):
    return (cast_p(dout, dtype=x.dtype.name),)


broadcast_to_p = Prim("BroadcastTo", K.broadcast_to, retype=True, infer=I.broadcast_to, sharding=S.broadcast_to)


@broadcast_to_p.def_bprop
def _broadcast_to_bprop(x, out, dout, shape):
    return (dout,)  # the engine sums the broadcast dimensions back to x's shape


zeros_like_p = Prim("ZerosLike", K.zeros_like, fill_value=0, infer=I.same, sharding=S.elementwise)
ones_like_p = Prim("OnesLike", K.ones_like, fill_value=1, infer=I.same, sharding=S.elementwise)
fill_p = Prim("Fill", K.fill, infer=I.fill)
# a graph's `raise` on a path chosen at run time (a branch of an If): raises `error` when it runs; its output (a
# tensor of `shape` and `dtype`, never made) stands for what the branch would give. Kept in order, never folded.
raise_p = Prim("Raise", K.raise_error, side_effect=True, infer=I.fill)

# ---------------------------------------------------------------- indexing
def _index_pair(name, grad_name, sharding, grad_sharding):
    """A basic-index read and the scatter-add of a gradient into the read tensor's shape: each is the other's
    bprop."""
    read = Prim(name, K.getitem, sharding=sharding)
    scatter = Prim(grad_name, K.index_add_grad, sharding=grad_sharding)
    read.def_bprop(lambda x, out, dout, index: (scatter(dout, shape=x.shape, index=index),))
    scatter.def_bprop(lambda dout, out, ddout, shape, index: (read(ddout, index=index),))
    return read, scatter


getitem_p, index_add_grad_p = _index_pair("Getitem", "IndexAddGrad", S.getitem, S.index_add_grad)
# micro-batch i of a batch (`nn`'s `_MicroBatch`: MindSpore's StridedSlice with its strided_slice_flag): Getitem's
# values, but a partitioner slices each shard's own rows (ops/_sharding.micro_slice), regrouping the samples
micro_slice_p, micro_slice_grad_p = _index_pair("MicroBatchSlice", "MicroBatchSliceGrad", S.micro_slice,
                                                S.micro_slice_grad)


# several basic-index reads of one tensor, their gradients summed (made by the merge_index_grads pass)
index_add_grad_n_p = Prim("IndexAddGradN", K.index_add_grad_n, sharding=S.index_add_grad_n)


@index_add_grad_n_p.def_bprop
def _index_add_grad_n_bprop(*args, shape, indices, order=None):
    ddout = args[-1]
    return tuple(getitem_p(ddout, index=index) for index in indices)


setitem_p = Prim("Setitem", K.setitem, sharding=S.setitem)


@setitem_p.def_bprop
def _setitem_bprop(x, value, out, dout, index):
    dx = setitem_zero_p(dout, index=index)
    if not isinstance(value, type(x)):
        return dx, None
    return dx, getitem_p(dout, index=index)  # the engine sums broadcast dims back to value's shape


setitem_zero_p = Prim("SetitemZero", K.setitem_zero, sharding=S.setitem_zero)


@setitem_zero_p.def_bprop
def _setitem_zero_bprop(x, out, dout, index):
    return (setitem_zero_p(dout, index=index),)


concat_p = Prim("Concat", K.concat, infer=I.concat, sharding=S.concat)


@concat_p.def_bprop
def _concat_bprop(*args, axis=0):
    *xs, out, dout = args
    sizes = [x.shape[axis] for x in xs]
    return split_sizes_p(dout, sizes=sizes, axis=axis)


split_sizes_p = Prim("SplitV", K.split_sizes, multi_output=True, sharding=S.split)


@split_sizes_p.def_bprop
def _split_sizes_bprop(x, out, dout, sizes, axis=0):
    return (concat_p(*dout, axis=axis),)


stack_p = Prim("Stack", K.stack, infer=I.stack, sharding=S.stack)


@stack_p.def_bprop
def _stack_bprop(*args, axis=0):
    *xs, out, dout = args
    parts = split_sizes_p(dout, sizes=[1] * len(xs), axis=axis)
    return tuple(reshape_p(p, shape=x.shape) for p, x in zip(parts, xs))


where_p = Prim("Select", K.where, infer=I.select, sharding=S.elementwise)


@where_p.def_bprop
def _where_bprop(cond, x, y, out, dout):
    zeros = zeros_like_p(dout)
    return None, where_p(cond, dout, zeros), where_p(cond, zeros, dout)

# ---------------------------------------------------------------- gradient hooks
# Identity forward; the bprop hands the incoming gradients to `hook`, which may return replacements.
hook_backward_p = Prim("HookBackward", K.identity_n, multi_output=True)


@hook_backward_p.def_bprop
def _hook_backward_bprop(*args, hook):
    dout = args[-1]
    new = hook(dout)
    if new is None:
        return dout
    if isinstance(new, (tuple, list)):
        if len(new) != len(dout):
            raise TypeError(f"The output type of function: {getattr(hook, '__name__', type(hook).__name__)} should "
                            f"be a tensor but got tuple.")
        return tuple(new)
    return (new,)

# An opaque step a graph calls as it is (optimizer updates): the node keeps its place and is never removed.
py_call_p = Prim("PyCall", K.py_call, multi_output=True, side_effect=True, heavy=True)

# Parameter update inside a graph: writes the parameter's buffer in place
assign_p = Prim("Assign", K.assign, side_effect=True)
