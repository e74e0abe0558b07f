"""Basic layers: Dense, Linear, BiDense, Flatten, Unflatten, Identity, dropouts, Upsample and small utilities."""
import math

import numpy as np

from mindseed.common import dtype as mstype
from mindseed.common.initializer import HeUniform, Uniform, initializer
from mindseed.common.parameter import Parameter
from mindseed.common.seed import _get_graph_seed
from mindseed.common.tensor import Tensor
from mindseed.nn.cell import Cell
from mindseed.nn.layer._utils import check_bool, check_positive_int, layer_primitive
from mindseed.nn.layer.activation import get_activation
from mindseed.ops import functional as F
from mindseed.ops._prims import core as P
from mindseed.ops._prims.nn import dense_p
from mindseed.ops.operations import Dropout as _DropoutPrim

__all__ = ["Dropout", "Flatten", "Dense", "Linear", "ClipByNorm", "Norm", "OneHot", "Pad", "Unfold", "Fold", "Tril",
           "Triu", "MatrixDiag", "MatrixDiagPart", "MatrixSetDiag", "L1Regularizer", "Dropout1d", "Dropout2d",
           "Dropout3d", "Upsample", "Roll", "Identity", "Unflatten", "DropoutExt", "Dropout2dExt", "BiDense"]


def _check_init_tensor(cls, name, init, shape, what):
    if isinstance(init, Tensor) and tuple(init.shape) != tuple(shape):
        raise ValueError(f"For '{cls}', {name} shape error. The shape of '{name}' must be {tuple(shape)} ({what}), "
                         f"but got {init.shape}.")


class Dense(Cell):
    """Fully connected layer: activation(x @ weight.T + bias).

    Args:
        in_channels (int): input features.
        out_channels (int): output features.
        weight_init (Union[Tensor, str, Initializer, numbers.Number]): default ``None`` = HeUniform(sqrt(5)).
        bias_init (Union[Tensor, str, Initializer, numbers.Number]): default ``None`` = U(+-1/sqrt(in_channels)).
        has_bias (bool): add a bias. Default: ``True``.
        activation (Union[str, Cell]): applied to the output. Default: ``None``.
        dtype (mindspore.dtype): parameter dtype. Default: ``mindspore.float32``.

    Inputs: x of shape (*, in_channels). Outputs: (*, out_channels).

    >>> import mindseed as ms
    >>> ms.nn.Dense(3, 4)(ms.ops.ones((2, 3))).shape
    (2, 4)
    """

    def __init__(self, in_channels, out_channels, weight_init=None, bias_init=None, has_bias=True, activation=None,
                 dtype=mstype.float32):
        super().__init__()
        self.in_channels = check_positive_int("Dense", "in_channels", in_channels)
        self.out_channels = check_positive_int("Dense", "out_channels", out_channels)
        self.has_bias = check_bool("Dense", "has_bias", has_bias)
        _check_init_tensor("Dense", "weight_init", weight_init, (out_channels, in_channels),
                           "out_channels, in_channels")
        if weight_init is None:
            weight_init = HeUniform(math.sqrt(5))
        self.weight = Parameter(initializer(weight_init, [out_channels, in_channels], dtype=dtype), name="weight")
        self.bias = None
        if self.has_bias:
            _check_init_tensor("Dense", "bias_init", bias_init, (out_channels,), "out_channels")
            if bias_init is None:
                bias_init = Uniform(scale=1 / math.sqrt(in_channels))
            self.bias = Parameter(initializer(bias_init, [out_channels], dtype=dtype), name="bias")
        self.activation = get_activation(activation) if isinstance(activation, str) else activation
        if activation is not None and not isinstance(self.activation, Cell) and not callable(self.activation):
            raise TypeError(f"For 'Dense', the 'activation' must be str or Cell or Primitive, but got "
                            f"{type(activation).__name__}.")
        self.activation_flag = self.activation is not None

    def construct(self, x):
        shape = x.shape
        in_channels = self.weight.shape[1]      # the weight's, as MindSpore's MatMul checks (it may be reassigned)
        if not shape or shape[-1] != in_channels:
            raise ValueError(f"For 'MatMul' the input dimensions must be equal, but got 'x1_col': "
                             f"{shape[-1] if shape else 0} and 'x2_row': {in_channels}.")
        # one fused kernel (x @ w.T + b) over any leading axes; its backward computes only the needed grads
        x = dense_p(x, self.weight, self.bias)
        if self.activation_flag:
            x = self.activation(x)
        return x

    def extend_repr(self):
        s = f"input_channels={self.in_channels}, output_channels={self.out_channels}"
        if self.has_bias:
            s += f", has_bias={self.has_bias}"
        if self.activation_flag:
            s += f", activation={self.activation}"
        return s


