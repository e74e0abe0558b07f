"""mindspore.nn.probability.distribution.Distribution: the Cell base of every distribution.

A distribution holds its parameters (given at construction, or None to be given per call). Every public
method takes the parameters as trailing positional or keyword arguments that override the stored ones;
subclasses implement `_log_prob`/`_prob`, `_cdf`, `_mean`, `_var`, `_mode`, `_entropy`, `_kl` and `_sample`
with the parameters as Tensors, from mindseed ops, so every value is differentiable.
"""
import numpy as np

from mindseed import ops
from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.nn.cell import Cell
from mindseed.ops import operations as P
from mindseed._utils._props import readonly


def to_tensor(v, dtype=mstype.float32, api="Distribution", arg="value"):
    """A Tensor of `dtype` from a number, list, numpy array or Tensor."""
    if isinstance(v, Tensor):
        return v if v.dtype == dtype else ops.cast(v, dtype)
    if isinstance(v, bool) or not isinstance(v, (int, float, list, tuple, np.ndarray, np.number)):
        raise TypeError(f"For '{api}', '{arg}' must be an int, float, list, numpy.ndarray or Tensor, "
                        f"but got {type(v).__name__}.")
    return Tensor(np.asarray(v, dtype=mstype.dtype_to_nptype(dtype)))


def _check_range(api, arg, t, low, high):
    """Raises ValueError unless every element of `t` lies in (low, high) (open bounds; None = unbounded)."""
    a = t.asnumpy()
    if (low is not None and not np.all(a > low)) or (high is not None and not np.all(a < high)):
        lo = "-inf" if low is None else low
        hi = "inf" if high is None else high
        raise ValueError(f"For '{api}', '{arg}' must be in ({lo}, {hi}), but got {a.tolist()}.")


class NamedParams:
    """The name/dtype/parameters properties shared by distributions and bijectors."""

    name = readonly("_name")
    dtype = readonly("_dtype")
    parameters = readonly("_parameters_given")



# the rules a derived default computes from: a public method works when the subclass overrides one of them
_SOURCES = {"_prob": ("_prob", "_log_prob"), "_log_prob": ("_prob", "_log_prob"), "_log_cdf": ("_log_cdf", "_cdf"),
            "_survival": ("_survival", "_cdf"), "_log_survival": ("_log_survival", "_survival", "_cdf"),
            "_sd": ("_sd", "_var")}


def _check_implemented(self, name, *rules):
    """NotImplementedError (before any argument is looked at, as MindSpore) unless the subclass defines `rules`."""
    for rule in rules:
        if all(getattr(type(self), r) is getattr(Distribution, r) for r in _SOURCES.get(rule, (rule,))):
            self._unsupported(name)


# The rules a distribution implements. mindseed's own take the value and every parameter resolved (Tensors);
# a subclass written MindSpore's way (mindspore-rl's MultivariateNormalDiag) overrides them with MindSpore's
# protocol instead: `_log_prob(value, mean=None, sd=None)`, `_sample(shape=(), mean=None, sd=None)`, the per-call
# arguments as given (None: the stored parameter), resolved by `_check_param_type` and calling
# `super()._log_prob(value, mean=mean, sd=sd)`. mindseed's rules accept both (`_rule` below).
_VALUE_RULES = ("_prob", "_log_prob", "_cdf", "_log_cdf", "_survival", "_log_survival")
_PARAM_RULES = ("_mean", "_mode", "_sd", "_var", "_entropy")


def _own_rule(cls, rule):
    """mindseed's implementation of `rule` for `cls` (resolved arguments), or None when a subclass written
    MindSpore's way overrides it."""
    fn = getattr(cls, rule)
    if fn is getattr(Distribution, rule, None):     # the base class's derived default (exp of _log_prob, ...)
        return fn
    return getattr(fn, "__mindseed_rule__", None)


_DISPATCH = {}


def _dispatch(self, name, rule, *more):
    """What a public method runs, looked up once per class: NotImplementedError unless the class implements `rule`
    (and `more`); then mindseed's own rule (resolved arguments) or None (a rule overridden MindSpore's way)."""
    key = (type(self), rule, more)
    hit = _DISPATCH.get(key)
    if hit is None:
        implemented = True
        try:
            _check_implemented(self, name, rule, *more)
        except NotImplementedError:
            implemented = False
        hit = _DISPATCH[key] = (implemented, _own_rule(type(self), rule))
    if not hit[0]:
        self._unsupported(name)
    return hit[1]


