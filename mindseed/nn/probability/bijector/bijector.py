"""mindspore.nn.probability.bijector: invertible maps with their log-Jacobians, written with mindseed ops."""


from mindseed import ops
from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.nn.cell import Cell
from mindseed.nn.probability.distribution.distribution import NamedParams, _check_range, to_tensor


class Bijector(NamedParams, Cell):
    """Base class: subclasses implement `_forward`, `_inverse` and `_forward_log_jacobian`."""

    def __init__(self, is_constant_jacobian=False, is_injective=True, name=None, dtype=None, param=None):
        super().__init__()
        cls = type(self).__name__
        if not isinstance(name, str):
            raise TypeError(f"For '{cls}', the 'name' must be str, but got {type(name).__name__}.")
        for arg, v in (("is_constant_jacobian", is_constant_jacobian), ("is_injective", is_injective)):
            if not isinstance(v, bool):
                raise TypeError(f"For '{name}', the '{arg}' must be bool, but got {type(v).__name__}.")
        if dtype is not None and dtype not in mstype.float_type:
            raise TypeError(f"For '{cls}', the 'dtype' must be a float type, but got {dtype}.")
        self._name = name
        self._dtype = dtype            # None: any float input, the parameters cast to it
        self._is_constant_jacobian = is_constant_jacobian
        self._is_injective = is_injective
        self._parameters_given = dict(param) if param else {}

    @property
    def is_constant_jacobian(self):
        return self._is_constant_jacobian

    @property
    def is_injective(self):
        return self._is_injective

    def _t(self, v, arg="value"):
        """A parameter given at construction as a Tensor of the bijector's dtype (float32 if it has none)."""
        return to_tensor(v, self._dtype or mstype.float32, self._name, arg)

    def _add_parameter(self, value, name):
        """`value` as a Tensor, recorded in `default_parameters` / `parameter_names` (MindSpore's helper for
        bijectors written by users): of the bijector's dtype, or, with none given, a float type shared by all."""
        if not hasattr(self, "default_parameters"):
            self.default_parameters, self.parameter_names, self.common_dtype = [], [], None
        if isinstance(value, bool) or value is None:
            raise TypeError(f"{name} cannot be type {type(value)}")
        value_t = value if isinstance(value, Tensor) else Tensor(value)
        if self._dtype is None:
            if self.common_dtype is None:
                self.common_dtype = value_t.dtype
            elif value_t.dtype != self.common_dtype:
                raise TypeError(f"{name} should have the same dtype as other arguments.")
            if value_t.dtype not in mstype.float_type:
                raise TypeError(f"For '{type(self).__name__}', the 'dtype of {name}' must be a float type, but got "
                                f"{value_t.dtype}.")
        elif value_t.dtype != self._dtype:
            raise TypeError(f"{name} should have the same dtype as the bijector's dtype.")
        self.default_parameters.append(value)
        self.parameter_names.append(name)
        return value_t

    def _check_value_dtype(self, value):
        """`value` itself: a float Tensor (of the bijector's dtype where it has one), else a TypeError."""
        if not isinstance(value, Tensor):
            raise TypeError(f"For '{self._name}', the input value of bijector must be a Tensor, but got "
                            f"{type(value).__name__}.")
        if self._dtype is None:
            if value.dtype not in mstype.float_type:
                raise TypeError(f"For '{self._name}', the input value of bijector must be a float Tensor, but got "
                                f"{value.dtype}.")
        elif value.dtype != self._dtype:
            raise TypeError(f"For '{self._name}', the input value of bijector must have dtype {self._dtype}, but "
                            f"got {value.dtype}.")
        return value

    def cast_param_by_value(self, value, para):
        """`para` cast to the dtype of `value`."""
        return ops.cast(para, value.dtype)

    def _apply(self, rule, value, args, kwargs):
        """A subclass's rule on the checked value; the result in the value's dtype (the parameters cast to it)."""
        value = self._check_value_dtype(value)
        out = rule(value, *args, **kwargs)
        return ops.cast(out, value.dtype) if isinstance(out, Tensor) and out.dtype != value.dtype else out

    def forward(self, value, *args, **kwargs):
        return self._apply(self._forward, value, args, kwargs)

    def inverse(self, value, *args, **kwargs):
        return self._apply(self._inverse, value, args, kwargs)

    def forward_log_jacobian(self, value, *args, **kwargs):
        return self._apply(self._forward_log_jacobian, value, args, kwargs)

    def inverse_log_jacobian(self, value, *args, **kwargs):
        return self._apply(self._inverse_log_jacobian, value, args, kwargs)

    def _inverse_log_jacobian(self, y):
        return -self._forward_log_jacobian(self._inverse(y))

    def construct(self, name, *args, **kwargs):
        methods = ("forward", "inverse", "forward_log_jacobian", "inverse_log_jacobian")
        if name not in methods:
            raise ValueError(f"For '{self._name}', the method name must be one of {methods}, but got {name!r}.")
        return getattr(self, name)(*args, **kwargs)


