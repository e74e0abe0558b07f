"""Activation cells: thin Cells over the functional activations, with MindSpore's arguments and defaults."""
import numpy as np

from mindseed._utils.errors import host_alloc
from mindseed.common import dtype as mstype
from mindseed.common.parameter import Parameter
from mindseed.common.tensor import Tensor
from mindseed.nn.cell import Cell
from mindseed.nn.layer._utils import layer_primitive
from mindseed.ops import functional as F
from mindseed.ops import operations as P

__all__ = ["Softmin", "Softmax", "Softmax2d", "LogSoftmax", "LogSoftmaxExt", "ReLU", "ReLU6", "RReLU", "SeLU",
           "SiLU", "Tanh", "Tanhshrink", "Hardtanh", "GELU", "FastGelu", "Sigmoid", "Softsign", "PReLU", "PReLUExt",
           "get_activation", "LeakyReLU", "HSigmoid", "HSwish", "ELU", "LogSigmoid", "LRN", "SoftShrink", "HShrink",
           "CELU", "Threshold", "Mish", "GLU", "Softplus"]


def _check_number(cls, name, value, types=(int, float)):
    if isinstance(value, bool) or not isinstance(value, types):
        names = " or ".join(t.__name__ for t in types)
        raise TypeError(f"For '{cls}', the '{name}' must be {names}, but got {type(value).__name__}.")
    return value


class CELU(Cell):
    """CELU: max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).

    Args:
        alpha (float): the CELU alpha. Default: ``1.0``.
    """

    def __init__(self, alpha=1.0):
        super().__init__()
        _check_number("CELU", "alpha", alpha)
        if alpha == 0:
            raise ValueError("For 'CELU', the 'alpha' can not be 0.")
        self.alpha = alpha

    def construct(self, x):
        return F.celu(x, self.alpha)


class Softmin(Cell):
    """softmax(-x) along `axis`."""

    def __init__(self, axis=-1):
        super().__init__()
        self.axis = axis

    def construct(self, x):
        return F.softmin(x, self.axis)


class Softmax2d(Cell):
    """Softmax over the channel axis of a (C, H, W) or (N, C, H, W) input."""

    def construct(self, x):
        if x.ndim not in (3, 4):
            raise ValueError(f"For 'Softmax2d', the in_shape must have 3 or 4 dims, but got {x.ndim}.")
        return F.softmax(x, -3)


class Softmax(Cell):
    """exp(x) / sum(exp(x)) along `axis`.

    Args:
        axis (Union[int, tuple[int]]): the axis. Default: ``-1``.

    >>> import mindseed as ms
    >>> ms.nn.Softmax()(ms.Tensor([1.0, 1.0])).asnumpy()
    array([0.5, 0.5], dtype=float32)
    """

    def __init__(self, axis=-1):
        super().__init__()
        if not isinstance(axis, (int, tuple)) or isinstance(axis, bool):
            raise TypeError(f"For 'Softmax', the 'axis' must be int or tuple, but got {type(axis).__name__}.")
        self.axis = axis
        self.softmax = P.Softmax(axis)

    def construct(self, input):
        return F.softmax(input, self.axis)


class LogSoftmax(Cell):
    """log(softmax(x)) along `axis` (default -1)."""

    def __init__(self, axis=-1):
        super().__init__()
        self.axis = axis

    def construct(self, x):
        return F.log_softmax(x, self.axis)


def _legacy_softmax_dim(ndim):
    return 0 if ndim in (0, 1, 3) else 1


class LogSoftmaxExt(Cell):
    """log(softmax(x)) along `dim`; `dim=None` picks the legacy default (0 for 0/1/3-D inputs, else 1)."""

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def construct(self, x):
        dim = _legacy_softmax_dim(x.ndim) if self.dim is None else self.dim
        return F.log_softmax(x, dim)


class ELU(Cell):
    """ELU: x if x > 0 else alpha * (exp(x) - 1)."""

    def __init__(self, alpha=1.0):
        super().__init__()
        _check_number("ELU", "alpha", alpha)
        self.alpha = alpha

    def construct(self, x):
        return F.elu(x, self.alpha)


class ReLU(Cell):
    """max(x, 0).

    >>> import mindseed as ms
    >>> ms.nn.ReLU()(ms.Tensor([-1.0, 2.0])).asnumpy()
    array([0., 2.], dtype=float32)
    """

    relu = layer_primitive(lambda self: P.ReLU())    # MindSpore's layer holds its primitive by this name

    def construct(self, input):
        return F.relu(input)


class ReLU6(Cell):
    """min(max(x, 0), 6)."""

    def construct(self, x):
        return F.relu6(x)


class LeakyReLU(Cell):
    """x if x >= 0 else alpha * x (default alpha 0.2)."""

    def __init__(self, alpha=0.2):
        super().__init__()
        _check_number("LeakyReLU", "alpha", alpha)
        self.alpha = alpha

    def construct(self, x):
        return F.leaky_relu(x, self.alpha)


