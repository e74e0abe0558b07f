"""The backward kernels of MindSpore's generated ops that real code calls directly (`ops.auto_generate.SqrtGrad`,
...): each is the closed-form derivative of its forward op times the incoming gradient, written with mindseed ops
(so it is differentiable in turn). Not in `ops.operations`, as in MindSpore (its `_grad_ops`)."""
import math

import numpy as np

from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.ops import functional as F
from mindseed.ops.functional._array_shape import _strided_slice_index
from mindseed.ops.functional._core import _axis, _shape_arg
from mindseed.ops._prims import nn as _nn_prims
from mindseed.ops._prims.nn_loss import nll_loss_grad_p as _nll_loss_grad_p
from mindseed.ops.operations._base import Primitive, check_input_dtypes

__all__ = ["SqrtGrad", "RsqrtGrad", "TanhGrad", "SigmoidGrad", "ReciprocalGrad", "GeLUGrad", "FastGeLUGrad",
           "HShrinkGrad", "HSigmoidGrad", "HSwishGrad", "MaximumGrad", "MinimumGrad", "MaximumGradGrad",
           "MinimumGradGrad", "BiasAddGrad", "PReLUGrad", "NLLLossGrad", "TraceV2Grad", "LstsqV2Grad",
           "StridedSliceGrad", "SoftmaxBackward", "IgammaGradA"]


def _floats(op, **named):
    for name, x in named.items():
        if not isinstance(x, Tensor) or not mstype.is_float(x.dtype):
            got = x.dtype if isinstance(x, Tensor) else type(x).__name__
            raise TypeError(f"For '{op}', '{name}' must be a float Tensor, but got {got}.")


def _same_shape(op, a_name, a, b_name, b):
    if tuple(a.shape) != tuple(b.shape):
        raise ValueError(f"For '{op}', '{a_name}' and '{b_name}' must have the same shape, but got {a.shape} and "
                         f"{b.shape}.")


class _YDyGrad(Primitive):
    """Gradient from the forward output y: `Op(y, dy)`."""

    def __init__(self):
        super().__init__(type(self).__name__)

    def __call__(self, y, dy):
        _floats(self.name, y=y, dy=dy)
        _same_shape(self.name, "y", y, "dy", dy)
        return self._rule(y, dy)


class SqrtGrad(_YDyGrad):
    """y = sqrt(x): dx = dy / (2 y)."""

    @staticmethod
    def _rule(y, dy):
        return dy / (y * 2)


class RsqrtGrad(_YDyGrad):
    """y = 1 / sqrt(x): dx = -dy y^3 / 2."""

    @staticmethod
    def _rule(y, dy):
        return dy * y * y * y * -0.5


class TanhGrad(_YDyGrad):
    """y = tanh(x): dx = dy (1 - y^2)."""

    @staticmethod
    def _rule(y, dy):
        return dy * (1 - y * y)


class SigmoidGrad(_YDyGrad):
    """y = sigmoid(x): dx = dy y (1 - y)."""

    @staticmethod
    def _rule(y, dy):
        return dy * y * (1 - y)


class ReciprocalGrad(_YDyGrad):
    """y = 1 / x: dx = -dy y^2."""

    @staticmethod
    def _rule(y, dy):
        return -(dy * y * y)


class SoftmaxBackward(Primitive):
    """`SoftmaxBackward()(dout, out, dim=-1)`: the gradient of out = softmax(x, dim) given dout,
    out (dout - sum(dout out, dim))."""

    def __init__(self):
        super().__init__("SoftmaxBackward")

    def __call__(self, dout, out, dim=-1):
        _floats(self.name, dout=dout, out=out)
        _same_shape(self.name, "dout", dout, "out", out)
        if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)):
            raise TypeError(f"For '{self.name}', 'dim' must be an int, but got {type(dim).__name__}.")
        dim = _axis(self.name, dim, out.ndim)
        return out * (dout - F.sum(dout * out, dim, keepdim=True))


class IgammaGradA(Primitive):
    """`IgammaGradA()(a, x)`: d/da of the regularized lower incomplete gamma function P(a, x) (`ops.igamma`), a and
    x broadcast. P has no closed-form derivative in a; it is taken from P itself in float64 by central
    differences with one Richardson step (error O(h^4), step h = 1e-3 max(1, a), at most a / 2), to about 1e-8
    relative: below float32's resolution."""

    def __init__(self):
        super().__init__("IgammaGradA")

    def __call__(self, a, x):
        check_input_dtypes(self.name, (mstype.float32, mstype.float64), a=a, x=x)
        a64, x64 = F.cast(a, mstype.float64), F.cast(x, mstype.float64)
        shape = np.broadcast_shapes(tuple(a.shape), tuple(x.shape))
        a64, x64 = F.broadcast_to(a64, shape), F.broadcast_to(x64, shape)
        h = F.minimum(F.maximum(F.abs(a64), 1.0) * 1e-3, F.abs(a64) * 0.5)

        def central(step):
            return (F.igamma(a64 + step, x64) - F.igamma(a64 - step, x64)) / (step * 2)

        d = (central(h * 0.5) * 4 - central(h)) / 3
        return F.cast(d, a.dtype)