class Linear(Cell):
    """Fully connected layer with PyTorch-style arguments: x @ weight.T + bias.

    Args:
        in_features (int), out_features (int), bias (bool): Default ``True``; weight_init/bias_init as in Dense.
    """

    def __init__(self, in_features, out_features, bias=True, weight_init=None, bias_init=None, dtype=None):
        super().__init__()
        self.in_features = check_positive_int("Linear", "in_features", in_features)
        self.out_features = check_positive_int("Linear", "out_features", out_features)
        self.has_bias = check_bool("Linear", "has_bias", bias)
        dtype = dtype or mstype.float32
        _check_init_tensor("Linear", "weight_init", weight_init, (out_features, in_features),
                           "out_features, in_features")
        if weight_init is None:
            weight_init = HeUniform(math.sqrt(5))
        self.weight = Parameter(initializer(weight_init, [out_features, in_features], dtype=dtype), name="weight")
        self.bias = None
        if self.has_bias:
            _check_init_tensor("Linear", "bias_init", bias_init, (out_features,), "out_features")
            if bias_init is None:
                bias_init = Uniform(scale=1 / math.sqrt(in_features))
            self.bias = Parameter(initializer(bias_init, [out_features], dtype=dtype), name="bias")

    def construct(self, x):
        if x.shape[-1] != self.in_features:
            raise ValueError(f"For 'Dense', the last dimension of 'input' {x.shape[-1]} must be equal to "
                             f"'in_features' {self.in_features}.")
        return dense_p(x, self.weight, self.bias)

    def extend_repr(self):
        s = f"input_features={self.in_features}, output_features={self.out_features}"
        if self.has_bias:
            s += f", has_bias={self.has_bias}"
        return s


