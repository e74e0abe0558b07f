"""Initializers with MindSpore's names, defaults and fan computations.

Values are MindSpore's own: each random initializer takes a seed from numpy's global generator (which
`mindseed.set_seed` seeds) and draws MindSpore's Philox stream with it (`_init_random`), so a script seeded with
`set_seed` initializes its network with the same numbers as on MindSpore.
"""
import math
import numbers
import weakref

import numpy as np

from mindseed import _backend as B
from mindseed._utils.errors import host_alloc
from mindseed.common import dtype as mstype
from mindseed.common import _init_random as R
from mindseed.common.tensor import Tensor, _keep_placeholder

__all__ = ["Initializer", "initializer", "TruncatedNormal", "Normal", "Uniform", "HeUniform", "HeNormal",
           "XavierUniform", "XavierNormal", "One", "Zero", "Constant", "Identity", "Sparse", "Dirac",
           "Orthogonal", "VarianceScaling"]


def _calculate_fan_in_and_fan_out(shape):
    dims = len(shape)
    if dims < 2:
        raise ValueError(f"'fan_in' and 'fan_out' can not be computed for a tensor with fewer than 2 dimensions, "
                         f"but got dimensions {dims}.")
    receptive = int(np.prod(shape[2:])) if dims > 2 else 1
    return shape[1] * receptive, shape[0] * receptive


def _calculate_gain(nonlinearity, param=None):
    linear = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
              "conv_transpose3d", "sigmoid")
    if nonlinearity in linear:
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            slope = param
        else:
            raise ValueError(f"For 'HeUniform', 'negative_slope' {param} is not a valid number.")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"The argument 'nonlinearity' must be one of {linear + ('tanh', 'relu', 'leaky_relu', 'selu')}, "
                     f"but got {nonlinearity}.")


def _fan(shape, mode):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(shape)
    if mode == "fan_in":
        return fan_in
    if mode == "fan_out":
        return fan_out
    raise ValueError(f"The argument 'mode' must be 'fan_in' or 'fan_out', but got {mode}.")


class Initializer:
    """Base of initializers: `__call__(arr)` fills a numpy array in place."""

    def __init__(self, **kwargs):
        self._kwargs = kwargs

    def _initialize(self, arr):
        raise TypeError(f"{type(self).__name__} does not define _initialize.")

    def __call__(self, arr):
        self._initialize(arr)
        return arr


def _assign(arr, values):
    arr[...] = np.asarray(values, dtype=arr.dtype) if arr.dtype != np.bool_ else np.asarray(values).astype(bool)


def _assignment(arr, num):
    """MindSpore's helper of `Initializer._initialize` subclasses: write `num` (an array or a scalar) into `arr`
    in place and return it (user-defined initializers call it)."""
    _assign(arr, num)
    return arr


def _init_random_uniform(a, b, shape):
    """MindSpore's helper of initializers: a float32 array of `shape` drawn from U(a, b) (a seed from numpy's global
    generator, then MindSpore's Philox stream: `_init_random`)."""
    return R.uniform(R.numpy_seed(), tuple(shape), a, b)


def _init_random_normal(mean, sigma, shape):
    """A float32 array of `shape` drawn from N(mean, sigma^2) (MindSpore's helper, as `_init_random_uniform`)."""
    if sigma < 0:
        raise ValueError("sigma < 0")
    return R.normal(R.numpy_seed(), tuple(shape), mean, sigma)


def _init_truncated_normal(a, b, mean, sigma, shape):
    """A float32 array of `shape` drawn from N(mean, sigma^2) truncated to [a, b] (as `_init_random_uniform`)."""
    if sigma < 0:
        raise ValueError("sigma < 0")
    return R.truncated_normal(R.numpy_seed(), tuple(shape), a, b, mean, sigma)


def _init_random_uniform_inplace(a, b, arr):
    _assign(arr, _init_random_uniform(a, b, arr.shape))


def _init_random_normal_inplace(mean, sigma, arr):
    _assign(arr, _init_random_normal(mean, sigma, arr.shape))


def _init_truncated_normal_inplace(a, b, mean, sigma, arr):
    _assign(arr, _init_truncated_normal(a, b, mean, sigma, arr.shape))


class Zero(Initializer):
    def _initialize(self, arr):
        arr.fill(0)


class One(Initializer):
    def _initialize(self, arr):
        arr.fill(1)


