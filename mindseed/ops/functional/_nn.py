"""Functional ops of the nn family: activations, softmax, dropout, dense, embedding, distances.

Losses live in `_nn_loss`, normalizations in `_nn_norm`; this module re-exports them so the family has
one `__all__` and one table of Tensor methods.
"""
import numpy as np

from mindseed import _backend as B
from mindseed.common import dtype as mstype
from mindseed.common.seed import op_generator
from mindseed.common.tensor import Tensor
from mindseed.ops._prims import core as P
from mindseed.ops._prims import math as M
from mindseed.ops._prims import nn as N
from mindseed.ops.functional import _core as F_core
from mindseed.ops.functional._core import _check_tensor, cast, where
from mindseed.ops.functional._nn_loss import *  # noqa: F401,F403
from mindseed.ops.functional._nn_loss import __all__ as _loss_names
from mindseed.ops.functional._nn_norm import *  # noqa: F401,F403
from mindseed.ops.functional._nn_norm import __all__ as _norm_names
from mindseed.ops.functional._random import _engines

__all__ = [
    "relu6", "leaky_relu", "elu", "selu", "celu", "gelu", "softplus", "hardtanh", "hardshrink", "softshrink",
    "soft_shrink", "tanhshrink", "glu", "swiglu", "prelu", "rrelu", "threshold", "softmax", "log_softmax", "softmin",
    "gumbel_softmax", "dropout", "dropout1d", "dropout2d", "dropout3d", "bias_add", "dense", "bidense", "embedding",
    "cosine_similarity", "cdist", "pdist",
] + _loss_names + _norm_names


def _check_float(op, name, x):
    _check_tensor(op, name, x)
    if not mstype.is_float(x.dtype):
        raise TypeError(f"For '{op}', the '{name}' must be a float Tensor (float16, float32, float64 or bfloat16), "
                        f"but got {x.dtype}.")


def _check_number(op, name, v):
    if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise TypeError(f"For '{op}', the '{name}' must be an int or a float, but got {type(v).__name__}.")
    return float(v)


def _check_axis(op, name, axis, ndim):
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"For '{op}', the type of '{name}' must be 'int', but got '{axis}' with type "
                        f"'{type(axis).__name__}'.")
    n = max(ndim, 1)
    if not -n <= axis < n:
        raise ValueError(f"For '{op}', the '{name}' must be in range [{-n}, {n}), but got {axis}.")
    return int(axis) % n


# ---------------------------------------------------------------- piecewise-linear activations
def relu6(x):
    """min(max(x, 0), 6), elementwise.

    >>> import mindseed as ms
    >>> ms.ops.relu6(ms.Tensor([-1.0, 3.0, 8.0]))
    Tensor(shape=[3], dtype=Float32, value= [0. 3. 6.])
    """
    _check_float("ReLU6", "x", x)
    return N.relu6_p(x)


def hardtanh(input, min_val=-1.0, max_val=1.0):
    """input clipped to [min_val, max_val].

    As MindSpore's composite min(max(input, min_val), max_val), a value on a bound gets half the gradient."""
    return _hardtanh(input, min_val, max_val, True)


def _hardtanh(input, min_val, max_val, split_ties):
    """hardtanh; `split_ties` False: torch's gradient (0 on a bound), mint's."""
    _check_tensor("hardtanh", "input", input)
    lo, hi = _check_number("hardtanh", "min_val", min_val), _check_number("hardtanh", "max_val", max_val)
    if lo > hi:
        raise ValueError(f"For 'hardtanh', 'min_val' must be less than or equal to 'max_val', but got {lo} > {hi}.")
    return N.hardtanh_p(input, min_val=lo, max_val=hi, split_ties=split_ties)


def leaky_relu(input, alpha=0.2):
    """input where input > 0, else alpha * input.

    As MindSpore's composite max(alpha * input, input), the gradient at 0 is (1 + alpha) / 2."""
    return _leaky_relu(input, alpha, True)


