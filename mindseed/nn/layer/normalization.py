"""Normalization layers: BatchNorm1d/2d/3d, SyncBatchNorm, LayerNorm(+Ext), GroupNorm, InstanceNorm1d/2d/3d.

MindSpore's momentum convention: moving = momentum * moving + (1 - momentum) * batch (default 0.9), the
moving variance fed with the unbiased batch variance; evaluation uses the moving statistics.
"""
import numbers

import numpy as np

from mindseed._utils.errors import host_alloc
from mindseed.common import dtype as mstype
from mindseed.common.initializer import Initializer, initializer
from mindseed.common.parameter import Parameter
from mindseed.common.tensor import Tensor
from mindseed.nn.cell import Cell
from mindseed.nn.layer._utils import check_bool, check_positive_int, layer_primitive
from mindseed.ops import functional as F
from mindseed.ops._prims import core as P
from mindseed.ops.operations import LayerNorm as LayerNormPrim
from mindseed.ops.operations._nn import check_layer_norm_axes

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LayerNorm", "LayerNormExt", "GroupNorm", "SyncBatchNorm",
           "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"]


def _check_dim(cls, ndim, allowed):
    if ndim not in allowed:
        want = " or ".join(str(a) for a in allowed)
        raise ValueError(f"For '{cls}', the in_shape must have {want} dims, but got {ndim}.")


def _check_num_features(cls, num_features):
    if isinstance(num_features, bool) or not isinstance(num_features, int):
        raise TypeError(f"For '{cls}', the type of 'num_features' must be int, but got {type(num_features).__name__}.")


class _BatchNorm(Cell):
    """Batch normalization over the channel axis (axis 1)."""
    _written_params = ("moving_mean", "moving_variance")     # updated by construct: to_float leaves them

    _DIMS = (2, 3, 4)

    def __init__(self, num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init="ones", beta_init="zeros",
                 moving_mean_init="zeros", moving_var_init="ones", use_batch_statistics=None, data_format="NCHW",
                 dtype=mstype.float32):
        super().__init__()
        cls = type(self).__name__
        _check_num_features(cls, num_features)
        if num_features < 1:
            raise ValueError(f"For '{cls}', the 'num_features' must be at least 1, but got {num_features}.")
        if momentum < 0 or momentum > 1:
            raise ValueError(f"For '{cls}', the 'momentum' must be a number in range [0, 1], but got {momentum}.")
        if data_format != "NCHW":
            raise ValueError(f"For '{cls}', the 'NHWC' format only support in GPU target, but got device target CPU.")
        if use_batch_statistics is not None and not isinstance(use_batch_statistics, bool):
            raise ValueError(f"For '{cls}', the 'use_batch_statistics' must be a boolean value or None, but got "
                             f"{use_batch_statistics}.")
        self.format = data_format
        self.use_batch_statistics = use_batch_statistics
        self.num_features = num_features
        self.eps = eps
        self.beta_init, self.gamma_init = beta_init, gamma_init
        self.moving_mean_init, self.moving_var_init = moving_mean_init, moving_var_init
        self.moving_mean = Parameter(initializer(moving_mean_init, num_features, dtype=dtype), name="mean",
                                     requires_grad=False)
        self.moving_variance = Parameter(initializer(moving_var_init, num_features, dtype=dtype), name="variance",
                                         requires_grad=False)
        self.gamma = Parameter(initializer(gamma_init, num_features, dtype=dtype), name="gamma", requires_grad=affine)
        self.beta = Parameter(initializer(beta_init, num_features, dtype=dtype), name="beta", requires_grad=affine)
        # stored as the op's momentum (weight of the batch statistics), as MindSpore does
        self.momentum = 1.0 - momentum

    def construct(self, x):
        if x.ndim not in self._DIMS:
            self._bad_dim(x.ndim)
        use_batch = self.training if self.use_batch_statistics is None else self.use_batch_statistics
        return F.batch_norm(x, self.moving_mean, self.moving_variance, self.gamma, self.beta, use_batch,
                            self.momentum, self.eps)

    def _bad_dim(self, ndim):
        _check_dim(type(self).__name__, ndim, self._DIMS)

    def extend_repr(self):
        return (f"num_features={self.num_features}, eps={self.eps}, momentum={1.0 - self.momentum}, "
                f"gamma={self.gamma}, beta={self.beta}, moving_mean={self.moving_mean}, "
                f"moving_variance={self.moving_variance}")


