"""The backward kernels of MindSpore's elementwise math and activation ops and of a few losses, slices and pads
(`_grad_ops.AsinGrad`, `EluGrad`, `DropoutGrad`, `KLDivLossGrad`, `SliceGrad`, ...) that code calls directly. Each
is the closed-form derivative of its forward op times the incoming gradient, written with mindseed ops (so it is
differentiable in turn); LRN and PadV3 take the vector-Jacobian product of their forward op. For complex inputs the
derivative is conjugated, as MindSpore's kernels do."""
from mindseed import _checkparam as validator
from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.ops import functional as F
from mindseed.ops.operations._base import Primitive
from mindseed.ops.operations._grad_ops_nn import _vjp

__all__ = ["ACosGrad", "AsinGrad", "AtanGrad", "AcoshGrad", "AsinhGrad", "InvGrad", "EluGrad", "ReLU6Grad",
           "SoftplusGrad", "SoftShrinkGrad", "SigmoidCrossEntropyWithLogitsGrad", "DropoutGrad", "KLDivLossGrad",
           "L2NormalizeGrad", "LRNGrad", "SliceGrad", "PadV3Grad"]


def _check(op, allowed, **named):
    """Every argument a Tensor of one dtype family `allowed` ("float": float or complex; "number": any but bool)."""
    for name, x in named.items():
        if not isinstance(x, Tensor):
            raise TypeError(f"For '{op}', '{name}' must be a Tensor, but got {type(x).__name__}.")
        dt = x.dtype
        ok = mstype.is_float(dt) or mstype.is_complex(dt) or (allowed == "number" and mstype.is_integral(dt))
        if not ok or dt == mstype.bool_:
            kinds = "float or complex" if allowed == "float" else "numeric"
            raise TypeError(f"For '{op}', '{name}' must be a {kinds} Tensor, but got {dt}.")


def _same_shape(op, a_name, a, b_name, b):
    if tuple(a.shape) != tuple(b.shape):
        raise ValueError(f"For '{op}', '{a_name}' and '{b_name}' must have the same shape, but got {a.shape} and "
                         f"{b.shape}.")


def _conj(t):
    return F.conj(t) if mstype.is_complex(t.dtype) else t


class _PairGrad(Primitive):
    """`Op()(x, dout)`: `dout` times the derivative `_rule` reads from `x` (the forward input or output)."""
    _allowed = "float"
    _names = ("x", "dout")

    def __init__(self):
        super().__init__(type(self).__name__)

    def __call__(self, x, dout):
        a, b = self._names
        _check(self.name, self._allowed, **{a: x, b: dout})
        _same_shape(self.name, a, x, b, dout)
        return self._rule(x, dout)


class ACosGrad(_PairGrad):
    """y = acos(x): dx = -dout / sqrt(1 - x^2)."""

    @staticmethod
    def _rule(x, dout):
        return -dout / _conj(F.sqrt(1 - x * x))


class AsinGrad(_PairGrad):
    """y = asin(x): dx = dout / sqrt(1 - x^2)."""

    @staticmethod
    def _rule(x, dout):
        return dout / _conj(F.sqrt(1 - x * x))


class AtanGrad(_PairGrad):
    """y = atan(x): dx = dout / (1 + x^2)."""

    @staticmethod
    def _rule(x, dout):
        return dout / _conj(1 + x * x)


class AcoshGrad(_PairGrad):
    """From the output y = acosh(x): dx = dout / sinh(y)."""
    _names = ("out", "dout")

    @staticmethod
    def _rule(out, dout):
        return dout / _conj(F.sinh(out))


class AsinhGrad(_PairGrad):
    """From the output y = asinh(x): dx = dout / cosh(y)."""
    _names = ("out", "dout")

    @staticmethod
    def _rule(out, dout):
        return dout / _conj(F.cosh(out))


class InvGrad(_PairGrad):
    """From the output y = 1 / x: dx = -grad * y^2 (integer tensors too)."""
    _allowed = "number"
    _names = ("x", "grad")

    @staticmethod
    def _rule(y, grad):
        return -grad * _conj(y * y)


class EluGrad(_PairGrad):
    """From the output y = elu(x) (alpha 1): dx = dout where y > 0, else dout * (y + 1)."""
    _names = ("dout", "out")

    def __call__(self, dout, out):
        return super().__call__(dout, out)

    @staticmethod
    def _rule(dout, out):
        return F.select(out > 0, dout, dout * (out + 1))