def _rule(fn, kind):
    """mindseed's rule `fn` also callable with MindSpore's protocol: arguments by keyword or None are resolved
    against the stored parameters; a sample's `shape` is the sample shape (the batch shape is appended)."""
    if kind == "sample":
        def wrapper(self, shape=(), *args, **kwargs):
            shape = self.checktuple(shape, "shape")
            params = self._dist_params(args, kwargs)
            full = tuple(shape) + tuple(np.broadcast_shapes(*[q.shape for q in params]))
            return fn(self, full, *[ops.broadcast_to(q, full) for q in params])
    else:
        lead = 1 if kind == "value" else 0

        def wrapper(self, *args, **kwargs):
            given = args[lead:]
            if not kwargs and len(given) == len(self._param_names) and all(isinstance(a, Tensor) for a in given):
                return fn(self, *args)        # resolved already (mindseed's own calls)
            if lead and not args:
                raise TypeError(f"For '{self._name}', '{fn.__name__}' is missing the 'value'.")
            head = (self._value(args[0]),) if lead else ()
            return fn(self, *head, *self._dist_params(given, kwargs))
    wrapper.__name__, wrapper.__qualname__, wrapper.__doc__ = fn.__name__, fn.__qualname__, fn.__doc__
    wrapper.__mindseed_rule__ = fn
    return wrapper


def _of_value(name, rule):
    """The public method `name(value, *params)`: the subclass's `rule` on the checked value and parameters."""
    def method(self, value, *args, **kwargs):
        own = _dispatch(self, name, rule)
        if own is None:           # overridden MindSpore's way: the arguments as given
            return getattr(self, rule)(value, *args, **kwargs)
        return own(self, self._value(value), *self._dist_params(args, kwargs))
    method.__name__ = name
    method.__qualname__ = f"Distribution.{name}"
    return method


def _of_params(name, rule):
    """The public method `name(*params)`: the subclass's `rule` on the checked parameters."""
    def method(self, *args, **kwargs):
        own = _dispatch(self, name, rule)
        if own is None:
            return getattr(self, rule)(*args, **kwargs)
        return own(self, *self._dist_params(args, kwargs))
    method.__name__ = name
    method.__qualname__ = f"Distribution.{name}"
    return method


def stored(name):
    """The read-only property `name`: the parameter given at construction (a Tensor of param_dtype), or None."""
    return property(lambda self: self._values.get(name), doc=f"The '{name}' given at construction, or None.")


