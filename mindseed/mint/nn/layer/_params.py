"""mint.nn layers that hold parameters: convolutions, normalisations, Embedding, PReLU (torch-style arguments and
initialisation), and the zero paddings MindSpore's nn lacks."""
import math

from mindseed import nn as _nn
from mindseed import ops as _ops
from mindseed.common import dtype as mstype
from mindseed.common._parallel import GlobalComm, _get_group
from mindseed.common.initializer import HeUniform, Normal, Uniform, initializer
from mindseed.common.parameter import Parameter
from mindseed.common.tensor import Tensor
from mindseed.mint._impl import batch_norm_elemt, check_tensor
from mindseed.mint.nn import functional as F
from mindseed.nn.cell import Cell

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose2d", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d",
           "SyncBatchNorm", "GroupNorm", "LayerNorm", "Embedding", "PReLU", "ZeroPad1d", "ZeroPad3d"]

_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


def _tuple(op, name, value, n):
    if isinstance(value, int) and not isinstance(value, bool):
        return (value,) * n
    if isinstance(value, (tuple, list)) and len(value) == n and all(isinstance(v, int) for v in value):
        return tuple(value)
    raise ValueError(f"For '{op}', the '{name}' must be an int or {n} ints, but got {value!r}.")


def _dtype(dtype):
    return mstype.float32 if dtype is None else dtype


def _check_positive(op, **values):
    for name, v in values.items():
        if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
            raise ValueError(f"For '{op}', the '{name}' must be a positive int, but got {v!r}.")