def _leaky_relu(input, alpha, split_ties):
    """leaky_relu; `split_ties` False: torch's gradient (alpha at 0), mint's."""
    _check_tensor("leaky_relu", "input", input)
    alpha = _check_number("leaky_relu", "alpha", alpha)
    if mstype.is_float(input.dtype):
        return N.leaky_relu_p(input, alpha=alpha, split_ties=split_ties)
    # NOTE: as MindSpore's composite, alpha is cast to an integer input's dtype (truncated) before
    # max(alpha * input, input) (min when alpha > 1)
    select = F_core.minimum if alpha > 1 else F_core.maximum
    return select(F_core.mul(cast(Tensor(alpha), input.dtype), input), input)


def _check_lambd(op, lambd):
    # MindSpore takes a bool lambd as its number (True -> 1.0)
    return _check_number(op, "lambd", float(lambd) if isinstance(lambd, bool) else lambd)


def hardshrink(input, lambd=0.5):
    """input where |input| > lambd, else 0 (a negative lambd keeps every value)."""
    _check_float("HShrink", "input", input)
    return N.hshrink_p(input, lambd=_check_lambd("HShrink", lambd))


def softshrink(input, lambd=0.5):
    """input - lambd above lambd, input + lambd below -lambd, else 0."""
    _check_float("SoftShrink", "input", input)
    lambd = _check_lambd("SoftShrink", lambd)
    if lambd < 0:
        raise RuntimeError(f"For 'SoftShrink', the values for lambd should be greater or equal to 0, but found to be "
                           f"[{lambd:g}].")
    return N.softshrink_p(input, lambd=lambd)


soft_shrink = softshrink


def threshold(input, thr, value):
    """input where input > thr, else value."""
    _check_tensor("threshold", "input", input)
    return N.threshold_p(input, thr=_check_number("threshold", "thr", thr),
                         value=_check_number("threshold", "value", value))


# ---------------------------------------------------------------- smooth activations
def elu(input_x, alpha=1.0):
    """input_x where input_x > 0, else alpha * (exp(input_x) - 1)."""
    _check_float("Elu", "input_x", input_x)
    return N.elu_p(input_x, alpha=_check_number("Elu", "alpha", alpha), scale=1.0, input_scale=1.0)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(input_x):
    """scale * elu(input_x, alpha) with SELU's self-normalizing constants.

    An integer input keeps its dtype the way MindSpore's CPU kernel computes it, with scale and alpha * scale
    truncated to the integer 1: x where x > 0, else trunc(expm1(x)) (0, or -1 far below zero)."""
    _check_tensor("SeLU", "input_x", input_x)
    if mstype.is_integral(input_x.dtype) and input_x.dtype != mstype.bool_:
        neg = M.trunc_p(M.expm1_p(cast(input_x, mstype.float64)))
        return where(F_core.greater(input_x, 0), input_x, cast(neg, input_x.dtype))
    _check_float("SeLU", "input_x", input_x)
    return N.elu_p(input_x, alpha=_SELU_ALPHA, scale=_SELU_SCALE, input_scale=1.0)