class GeLUGrad(Primitive):
    """`GeLUGrad()(dy, x, y)`: dy times the derivative of GeLU's tanh form 0.5 x (1 + tanh(u)),
    u = sqrt(2/pi) (x + 0.044715 x^3) (the form MindSpore's GeLU primitive computes)."""

    def __init__(self):
        super().__init__("GeLUGrad")

    def __call__(self, dy, x, y):
        _floats(self.name, dy=dy, x=x, y=y)
        _same_shape(self.name, "dy", dy, "x", x)
        k = math.sqrt(2.0 / math.pi)
        t = F.tanh((x + x * x * x * 0.044715) * k)
        return dy * ((1 + t) * 0.5 + x * 0.5 * (1 - t * t) * k * (1 + x * x * (3 * 0.044715)))


class FastGeLUGrad(Primitive):
    """`FastGeLUGrad()(dy, x)`: dy times the derivative of x * sigmoid(1.702 x)."""

    def __init__(self):
        super().__init__("FastGeLUGrad")

    def __call__(self, dy, x):
        _floats(self.name, dy=dy, x=x)
        _same_shape(self.name, "dy", dy, "x", x)
        s = F.sigmoid(x * 1.702)
        return dy * (s + x * 1.702 * s * (1 - s))


class HShrinkGrad(Primitive):
    """`HShrinkGrad(lambd=0.5)(gradients, features)`: the gradient where |features| > lambd, else 0."""

    def __init__(self, lambd=0.5):
        super().__init__("HShrinkGrad")
        if isinstance(lambd, bool) or not isinstance(lambd, (int, float)):
            raise TypeError(f"For 'HShrinkGrad', 'lambd' must be a float, but got {type(lambd).__name__}.")
        self.lambd = float(lambd)
        self.add_prim_attr("lambd", self.lambd)

    def __call__(self, gradients, features):
        _floats(self.name, gradients=gradients, features=features)
        _same_shape(self.name, "gradients", gradients, "features", features)
        keep = F.cast(F.abs(features) > self.lambd, gradients.dtype)
        return gradients * keep


class _DoutXGrad(Primitive):
    """Gradient from the forward input x: `Op(grads, x)`, the derivative at x times grads (integers computed in
    float32 and cast back, as MindSpore's kernels accept them)."""

    def __init__(self):
        super().__init__(type(self).__name__)

    def __call__(self, grads, x):
        for name, t in (("grads", grads), ("x", x)):
            if not isinstance(t, Tensor):
                raise TypeError(f"For '{self.name}', '{name}' must be a Tensor, but got {type(t).__name__}.")
        if x.ndim != grads.ndim:
            raise ValueError(f"For '{self.name}', the rank of x({x.ndim}) and dout({grads.ndim}) not equal.")
        for i, (a, b) in enumerate(zip(x.shape, grads.shape)):
            if a != b:
                raise ValueError(f"The {i}th dim of x({a}) and dout({b}) not equal, primitive name: {self.name}.")
        if mstype.is_float(grads.dtype):
            return self._prim(grads, F.cast(x, grads.dtype))
        return F.cast(self._prim(F.cast(grads, mstype.float32), F.cast(x, mstype.float32)), grads.dtype)


class HSigmoidGrad(_DoutXGrad):
    """hsigmoid(x) = relu6(x + 3) / 6: dx = grads / 6 where -3 < x < 3, else 0."""

    _prim = staticmethod(_nn_prims.hsigmoid_grad_p)


def _hswish_grad(grads, x):
    # MindSpore's kernel: the slope (2x + 3) / 6 on the closed interval [-3, 3] (-0.5 at -3, 1.5 at 3)
    slope = F.select(x < -3, F.zeros_like(x), F.select(x > 3, F.ones_like(x), (x * 2 + 3) / 6))
    return grads * slope


class HSwishGrad(_DoutXGrad):
    """hswish(x) = x relu6(x + 3) / 6: dx = grads (2x + 3) / 6 where -3 <= x <= 3, 0 below, grads above."""

    _prim = staticmethod(_hswish_grad)