class _ConvNd(Cell):
    """weight (out, in / groups, *k) [transposed: (in, out / groups, *k)] and bias, initialised as torch does:
    uniform in +-1/sqrt(fan_in) (He uniform with a = sqrt(5) for the weight). A subclass names its rank `_ND` and
    its function `_FN` (a mint.nn.functional convolution)."""

    _ND = 2
    _FN = None
    _TRANSPOSED = False

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", dtype=None):
        super().__init__()
        op = type(self).__name__
        _check_positive(op, in_channels=in_channels, out_channels=out_channels, groups=groups)
        if in_channels % groups or out_channels % groups:
            raise ValueError(f"For '{op}', 'in_channels' {in_channels} and 'out_channels' {out_channels} must both "
                             f"be divisible by 'groups' {groups}.")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"For '{op}', the 'padding_mode' must be one of {_PADDING_MODES}, but got "
                             f"{padding_mode!r}.")
        if isinstance(padding, str):
            if padding not in ("same", "valid") or self._TRANSPOSED:
                raise ValueError(f"For '{op}', the 'padding' must be an int, a tuple or 'same'/'valid', but got "
                                 f"{padding!r}.")
            if padding_mode != "zeros":
                raise ValueError(f"For '{op}', a string 'padding' needs padding_mode 'zeros', but got "
                                 f"{padding_mode!r}.")
        else:
            padding = _tuple(op, "padding", padding, self._ND)
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.kernel_size = _tuple(op, "kernel_size", kernel_size, self._ND)
        self.stride = _tuple(op, "stride", stride, self._ND)
        self.dilation = _tuple(op, "dilation", dilation, self._ND)
        self.padding, self.padding_mode = padding, padding_mode
        shape = ((in_channels, out_channels // groups) if self._TRANSPOSED else
                 (out_channels, in_channels // groups)) + self.kernel_size
        dtype = _dtype(dtype)
        self.weight = Parameter(initializer(HeUniform(math.sqrt(5)), shape, dtype), name="weight")
        if bias:
            fan_in = shape[1] * math.prod(self.kernel_size)
            self.bias = Parameter(initializer(Uniform(1 / math.sqrt(fan_in)), (out_channels,), dtype), name="bias")
        else:
            self.bias = None

    def construct(self, input):
        padding = self.padding
        if self.padding_mode != "zeros":   # padded here by the mode; the convolution pads nothing
            input = F.pad(input, tuple(p for d in reversed(self.padding) for p in (d, d)), self.padding_mode)
            padding = 0
        return type(self)._FN(input, self.weight, self.bias, self.stride, padding, self.dilation, self.groups)


class Conv1d(_ConvNd):
    """1-D convolution over (N, C_in, L) (or (C_in, L)): torch's arguments and initialisation.

    >>> import mindseed as ms
    >>> ms.mint.nn.Conv1d(2, 3, 3, padding=1)(ms.ops.ones((1, 2, 5))).shape
    (1, 3, 5)
    """

    _ND = 1
    _FN = F.conv1d


class Conv2d(_ConvNd):
    """2-D convolution over (N, C_in, H, W): torch's arguments (`padding` an int, a pair, 'same' or 'valid';
    `padding_mode` 'zeros', 'reflect', 'replicate' or 'circular') and initialisation.

    >>> import mindseed as ms
    >>> ms.mint.nn.Conv2d(3, 4, 3, padding=1)(ms.ops.ones((1, 3, 8, 8))).shape
    (1, 4, 8, 8)
    """

    _FN = F.conv2d


class Conv3d(_ConvNd):
    """3-D convolution over (N, C_in, D, H, W): torch's arguments and initialisation."""

    _ND = 3
    _FN = F.conv3d


class ConvTranspose2d(_ConvNd):
    """2-D transposed convolution (the gradient of Conv2d with respect to its input), torch's arguments."""

    _TRANSPOSED = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", dtype=None):
        if padding_mode != "zeros":
            raise ValueError(f"For 'ConvTranspose2d', only padding_mode 'zeros' is supported, but got "
                             f"{padding_mode!r}.")
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                         padding_mode, dtype)
        self.output_padding = _tuple("ConvTranspose2d", "output_padding", output_padding, 2)

    def construct(self, input, output_size=None):
        return F.conv_transpose2d(input, self.weight, self.bias, self.stride, self.padding,
                                  self._output_padding(input, output_size), self.groups, self.dilation)

    def _output_padding(self, input, output_size):
        """`output_padding`, or the one that gives the spatial `output_size` ((H, W), or the whole shape)."""
        if output_size is None:
            return self.output_padding
        if len(output_size) not in (2, input.ndim):
            raise ValueError(f"For 'ConvTranspose2d', for {input.ndim}D input, 'output_size' must have 2 or "
                             f"{input.ndim} elements, but got {len(output_size)}.")
        output_size = tuple(output_size)[-2:]
        min_sizes = [(input.shape[d - 2] - 1) * self.stride[d] - 2 * self.padding[d]
                     + self.dilation[d] * (self.kernel_size[d] - 1) + 1 for d in range(2)]
        max_sizes = [m + s - 1 for m, s in zip(min_sizes, self.stride)]
        if any(not lo <= n <= hi for n, lo, hi in zip(output_size, min_sizes, max_sizes)):
            raise ValueError(f"For 'ConvTranspose2d', requested an output size of {output_size}, but valid sizes "
                             f"range from {min_sizes} to {max_sizes} (for an input of {input.shape}).")
        return tuple(n - m for n, m in zip(output_size, min_sizes))


# ---------------------------------------------------------------- normalisation
class _BatchNorm(Cell):
    _RANKS = (4,)

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, dtype=None):
        super().__init__()
        op = type(self).__name__
        _check_positive(op, num_features=num_features)
        if isinstance(momentum, bool) or not isinstance(momentum, (int, float)) or not 0 <= momentum <= 1:
            raise ValueError(f"For '{op}', the 'momentum' must be a number in [0, 1], but got {momentum!r}.")
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        dtype = _dtype(dtype)
        self.weight = Parameter(initializer("ones", (num_features,), dtype), name="weight") if affine else None
        self.bias = Parameter(initializer("zeros", (num_features,), dtype), name="bias") if affine else None
        if track_running_stats:
            self.running_mean = Parameter(initializer("zeros", (num_features,), dtype), name="running_mean",
                                          requires_grad=False)
            self.running_var = Parameter(initializer("ones", (num_features,), dtype), name="running_var",
                                         requires_grad=False)
        else:
            self.running_mean = self.running_var = None

    def _check(self, input):
        check_tensor(type(self).__name__, "input", input)
        if input.ndim not in self._RANKS:
            raise ValueError(f"For '{type(self).__name__}', the 'input' must be {' or '.join(map(str, self._RANKS))}"
                             f"-D, but got shape {input.shape}.")

    def construct(self, input):
        self._check(input)
        batch_stats = self.training or not self.track_running_stats
        mean, var = self.running_mean, self.running_var
        if mean is None:   # statistics of this batch only: scratch running buffers that are dropped
            mean = _ops.zeros((self.num_features,), input.dtype)
            var = _ops.ones((self.num_features,), input.dtype)
        return F.batch_norm(input, mean, var, self.weight, self.bias, batch_stats, self.momentum, self.eps)


class BatchNorm1d(_BatchNorm):
    """Batch normalisation of (N, C) or (N, C, L) over the channel dimension 1; running statistics updated with
    `momentum` (torch's convention: running = (1 - momentum) running + momentum batch)."""

    _RANKS = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch normalisation of (N, C, H, W) over the channel dimension 1.

    >>> import mindseed as ms
    >>> ms.mint.nn.BatchNorm2d(3)(ms.ops.ones((2, 3, 4, 4))).shape
    (2, 3, 4, 4)
    """


class BatchNorm3d(_BatchNorm):
    """Batch normalisation of (N, C, D, H, W) over the channel dimension 1."""

    _RANKS = (5,)


class SyncBatchNorm(_BatchNorm):
    """Batch normalisation whose batch statistics span the processes of `process_group` (the world by default):
    per-channel sums, sums of squares and counts are all-reduced while training. In one process it is BatchNorm.
    """

    _RANKS = (2, 3, 4, 5)

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 process_group=None, dtype=None):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, dtype)
        self.process_group = process_group

    def _group(self):
        if not GlobalComm.INITED:
            return None
        from mindseed.communication import get_group_size  # noqa: PLC0415 -- only once the world is initialised
        group = _get_group(self.process_group or GlobalComm.WORLD_COMM_GROUP)
        return group if get_group_size(group) > 1 else None

    def construct(self, input):
        self._check(input)
        group = self._group() if self.training else None
        if group is None:
            return super().construct(input)
        from mindseed.ops.operations.comm_ops import AllReduce  # noqa: PLC0415
        axes = tuple(d for d in range(input.ndim) if d != 1)
        count = Tensor(float(input.size // input.shape[1]), input.dtype)
        local = _ops.stack([_ops.sum(input, axes), _ops.sum(_ops.square(input), axes),
                            _ops.broadcast_to(count, (self.num_features,))])
        total = AllReduce("sum", group)(local)
        n = total[2]
        mean = _ops.div(total[0], n)
        var = _ops.sub(_ops.div(total[1], n), _ops.square(mean))
        if self.running_mean is not None:
            m = self.momentum
            unbiased = _ops.mul(var, _ops.div(n, _ops.sub(n, 1)))
            self.running_mean.set_data(_ops.add(_ops.mul(self.running_mean, 1 - m),
                                                _ops.mul(_ops.stop_gradient(mean), m)))
            self.running_var.set_data(_ops.add(_ops.mul(self.running_var, 1 - m),
                                               _ops.mul(_ops.stop_gradient(unbiased), m)))
        return batch_norm_elemt(input, self.weight, self.bias, mean, _ops.rsqrt(_ops.add(var, self.eps)), self.eps)


class GroupNorm(Cell):
    """Group normalisation: channels in `num_groups` groups, each normalised over its channels and positions."""

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, dtype=None):
        super().__init__()
        _check_positive("GroupNorm", num_groups=num_groups, num_channels=num_channels)
        if num_channels % num_groups:
            raise ValueError(f"For 'GroupNorm', 'num_channels' {num_channels} must be divisible by 'num_groups' "
                             f"{num_groups}.")
        self.num_groups, self.num_channels, self.eps, self.affine = num_groups, num_channels, eps, affine
        dtype = _dtype(dtype)
        self.weight = Parameter(initializer("ones", (num_channels,), dtype), name="weight") if affine else None
        self.bias = Parameter(initializer("zeros", (num_channels,), dtype), name="bias") if affine else None

    def construct(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)


class LayerNorm(Cell):
    """Layer normalisation over the last len(normalized_shape) dimensions, with elementwise weight and bias.

    >>> import mindseed as ms
    >>> ms.mint.nn.LayerNorm(4)(ms.ops.ones((2, 4))).shape
    (2, 4)
    """

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, dtype=None):
        super().__init__()
        if isinstance(normalized_shape, int) and not isinstance(normalized_shape, bool):
            normalized_shape = (normalized_shape,)
        if not isinstance(normalized_shape, (tuple, list)) or not normalized_shape:
            raise TypeError(f"For 'LayerNorm', the 'normalized_shape' must be an int or a non-empty tuple of ints, "
                            f"but got {normalized_shape!r}.")
        self.normalized_shape, self.eps = tuple(normalized_shape), eps
        self.elementwise_affine = elementwise_affine
        dtype = _dtype(dtype)
        shape = self.normalized_shape
        self.weight = Parameter(initializer("ones", shape, dtype), name="weight") if elementwise_affine else None
        self.bias = (Parameter(initializer("zeros", shape, dtype), name="bias") if elementwise_affine and bias
                     else None)

    def construct(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)


class Embedding(Cell):
    """A lookup table of `num_embeddings` vectors of size `embedding_dim`, initialised N(0, 1) (the
    `padding_idx` row zero and without gradient)."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, sparse=False, _weight=None, _freeze=False, dtype=None):
        super().__init__()
        _check_positive("Embedding", num_embeddings=num_embeddings, embedding_dim=embedding_dim)
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise ValueError(f"For 'Embedding', the 'padding_idx' must be in [{-num_embeddings}, "
                                 f"{num_embeddings}), but got {padding_idx}.")
            padding_idx %= num_embeddings
        self.num_embeddings, self.embedding_dim, self.padding_idx = num_embeddings, embedding_dim, padding_idx
        self.max_norm, self.norm_type, self.scale_grad_by_freq, self.sparse = max_norm, norm_type, \
            scale_grad_by_freq, sparse
        if _weight is None:
            table = initializer(Normal(1.0), (num_embeddings, embedding_dim), _dtype(dtype)).init_data()
            if padding_idx is not None:
                table[padding_idx] = 0
        else:
            if tuple(_weight.shape) != (num_embeddings, embedding_dim):
                raise ValueError(f"For 'Embedding', '_weight' must have shape {(num_embeddings, embedding_dim)}, "
                                 f"but got {tuple(_weight.shape)}.")
            table = _weight
        self.weight = Parameter(table, name="weight", requires_grad=not _freeze)

    def construct(self, input):
        return F.embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                           self.scale_grad_by_freq)


class PReLU(Cell):
    """max(0, x) + weight * min(0, x), with one learnt slope or one per channel (`num_parameters`)."""

    def __init__(self, num_parameters=1, init=0.25, dtype=None):
        super().__init__()
        _check_positive("PReLU", num_parameters=num_parameters)
        self.num_parameters = num_parameters
        if isinstance(init, bool) or not isinstance(init, (int, float)):
            raise TypeError(f"For 'PReLU', the 'init' must be a float, but got {type(init).__name__}.")
        self.weight = Parameter(initializer(float(init), (num_parameters,), _dtype(dtype)), name="weight")

    def construct(self, input):
        return F.prelu(input, self.weight)


class ZeroPad1d(_nn.ConstantPad1d):
    """Pad the last dimension with zeros; padding an int or (left, right)."""

    def __init__(self, padding):
        super().__init__(padding, 0)


class ZeroPad3d(_nn.ConstantPad3d):
    """Pad the last three dimensions with zeros; padding an int or a 6-tuple."""

    def __init__(self, padding):
        super().__init__(padding, 0)