def celu(x, alpha=1.0):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).

    Raises:
        ValueError: `alpha` is 0.
    """
    _check_float("CeLU", "x", x)
    alpha = _check_number("CeLU", "alpha", alpha)
    if alpha == 0:
        raise ValueError("For 'CeLU', the 'alpha' can not be 0.")
    return N.elu_p(x, alpha=alpha, scale=1.0, input_scale=1.0 / alpha)


def gelu(input, approximate='none'):
    """Gaussian error linear unit: input * Phi(input), or its tanh approximation.

    Args:
        input (Tensor): float tensor.
        approximate (str): ``'none'`` (exact, with erf) or ``'tanh'``. Default: ``'none'``.

    Raises:
        ValueError: `approximate` is neither 'none' nor 'tanh'.
        TypeError: `input` is not a float tensor.

    >>> import mindseed as ms
    >>> ms.ops.gelu(ms.Tensor([0.0, 1.0]))
    Tensor(shape=[2], dtype=Float32, value= [0.00000000e+00 8.41344714e-01])
    """
    if approximate not in ('none', 'tanh'):
        raise ValueError("For ops.gelu, approximate value should be either 'none' or 'tanh'.")
    if not isinstance(input, Tensor) or not mstype.is_float(input.dtype):
        got = input.dtype if isinstance(input, Tensor) else type(input).__name__
        raise TypeError(f"For gelu, the input dtype must be bfloat16, float16, float32 or float64, but got {got}.")
    return N.gelu_p(input, approximate=approximate)


def softplus(input, beta=1, threshold=20):
    """log(1 + exp(beta * input)) / beta, and input itself where beta * input > threshold.

    Raises:
        ValueError: `beta` is 0.
    """
    _check_float("softplus", "input", input)
    beta = _check_number("softplus", "beta", beta)
    if beta == 0:
        raise ValueError("For 'softplus', the value of 'beta' cannot be 0.")
    return N.softplus_p(input, beta=beta, threshold=_check_number("softplus", "threshold", threshold))


def tanhshrink(input):
    """input - tanh(input) (integer inputs are computed in float32)."""
    _check_tensor("tanhshrink", "input", input)
    if not mstype.is_float(input.dtype):
        input = P.cast_p(input, dtype="Float32")
    return N.tanhshrink_p(input)


def _halves(op, x, axis):
    _check_float(op, "x", x)
    if x.ndim == 0:
        raise ValueError(f"For '{op}', the input must have at least 1 dimension, but got a 0-D Tensor.")
    axis = _check_axis(op, "axis", axis, x.ndim)
    if x.shape[axis] % 2:
        raise ValueError(f"For '{op}', the size of dimension {axis} of the input must be even, but got "
                         f"shape {x.shape}.")
    return axis


def glu(x, axis=-1):
    """a * sigmoid(b), where a and b are the halves of x along `axis`.

    Raises:
        ValueError: the size of `axis` is odd.
    """
    return N.glu_p(x, axis=_halves("GLU", x, axis))


def swiglu(input, dim=-1):
    """silu(a) * b, where a and b are the halves of input along `dim`."""
    dim = _halves("Swiglu", input, dim)
    h = input.shape[dim] // 2
    a, b = P.split_sizes_p(input, sizes=[h, h], axis=dim)
    return P.mul_p(N.silu_p(a), b)


def prelu(input, weight):
    """input where input > 0, else weight * input, with one weight per channel (axis 1) or one in all.

    Raises:
        ValueError: `weight` is not 1-D with 1 or C elements.
    """
    _check_float("PReLU", "input", input)
    _check_tensor("PReLU", "weight", weight)
    c = input.shape[1] if input.ndim >= 2 else 1
    if weight.ndim > 1 or weight.size not in (1, c):
        raise ValueError(f"For 'PReLU', the 'weight' must be a 1-D Tensor of size 1 or {c} (the channels of the "
                         f"input), but got shape {weight.shape}.")
    if weight.dtype != input.dtype:     # the output keeps the input's dtype (a float32 slope on float16 data)
        weight = P.cast_p(weight, dtype=input.dtype.name)
    if input.ndim >= 2 and weight.size != 1:
        weight = P.reshape_p(weight, shape=(c,) + (1,) * (input.ndim - 2))
    elif input.ndim == 0 and weight.ndim == 1:
        weight = P.reshape_p(weight, shape=())   # the output has the input's shape: a scalar stays a scalar
    return P.where_p(P.greater_p(input, 0.0), input, P.mul_p(weight, input))


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3):
    """input where input >= 0, else input times a slope drawn from U(lower, upper) per element."""
    if not isinstance(upper, (float, int)) or isinstance(upper, bool):
        raise TypeError(f"For 'rrelu', 'upper' must be an int or a float, but got {type(upper)}")
    if not isinstance(lower, (float, int)) or isinstance(lower, bool):
        raise TypeError(f"For 'rrelu', 'lower' must be an int or a float, but got {type(lower)}")
    if lower > upper:
        raise ValueError(f"For 'rrelu', the value of 'upper' must be greater than or equal to 'lower', but got "
                         f"upper: {upper}, lower: {lower}. ")
    _check_float("rrelu", "input", input)
    slopes = N.rrelu_slopes_p(input, lower=float(lower), upper=float(upper), generator=op_generator())
    # as MindSpore's composite input * mask, mask = slope below 0, 1 above, 0 at 0: the gradient at 0 is 0
    positive = P.cast_p(P.greater_p(input, 0.0), dtype=input.dtype.name)
    return P.mul_p(input, P.where_p(P.less_p(input, 0.0), slopes, positive))


# ---------------------------------------------------------------- softmax family
def softmax(input, axis=-1, *, dtype=None):
    """exp(input) / sum(exp(input)) along `axis`.

    Args:
        input (Tensor): float tensor.
        axis (int): the axis to normalize. Default: ``-1``.
        dtype (mindspore.dtype, optional): cast `input` to this type first.

    Raises:
        TypeError: `axis` is not an int, or `input` is not a float tensor.

    >>> import mindseed as ms
    >>> ms.ops.softmax(ms.Tensor([1.0, 1.0]))
    Tensor(shape=[2], dtype=Float32, value= [5.00000000e-01 5.00000000e-01])
    """
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise TypeError(f" the type of 'axis' must be 'int', but got '{axis}' with type '{type(axis).__name__}'.")
    if dtype is not None:
        input = cast(input, dtype)
    _check_float("Softmax", "input", input)
    _check_softmax_rank("Softmax", input, axis)
    return N.softmax_p(input, axis=axis)


def _check_softmax_rank(op, x, axis):
    """MindSpore's Softmax family has no axis on a 0-d input (mint's, torch-style, takes one)."""
    if x.ndim == 0:
        raise ValueError(f"For primitive[{op}], the axis must be in [0,0), but got {axis}.")


def log_softmax(logits, axis=-1):
    """log(softmax(logits)) along `axis`, computed stably."""
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise TypeError(f"For 'LogSoftmax', the type of 'axis' must be 'int', but got '{axis}' with type "
                        f"'{type(axis).__name__}'.")
    _check_float("LogSoftmax", "logits", logits)
    _check_softmax_rank("LogSoftmax", logits, axis)
    return N.log_softmax_p(logits, axis=axis)


def softmin(x, axis=-1, *, dtype=None):
    """softmax(-x) along `axis`."""
    if dtype is not None:
        x = cast(x, dtype)
    _check_float("Softmin", "x", x)
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise TypeError(f"For 'Softmin', the type of 'axis' must be 'int', but got {type(axis).__name__}.")
    _check_softmax_rank("Softmax", x, axis)
    return N.softmax_p(P.neg_p(x), axis=axis)


def gumbel_softmax(logits, tau=1.0, hard=False, dim=-1):
    """Samples of the Gumbel-softmax distribution (one-hot in the forward pass when `hard`).

    Args:
        logits (Tensor): unnormalized log probabilities.
        tau (float): temperature, > 0. Default: ``1.0``.
        hard (bool): return one-hot vectors whose gradient is the soft sample's. Default: ``False``.
        dim (int): the class axis. Default: ``-1``.

    Raises:
        TypeError: bad argument types. ValueError: `tau` <= 0 or `dim` out of range.
    """
    _check_float("gumbel_softmax", "logits", logits)
    if not isinstance(tau, float):
        raise TypeError(f"For 'gumbel_softmax', the 'tau' must be float, but got {type(tau).__name__}.")
    if not isinstance(hard, bool):
        raise TypeError(f"For 'gumbel_softmax', the 'hard' must be bool, but got {type(hard).__name__}.")
    if tau <= 0:
        raise ValueError(f"For 'gumbel_softmax', the 'tau' must be positive, but got {tau}.")
    dim = _check_axis("gumbel_softmax", "dim", dim, logits.ndim)
    noisy = P.div_p(P.add_p(logits, N.gumbel_noise_p(logits, generator=op_generator())), tau)
    y = N.softmax_p(noisy, axis=dim)
    if not hard:
        return y
    one_hot = N.argmax_one_hot_p(y, axis=dim)
    return P.add_p(P.stop_gradient_p(P.sub_p(one_hot, y)), y)


# ---------------------------------------------------------------- dropout
def _check_p(op, p):
    if not isinstance(p, float):
        raise TypeError(f"For {op}, 'p' must be float, but got type {type(p)}.")
    if p < 0 or p > 1:
        raise ValueError(f"For {op}, the 'p' must be a number in range [0, 1], but got {p}.")


def _check_training(op, training):
    if not isinstance(training, bool):
        raise TypeError(f"For '{op}', the 'training' must be bool, but got {type(training).__name__}.")


def dropout(input, p=0.5, training=True, seed=None):
    """Zero each element with probability p and scale the rest by 1 / (1 - p) (identity when not training).

    Args:
        input (Tensor): float tensor.
        p (float): drop probability in [0, 1). Default: ``0.5``.
        training (bool): apply dropout. Default: ``True``.
        seed (int, optional): the op seed; with `ms.set_seed` the masks are MindSpore's.

    Raises:
        TypeError: `p` is not a float or `input` not a float tensor. ValueError: `p` out of [0, 1).

    >>> import mindseed as ms
    >>> ms.ops.dropout(ms.ops.ones((2, 2)), p=0.5).shape
    (2, 2)
    """
    _check_training("dropout", training)
    if not training:
        return input
    _check_float("Dropout", "input", input)
    if isinstance(p, bool) or not isinstance(p, (float, int)):
        raise TypeError(f"For 'Dropout', the 'p' must be float, but got {type(p).__name__}.")
    if not 0 <= p < 1:
        raise ValueError(f"For 'Dropout', the 'keep_prob' (1 - p) must be in range (0, 1], but got {1 - p}.")
    engines = _engines(seed, "dropout")     # MindSpore's Dropout kernel of this call, even when p is 0
    if p == 0:
        return input
    return N.dropout_p(input, p=float(p), generator=engines)[0]


def _channel_dropout(op, input, p, training, ndims):
    _check_p(op, p)
    _check_tensor(op, "input", input)
    _check_training(op, training)
    if not training:
        return input
    if input.ndim not in ndims:
        want = " or ".join(f"{n}D" for n in ndims)
        raise ValueError(f"For {op}, input shape should be {want}, but got {input.ndim}.")
    # a 2-D input of dropout1d is one sample (C, L): its mask varies over C only
    channel_dims = 1 if input.ndim == 2 else 2
    generator = op_generator() if op == "dropout1d" else _channel_dropout_engines(input.ndim, 1.0 - p)
    return N.dropout_p(input, p=p, generator=generator, channel_dims=channel_dims)[0]


_CHANNEL_DROPOUT_KERNELS = {}


def _channel_dropout_engines(ndim, keep_prob):
    """The engines of MindSpore's Dropout2D (ndim 4) / Dropout3D (ndim 5) kernels of `keep_prob`: MindSpore's
    PyNative shares one kernel per primitive name, attributes and input shape, whose engine is never seeded (the C++
    default, 1): every Dropout2D of one keep_prob continues one stream per shape, whatever the seeds."""
    key = (ndim, float(np.float32(keep_prob)))
    engines = _CHANNEL_DROPOUT_KERNELS.get(key)
    if engines is None:
        engines = _CHANNEL_DROPOUT_KERNELS[key] = B.KernelEngines(engine_seed=1)
    return engines


def dropout1d(input, p=0.5, training=True):
    """Zero whole channels of an (N, C, L) or (C, L) input with probability p, scaling the rest by 1 / (1 - p)."""
    return _channel_dropout("dropout1d", input, p, training, (2, 3))


def dropout2d(input, p=0.5, training=True):
    """Zero whole channels of an (N, C, H, W) input with probability p, scaling the rest by 1 / (1 - p)."""
    return _channel_dropout("dropout2d", input, p, training, (4,))


def dropout3d(input, p=0.5, training=True):
    """Zero whole channels of an (N, C, D, H, W) input with probability p, scaling the rest by 1 / (1 - p)."""
    return _channel_dropout("dropout3d", input, p, training, (5,))


# ---------------------------------------------------------------- dense layers
def bias_add(input_x, bias):
    """input_x + bias, with the 1-D bias along axis 1 (channels, NCHW).

    Raises:
        ValueError: `input_x` has fewer than 2 dimensions or the bias size differs from its channels.
    """
    _check_tensor("BiasAdd", "input_x", input_x)
    _check_tensor("BiasAdd", "bias", bias)
    if input_x.ndim < 2 or bias.ndim != 1 or bias.shape[0] != input_x.shape[1]:
        raise ValueError(f"For 'BiasAdd', the 'bias' must be 1-D with the size of dimension 1 of 'input_x', but "
                         f"got 'input_x' shape {input_x.shape} and 'bias' shape {bias.shape}.")
    if input_x.ndim > 2:
        bias = P.reshape_p(bias, shape=(bias.shape[0],) + (1,) * (input_x.ndim - 2))
    return P.add_p(input_x, bias)


def dense(input, weight, bias=None):
    """input @ weight.T + bias over the last axis of input.

    Args:
        input (Tensor): shape (*, in_channels).
        weight (Tensor): shape (out_channels, in_channels) or (in_channels,).
        bias (Tensor, optional): shape (out_channels,) or ().

    Raises:
        ValueError: in_channels of `input` and `weight` differ.

    >>> import mindseed as ms
    >>> ms.ops.dense(ms.ops.ones((2, 3)), ms.ops.ones((4, 3))).shape
    (2, 4)
    """
    _check_tensor("Dense", "input", input)
    _check_tensor("Dense", "weight", weight)
    if input.ndim == 0 or weight.ndim not in (1, 2) or weight.shape[-1] != input.shape[-1]:
        raise ValueError(f"For 'Dense', the last dimension of 'input' shape {input.shape} must equal the last "
                         f"dimension of 'weight' shape {weight.shape}.")
    if input.dtype != weight.dtype:
        raise TypeError(f"For 'Dense', the 'input' and 'weight' must have the same dtype, but got {input.dtype} and "
                        f"{weight.dtype}.")
    return N.dense_p(input, weight, bias)


def bidense(input1, input2, weight, bias=None):
    """input1^T weight input2 + bias for each row: weight (out, in1, in2), output (*, out).

    Raises:
        ValueError: the leading shapes of the inputs differ or do not match the weight.
    """
    for name, t in (("input1", input1), ("input2", input2), ("weight", weight)):
        _check_tensor("bidense", name, t)
    if input1.shape[:-1] != input2.shape[:-1] or weight.ndim != 3 or weight.shape[1:] != (input1.shape[-1],
                                                                                           input2.shape[-1]):
        raise ValueError(f"For 'bidense', the shapes of 'input1' {input1.shape}, 'input2' {input2.shape} and "
                         f"'weight' {weight.shape} do not match (weight must be (out, in1, in2)).")
    lead = input1.shape[:-1]
    n_out, in1, in2 = weight.shape
    x1 = P.reshape_p(input1, shape=(-1, in1))
    x2 = P.reshape_p(input2, shape=(-1, 1, in2))
    # (B, in1) @ (in1, out * in2) -> (B, out, in2), then contract in2 with x2
    w = P.reshape_p(P.transpose_p(weight, perm=(1, 0, 2)), shape=(in1, n_out * in2))
    t = P.reshape_p(P.matmul_p(x1, w), shape=(-1, n_out, in2))
    out = P.reduce_sum_p(P.mul_p(t, x2), axis=-1)
    if bias is not None:
        out = P.add_p(out, bias)
    return P.reshape_p(out, shape=lead + (n_out,))


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False):
    """Rows of `weight` selected by the integer `input`.

    Args:
        input (Tensor): integer indices, any shape.
        weight (Parameter): the table, (num_embeddings, embedding_dim).
        padding_idx (int, optional): this row gets no gradient.
        max_norm (float, optional): rows used are first renormalized (in place) to at most this norm.
        norm_type (float): the p of that norm. Default: ``2.0``.
        scale_grad_by_freq (bool): divide gradients by the number of occurrences of each index.

    Returns:
        Tensor of shape input.shape + (embedding_dim,).

    Raises:
        TypeError: `input` is not an integer tensor. ValueError: `padding_idx` out of range.
    """
    _check_tensor("embedding", "input", input)
    _check_tensor("embedding", "weight", weight)
    if not mstype.is_integral(input.dtype) or input.dtype == mstype.bool_:
        raise TypeError(f"For 'embedding', the 'input' must be an int tensor, but got {input.dtype}.")
    n = weight.shape[0]
    if padding_idx is not None:
        if not -n <= padding_idx < n:
            raise ValueError(f"For 'embedding', the 'padding_idx' must be in range [{-n}, {n}), but got "
                             f"{padding_idx}.")
        padding_idx %= n
    if max_norm is not None:
        weight.assign_value(N.embedding_renorm_p(weight, input, max_norm=float(max_norm),
                                                 norm_type=float(norm_type)))
    return N.embedding_p(input, weight, padding_idx=padding_idx, scale_grad_by_freq=bool(scale_grad_by_freq))


# ---------------------------------------------------------------- distances
def _check_p_norm(op, p):
    if isinstance(p, bool) or not isinstance(p, (int, float)):
        raise TypeError(f"For '{op}', the 'p' must be a float, but got {type(p).__name__}.")
    if p < 0:
        raise ValueError(f"For '{op}', the 'p' must be non-negative, but got {p}.")
    return float(p)


def cdist(x1, x2, p=2.0):
    """p-norm distances between the rows of x1 (*, P, M) and x2 (*, R, M): shape (*, P, R).

    Raises:
        ValueError: ranks below 2, or the batch or feature sizes differ.
    """
    _check_float("Cdist", "x1", x1)
    _check_float("Cdist", "x2", x2)
    p = _check_p_norm("Cdist", p)
    if x1.ndim < 2 or x1.ndim != x2.ndim or x1.shape[:-2] != x2.shape[:-2] or x1.shape[-1] != x2.shape[-1]:
        raise ValueError(f"For 'Cdist', the shapes of 'x1' {x1.shape} and 'x2' {x2.shape} must be (*, P, M) and "
                         f"(*, R, M).")
    return N.cdist_p(x1, x2, p=p)


def pdist(input, p=2.0):
    """p-norm distances between each pair of rows of an (*, N, M) input: shape (*, N (N - 1) / 2)."""
    _check_float("Pdist", "input", input)
    p = _check_p_norm("Pdist", p)
    if input.ndim < 2:
        raise ValueError(f"For 'Pdist', the 'input' must have at least 2 dimensions, but got {input.shape}.")
    n = input.shape[-2]
    rows, cols = np.triu_indices(n, 1)
    d = N.cdist_p(input, input, p=p)
    return P.getitem_p(d, index=(Ellipsis, Tensor(rows)._data, Tensor(cols)._data))


def cosine_similarity(x1, x2, dim=1, eps=1e-08):
    """sum(x1 * x2) / max(|x1| |x2|, eps) along `dim` (broadcasting)."""
    _check_tensor("cosine_similarity", "x1", x1)
    _check_tensor("cosine_similarity", "x2", x2)
    num = P.reduce_sum_p(P.mul_p(x1, x2), axis=dim)
    n1 = P.pow_p(P.reduce_sum_p(P.mul_p(x1, x1), axis=dim), 0.5)
    n2 = P.pow_p(P.reduce_sum_p(P.mul_p(x2, x2), axis=dim), 0.5)
    return P.div_p(num, P.maximum_p(P.mul_p(n1, n2), eps))


# ---------------------------------------------------------------- Tensor methods
def _softmax_method(self, axis, dtype=None):
    return softmax(self, axis, dtype=dtype)


TENSOR_METHODS = {
    "softmax": _softmax_method,
    "hardshrink": lambda self, lambd=0.5: hardshrink(self, lambd),
    "soft_shrink": lambda self, lambd=0.5: softshrink(self, lambd),
}