class BatchNorm1d(_BatchNorm):
    """Batch normalization of (N, C) or (N, C, L) input.

    Args:
        num_features (int): C. eps (float): Default ``1e-5``. momentum (float): weight of the old moving
            statistics. Default ``0.9``. affine (bool): learn gamma/beta. Default ``True``.
        use_batch_statistics (bool): None = batch statistics in training, moving statistics in evaluation.
    """

    _DIMS = (2, 3)

    def _bad_dim(self, ndim):
        raise ValueError(f"For 'BatchNorm1d', the must have 2 dims or 3 dims, but got {ndim}.")


class BatchNorm2d(_BatchNorm):
    """Batch normalization of (N, C, H, W) input (see BatchNorm1d for the arguments).

    >>> import mindseed as ms
    >>> bn = ms.nn.BatchNorm2d(3)
    >>> bn(ms.ops.ones((2, 3, 4, 4))).shape
    (2, 3, 4, 4)
    """

    _DIMS = (4,)


class SyncBatchNorm(_BatchNorm):
    """Batch normalization whose statistics span the processes of `process_groups` (one process: BatchNorm)."""

    _DIMS = (2, 4)

    def __init__(self, num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init="ones", beta_init="zeros",
                 moving_mean_init="zeros", moving_var_init="ones", use_batch_statistics=None, process_groups=None,
                 dtype=mstype.float32):
        super().__init__(num_features, eps, momentum, affine, gamma_init, beta_init, moving_mean_init,
                         moving_var_init, use_batch_statistics, dtype=dtype)
        self.process_groups = process_groups

    def _bad_dim(self, ndim):
        raise ValueError(f"For 'SyncBatchNorm', the must have 2 dims or 4 dims, but got {ndim}.")


class BatchNorm3d(Cell):
    """Batch normalization of (N, C, D, H, W) input, through a BatchNorm2d child `bn2d` as MindSpore does."""

    def __init__(self, num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init="ones", beta_init="zeros",
                 moving_mean_init="zeros", moving_var_init="ones", use_batch_statistics=None, dtype=mstype.float32):
        super().__init__()
        self.bn2d = BatchNorm2d(num_features, eps, momentum, affine, gamma_init, beta_init, moving_mean_init,
                                moving_var_init, use_batch_statistics, data_format="NCHW", dtype=dtype)

    def construct(self, x):
        _check_dim("BatchNorm3d", x.ndim, (5,))
        shape = x.shape
        y = self.bn2d(P.reshape_p(x, shape=(shape[0], shape[1], shape[2] * shape[3], shape[4])))
        return P.reshape_p(y, shape=shape)


class LayerNorm(Cell):
    """Layer normalization over the axes from `begin_norm_axis`; gamma/beta span the axes from `begin_params_axis`.

    Args:
        normalized_shape (Union[tuple, list]): shape of gamma and beta.
        begin_norm_axis (int): first normalized axis. Default ``-1``.
        begin_params_axis (int): first axis gamma/beta apply to. Default ``-1``.
        epsilon (float): Default ``1e-7``.
    """

    def __init__(self, normalized_shape, begin_norm_axis=-1, begin_params_axis=-1, gamma_init="ones",
                 beta_init="zeros", epsilon=1e-7, dtype=mstype.float32):
        super().__init__()
        if not isinstance(normalized_shape, (tuple, list)):
            raise TypeError(f"For 'LayerNorm', the type of 'normalized_shape' must be tuple[int] or list[int], but got "
                            f"{normalized_shape} and the type is {type(normalized_shape)}.")
        if not normalized_shape:
            raise ValueError(f"Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
                             f"element, but got normalized_shape = {normalized_shape}")
        self.normalized_shape = normalized_shape
        self.begin_norm_axis = begin_norm_axis
        self.begin_params_axis = begin_params_axis
        self.epsilon = epsilon
        self.gamma = Parameter(initializer(gamma_init, normalized_shape, dtype=dtype), name="gamma")
        self.beta = Parameter(initializer(beta_init, normalized_shape, dtype=dtype), name="beta")
        self._nshape = tuple(normalized_shape)

    def construct(self, input_x):
        nd = input_x.ndim
        check_layer_norm_axes(nd, self.begin_norm_axis, self.begin_params_axis)
        bna = self.begin_norm_axis % nd if -nd <= self.begin_norm_axis < nd else -1
        bpa = self.begin_params_axis % nd if -nd <= self.begin_params_axis < nd else -1
        if bna < 0 or bpa < 0 or input_x.shape[bpa:] != self._nshape:
            raise ValueError(f"For 'LayerNorm', begin_params_axis must be less than or equal to input_x shape size, "
                             f"gamma shape size add begin_params_axis must be equal to or greater than input_x shape "
                             f"size, and beta shape size add begin_params_axis must be equal to or greater than "
                             f"input_x shape size, but got input shape {input_x.shape}, begin_norm_axis "
                             f"{self.begin_norm_axis}, begin_params_axis {self.begin_params_axis} and gamma shape "
                             f"{self._nshape}.")
        gamma, beta = self.gamma, self.beta
        if gamma.dtype != input_x.dtype:
            gamma, beta = F.cast(gamma, input_x.dtype), F.cast(beta, input_x.dtype)
        if bna == bpa:
            return F.layer_norm(input_x, self._nshape, gamma, beta, self.epsilon)
        normed = F.layer_norm(input_x, input_x.shape[bna:], None, None, self.epsilon)
        return P.add_p(P.mul_p(normed, gamma), beta)

    @layer_primitive
    def layer_norm(self):
        """The LayerNorm primitive of this layer's axes and epsilon: (x, gamma, beta) -> (y, mean, variance)."""
        return LayerNormPrim(begin_norm_axis=self.begin_norm_axis, begin_params_axis=self.begin_params_axis,
                             epsilon=self.epsilon)

    def extend_repr(self):
        return (f"normalized_shape={self.normalized_shape}, begin_norm_axis={self.begin_norm_axis}, "
                f"begin_params_axis={self.begin_params_axis}, gamma{self.gamma}, beta={self.beta}")