class BiDense(Cell):
    """Bilinear layer: y[..., o] = x1 @ weight[o] @ x2 + bias[o].

    Args:
        in1_channels (int), in2_channels (int), out_channels (int): sizes; weight shape (out, in1, in2).
        weight_init, bias_init: default U(+-1/sqrt(in1_channels)). has_bias (bool): Default ``True``.
    """

    def __init__(self, in1_channels, in2_channels, out_channels, weight_init=None, bias_init=None, has_bias=True,
                 dtype=mstype.float32):
        super().__init__()
        check_positive_int("BiDense", "in1_channels", in1_channels)
        check_positive_int("BiDense", "in2_channels", in2_channels)
        check_positive_int("BiDense", "out_channels", out_channels)
        self.in_channels = in2_channels
        self.in1_channels, self.in2_channels, self.out_channels = in1_channels, in2_channels, out_channels
        self.has_bias = check_bool("BiDense", "has_bias", has_bias)
        bound = 1 / math.sqrt(in1_channels)
        if weight_init is None:
            weight_init = Uniform(bound)
        _check_init_tensor("BiDense", "weight_init", weight_init, (out_channels, in1_channels, in2_channels),
                           "out_channels, in1_channels, in2_channels")
        self.weight = Parameter(initializer(weight_init, (out_channels, in1_channels, in2_channels), dtype=dtype),
                                "weight")
        if self.has_bias:
            if bias_init is None:
                bias_init = Uniform(bound)
            _check_init_tensor("BiDense", "bias_init", bias_init, (out_channels,), "out_channels")
            self.bias = Parameter(initializer(bias_init, [out_channels], dtype=dtype), name="bias")

    def construct(self, input1, input2):
        for name, v, n in (("input1", input1, self.in1_channels), ("input2", input2, self.in2_channels)):
            if not isinstance(v, Tensor):
                raise TypeError(f"For 'BiDense', the '{name}' must be Tensor, but got {type(v).__name__}.")
            if v.shape[-1] != n:
                raise ValueError(f"For 'BiDense', the last dimension of '{name}' must be same as '{name[:-1]}"
                                 f"{name[-1]}_channels', but got {v.shape[-1]} of '{name}' and {n}.")
        s1, s2 = input1.shape, input2.shape
        if s1[:-1] != s2[:-1]:
            raise ValueError(f"For 'BiDense', the dimensions except the last of 'input1' must be same as 'input2', "
                             f"but got {s1} of 'input1' and {s2} of 'input2'")
        if len(s1) != 2:
            input1 = P.reshape_p(input1, shape=(-1, s1[-1]))
            input2 = P.reshape_p(input2, shape=(-1, s2[-1]))
        w = P.reshape_p(P.transpose_p(self.weight, perm=(1, 2, 0)), shape=(self.in1_channels, -1))
        out = P.matmul_p(input1, w)
        out = P.reshape_p(out, shape=(out.shape[0], self.in2_channels, self.out_channels))
        out = P.reduce_sum_p(P.mul_p(out, P.reshape_p(input2, shape=input2.shape + (1,))), axis=1)
        if self.has_bias:
            out = P.add_p(out, self.bias)
        if len(s1) != 2:
            out = P.reshape_p(out, shape=s1[:-1] + (self.out_channels,))
        return out

    def extend_repr(self):
        s = f"in1_channels={self.in1_channels}, in2_channels={self.in2_channels}, output_channels={self.out_channels}"
        if self.has_bias:
            s += f", has_bias={self.has_bias}"
        return s


class Flatten(Cell):
    """Flatten the dimensions start_dim..end_dim into one (default: all but the batch dimension)."""

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def construct(self, x):
        shape = x.shape
        nd = len(shape) or 1
        s, e = self.start_dim, self.end_dim
        if not (-nd <= s < nd and -nd <= e < nd):
            raise ValueError("'start_dim' or 'end_dim' out of range.")
        s, e = s % nd, e % nd
        if s > e:
            raise ValueError("For 'flatten', 'start_dim' cannot come after 'end_dim'.")
        if not shape:
            return P.reshape_p(x, shape=(1,))
        n = 1
        for d in shape[s:e + 1]:
            n *= d
        return P.reshape_p(x, shape=shape[:s] + (n,) + shape[e + 1:])


class Unflatten(Cell):
    """Split dimension `axis` into `unflattened_size`."""

    def __init__(self, axis, unflattened_size):
        super().__init__()
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise TypeError(f"For 'Unflatten', the 'axis' must be int, but got {type(axis).__name__}.")
        if not isinstance(unflattened_size, (list, tuple)):
            raise TypeError(f"For 'Unflatten', the 'unflattended_size' must be list or tuple, but got "
                            f"{type(unflattened_size).__name__}.")
        self.axis = axis
        self.unflattened_size = tuple(unflattened_size)

    def construct(self, input_x):
        shape = input_x.shape
        new = shape[:self.axis] + self.unflattened_size
        if self.axis != -1:
            new += shape[self.axis + 1:]
        return F.reshape(input_x, new)