class ReLU6Grad(_PairGrad):
    """`ReLU6Grad()(y_backprop, x)`: the gradient where 0 < x <= 6, else 0."""
    _names = ("y_backprop", "x")

    @staticmethod
    def _rule(dy, x):
        return F.select(F.logical_and(x > 0, x <= 6), dy, F.zeros_like(dy))


class SoftplusGrad(_PairGrad):
    """`SoftplusGrad()(gradients, features)`: gradients * sigmoid(features)."""
    _names = ("gradients", "features")

    @staticmethod
    def _rule(grad, x):
        return grad * F.sigmoid(x)


class SoftShrinkGrad(_PairGrad):
    """`SoftShrinkGrad(lambd=0.5)(input_grad, input_x)`: the gradient where |x| > lambd, else 0."""
    _names = ("input_grad", "input_x")

    def __init__(self, lambd=0.5):
        super().__init__()
        validator.check_value_type("lambd", lambd, [float], self.name)
        self.lambd = validator.check_number("lambd", lambd, 0, validator.GE, self.name)
        self.add_prim_attr("lambd", lambd)

    def _rule(self, grad, x):
        return F.select(F.abs(x) > self.lambd, grad, F.zeros_like(grad))


class SigmoidCrossEntropyWithLogitsGrad(Primitive):
    """`SigmoidCrossEntropyWithLogitsGrad()(x, y, dout)`: (sigmoid(x) - y) * dout."""

    def __init__(self):
        super().__init__("SigmoidCrossEntropyWithLogitsGrad")

    def __call__(self, x, y, dout):
        _check(self.name, "float", x=x, y=y, dout=dout)
        _same_shape(self.name, "x", x, "y", y)
        return (F.sigmoid(x) - y) * dout


class DropoutGrad(Primitive):
    """`DropoutGrad(keep_prob=0.5)(dy, mask)`: dy * mask / keep_prob, the gradient of a dropout that kept `mask`."""

    def __init__(self, keep_prob=0.5):
        super().__init__("DropoutGrad")
        self.keep_prob = validator.check_float_range(keep_prob, 0, 1, validator.INC_RIGHT, "keep_prob", self.name)
        self.add_prim_attr("keep_prob", self.keep_prob)

    def __call__(self, dy, mask):
        _check(self.name, "float", dy=dy)
        if not isinstance(mask, Tensor):
            raise TypeError(f"For '{self.name}', 'mask' must be a Tensor, but got {type(mask).__name__}.")
        _same_shape(self.name, "dy", dy, "mask", mask)
        return dy * F.cast(mask, dy.dtype) * (1.0 / self.keep_prob)


class KLDivLossGrad(Primitive):
    """`KLDivLossGrad(reduction='mean')(dy, x, target)`: the gradient of KLDivLoss for its logits `x`: -target * dy,
    divided by the element count ('mean') or the batch size ('batchmean')."""

    def __init__(self, reduction="mean"):
        super().__init__("KLDivLossGrad")
        self.reduction = validator.check_string(reduction, ["none", "mean", "batchmean", "sum"], "reduction",
                                                self.name)
        self.add_prim_attr("reduction", self.reduction)

    def __call__(self, dy, x, target):
        _check(self.name, "float", dy=dy, x=x, target=target)
        _same_shape(self.name, "x", x, "target", target)
        dx = -target * dy
        if self.reduction == "mean" and x.size:
            dx = dx / x.size
        elif self.reduction == "batchmean" and x.shape:
            dx = dx / x.shape[0]
        return F.broadcast_to(dx, x.shape) if tuple(dx.shape) != tuple(x.shape) else dx


class L2NormalizeGrad(Primitive):
    """`L2NormalizeGrad(axis=0, epsilon=1e-4)(x, out, dout)`: (dout - out * sum(out * dout)) / ||x|| along `axis`,
    the norm floored at sqrt(epsilon) as the forward op does."""

    def __init__(self, axis=0, epsilon=1e-4):
        super().__init__("L2NormalizeGrad")
        axis = (axis,) if isinstance(axis, int) and not isinstance(axis, bool) else axis
        validator.check_value_type("axis", axis, [list, tuple], self.name)
        if len(axis) != 1:
            raise TypeError(f"For '{self.name}', the length of 'axis' must be 1, but got {len(axis)}.")
        validator.check_value_type("epsilon", epsilon, [int, float], self.name)
        self.axis, self.epsilon = axis[0], epsilon
        self.add_prim_attr("axis", tuple(axis))
        self.add_prim_attr("epsilon", epsilon)

    def __call__(self, x, out, dout):
        _check(self.name, "float", x=x, out=out, dout=dout)
        _same_shape(self.name, "x", x, "dout", dout)
        norm = F.sqrt(F.maximum(F.sum(x * x, self.axis, keepdim=True), F.fill(x.dtype, (), self.epsilon)))
        return (dout - out * F.sum(out * dout, self.axis, keepdim=True)) / norm