class LayerNormExt(Cell):
    """Layer normalization with PyTorch-style arguments (weight/bias Parameters, eps=1e-5)."""

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, dtype=None):
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        if not isinstance(normalized_shape, (tuple, list)):
            raise TypeError(f"For 'LayerNormExt', the type of 'normalized_shape' must be tuple[int] or list[int], "
                            f"but got {normalized_shape} and the type is {type(normalized_shape)}.")
        if not normalized_shape:
            raise ValueError(f"Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
                             f"element, but got normalized_shape = {normalized_shape}")
        if any(isinstance(s, bool) or not isinstance(s, numbers.Integral) or s <= 0 for s in normalized_shape):
            raise ValueError(f"For 'LayerNormExt', the 'normalized_shape' must hold positive ints, but got "
                             f"{normalized_shape}.")
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        dtype = dtype or mstype.float32
        self.weight = None
        self.bias = None
        if elementwise_affine:
            self.weight = Parameter(Tensor(host_alloc("LayerNormExt", np.ones, normalized_shape), dtype), name="weight")
            if bias:
                self.bias = Parameter(Tensor(np.zeros(normalized_shape), dtype), name="bias")

    def construct(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extend_repr(self):
        return (f"normalized_shape={self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}")


class GroupNorm(Cell):
    """Group normalization: channels split into `num_groups`, each normalized over its channels and space."""

    def __init__(self, num_groups, num_channels, eps=1e-05, affine=True, gamma_init="ones", beta_init="zeros",
                 dtype=mstype.float32):
        super().__init__()
        self.num_groups = check_positive_int("GroupNorm", "num_groups", num_groups)
        self.num_channels = check_positive_int("GroupNorm", "num_channels", num_channels)
        if num_channels % num_groups != 0:
            raise ValueError(f"For 'GroupNorm', the 'num_channels' must be divided by 'num_groups', but got "
                             f"'num_channels': {num_channels}, 'num_groups': {num_groups}.")
        if isinstance(eps, bool) or not isinstance(eps, float):
            raise TypeError(f"For 'GroupNorm', the type of 'eps' must be float, but got {type(eps).__name__}.")
        self.eps = eps
        self.affine = check_bool("GroupNorm", "affine", affine)
        self.gamma = Parameter(initializer(gamma_init, num_channels, dtype=dtype), name="gamma", requires_grad=affine)
        self.beta = Parameter(initializer(beta_init, num_channels, dtype=dtype), name="beta", requires_grad=affine)

    def construct(self, x):
        if not 2 <= x.ndim <= 8:
            raise RuntimeError(f"For 'GroupNorm', The dim of input must be between 2 and 8. But got: {x.ndim}.")
        if x.shape[1] != self.num_channels:
            raise ValueError(f"For 'GroupNorm', the channel(the second dim of the input 'x') must be equal to "
                             f"num_channels, but got channel: {x.shape[1]}, num_channels: "
                             f"{self.num_channels}.")
        gamma, beta = self.gamma, self.beta
        if gamma.dtype != x.dtype:
            gamma, beta = F.cast(gamma, x.dtype), F.cast(beta, x.dtype)
        return F.group_norm(x, self.num_groups, gamma, beta, self.eps)

    def extend_repr(self):
        return f"num_groups={self.num_groups}, num_channels={self.num_channels}"


class _InstanceNorm(Cell):
    """Normalization of each (sample, channel) plane by its own statistics, in training and evaluation.

    In training the moving statistics follow moving = (1 - momentum) * moving + momentum * batch (momentum 0.1).
    """
    _written_params = ("moving_mean", "moving_variance")     # updated by construct: to_float leaves them

    _NDIM = 4

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, gamma_init="ones", beta_init="zeros",
                 dtype=mstype.float32):
        super().__init__()
        cls = type(self).__name__
        _check_num_features(cls, num_features)
        for name, v in (("eps", eps), ("momentum", momentum)):
            if isinstance(v, bool) or not isinstance(v, float):
                raise TypeError(f"For '{cls}', the type of '{name}' must be float, but got {type(v).__name__}.")
        check_bool(cls, "affine", affine)
        for name, v in (("gamma_init", gamma_init), ("beta_init", beta_init)):
            if not isinstance(v, (Tensor, numbers.Number, str, Initializer)):
                raise TypeError(f"For '{cls}', the type of '{name}' must be in [Tensor, numbers.Number, str, "
                                f"Initializer], but got type {type(v).__name__}.")
            if isinstance(v, Tensor) and v.dtype != mstype.float32:
                raise TypeError(f"For '{cls}', the type of '{name}' must be float32, but got {v.dtype}.")
        if num_features < 1:
            raise ValueError(f"For '{cls}', the 'num_features' must be at least 1, but got {num_features}.")
        if momentum < 0 or momentum > 1:
            raise ValueError(f"For '{cls}', the 'momentum' must be a number in range [0, 1], but got {momentum}.")
        self.num_features = num_features
        self.eps = eps
        self.moving_mean = Parameter(initializer("zeros", num_features, dtype=dtype), name="mean",
                                     requires_grad=False)
        self.moving_variance = Parameter(initializer("ones", num_features, dtype=dtype), name="variance",
                                         requires_grad=False)
        self.gamma = Parameter(initializer(gamma_init, num_features, dtype=dtype), name="gamma", requires_grad=affine)
        self.beta = Parameter(initializer(beta_init, num_features, dtype=dtype), name="beta", requires_grad=affine)
        self.momentum = momentum

    def construct(self, x):
        _check_dim(type(self).__name__, x.ndim, (self._NDIM,))
        c = x.shape[1]
        axes = tuple(range(2, x.ndim))
        mean = F.mean(x, axes, True)
        centered = P.sub_p(x, mean)
        var = F.mean(P.mul_p(centered, centered), axes, True)
        y = P.mul_p(centered, F.rsqrt(P.add_p(var, self.eps)))
        if self.training:
            self._update_moving(F.stop_gradient(mean), F.stop_gradient(var), x.size // (x.shape[0] * c))
        bshape = (1, c) + (1,) * (x.ndim - 2)
        return P.add_p(P.mul_p(y, P.reshape_p(self.gamma, shape=bshape)), P.reshape_p(self.beta, shape=bshape))

    def _update_moving(self, mean, var, count):
        c = self.num_features
        batch_mean = F.mean(P.reshape_p(mean, shape=(-1, c)), 0)
        unbiased = P.mul_p(var, count / max(count - 1, 1))
        batch_var = F.mean(P.reshape_p(unbiased, shape=(-1, c)), 0)
        keep = 1.0 - self.momentum
        self.moving_mean.set_data(P.add_p(P.mul_p(self.moving_mean, keep), P.mul_p(batch_mean, self.momentum)))
        self.moving_variance.set_data(P.add_p(P.mul_p(self.moving_variance, keep),
                                              P.mul_p(batch_var, self.momentum)))

    def extend_repr(self):
        return (f"num_features={self.num_features}, eps={self.eps}, momentum={self.momentum}, gamma={self.gamma}, "
                f"beta={self.beta}, moving_mean={self.moving_mean}, moving_variance={self.moving_variance}")


class InstanceNorm1d(_InstanceNorm):
    """Instance normalization of (N, C, L) input."""

    _NDIM = 3


class InstanceNorm2d(_InstanceNorm):
    """Instance normalization of (N, C, H, W) input."""

    _NDIM = 4


class InstanceNorm3d(_InstanceNorm):
    """Instance normalization of (N, C, D, H, W) input."""

    _NDIM = 5