class Constant(Initializer):
    def __init__(self, value):
        super().__init__(value=value)
        self.value = value

    def _initialize(self, arr):
        arr.fill(self.value)


class Normal(Initializer):
    """N(mean, sigma^2); MindSpore's defaults sigma=0.01, mean=0.0."""

    def __init__(self, sigma=0.01, mean=0.0):
        super().__init__(sigma=sigma, mean=mean)
        self.sigma, self.mean = sigma, mean

    def _initialize(self, arr):
        _init_random_normal_inplace(self.mean, self.sigma, arr)


class Uniform(Initializer):
    """U(-scale, scale); default scale=0.07."""

    def __init__(self, scale=0.07):
        super().__init__(scale=scale)
        self.scale = scale

    def _initialize(self, arr):
        _init_random_uniform_inplace(-self.scale, self.scale, arr)


class TruncatedNormal(Initializer):
    """N(mean, sigma^2) truncated to [a, b]; defaults sigma=0.01, mean=0.0, a=-2.0, b=2.0."""

    def __init__(self, sigma=0.01, mean=0.0, a=-2.0, b=2.0):
        super().__init__(sigma=sigma, mean=mean, a=a, b=b)
        self.sigma, self.mean, self.a, self.b = sigma, mean, a, b

    def _initialize(self, arr):
        _init_truncated_normal_inplace(self.a, self.b, self.mean, self.sigma, arr)


class XavierUniform(Initializer):
    """U(-b, b) with b = gain * sqrt(6 / (fan_in + fan_out))."""

    def __init__(self, gain=1):
        super().__init__(gain=gain)
        self.gain = gain

    def _initialize(self, arr):
        fan_in, fan_out = _calculate_fan_in_and_fan_out(arr.shape)
        bound = self.gain * math.sqrt(6.0 / (fan_in + fan_out))
        _init_random_uniform_inplace(-bound, bound, arr)


class XavierNormal(Initializer):
    """N(0, std^2) with std = gain * sqrt(2 / (fan_in + fan_out))."""

    def __init__(self, gain=1):
        super().__init__(gain=gain)
        self.gain = gain

    def _initialize(self, arr):
        fan_in, fan_out = _calculate_fan_in_and_fan_out(arr.shape)
        std = self.gain * math.sqrt(2.0 / float(fan_in + fan_out))
        _init_random_normal_inplace(0, std, arr)


class HeUniform(Initializer):
    """Kaiming uniform: U(-b, b), b = gain * sqrt(3 / fan); defaults negative_slope=0, fan_in, leaky_relu."""

    def __init__(self, negative_slope=0, mode="fan_in", nonlinearity="leaky_relu"):
        super().__init__(negative_slope=negative_slope, mode=mode, nonlinearity=nonlinearity)
        self.negative_slope, self.mode, self.nonlinearity = negative_slope, mode, nonlinearity

    def _initialize(self, arr):
        fan = _fan(arr.shape, self.mode)
        gain = _calculate_gain(self.nonlinearity, self.negative_slope)
        bound = math.sqrt(3.0) * (gain / math.sqrt(fan))
        _init_random_uniform_inplace(-bound, bound, arr)


class HeNormal(Initializer):
    """Kaiming normal: N(0, std^2), std = gain / sqrt(fan)."""

    def __init__(self, negative_slope=0, mode="fan_in", nonlinearity="leaky_relu"):
        super().__init__(negative_slope=negative_slope, mode=mode, nonlinearity=nonlinearity)
        self.negative_slope, self.mode, self.nonlinearity = negative_slope, mode, nonlinearity

    def _initialize(self, arr):
        fan = _fan(arr.shape, self.mode)
        std = _calculate_gain(self.nonlinearity, self.negative_slope) / math.sqrt(fan)
        _init_random_normal_inplace(0, std, arr)


