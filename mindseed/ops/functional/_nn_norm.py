"""Functional normalizations: layer_norm, batch_norm, group_norm, rms_norm, lrn and their fused variants."""
from mindseed.common import dtype as mstype
from mindseed.ops._prims import core as P
from mindseed.ops._prims import nn as N
from mindseed.ops._prims import nn_norm as NN
from mindseed.ops.functional._core import _check_tensor, _shape_arg

__all__ = ["layer_norm", "batch_norm", "group_norm", "rms_norm", "add_layer_norm", "add_rms_norm", "lrn"]


def _check_float(op, name, x):
    _check_tensor(op, name, x)
    if not mstype.is_float(x.dtype):
        raise TypeError(f"For '{op}', the '{name}' must be a float Tensor, but got {x.dtype}.")


def _check_param(op, name, p, shape, dtype):
    if p is None:
        return None
    _check_tensor(op, name, p)
    if p.shape != tuple(shape):
        raise ValueError(f"For '{op}', the '{name}' shape must be {tuple(shape)}, but got {p.shape}.")
    return p if p.dtype == dtype else P.cast_p(p, dtype=dtype.name)


def _check_eps(op, eps):
    if isinstance(eps, bool) or not isinstance(eps, (int, float)) or eps < 0:
        raise ValueError(f"For '{op}', the 'eps' must be a non-negative float, but got {eps}.")
    return float(eps)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalize over the trailing `normalized_shape` dimensions, then scale by weight and shift by bias.

    Args:
        input (Tensor): float tensor of shape (*, *normalized_shape).
        normalized_shape (Union[int, tuple[int], list[int]]): the trailing shape to normalize over.
        weight (Tensor, optional): scale, of shape normalized_shape (ones when None).
        bias (Tensor, optional): shift, of shape normalized_shape (zeros when None).
        eps (float): added to the variance. Default: ``1e-5``.

    Raises:
        ValueError: the trailing shape of `input` or the parameter shapes differ from normalized_shape.

    >>> import mindseed as ms
    >>> ms.ops.layer_norm(ms.Tensor([[1.0, 3.0]]), (2,))
    Tensor(shape=[1, 2], dtype=Float32, value=
    [[-9.99995053e-01  9.99995053e-01]])
    """
    op = "layer_norm"
    _check_float(op, "input", input)
    ns = _shape_arg(op, normalized_shape, "normalized_shape")
    k = len(ns)
    if k == 0 or k > input.ndim or input.shape[input.ndim - k:] != ns:
        raise ValueError(f"For '{op}', the 'normalized_shape' {ns} must be the trailing shape of the input shape "
                         f"{input.shape}.")
    weight = _check_param(op, "weight", weight, ns, input.dtype)
    bias = _check_param(op, "bias", bias, ns, input.dtype)
    return NN.layer_norm_p(input, weight, bias, normalized_shape=ns, eps=_check_eps(op, eps))[0]


def _channel_shape(x):
    return (x.shape[1],) + (1,) * (x.ndim - 2)


def batch_norm(input_x, running_mean, running_var, weight, bias, training=False, momentum=0.1, eps=1e-5):
    """Batch normalization over (N, C, *) per channel.

    In training, the batch statistics normalize the input and the running statistics are updated in
    place: running = (1 - momentum) * running + momentum * batch (unbiased variance). Otherwise the
    running statistics normalize the input.

    Args:
        input_x (Tensor): (N, C) or (N, C, *).
        running_mean (Union[Tensor, Parameter]): (C,), updated in training.
        running_var (Union[Tensor, Parameter]): (C,), updated in training.
        weight (Tensor): (C,) scale. bias (Tensor): (C,) shift.
        training (bool): Default: ``False``. momentum (float): Default: ``0.1``. eps (float): Default: ``1e-5``.

    Raises:
        ValueError: the parameter shapes are not (C,), or the input has fewer than 2 dimensions.
    """
    op = "BatchNorm"
    _check_float(op, "input_x", input_x)
    if input_x.ndim < 2:
        raise ValueError(f"For '{op}', the 'input_x' must have at least 2 dimensions, but got {input_x.shape}.")
    c = (input_x.shape[1],)
    dt = input_x.dtype
    weight = _check_param(op, "weight", weight, c, dt)
    bias = _check_param(op, "bias", bias, c, dt)
    for name, t in (("running_mean", running_mean), ("running_var", running_var)):
        _check_tensor(op, name, t)
        if t.shape != c:
            raise ValueError(f"For '{op}', the '{name}' shape must be {c}, but got {t.shape}.")
    if not isinstance(training, bool):
        raise TypeError(f"For '{op}', the 'training' must be bool, but got {type(training).__name__}.")
    eps = _check_eps(op, eps)
    if training:
        rm = running_mean if running_mean.dtype == dt else P.cast_p(running_mean, dtype=dt.name)
        rv = running_var if running_var.dtype == dt else P.cast_p(running_var, dtype=dt.name)
        y, _, _, new_mean, new_var = NN.batch_norm_p(input_x, weight, bias, rm, rv, momentum=float(momentum),
                                                     eps=eps)
        running_mean.assign_value(new_mean if running_mean.dtype == dt else
                                  P.cast_p(new_mean, dtype=running_mean.dtype.name))
        running_var.assign_value(new_var if running_var.dtype == dt else
                                 P.cast_p(new_var, dtype=running_var.dtype.name))
        return y
    rm = running_mean if running_mean.dtype == dt else P.cast_p(running_mean, dtype=dt.name)
    rv = running_var if running_var.dtype == dt else P.cast_p(running_var, dtype=dt.name)
    return NN.batch_norm_infer_p(input_x, weight, bias, rm, rv, eps=eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Normalize each of `num_groups` groups of channels of an (N, C, *) input, then scale and shift per channel.

    Raises:
        ValueError: C is not divisible by num_groups, or parameter shapes are not (C,).
    """
    return group_norm_outputs(input, num_groups, weight, bias, eps)[0]