class TraceV2Grad(Primitive):
    """`TraceV2Grad()(dout, shape, offset=0, axis1=1, axis2=0)`: the gradient of the trace over (axis1, axis2) of
    an input of `shape` (a tuple or an integer Tensor): dout, shaped as the other dims, on the offset diagonal."""

    def __init__(self):
        super().__init__("TraceV2Grad")

    def __call__(self, dout, shape, offset=0, axis1=1, axis2=0):
        _floats(self.name, dout=dout)
        shape = _shape_arg(self.name, shape)
        ndim = len(shape)
        a1, a2 = _axis(self.name, axis1, ndim), _axis(self.name, axis2, ndim)
        if a1 == a2:
            raise ValueError(f"For '{self.name}', 'axis1' and 'axis2' must be different dims, but got {axis1} and "
                             f"{axis2}.")
        rest = [i for i in range(ndim) if i not in (a1, a2)]
        batch = tuple(shape[i] for i in rest)
        if tuple(dout.shape) != batch:
            raise ValueError(f"For '{self.name}', 'dout' must have the shape {batch} of the dims other than axis1 and "
                             f"axis2 of {shape}, but got {dout.shape}.")
        diagonal = F.cast(Tensor(np.eye(shape[a1], shape[a2], k=int(offset))), dout.dtype)
        grad = F.reshape(dout, batch + (1, 1)) * diagonal
        return F.transpose(grad, tuple(np.argsort(rest + [a1, a2]).tolist()))


def _h(t):
    """The conjugate transpose of the last two dims."""
    t = F.swapaxes(t, -1, -2)
    return F.conj(t) if mstype.is_complex(t.dtype) else t


class LstsqV2Grad(Primitive):
    """`LstsqV2Grad()(gX, A, B)`: (gA, gB), the gradients of X = pinv(A) @ B (the least-squares solution of
    A X = B, batched over leading dims) given gX: gB = pinv(A)^H gX, gA through the derivative of pinv."""

    def __init__(self):
        super().__init__("LstsqV2Grad")

    def __call__(self, gX, A, B):  # noqa: N803 -- MindSpore's argument names
        _floats(self.name, gX=gX, A=A, B=B)
        if A.ndim < 2 or B.ndim != A.ndim or tuple(gX.shape) != tuple(A.shape[:-2]) + (A.shape[-1], B.shape[-1]):
            raise ValueError(f"For '{self.name}', 'A' (..., m, n), 'B' (..., m, k) and 'gX' (..., n, k) must agree, "
                             f"but got {A.shape}, {B.shape} and {gX.shape}.")
        pinv = F.pinv(A)
        pinv_h, grad_h = _h(pinv), _h(gX @ _h(B))
        if A.shape[-2] <= A.shape[-1]:
            k = grad_h @ pinv
            k_pinv_h = k @ pinv_h
            g_a = -_h(pinv @ k) + k_pinv_h - (A @ pinv) @ k_pinv_h + (pinv_h @ pinv) @ (grad_h - k @ A)
        else:
            k = pinv @ grad_h
            pinv_h_k = pinv_h @ k
            g_a = -_h(k @ pinv) + (grad_h - A @ k) @ pinv @ pinv_h + pinv_h_k - pinv_h_k @ pinv @ A
        return g_a, pinv_h @ gX


def _sum_to(g, shape):
    """g summed over the axes broadcasting added or stretched, back to `shape`."""
    shape = tuple(shape)
    lead = g.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(shape) if n == 1 and g.shape[lead + i] != 1)
    if axes:
        g = F.sum(g, axes, keepdim=True)
    return F.reshape(g, shape)


class _SelectGrad(Primitive):
    def __init__(self, grad_x=True, grad_y=True):
        super().__init__(type(self).__name__)
        for name, v in (("grad_x", grad_x), ("grad_y", grad_y)):
            if not isinstance(v, bool):
                raise TypeError(f"For '{self.name}', '{name}' must be a bool, but got {type(v).__name__}.")
        self.grad_x, self.grad_y = grad_x, grad_y
        self.add_prim_attr("grad_x", grad_x)
        self.add_prim_attr("grad_y", grad_y)

    def _share(self, x1, x2, dt, **tensors):
        """x1's share of the gradient: 1 where x1 is picked, 0 where x2 is, 1/2 where they are equal (as the
        gradient of Maximum / Minimum)."""
        for name, v in dict(x1=x1, x2=x2, **tensors).items():
            if not isinstance(v, Tensor):
                raise TypeError(f"For '{self.name}', '{name}' must be a Tensor, but got {type(v).__name__}.")
        return F.cast(self._pick(x1, x2), dt) + F.cast(F.equal(x1, x2), dt) * 0.5

    def __call__(self, x1, x2, grads):
        pick = self._share(x1, x2, grads.dtype if isinstance(grads, Tensor) else None, grads=grads)
        dx1 = _sum_to(grads * pick, x1.shape) if self.grad_x else F.zeros_like(x1)
        dx2 = _sum_to(grads * (1 - pick), x2.shape) if self.grad_y else F.zeros_like(x2)
        return dx1, dx2