class VarianceScaling(Initializer):
    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal"):
        if scale <= 0:
            raise ValueError(f"For 'VarianceScaling', 'scale' must be > 0, but got {scale}.")
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError(f"For 'VarianceScaling', 'mode' must be fan_in, fan_out or fan_avg, but got {mode}.")
        if distribution not in ("uniform", "truncated_normal", "untruncated_normal"):
            raise ValueError(f"For 'VarianceScaling', 'distribution' {distribution} is not supported.")
        super().__init__(scale=scale, mode=mode, distribution=distribution)
        self.scale, self.mode, self.distribution = scale, mode, distribution

    def _initialize(self, arr):
        fan_in, fan_out = _calculate_fan_in_and_fan_out(arr.shape)
        fan = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
        scale = self.scale / max(1.0, fan)
        # as in MindSpore 2.10, whose test names 'truncated_norm': the default 'truncated_normal' draws uniformly
        if self.distribution == "untruncated_normal":
            _assign(arr, _init_random_normal(0, np.sqrt(scale), arr.shape))
        else:
            limit = np.sqrt(3.0 * scale)
            _assign(arr, _init_random_uniform(-limit, limit, arr.shape))


class Identity(Initializer):
    """The identity matrix (2-D only)."""

    def _initialize(self, arr):
        if arr.ndim != 2:
            raise ValueError(f"For 'Identity' initializer, the dimension of the tensor must be 2, but got {arr.ndim}.")
        _assign(arr, np.eye(arr.shape[0], arr.shape[1]))


class Sparse(Initializer):
    """A 2-D matrix, N(0, sigma^2) with a `sparsity` share of each column set to zero."""

    def __init__(self, sparsity, sigma=0.01):
        super().__init__(sparsity=sparsity, sigma=sigma)
        self.sparsity, self.sigma = sparsity, sigma

    def _initialize(self, arr):
        if arr.ndim != 2:
            raise ValueError("For 'Sparse' initializer, the dimension of the tensor must be 2.")
        rows, cols = arr.shape
        zeros = int(math.ceil(self.sparsity * rows))
        data = _init_random_normal(0, self.sigma, arr.shape)
        for c in range(cols):
            data[np.random.permutation(list(range(rows)))[:zeros], c] = 0.
        _assign(arr, data)