class RReLU(Cell):
    """Randomized leaky ReLU: negative inputs scaled by a slope drawn from U(lower, upper) per element."""

    def __init__(self, lower=1 / 8, upper=1 / 3):
        super().__init__()
        _check_number("RReLU", "upper", upper)
        _check_number("RReLU", "lower", lower)
        if lower > upper:
            raise ValueError(f"For RReLU, the value of 'upper' must be greater than or equal to 'lower', but got "
                             f"upper: {upper}, lower: {lower}. ")
        self.lower = lower
        self.upper = upper

    def construct(self, x):
        if not isinstance(x, Tensor):
            raise TypeError(f"For 'rrelu', the input must be a Tensor, but got {type(x)}.")
        return F.rrelu(x, self.lower, self.upper)


class SeLU(Cell):
    """scale * ELU(x, alpha) with the self-normalizing constants."""

    def construct(self, input_x):
        return F.selu(input_x)


class SiLU(Cell):
    """x * sigmoid(x)."""

    def construct(self, x):
        return F.silu(x)


class Tanh(Cell):
    """Hyperbolic tangent."""

    def construct(self, x):
        return F.tanh(x)


class Tanhshrink(Cell):
    """x - tanh(x)."""

    def construct(self, x):
        return F.tanhshrink(x)


class Hardtanh(Cell):
    """x clipped to [min_val, max_val]."""

    def __init__(self, min_val=-1.0, max_val=1.0):
        super().__init__()
        for name, v in (("min_val", min_val), ("max_val", max_val)):
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise TypeError(f"For 'Hardtanh', the '{name}' must be a float, but got {type(v).__name__}.")
        if min_val >= max_val:
            raise ValueError(f"For Hardtanh, min_val should be less than max_val,but got {min_val} and {max_val}")
        self.min_val = min_val
        self.max_val = max_val

    def construct(self, x):
        return F.hardtanh(x, self.min_val, self.max_val)


class GELU(Cell):
    """Gaussian error linear unit; the tanh approximation unless `approximate=False`."""

    def __init__(self, approximate=True):
        super().__init__()
        if not isinstance(approximate, bool):
            raise TypeError(f"For 'GELU', the 'approximate' must be bool, but got {type(approximate).__name__}.")
        self.approximate = "tanh" if approximate else "none"

    def construct(self, x):
        return F.gelu(x, approximate=self.approximate)


class FastGelu(Cell):
    """x / (1 + exp(-1.702 |x|)) * exp(0.851 (x - |x|))."""

    def construct(self, x):
        return F.fast_gelu(x)


class Sigmoid(Cell):
    """1 / (1 + exp(-x))."""

    def construct(self, x):
        return F.sigmoid(x)


class Softsign(Cell):
    """x / (1 + |x|)."""

    def construct(self, x):
        return F.softsign(x)


class Softplus(Cell):
    """log(1 + exp(beta * x)) / beta, linear above `threshold`."""

    def __init__(self, beta=1, threshold=20):
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def construct(self, input):
        return F.softplus(input, self.beta, self.threshold)


class PReLU(Cell):
    """x if x >= 0 else w * x, with a learnable slope per channel (the Parameter `w`, named 'a').

    Args:
        channel (int): number of slopes: 1 or the channel count of the input. Default: ``1``.
        w (Union[float, list, Tensor]): the initial slope(s). Default: ``0.25``.
    """

    def __init__(self, channel=1, w=0.25):
        super().__init__()
        if isinstance(channel, bool) or not isinstance(channel, int) or channel <= 0:
            raise ValueError(f"For 'PReLU', the 'channel' must be a positive int, but got {channel}.")
        if isinstance(w, (float, np.float32)):
            w = Tensor(host_alloc("PReLU", lambda: np.full((channel,), w, dtype=np.float32)), mstype.float32)
        elif isinstance(w, list):
            if len(w) != channel:
                raise ValueError(f"For 'PReLU', the length of 'w' must be equal to the 'channel' when the 'w' is a "
                                 f"list, but got the length of 'w': {len(w)}, the 'channel': {channel}.")
            for i in w:
                if not isinstance(i, (float, np.float32)):
                    raise ValueError(f"For 'PReLU', all elements in 'w' must be float when the 'w' is a list, but got "
                                     f"{i}.")
            w = Tensor(w, mstype.float32)
        elif isinstance(w, Tensor):
            if w.dtype not in (mstype.float16, mstype.float32):
                raise ValueError(f"For 'PReLU', the dtype of 'w' must be float16 or float32 when the 'w' is a tensor, "
                                 f"but got {w.dtype}.")
            if w.ndim != 1 or w.shape[0] != channel:
                raise ValueError(f"For 'PReLU', the dimension of 'w' must be 1, and the elements number should be "
                                 f"equal to the 'channel' when the 'w' is a tensor, but got 'w' shape {w.shape}, the "
                                 f"'channel' {channel}.")
        else:
            raise TypeError(f"For 'PReLU', the 'w' only supported float, list and tensor, but got "
                            f"{type(w).__name__}.")
        self.w = Parameter(w, name="a")

    def construct(self, x):
        w = self.w if self.w.dtype == x.dtype else F.cast(self.w, x.dtype)
        return F.prelu(x, w)