class Identity(Cell):
    """Returns its input."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def construct(self, input):
        return input


class Dropout(Cell):
    """Zero elements with probability p (= 1 - keep_prob) in training and scale the rest by 1/(1-p).

    Args:
        keep_prob (float): the keep probability in (0, 1] (deprecated in favour of `p`). Default: ``0.5``.
        p (Union[float, int, None]): the drop probability in [0, 1). Default: ``None``.

    >>> import mindseed as ms
    >>> ms.nn.Dropout(p=0.5)(ms.ops.ones((2,))).asnumpy()     # identity outside training
    array([1., 1.], dtype=float32)
    """

    def __init__(self, keep_prob=0.5, p=None, dtype=mstype.float32):
        super().__init__()
        if p is None:
            if isinstance(keep_prob, bool) or not isinstance(keep_prob, float):
                raise TypeError(f"For 'Dropout', the 'keep_prob' must be float, but got {type(keep_prob).__name__}.")
            if keep_prob <= 0 or keep_prob > 1:
                raise ValueError(f"For 'Dropout', the 'keep_prob' must be a number in range (0, 1], but got "
                                 f"{keep_prob}.")
            self._drop = 1.0 - keep_prob
        else:
            if isinstance(p, bool) or not isinstance(p, (float, int)):
                raise TypeError(f"For 'Dropout', the 'p' must be float or int, but got {type(p).__name__}.")
            if p < 0 or p >= 1:
                raise ValueError(f"For 'Dropout', the 'p' must be a number in range [0, 1), but got {p}.")
            self._drop = float(p)
        self.p = p
        self.keep_prob = keep_prob
        # as MindSpore's layer: its primitive's seeds are drawn once, here, so calls continue one stream
        self._seeds = _get_graph_seed(0, "dropout")

    @layer_primitive
    def dropout(self):
        """MindSpore's `Dropout` primitive of the layer (`keep_prob` = 1 - p), which model code shards."""
        return _DropoutPrim(keep_prob=1.0 - self._drop, Seed0=self._seeds[0], Seed1=self._seeds[1])

    def construct(self, x):
        if not self.training or self._drop == 0:
            return x
        return self.dropout(x)[0]

    def extend_repr(self):
        if self.p is None:
            return f"keep_prob={self.keep_prob}"
        return f"p={self.p}"


class _DropoutExt(Cell):
    _FN = "dropout"

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        self.p = p
        self.inplace = inplace

    def construct(self, input):
        if not self.training or self.p == 0:
            return input
        return getattr(F, self._FN)(input, self.p, True)


class DropoutExt(_DropoutExt):
    """Dropout with PyTorch-style arguments (`p`, `inplace` ignored: results are new tensors)."""

    _FN = "dropout"


def _check_p(cls, p, low_inclusive=True):
    if isinstance(p, bool) or not isinstance(p, float):
        raise TypeError(f"For '{cls}', the 'p' must be float, but got {type(p).__name__}.")
    if p < 0 or p > 1:
        raise ValueError(f"For '{cls}', the 'p' must be a number in range [0, 1], but got {p}.")
    return p


class Dropout1d(Cell):
    """Zero whole channels of a (N, C, L) or (C, L) input with probability p in training."""

    def __init__(self, p=0.5):
        super().__init__()
        self.prob = _check_p("Dropout1d", p)

    def construct(self, x):
        if not self.training or self.prob == 0:
            return x
        return F.dropout1d(x, self.prob)


class _ChannelDropout(Cell):
    _FN = "dropout2d"

    def __init__(self, p=0.5):
        super().__init__()
        self.keep_prob = 1.0 - _check_p(type(self).__name__, p)

    def construct(self, x):
        if not self.training or self.keep_prob == 1:
            return x
        return getattr(F, self._FN)(x, 1.0 - self.keep_prob)

    def extend_repr(self):
        return f"p={self.keep_prob}"


class Dropout2d(_ChannelDropout):
    """Zero whole channels of a (N, C, H, W) input with probability p in training."""

    _FN = "dropout2d"