class Dirac(Initializer):
    """Dirac delta for 3/4/5-D convolution weights, preserving the identity of the first in-channels."""

    def __init__(self, groups=1):
        super().__init__(groups=groups)
        self.groups = groups

    def _initialize(self, arr):
        dims = arr.ndim
        if dims not in (3, 4, 5):
            raise ValueError(f"For 'Dirac' initializer, only support dimension of 3, 4 or 5, but got {dims}.")
        shape = arr.shape
        if shape[0] % self.groups != 0:
            raise ValueError(f"For 'Dirac' initializer, the first dimension of the tensor must be divisible by "
                             f"groups, but got {shape[0]} and {self.groups}.")
        out_per_group = shape[0] // self.groups
        min_dim = min(out_per_group, shape[1])
        data = np.zeros(shape)
        for g in range(self.groups):
            for d in range(min_dim):
                centre = tuple(s // 2 for s in shape[2:])
                data[(g * out_per_group + d, d) + centre] = 1
        _assign(arr, data)


class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix times `gain`, flattened over trailing dims."""

    def __init__(self, gain=1.):
        super().__init__(gain=gain)
        self.gain = gain

    def _initialize(self, arr):
        if arr.ndim < 2:
            raise ValueError(f"For 'Orthogonal' initializer, the dimension of the tensor must be >= 2, but got "
                             f"{arr.ndim}.")
        rows = arr.shape[0]
        cols = arr.size // rows
        flat = _init_random_normal(0, 1, (rows, cols))
        if rows < cols:
            flat = flat.T
        q, r = np.linalg.qr(flat)
        q *= np.sign(np.diag(r))
        if rows < cols:
            q = q.T
        _assign(arr, self.gain * q.reshape(arr.shape))


_ALIASES = {
    "zeros": Zero, "zero": Zero, "ones": One, "one": One, "normal": Normal, "uniform": Uniform,
    "truncatednormal": TruncatedNormal, "truncated_normal": TruncatedNormal,
    "xavier_uniform": XavierUniform, "xavieruniform": XavierUniform, "xavier_normal": XavierNormal,
    "xaviernormal": XavierNormal, "he_uniform": HeUniform, "heuniform": HeUniform,
    "he_normal": HeNormal, "henormal": HeNormal, "identity": Identity, "eye": Identity,
    "orthogonal": Orthogonal, "dirac": Dirac, "variancescaling": VarianceScaling,
}
_INITIALIZER_ALIAS = _ALIASES    # MindSpore's name of the table `initializer('name', ...)` looks names up in


def _register(*aliases):
    """Class decorator (MindSpore's): make an Initializer subclass available to `initializer()` under its lower-case
    class name and `aliases`."""
    def register(cls):
        for name in (cls.__name__.lower(),) + aliases:
            _ALIASES[name.lower()] = cls
        return cls
    return register


def initializer(init, shape=None, dtype=mstype.float32):
    """A Tensor of `shape` and `dtype` filled by `init`.

    Args:
        init (Union[Tensor, str, Initializer, numbers.Number]): the values or how to make them; strings are
            MindSpore's names (``'normal'``, ``'zeros'``, ``'xavier_uniform'``, ``'he_uniform'``, ...).
        shape (Union[tuple, list, int]): the shape. Default: ``None`` (only with a Tensor init).
        dtype (mindspore.dtype): the element type. Default: ``mindspore.float32``.

    Raises:
        TypeError: `init` is of an unsupported type.
        ValueError: a Tensor `init` whose shape differs from `shape`.

    >>> from mindseed.common.initializer import initializer, One
    >>> initializer(One(), [1, 2], mindspore.float32).shape
    (1, 2)
    """
    if isinstance(init, Tensor):
        if shape is not None and tuple(init.shape) != tuple((shape,) if isinstance(shape, int) else shape):
            raise ValueError(f"For 'initializer', the shape of the 'init' tensor {init.shape} is not equal to "
                             f"'shape' {tuple(shape)}.")
        return init     # as MindSpore: the tensor itself, its dtype kept (`dtype` is for the other kinds of init)
    if isinstance(shape, int):
        shape = (shape,)
    shape = tuple(shape) if shape is not None else ()
    for s in shape:
        if isinstance(s, bool) or not isinstance(s, (int, np.integer)) or s < 0:
            raise ValueError(f"For 'initializer', the elements of 'shape' must be non-negative ints, but got {shape}.")
        if s == 0:     # MindSpore 2.10 makes no empty initialised tensor
            raise ValueError(f"For 'initializer', the argument 'shape' is invalid, the value of 'shape' must be "
                             f"positive integer, but got {shape}")
    if isinstance(init, str):
        key = init.lower()
        if key not in _ALIASES:
            raise ValueError(f"For 'initializer', the 'init' '{init}' is not supported, choose from "
                             f"{sorted(_ALIASES)}.")
        init = _ALIASES[key]()
    elif isinstance(init, bool) or isinstance(init, numbers.Number):
        init = Constant(init)
    elif isinstance(init, type) and issubclass(init, Initializer):
        init = init()
    if not isinstance(init, Initializer):
        raise TypeError(f"For 'initializer', the type of 'init' must be Tensor, str, Initializer or number, but got "
                        f"{type(init).__name__}.")
    if _deferring[0]:
        return _deferred(init, shape, dtype)
    # bfloat16 is filled in float32; qint4x2 (packed int4 pairs, one byte each) in its bytes' int8
    np_dtype = {mstype.bfloat16: np.float32, mstype.qint4x2: np.int8}.get(dtype) or mstype.dtype_to_nptype(dtype)
    work_dtype = np.float64 if np.issubdtype(np_dtype, np.floating) else np_dtype
    arr = host_alloc("initializer", np.zeros, shape, work_dtype,
                     nbytes=2 * int(np.prod(shape, dtype=np.float64)) * np.dtype(work_dtype).itemsize)
    init(arr)
    return Tensor(arr.astype(np_dtype) if dtype != mstype.bfloat16 else arr.astype(np.float32), dtype)


# `nn.utils.no_init_parameters`: while its depth is positive, `initializer` returns tensors that hold no data yet
# (meta tensors) and remembers how to fill them; a Parameter made from one keeps the recipe until `init_data()`
_deferring = [0]
_recipes = {}   # id(deferred tensor) -> (init, shape, dtype)


def _deferred(init, shape, dtype):
    t = _keep_placeholder(Tensor._from_raw(B.meta(shape, dtype.name)))
    _recipes[id(t)] = (init, shape, dtype)
    weakref.finalize(t, _recipes.pop, id(t), None)
    return t


def deferred_recipe(t):
    """How to fill `t`, a tensor `initializer` made under `no_init_parameters` (None for any other tensor)."""
    return _recipes.get(id(t))


def run_recipe(recipe):
    """The tensor a deferred `initializer` call stands for, computed now."""
    depth, _deferring[0] = _deferring[0], 0
    try:
        return initializer(*recipe)
    finally:
        _deferring[0] = depth