class PReLUExt(Cell):
    """PReLU with PyTorch-style arguments: `num_parameters` slopes initialised to `init` (Parameter `weight`)."""

    def __init__(self, num_parameters=1, init=0.25, dtype=None):
        super().__init__()
        if isinstance(num_parameters, bool) or not isinstance(num_parameters, int) or num_parameters <= 0:
            raise ValueError(f"For 'PReLUExt', the 'num_parameters' must be a positive int, but got "
                             f"{num_parameters!r}.")
        if isinstance(init, bool) or not isinstance(init, (int, float)):
            raise TypeError(f"For 'PReLUExt', the 'init' must be a float, but got {type(init).__name__}.")
        self.weight = Parameter(Tensor(host_alloc("PReLUExt", np.full, (num_parameters,), init, np.float32),
                                       dtype or mstype.float32), name="weight")

    def construct(self, input):
        return F.prelu(input, self.weight)


class HSwish(Cell):
    """x * relu6(x + 3) / 6."""

    def construct(self, input):
        return F.hardswish(input)


class HSigmoid(Cell):
    """relu6(x + 3) / 6."""

    def construct(self, input):
        return F.hardsigmoid(input)


class LogSigmoid(Cell):
    """log(sigmoid(x))."""

    def construct(self, input_x):
        return F.logsigmoid(input_x)


class LRN(Cell):
    """Local response normalization across channels."""

    def __init__(self, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5, norm_region="ACROSS_CHANNELS"):
        super().__init__()
        if norm_region != "ACROSS_CHANNELS":
            raise ValueError(f"For 'LRN', the 'norm_region' must be 'ACROSS_CHANNELS', but got {norm_region}.")
        self.depth_radius, self.bias, self.alpha, self.beta = depth_radius, bias, alpha, beta
        self.norm_region = norm_region

    def construct(self, input_x):
        return F.lrn(input_x, self.depth_radius, self.bias, self.alpha, self.beta, self.norm_region)


class SoftShrink(Cell):
    """x - lambd if x > lambd, x + lambd if x < -lambd, else 0."""

    def __init__(self, lambd=0.5):
        super().__init__()
        _check_number("SoftShrink", "lambd", lambd)
        self.lambd = lambd

    def construct(self, input):
        return F.softshrink(input, self.lambd)


class HShrink(Cell):
    """x if |x| > lambd else 0."""

    def __init__(self, lambd=0.5):
        super().__init__()
        _check_number("HShrink", "lambd", lambd)
        self.lambd = lambd

    def construct(self, input):
        return F.hardshrink(input, self.lambd)


class Threshold(Cell):
    """x if x > threshold else value."""

    def __init__(self, threshold, value):
        super().__init__()
        _check_number("Threshold", "threshold", threshold)
        _check_number("Threshold", "value", value)
        self.threshold = threshold
        self.value = value

    def construct(self, input_x):
        return F.threshold(input_x, self.threshold, self.value)


class Mish(Cell):
    """x * tanh(softplus(x))."""

    def construct(self, input_x):
        return F.mish(input_x)


class GLU(Cell):
    """Gated linear unit: a * sigmoid(b) with (a, b) the two halves of the input along `axis`."""

    def __init__(self, axis=-1):
        super().__init__()
        self.dim = axis

    def construct(self, x):
        return F.glu(x, self.dim)


_activation = {
    "softmin": Softmin, "softmax": Softmax, "softmax2d": Softmax2d, "logsoftmax": LogSoftmax,
    "logsoftmaxExt": LogSoftmaxExt, "relu": ReLU, "relu6": ReLU6, "rrelu": RReLU, "silu": SiLU, "tanh": Tanh,
    "tanhshrink": Tanhshrink, "hardtanh": Hardtanh, "gelu": GELU, "fast_gelu": FastGelu, "elu": ELU,
    "sigmoid": Sigmoid, "softsign": Softsign, "prelu": PReLU, "preluExt": PReLUExt, "leakyrelu": LeakyReLU,
    "hswish": HSwish, "hsigmoid": HSigmoid, "logsigmoid": LogSigmoid, "softshrink": SoftShrink, "hshrink": HShrink,
    "threshold": Threshold, "mish": Mish,
}


def get_activation(name, prim_name=None):
    """A new activation Cell by its MindSpore name ('relu', 'gelu', ...); None gives None.

    Raises:
        KeyError: an unknown name.

    >>> import mindseed as ms
    >>> ms.nn.get_activation('relu')
    ReLU()
    """
    msg_prefix = f"For '{prim_name}', the" if prim_name else "The"
    if name is None:
        return None
    if not isinstance(name, str):
        raise TypeError(f"{msg_prefix} 'name' must be a str, but got {type(name).__name__}.")
    if name not in _activation:
        raise KeyError(f"{msg_prefix} 'name' must be in {list(_activation.keys())}, but got {name}.")
    return _activation[name]()