def group_norm_outputs(input, num_groups, weight=None, bias=None, eps=1e-5):
    """(output, mean, rstd) of group_norm, the statistics of shape (N, num_groups) (the GroupNorm primitive's)."""
    op = "GroupNorm"
    _check_float(op, "input", input)
    if isinstance(num_groups, bool) or not isinstance(num_groups, int) or num_groups <= 0:
        raise ValueError(f"For '{op}', the 'num_groups' must be a positive int, but got {num_groups}.")
    if input.ndim < 2 or input.shape[1] % num_groups:
        raise ValueError(f"For '{op}', the channels (dimension 1) of the input shape {input.shape} must be divisible "
                         f"by 'num_groups' {num_groups}.")
    c = (input.shape[1],)
    weight = _check_param(op, "weight", weight, c, input.dtype)
    bias = _check_param(op, "bias", bias, c, input.dtype)
    return NN.group_norm_p(input, weight, bias, num_groups=num_groups, eps=_check_eps(op, eps))


def _rms(op, x, gamma, epsilon):
    _check_float(op, "x", x)
    _check_tensor(op, "gamma", gamma)
    k = gamma.ndim
    if k > x.ndim or x.shape[x.ndim - k:] != gamma.shape:
        raise ValueError(f"For '{op}', the 'gamma' shape {gamma.shape} must be the trailing shape of the 'x' shape "
                         f"{x.shape}.")
    if isinstance(epsilon, bool) or not isinstance(epsilon, float) or not 0 < epsilon <= 1:
        raise ValueError(f"For '{op}', the 'epsilon' must be a float in (0, 1], but got {epsilon}.")
    axes = tuple(range(x.ndim - k, x.ndim))
    ms = P.mul_p(P.reduce_sum_p(P.mul_p(x, x), axis=axes, keep_dims=True), 1.0 / max(gamma.size, 1))
    rstd = P.pow_p(P.add_p(ms, epsilon), -0.5)
    return P.mul_p(P.mul_p(x, rstd), gamma), rstd


def rms_norm(x, gamma, epsilon=1e-6):
    """Root-mean-square normalization over gamma's trailing dimensions: (x / rms(x) * gamma, 1 / rms(x))."""
    return _rms("RmsNorm", x, gamma, epsilon)


def add_rms_norm(x1, x2, gamma, epsilon=1e-6):
    """rms_norm of x1 + x2: returns (y, rstd, x1 + x2)."""
    _check_tensor("AddRmsNorm", "x1", x1)
    x = P.add_p(x1, x2)
    y, rstd = _rms("AddRmsNorm", x, gamma, epsilon)
    return y, rstd, x


def add_layer_norm(x1, x2, gamma, beta, epsilon=1e-5, additional_output=False):
    """layer_norm of x1 + x2 over the last axis: returns (y, mean, rstd, x1 + x2)."""
    op = "AddLayerNorm"
    _check_float(op, "x1", x1)
    _check_tensor(op, "x2", x2)
    if not isinstance(epsilon, float):
        raise TypeError(f"For '{op}', the 'epsilon' must be float, but got {type(epsilon).__name__}.")
    if not isinstance(additional_output, bool):
        raise TypeError(f"For '{op}', the 'additional_output' must be bool, but got "
                        f"{type(additional_output).__name__}.")
    x = P.add_p(x1, x2)
    ns = x.shape[-1:]
    gamma = _check_param(op, "gamma", gamma, ns, x.dtype)
    beta = _check_param(op, "beta", beta, ns, x.dtype)
    y, mean, rstd = NN.layer_norm_p(x, gamma, beta, normalized_shape=ns, eps=epsilon)
    return y, mean, rstd, x


def lrn(x, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5, norm_region="ACROSS_CHANNELS"):
    """Local response normalization across channels of an NCHW input.

    b_c = a_c / (bias + alpha * sum of a_k^2 over |k - c| <= depth_radius)^beta.

    Raises:
        ValueError: the input is not 4-D, `depth_radius` < 0 or `norm_region` is not 'ACROSS_CHANNELS'.
    """
    op = "LRN"
    _check_float(op, "x", x)
    if x.ndim != 4:
        raise ValueError(f"For '{op}', the 'x' must be 4-D (N, C, H, W), but got shape {x.shape}.")
    if isinstance(depth_radius, bool) or not isinstance(depth_radius, int) or depth_radius < 0:
        raise ValueError(f"For '{op}', the 'depth_radius' must be a non-negative int, but got {depth_radius}.")
    if norm_region != "ACROSS_CHANNELS":
        raise ValueError(f"For '{op}', the 'norm_region' must be 'ACROSS_CHANNELS', but got {norm_region}.")
    band = N.band_matrix_p(n=x.shape[1], radius=depth_radius, dtype=x.dtype.name)
    sq = P.transpose_p(P.mul_p(x, x), perm=(0, 2, 3, 1))
    window = P.transpose_p(P.matmul_p(sq, band), perm=(0, 3, 1, 2))
    return P.mul_p(x, P.pow_p(P.add_p(P.mul_p(window, float(alpha)), float(bias)), -float(beta)))


def _l2_normalize(x, axis, epsilon):
    """x / sqrt(max(sum(x^2, axis), epsilon)) (MindSpore's L2Normalize)."""
    _check_float("L2Normalize", "x", x)
    ss = P.reduce_sum_p(P.mul_p(x, x), axis=axis, keep_dims=True)
    return P.mul_p(x, P.pow_p(P.maximum_p(ss, float(epsilon)), -0.5))