class Dropout2dExt(_DropoutExt):
    """Dropout2d with PyTorch-style arguments."""

    _FN = "dropout2d"


class Dropout3d(_ChannelDropout):
    """Zero whole channels of a (N, C, D, H, W) input with probability p in training."""

    _FN = "dropout3d"


class Upsample(Cell):
    """Resize by `size` or `scale_factor` (see ops.interpolate)."""

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None, recompute_scale_factor=None):
        super().__init__()
        self.size = size
        self.scale_factor = scale_factor
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def construct(self, x):
        return F.interpolate(x, self.size, self.scale_factor, self.mode, self.align_corners,
                             self.recompute_scale_factor)


class ClipByNorm(Cell):
    """x * clip_norm / max(||x||_2, clip_norm), the L2 norm taken over `axis` (all axes when None)."""

    def __init__(self, axis=None):
        super().__init__()
        self.axis = axis

    def construct(self, x, clip_norm):
        if not isinstance(x, Tensor) or not mstype.is_float(x.dtype):
            raise TypeError(f"For 'ClipByNorm', the 'x' must be a float Tensor, but got "
                            f"{getattr(x, 'dtype', type(x).__name__)}.")
        axis = self.axis
        if axis is None or axis == ():
            axis = tuple(range(x.ndim))
        l2 = F.sqrt(F.sum(P.mul_p(x, x), axis, keepdim=True))
        if not isinstance(clip_norm, Tensor):
            clip_norm = Tensor(clip_norm, x.dtype)
        clip = F.cast(clip_norm, x.dtype)
        return P.div_p(P.mul_p(x, clip), F.maximum(l2, clip))


class Norm(Cell):
    """sqrt(sum(x ** 2)) over `axis` (all axes when empty)."""

    def __init__(self, axis=(), keep_dims=False):
        super().__init__()
        check_bool("Norm", "keep_dims", keep_dims)
        self.axis = axis
        self.keep_dims = keep_dims

    def construct(self, x):
        axis = None if self.axis == () else self.axis
        return F.sqrt(F.sum(P.mul_p(x, x), axis, keepdim=self.keep_dims))

    def extend_repr(self):
        return f"axis={self.axis}, keep_dims={self.keep_dims}"


class OneHot(Cell):
    """One-hot encoding of integer `indices` with `depth` classes along `axis`."""

    def __init__(self, axis=-1, depth=1, on_value=1.0, off_value=0.0, dtype=mstype.float32):
        super().__init__()
        self.axis = axis
        self.depth = depth
        self.dtype = dtype
        self.on_value = on_value
        self.off_value = off_value

    def construct(self, indices):
        return F.one_hot(indices, self.depth, Tensor(self.on_value, self.dtype), Tensor(self.off_value, self.dtype),
                         self.axis)


class Pad(Cell):
    """Pad with ((before, after), ...) per dimension; mode 'CONSTANT' (zeros), 'REFLECT' or 'SYMMETRIC'."""

    def __init__(self, paddings, mode="CONSTANT"):
        super().__init__()
        if mode not in ("CONSTANT", "REFLECT", "SYMMETRIC"):
            raise ValueError(f"For 'Pad', the 'mode' must be in ['CONSTANT', 'REFLECT', 'SYMMETRIC'], but got {mode}.")
        if not isinstance(paddings, tuple):
            raise TypeError(f"For 'Pad', the type of 'paddings' must be tuple, but got {type(paddings).__name__}.")
        for item in paddings:
            if len(item) != 2:
                raise ValueError(f"For 'Pad', the dimension of 'paddings' must be (n, 2), but got {paddings}.")
        if len(paddings) > 4:
            raise ValueError(f"For 'Pad', only 'paddings' up to 4 dims is supported, but got {len(paddings)}.")
        self.mode = mode
        self.paddings = paddings

    def construct(self, x):
        pads = self.paddings
        if len(pads) != x.ndim:
            raise ValueError(f"For 'Pad', the length of 'paddings' must be equal to the rank of the input "
                             f"{x.ndim}, but got {len(pads)}.")
        if self.mode != "CONSTANT":      # MirrorPad: every dimension may be mirrored
            return F.mirror_pad(x, pads, self.mode)
        for i, (before, after) in enumerate(pads):
            if before < 0 or after < 0:     # ops.Pad's check (it does not crop)
                raise ValueError(f"For 'Pad', all elements of 'paddings' must be >= 0, but got paddings[{i}][0] = "
                                 f"{before}, paddings[{i}][1] = {after}.")
        flat = []
        for before, after in reversed(pads):
            flat += [before, after]
        return F.pad(x, tuple(flat), mode="constant")