class LRNGrad(Primitive):
    """`LRNGrad(depth_radius=5, bias=1.0, alpha=1.0, beta=0.5)(grads, x, y)`: the gradient of LRN (same attributes)
    at its input `x`; `y`, the forward output, is not needed."""

    def __init__(self, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5):
        super().__init__("LRNGrad")
        validator.check_value_type("depth_radius", depth_radius, [int], self.name)
        for name, v in (("bias", bias), ("alpha", alpha), ("beta", beta)):
            validator.check_value_type(name, v, [float], self.name)
        self.depth_radius, self.bias, self.alpha, self.beta = depth_radius, bias, alpha, beta
        for name in ("depth_radius", "bias", "alpha", "beta"):
            self.add_prim_attr(name, getattr(self, name))

    def __call__(self, grads, x, y):
        _check(self.name, "float", grads=grads, x=x, y=y)
        _same_shape(self.name, "grads", grads, "x", x)
        return _vjp(lambda t: F.lrn(t, self.depth_radius, self.bias, self.alpha, self.beta), x, grads)


class SliceGrad(Primitive):
    """`SliceGrad()(dy, x, begin, size)`: zeros of `x`'s shape with `dy` at the slice `begin`/`size` (-1: to the
    end) that Slice took."""

    def __init__(self):
        super().__init__("SliceGrad")

    def __call__(self, dy, x, begin, size):
        _check(self.name, "number", dy=dy, x=x)
        begin, size = tuple(int(b) for b in begin), tuple(int(s) for s in size)
        if not len(begin) == len(size) == len(x.shape) == len(dy.shape):
            raise ValueError(f"For '{self.name}', 'begin' and 'size' must have one entry per dim of 'x' "
                             f"({len(x.shape)}), but got {len(begin)} and {len(size)}.")
        size = tuple(x.shape[i] - b if s == -1 else s for i, (b, s) in enumerate(zip(begin, size)))
        for i, (d, s, n, b) in enumerate(zip(dy.shape, size, x.shape, begin)):
            if d != s or b < 0 or b + s > n:
                raise ValueError(f"For '{self.name}', dy_shape[{i}] {d} must equal size_shape[{i}] {s}, and the "
                                 f"slice [{b}, {b + s}) must lie within x_shape[{i}] {n}.")
        pads = []
        for b, s, n in zip(reversed(begin), reversed(size), reversed(x.shape)):
            pads += [b, n - b - s]
        return F.pad(F.cast(dy, x.dtype), tuple(pads))


class PadV3Grad(Primitive):
    """`PadV3Grad(mode='reflect', paddings_contiguous=True)(x, paddings)`: the gradient of PadV3 with these
    attributes, for the gradient `x` of its padded output: what each input element contributed, summed."""

    def __init__(self, mode="reflect", paddings_contiguous=True):
        super().__init__("PadV3Grad")
        self.mode = validator.check_string(mode, ["reflect", "edge", "circular"], "mode", self.name)
        self.paddings_contiguous = validator.check_value_type("paddings_contiguous", paddings_contiguous, [bool],
                                                              self.name)
        self.add_prim_attr("mode", mode)
        self.add_prim_attr("paddings_contiguous", paddings_contiguous)

    def __call__(self, x, paddings):
        _check(self.name, "number", x=x)
        pads = tuple(int(p) for p in (paddings.asnumpy().reshape(-1) if isinstance(paddings, Tensor) else paddings))
        if not self.paddings_contiguous:
            half = len(pads) // 2
            pads = tuple(v for pair in zip(pads[:half], pads[half:]) for v in pair)
        if len(pads) % 2 or len(pads) // 2 > len(x.shape):
            raise ValueError(f"For '{self.name}', 'paddings' must hold two values per padded dim of 'x' (at most "
                             f"{len(x.shape)}), but got {len(pads)} values.")
        shape = list(x.shape)
        for k in range(len(pads) // 2):
            shape[-1 - k] -= pads[2 * k] + pads[2 * k + 1]
        if any(d <= 0 for d in shape):
            raise ValueError(f"For '{self.name}', the paddings {pads} are larger than the gradient's shape "
                             f"{tuple(x.shape)}.")
        mode = "replicate" if self.mode == "edge" else self.mode
        return _vjp(lambda t: F.pad(t, pads, mode), F.zeros(tuple(shape), x.dtype), x)