class ScalarAffine(Bijector):
    """y = scale * x + shift."""

    def __init__(self, scale=1.0, shift=0.0, name="ScalarAffine"):
        super().__init__(is_constant_jacobian=True, name=name, param={"scale": scale, "shift": shift})
        self.scale, self.shift = self._t(scale, "scale"), self._t(shift, "shift")
        if (self.scale.asnumpy() == 0).any():
            raise ValueError(f"For '{name}', 'scale' must be non-zero, but got {self.scale.asnumpy().tolist()}.")

    def _forward(self, x):
        return self.scale * x + self.shift

    def _inverse(self, y):
        return (y - self.shift) / self.scale

    def _forward_log_jacobian(self, x):
        return ops.log(ops.abs(self.cast_param_by_value(x, self.scale)))    # of the scale's shape, as MindSpore's


class PowerTransform(Bijector):
    """y = (1 + x * c) ** (1 / c), and y = exp(x) when c == 0."""

    def __init__(self, power=0.0, name="PowerTransform"):
        super().__init__(name=name, param={"power": power})
        self.power = self._t(power, "power")
        if (self.power.asnumpy() < 0).any():
            raise ValueError(f"For '{name}', 'power' must be >= 0, but got {self.power.asnumpy().tolist()}.")
        self._exp = bool((self.power.asnumpy() == 0).all())

    def _forward(self, x):
        if self._exp:
            return ops.exp(x)
        return ops.exp(ops.log1p(x * self.power) / self.power)

    def _inverse(self, y):
        if self._exp:
            return ops.log(y)
        return ops.expm1(ops.log(y) * self.power) / self.power

    def _forward_log_jacobian(self, x):
        if self._exp:
            return x
        return (1.0 / self.power - 1.0) * ops.log1p(x * self.power)

    def _inverse_log_jacobian(self, y):
        return (self.power - 1.0) * ops.log(y)


class Exp(PowerTransform):
    """y = exp(x)."""

    def __init__(self, name="Exp"):
        super().__init__(0.0, name=name)


class Softplus(Bijector):
    """y = log(1 + exp(k * x)) / k with sharpness k > 0."""

    def __init__(self, sharpness=1.0, name="Softplus"):
        super().__init__(name=name, param={"sharpness": sharpness})
        self.sharpness = self._t(sharpness, "sharpness")
        _check_range(name, "sharpness", self.sharpness, 0, None)

    def _forward(self, x):
        return ops.softplus(self.sharpness * x) / self.sharpness

    def _inverse(self, y):
        ky = self.sharpness * y
        return (ky + ops.log(-ops.expm1(-ky))) / self.sharpness

    def _forward_log_jacobian(self, x):
        return -ops.softplus(-self.sharpness * x)


class GumbelCDF(Bijector):
    """y = exp(-exp(-(x - loc) / scale)), the Gumbel cumulative distribution function."""

    def __init__(self, loc=0.0, scale=1.0, name="GumbelCDF"):
        super().__init__(name=name, param={"loc": loc, "scale": scale})
        self.loc, self.scale = self._t(loc, "loc"), self._t(scale, "scale")
        _check_range(name, "scale", self.scale, 0, None)

    def _forward(self, x):
        return ops.exp(-ops.exp(-(x - self.loc) / self.scale))

    def _inverse(self, y):
        return self.loc - self.scale * ops.log(-ops.log(y))

    def _forward_log_jacobian(self, x):
        z = (x - self.loc) / self.scale
        return -z - ops.exp(-z) - ops.log(self.scale)


class Invert(Bijector):
    """The inverse of `bijector`: forward and inverse (and their log-Jacobians) swapped."""

    def __init__(self, bijector, name=""):
        if not isinstance(bijector, Bijector):
            raise TypeError(f"For 'Invert', 'bijector' must be a Bijector, but got {type(bijector).__name__}.")
        super().__init__(is_constant_jacobian=bijector.is_constant_jacobian, name=name or "Invert" + bijector.name,
                         dtype=bijector.dtype, param={"bijector": bijector})
        self._bijector = bijector

    @property
    def bijector(self):
        return self._bijector

    def _forward(self, x):
        return self._bijector._inverse(x)

    def _inverse(self, y):
        return self._bijector._forward(y)

    def _forward_log_jacobian(self, x):
        return self._bijector._inverse_log_jacobian(x)

    def _inverse_log_jacobian(self, y):
        return self._bijector._forward_log_jacobian(y)


__all__ = ["Bijector", "Exp", "PowerTransform", "ScalarAffine", "Softplus", "GumbelCDF", "Invert"]