class Unfold(Cell):
    """Extract image patches (TF ExtractImagePatches) from NCHW input.

    Args:
        ksizes, strides, rates (Union[tuple, list]): ``[1, row, col, 1]``.
        padding (str): ``'valid'`` or ``'same'``. Default: ``'valid'``.

    Outputs: (N, row*col*C, out_h, out_w), the depth ordered (row, col, channel).
    """

    def __init__(self, ksizes, strides, rates, padding="valid"):
        super().__init__()

        def check(name, val):
            if not isinstance(val, (tuple, list)):
                raise TypeError(f"For 'Unfold', the '{name}s' must be tuple or list, but got {type(val).__name__}.")
            if len(val) != 4 or val[0] != 1 or val[3] != 1:
                raise ValueError(f"For 'Unfold' the format of '{name}s' must be [1, {name}_row, {name}_col, 1], but "
                                 f"got {val}.")
            if not (isinstance(val[1], int) and isinstance(val[2], int)) or val[1] < 1 or val[2] < 1:
                raise ValueError(f"For 'Unfold' the {name}_row and {name}_col in '{name}s' must be an positive "
                                 f"integer number, but got {name}_row is {val[1]}, {name}_col is {val[2]}")
            return int(val[1]), int(val[2])

        self.ksizes = check("ksize", ksizes)
        self.strides = check("stride", strides)
        self.rates = check("rate", rates)
        if not isinstance(padding, str) or padding.lower() not in ("valid", "same"):
            raise ValueError(f"For 'Unfold', the 'padding' must be 'valid' or 'same', but got {padding}.")
        self.padding = padding.lower()

    def construct(self, input_x):
        if input_x.ndim != 4:
            raise ValueError(f"For 'Unfold', the dimension of 'input_x' must be 4, but got {input_x.ndim}.")
        n, c, h, w = input_x.shape
        (kh, kw), (sh, sw), (rh, rw) = self.ksizes, self.strides, self.rates
        ekh, ekw = (kh - 1) * rh + 1, (kw - 1) * rw + 1
        if self.padding == "same":
            oh, ow = -(-h // sh), -(-w // sw)
            ph = max((oh - 1) * sh + ekh - h, 0)
            pw = max((ow - 1) * sw + ekw - w, 0)
            input_x = F.pad(input_x, (pw // 2, pw - pw // 2, ph // 2, ph - ph // 2))
        else:
            oh, ow = (h - ekh) // sh + 1, (w - ekw) // sw + 1
        cols = F.unfold(input_x, (kh, kw), dilation=(rh, rw), padding=0, stride=(sh, sw))
        cols = P.reshape_p(cols, shape=(n, c, kh * kw, oh, ow))
        cols = P.transpose_p(cols, perm=(0, 2, 1, 3, 4))
        return P.reshape_p(cols, shape=(n, kh * kw * c, oh, ow))


class Fold(Cell):
    """Combine sliding blocks back into a tensor (inverse of ops.unfold, summing overlaps)."""

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.output_size = output_size
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def construct(self, input):
        return F.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride)


class Tril(Cell):
    """The lower triangle of x (entries above diagonal k zeroed)."""

    def construct(self, x, k=0):
        return F.tril(x, k)


class Triu(Cell):
    """The upper triangle of x (entries below diagonal k zeroed)."""

    def construct(self, x, k=0):
        return F.triu(x, k)


def _eye_like(m, n, dtype):
    return Tensor(np.eye(m, n), dtype)


class MatrixDiag(Cell):
    """Batched diagonal matrices from (..., n) vectors: (..., n, n)."""

    def construct(self, input_x):
        n = input_x.shape[-1]
        return P.mul_p(P.reshape_p(input_x, shape=input_x.shape + (1,)), _eye_like(n, n, input_x.dtype))


class MatrixDiagPart(Cell):
    """The main diagonals of (..., m, n) matrices: (..., min(m, n))."""

    def construct(self, input_x):
        return F.diagonal(input_x, 0, -2, -1)


class MatrixSetDiag(Cell):
    """(..., m, n) matrices with their main diagonals replaced by `diagonal` (..., min(m, n))."""

    def construct(self, input_x, diagonal):
        m, n = input_x.shape[-2:]
        k = min(m, n)
        if diagonal.shape != input_x.shape[:-2] + (k,):
            raise ValueError(f"For 'MatrixSetDiag', the shape of 'diagonal' must be {input_x.shape[:-2] + (k,)}, "
                             f"but got {diagonal.shape}.")
        eye = _eye_like(m, n, input_x.dtype)
        diag = P.mul_p(P.reshape_p(diagonal, shape=diagonal.shape[:-1] + (1, k)), _eye_like(m, k, input_x.dtype))
        if n > k:
            diag = F.pad(diag, (0, n - k))
        return P.add_p(P.mul_p(input_x, P.sub_p(1, eye)), diag)


class Roll(Cell):
    """Roll the elements along `axis` by `shift` (both int or matching sequences)."""

    def __init__(self, shift, axis):
        super().__init__()
        for name, v in (("shift", shift), ("axis", axis)):
            if isinstance(v, bool) or not isinstance(v, (int, tuple, list)):
                raise TypeError(f"For 'Roll', the '{name}' must be int, tuple or list, but got {type(v).__name__}.")
        shift = list(shift) if isinstance(shift, (list, tuple)) else [shift]
        axis = list(axis) if isinstance(axis, (list, tuple)) else [axis]
        if len(shift) != len(axis):
            raise ValueError(f"For 'Roll', the shape of 'shift' and the shape of 'axis' must be the same, but got the "
                             f"length of 'shift' {len(shift)} and the length of 'axis' {len(axis)}.")
        self.shift = shift
        self.axis = axis

    def construct(self, input_x):
        return F.roll(input_x, tuple(self.shift), tuple(self.axis))


class L1Regularizer(Cell):
    """scale * sum(|weights|)."""

    def __init__(self, scale):
        super().__init__()
        if isinstance(scale, bool) or not isinstance(scale, (int, float)):
            raise TypeError(f"For 'L1Regularizer', the 'scale' must be int or float, but got {type(scale).__name__}.")
        if scale <= 0:
            raise ValueError(f"For 'L1Regularizer', the 'scale' must be greater than 0, but got {scale}.")
        if math.isinf(scale) or math.isnan(scale):
            raise ValueError(f"For 'L1Regularizer', the 'scale' can not be INF or NAN, but got {scale}.")
        self.scale = Tensor(scale, mstype.float32)

    def construct(self, weights):
        if not isinstance(weights, Tensor):
            raise TypeError(f"For 'L1Regularizer', the 'weights' must be a Tensor, but got {type(weights).__name__}.")
        if weights.dtype == mstype.bool_:
            raise TypeError("For 'L1Regularizer', the 'weights' must be a number tensor, but got Bool.")
        return P.mul_p(self.scale, F.sum(F.abs(weights)))