class _SelectGradGrad(_SelectGrad):
    """`(x1, x2, dx1, dx2)` -> (0, 0, the gradient of the first-order rule's outputs w.r.t. its `grads`): the
    first-order rule is linear in grads, so this is dx1 where x1 is picked, dx2 where x2 is (their mean on ties)."""

    def __call__(self, x1, x2, dx1, dx2):
        pick = self._share(x1, x2, dx1.dtype if isinstance(dx1, Tensor) else None, dx1=dx1, dx2=dx2)
        return F.zeros_like(x1), F.zeros_like(x2), dx1 * pick + dx2 * (1 - pick)


class MaximumGrad(_SelectGrad):
    """`MaximumGrad(grad_x=True, grad_y=True)(x1, x2, grads)` -> (dx1, dx2) of maximum(x1, x2)."""

    @staticmethod
    def _pick(x1, x2):
        return F.greater(x1, x2)


class MinimumGrad(_SelectGrad):
    """`MinimumGrad(grad_x=True, grad_y=True)(x1, x2, grads)` -> (dx1, dx2) of minimum(x1, x2)."""

    @staticmethod
    def _pick(x1, x2):
        return F.less(x1, x2)


class MaximumGradGrad(_SelectGradGrad):
    """`MaximumGradGrad(grad_x=True, grad_y=True)(x1, x2, dx1, dx2)` -> (0, 0, sopd_grads) of MaximumGrad."""
    _pick = staticmethod(MaximumGrad._pick)


class MinimumGradGrad(_SelectGradGrad):
    """`MinimumGradGrad(grad_x=True, grad_y=True)(x1, x2, dx1, dx2)` -> (0, 0, sopd_grads) of MinimumGrad."""
    _pick = staticmethod(MinimumGrad._pick)


class BiasAddGrad(Primitive):
    """`BiasAddGrad(data_format="NCHW")(dout)`: dout summed over every axis but the channel axis."""

    def __init__(self, data_format="NCHW"):
        super().__init__("BiasAddGrad")
        if data_format not in ("NCHW", "NHWC", "NCDHW"):
            raise ValueError(f"For 'BiasAddGrad', 'data_format' must be 'NCHW', 'NHWC' or 'NCDHW', but got "
                             f"{data_format!r}.")
        self.data_format = data_format
        self.add_prim_attr("data_format", data_format)

    def __call__(self, dout):
        if not isinstance(dout, Tensor) or dout.ndim < 2:
            raise ValueError(f"For 'BiasAddGrad', 'dout' must be a Tensor of rank >= 2, but got "
                             f"{getattr(dout, 'shape', type(dout).__name__)}.")
        channel = dout.ndim - 1 if self.data_format == "NHWC" else 1
        return F.sum(dout, tuple(a for a in range(dout.ndim) if a != channel))


class PReLUGrad(Primitive):
    """`PReLUGrad()(dy, x, weight)` -> (dx, dweight) of prelu(x, weight) (one weight per channel, axis 1, or one)."""

    def __init__(self):
        super().__init__("PReLUGrad")

    def __call__(self, dy, x, weight):
        _floats(self.name, dy=dy, x=x, weight=weight)
        _same_shape(self.name, "dy", dy, "x", x)
        c = x.shape[1] if x.ndim >= 2 else 1
        if weight.ndim != 1 or weight.size not in (1, c):
            raise ValueError(f"For 'PReLUGrad', 'weight' must be 1-D of size 1 or {c}, but got shape "
                             f"{weight.shape}.")
        per_channel = x.ndim >= 2 and weight.size != 1
        w = F.reshape(weight, (c,) + (1,) * (x.ndim - 2)) if per_channel else weight
        pos = F.cast(x > 0, x.dtype)
        dx = dy * (pos + (1 - pos) * w)
        contrib = dy * x * (1 - pos)
        if per_channel:
            dw = F.sum(contrib, tuple(a for a in range(x.ndim) if a != 1))
        else:
            dw = F.reshape(F.sum(contrib), (1,))
        return dx, dw