class Distribution(NamedParams, Cell):
    """Base class of distributions: parameter handling, method dispatch and the derived functions."""

    _param_names = ()      # parameter names, in per-call argument order
    _ranges = {}           # parameter name -> (low, high) open bounds checked on concrete values
    _continuous = True

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if not cls.__module__.startswith("mindseed."):
            return              # a subclass written MindSpore's way keeps its rules as they are
        for rule in _VALUE_RULES + _PARAM_RULES + ("_sample",):
            fn = cls.__dict__.get(rule)
            if fn is not None and not hasattr(fn, "__mindseed_rule__"):
                setattr(cls, rule, _rule(fn, "sample" if rule == "_sample" else
                                         "value" if rule in _VALUE_RULES else "params"))

    def __init__(self, seed, dtype, name, param):
        super().__init__()
        # the operators MindSpore's distributions hold, which subclasses written its way use
        self.cast = self.cast_base = P.Cast()
        self.shape = self.shape_base = P.Shape()
        self.dtype_base = P.DType()
        self.squeeze = P.Squeeze(0)
        self.sq = self.sq_base = P.Square()
        self.sqrt = self.sqrt_base = P.Sqrt()
        self.log = self.log_base = P.Log()
        self.exp = self.exp_base = P.Exp()
        self.broadcast = ops.broadcast_to
        if seed is None:
            seed = 0
        if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
            raise TypeError(f"For '{name}', 'seed' must be a non-negative int, but got {seed!r}.")
        if not isinstance(name, str):
            raise TypeError(f"For '{type(self).__name__}', the 'name' must be str, but got {type(name).__name__}.")
        if self._continuous and not mstype.is_float(dtype):
            raise TypeError(f"For '{name}', 'dtype' must be a float type, but got {dtype}.")
        if not self._continuous and dtype not in mstype.int_type + mstype.uint_type + mstype.float_type:
            raise TypeError(f"For '{name}', 'dtype' must be an int, uint or float type, but got {dtype}.")
        self._name, self._seed, self._dtype = name, seed, dtype
        self._parameters_given = dict(param) if param else {}
        param_dict = self._parameters_given.get("param_dict")
        if not self._param_names and isinstance(param_dict, dict):
            # a distribution written by a user, MindSpore's way: its parameters are those of param['param_dict']
            self._param_names = tuple(param_dict)
            self._parameters_given.update(param_dict)
        self._values = {}
        for p in self._param_names:
            v = self._parameters_given.get(p)
            self._values[p] = None if v is None else self._check_param(p, to_tensor(v, self.param_dtype, name, p))
        given = [v.shape for v in self._values.values() if v is not None]
        try:
            np.broadcast_shapes(*given)
        except ValueError:
            raise ValueError(f"For '{name}', the shapes of the parameters {[tuple(s) for s in given]} cannot be "
                             f"broadcast together.") from None
        self.parameter_type = self.param_dtype

    # ------------------------------------------------------------------ properties
    seed = readonly("_seed")

    @property
    def param_dtype(self):
        return self._dtype if mstype.is_float(self._dtype) else mstype.float32

    @property
    def batch_shape(self):
        shapes = [v.shape for v in self._values.values() if v is not None]
        return tuple(np.broadcast_shapes(*shapes)) if shapes else ()

    broadcast_shape = readonly("batch_shape")

    def get_dist_type(self):
        return type(self).__name__

    def get_dist_args(self, *args, **kwargs):
        return tuple(self._dist_params(args, kwargs))

    # ------------------------------------------------------------------ parameters
    def _check_param(self, p, t):
        """A parameter given at construction, checked on its values (MindSpore checks those only: the ones given
        per call, often computed inside a graph, are taken as they are)."""
        if p in self._ranges:
            _check_range(self._name, p, t, *self._ranges[p])
        return t

    def _dist_params(self, args, kwargs):
        if len(args) > len(self._param_names):
            raise TypeError(f"For '{self._name}', expected at most {len(self._param_names)} parameters "
                            f"{self._param_names}, but got {len(args)}.")
        out = []
        for i, p in enumerate(self._param_names):
            v = args[i] if i < len(args) else kwargs.pop(p, None)
            if v is None:
                v = self._values[p]
                if v is None:
                    raise ValueError(f"For '{self._name}', the parameter '{p}' was given neither at "
                                     f"construction nor in this call.")
            else:
                v = to_tensor(v, self.param_dtype, self._name, p)    # as MindSpore: no range check per call
            out.append(v)
        if kwargs:
            raise TypeError(f"For '{self._name}', unexpected arguments {sorted(kwargs)}.")
        return out

    def _value(self, value):
        return to_tensor(value, self.param_dtype, self._name, "value")

    # ------------------------------------------------------------------ MindSpore's helpers for its subclasses
    @property
    def parameter_names(self):
        return list(self._param_names)

    @property
    def default_parameters(self):
        return [self._values[p] for p in self._param_names]

    def checktuple(self, x, name):
        """`x` when it is a tuple, else TypeError (MindSpore's CheckTuple)."""
        if not isinstance(x, tuple):
            raise TypeError(f"For {name}, input type must be a tuple.")
        return x

    def checktensor(self, x, name):
        """`x` when it is a Tensor, else TypeError (MindSpore's CheckTensor)."""
        if not isinstance(x, Tensor):
            raise TypeError(f"For {name}, input type must be a Tensor or Parameter.")
        return x

    def _check_value(self, value, name):
        return self.checktensor(value, name)

    def _check_param_type(self, *args):
        """The parameters of a call (None: the one given at construction), as Tensors of the parameter dtype
        broadcast to their common shape; one parameter alone when the distribution has one."""
        for arg, name in zip(args, self._param_names):
            if arg is not None:
                self.checktensor(arg, name)
        params = self._dist_params(args, {})
        shape = tuple(np.broadcast_shapes(*[q.shape for q in params]))
        out = tuple(ops.broadcast_to(q, shape) for q in params)
        return out[0] if len(out) == 1 else out

    def _unsupported(self, what):
        raise NotImplementedError(f"For '{self._name}', {what} is not implemented for the "
                                  f"{self.get_dist_type()} distribution.")

    # ------------------------------------------------------------------ public API
    prob = _of_value("prob", "_prob")
    log_prob = _of_value("log_prob", "_log_prob")
    cdf = _of_value("cdf", "_cdf")
    log_cdf = _of_value("log_cdf", "_log_cdf")
    survival_function = _of_value("survival_function", "_survival")
    log_survival = _of_value("log_survival", "_log_survival")
    mean = _of_params("mean", "_mean")
    mode = _of_params("mode", "_mode")
    sd = _of_params("sd", "_sd")
    var = _of_params("var", "_var")
    entropy = _of_params("entropy", "_entropy")

    def _kl_args(self, dist, args, kwargs):
        if dist != self.get_dist_type():
            raise ValueError(f"For '{self._name}', kl_loss/cross_entropy support only dist "
                             f"'{self.get_dist_type()}', but got {dist!r}.")
        n = len(self._param_names)
        b_kwargs = {p: kwargs.pop(p + "_b", None) for p in self._param_names}
        a_kwargs = {p: kwargs.pop(p + "_a", None) for p in self._param_names}
        if kwargs:
            raise TypeError(f"For '{self._name}', unexpected arguments {sorted(kwargs)}.")
        b = list(args[:n]) + [b_kwargs[p] for p in self._param_names[len(args[:n]):]]
        if any(v is None for v in b):
            raise ValueError(f"For '{self._name}', kl_loss/cross_entropy need every parameter of the other "
                             f"distribution {self._param_names}.")
        b = [to_tensor(v, self.param_dtype, self._name, p + "_b") for p, v in zip(self._param_names, b)]
        a = self._dist_params(args[n:], {p: v for p, v in a_kwargs.items() if v is not None})
        return b, a

    def kl_loss(self, dist, *args, **kwargs):
        """KL(self || dist): `args` are dist's parameters, then optionally self's."""
        if hasattr(type(self), "_kl_loss"):     # MindSpore's rule, in a subclass written its way
            return self._kl_loss(dist, *args, **kwargs)
        _dispatch(self, "kl_loss", "_kl")
        b, a = self._kl_args(dist, args, kwargs)
        return self._kl(*b, *a)

    def cross_entropy(self, dist, *args, **kwargs):
        """H(self, dist) = entropy(self) + KL(self || dist)."""
        if hasattr(type(self), "_cross_entropy"):
            return self._cross_entropy(dist, *args, **kwargs)
        _dispatch(self, "cross_entropy", "_entropy", "_kl")
        b, a = self._kl_args(dist, args, kwargs)
        return self._entropy(*a) + self._kl(*b, *a)

    def sample(self, shape=(), *args, **kwargs):
        own = _dispatch(self, "sample", "_sample")
        if own is None:           # overridden MindSpore's way: the sample shape and the arguments as given
            return self._sample(shape, *args, **kwargs)
        if isinstance(shape, int) and not isinstance(shape, bool):
            shape = (shape,)
        if not isinstance(shape, (tuple, list)) or not all(isinstance(s, int) and s >= 0 for s in shape):
            raise TypeError(f"For '{self._name}', 'shape' must be a tuple of non-negative ints, but got {shape!r}.")
        params = self._dist_params(args, kwargs)
        full = tuple(shape) + tuple(np.broadcast_shapes(*[p.shape for p in params]))
        return own(self, full, *[ops.broadcast_to(p, full) for p in params])

    def _sample_full(self, full, *params):
        """Samples of the full shape `full` (sample shape + batch shape) for resolved parameters broadcast to it."""
        own = _own_rule(type(self), "_sample")
        if own is not None:
            return own(self, full, *params)
        batch = np.broadcast_shapes(*[p.shape for p in params]) if params else ()
        return self._sample(tuple(full[:len(full) - len(batch)]), *params)

    def construct(self, name, *args, **kwargs):
        methods = ("prob", "log_prob", "cdf", "log_cdf", "survival_function", "log_survival", "mean", "sd",
                   "var", "mode", "entropy", "kl_loss", "cross_entropy", "sample", "get_dist_args",
                   "get_dist_type")
        if name not in methods:
            raise ValueError(f"For '{self._name}', the method name must be one of {methods}, but got {name!r}.")
        return getattr(self, name)(*args, **kwargs)

    # ------------------------------------------------------------------ derived defaults
    def _prob(self, x, *p):
        return ops.exp(self._log_prob(x, *p))

    def _log_prob(self, x, *p):
        if type(self)._prob is Distribution._prob:
            self._unsupported("log_prob")
        return ops.log(self._prob(x, *p))

    def _cdf(self, x, *p):
        self._unsupported("cdf")

    def _log_cdf(self, x, *p):
        return ops.log(self._cdf(x, *p))

    def _survival(self, x, *p):
        return 1.0 - self._cdf(x, *p)

    def _log_survival(self, x, *p):
        return ops.log(self._survival(x, *p))

    def _sd(self, *p):
        return ops.sqrt(self._var(*p))

    def _var(self, *p):
        self._unsupported("var")

    def _mean(self, *p):
        self._unsupported("mean")

    def _mode(self, *p):
        self._unsupported("mode")

    def _entropy(self, *p):
        self._unsupported("entropy")

    def _kl(self, *p):
        self._unsupported("kl_loss")

    def _sample(self, shape, *p):
        self._unsupported("sample")

    def _uniform(self, shape):
        """Uniform(0, 1) samples of `shape`, kept away from 0 and 1 so that logs stay finite."""
        gen_seed = self._seed or None
        u = ops.uniform(shape, Tensor(np.float32(0)), Tensor(np.float32(1)), seed=gen_seed)
        u = ops.clamp(u, 1e-7, 1.0 - 1e-7)
        return u if self.param_dtype == mstype.float32 else ops.cast(u, self.param_dtype)

    def _normal(self, shape):
        z = ops.standard_normal(shape, seed=self._seed or None)
        return z if self.param_dtype == mstype.float32 else ops.cast(z, self.param_dtype)