class NLLLossGrad(Primitive):
    """`NLLLossGrad(reduction="mean", ignore_index=-100)(logits, loss_grad, labels, weight, total_weight)` -> the
    gradient of NLLLoss w.r.t. its (log-probability) input, on the NLLLoss kernel's own gradient primitive."""

    def __init__(self, reduction="mean", ignore_index=-100):
        super().__init__("NLLLossGrad")
        if reduction not in ("none", "mean", "sum"):
            raise ValueError(f"For 'NLLLossGrad', 'reduction' must be 'none', 'mean' or 'sum', but got {reduction!r}.")
        if not isinstance(ignore_index, int) or isinstance(ignore_index, bool):
            raise TypeError(f"For 'NLLLossGrad', 'ignore_index' must be an int, but got {type(ignore_index).__name__}.")
        self.reduction, self.ignore_index = reduction, ignore_index
        self.add_prim_attr("reduction", reduction)
        self.add_prim_attr("ignore_index", ignore_index)

    def __call__(self, logits, loss_grad, labels, weight, total_weight):
        for name, v in (("logits", logits), ("loss_grad", loss_grad), ("labels", labels), ("weight", weight),
                        ("total_weight", total_weight)):
            if not isinstance(v, Tensor):
                raise TypeError(f"For 'NLLLossGrad', '{name}' must be a Tensor, but got {type(v).__name__}.")
        _floats(self.name, logits=logits, loss_grad=loss_grad)
        return _nll_loss_grad_p(loss_grad, logits, F.cast(labels, mstype.int64), F.cast(weight, logits.dtype),
                                F.reshape(F.cast(total_weight, logits.dtype), ()), reduction=self.reduction,
                                ignore_index=self.ignore_index)


from mindseed.ops.operations import _grad_ops_vjp  # noqa: E402 -- the vjp-built kernels, same namespace
from mindseed.ops.operations._grad_ops_vjp import *  # noqa: E402,F401,F403

__all__ += _grad_ops_vjp.__all__

from mindseed.ops.operations import _sparse_coo, _sparse_csr  # noqa: E402 -- the sparse primitives' gradient kernels

globals().update({_n: getattr(_m, _n) for _m in (_sparse_coo, _sparse_csr) for _n in _m.GRAD_CLASSES})
__all__ += _sparse_coo.GRAD_CLASSES + _sparse_csr.GRAD_CLASSES


class StridedSliceGrad(Primitive):
    """The gradient of `StridedSlice` with the same masks: `(dy, shapex, begin, end, strides)` gives zeros of shape
    `shapex` with `dy` at the elements the slice reads (code written for MindSpore also uses it to write a slice:
    mindnlp's `strided_slice_update`)."""

    def __init__(self, begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0, shrink_axis_mask=0):
        super().__init__("StridedSliceGrad")
        self.masks = (begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask)
        for name, value in zip(("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"),
                               self.masks):
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"For 'StridedSliceGrad', '{name}' must be an int, but got {type(value).__name__}.")
            self.add_prim_attr(name, value)

    def __call__(self, dy, shapex, begin, end, strides):
        if not isinstance(dy, Tensor):
            raise TypeError(f"For 'StridedSliceGrad', 'dy' must be a Tensor, but got {type(dy).__name__}.")
        shape = _shape_arg("StridedSliceGrad", shapex)
        index = _strided_slice_index("StridedSliceGrad", len(shape), begin, end, strides, *self.masks)
        # the flat positions the slice reads, in the slice's order (numpy follows the same index rules)
        positions = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)[index]
        if positions.size != dy.size:    # MindSpore's kernel reads dy flat: any shape of the slice's size
            raise ValueError(f"For 'StridedSliceGrad', 'dy' must have the shape {tuple(positions.shape)} of the slice "
                             f"of {tuple(shape)} (or as many elements), but got {tuple(dy.shape)}.")
        flat = F.scatter_nd(Tensor(positions.reshape(-1, 1)), F.reshape(dy, (-1,)), (int(np.prod(shape)),))
        return F.reshape(flat, shape)


from mindseed.ops.operations._grad_ops_nn import *  # noqa: E402,F401,F403
from mindseed.ops.operations import _grad_ops_nn  # noqa: E402

__all__ += _grad_ops_nn.__all__

from mindseed.ops.operations._grad_ops_math import *  # noqa: E402,F401,F403
from mindseed.ops.operations import _grad_ops_math  # noqa: E402

__all__ += _grad_ops_math.__all__

# more names MindSpore's module holds (its imports and classes), the same objects as in ops.operations
from mindseed.ops.operations._base import PrimitiveWithInfer  # noqa: E402,F401
