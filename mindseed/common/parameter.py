"""Parameter: a named, trainable Tensor whose data can be replaced in place."""
import itertools
import numbers

import numpy as np

from mindseed import _backend as B
from mindseed._utils import _state
from mindseed.common import dtype as mstype
from mindseed.common.initializer import deferred_recipe, run_recipe
from mindseed.common.tensor import Tensor, _checked_convert, _handle, _keep_placeholder
from mindseed._utils._jit_forbidden import jit_forbidden_class, jit_forbidden_register

__all__ = ["Parameter", "ParameterTuple", "ParamInfo"]


class ParamInfo:
    """The attributes of a Parameter (MindSpore's `_c_expression.ParamInfo`): `name`, `requires_grad`,
    `layerwise_parallel`, `parallel_optimizer`, `comm_fusion`, `cache_enable`. A Parameter reads and writes them on
    its `param_info`, so assigning another Parameter's info object (or its `clone()`) gives it those attributes:
    optimizers clone their state this way (`state.param_info = param.param_info.clone()`, then rename the state)."""

    def __init__(self, name="Parameter", requires_grad=True, layerwise_parallel=False, parallel_optimizer=True,
                 comm_fusion=1):
        self.name = name
        self.requires_grad = requires_grad
        self.layerwise_parallel = layerwise_parallel
        self.parallel_optimizer = parallel_optimizer
        self.comm_fusion = comm_fusion
        self.cache_enable = False

    def clone(self):
        """A new info object with the same attributes."""
        info = ParamInfo(self.name, self.requires_grad, self.layerwise_parallel, self.parallel_optimizer,
                         self.comm_fusion)
        info.cache_enable = self.cache_enable
        return info


def _info_property(key, doc):
    return property(lambda self: getattr(self.__dict__["_info"], key),
                    lambda self, v: setattr(self.__dict__["_info"], key, v), doc=doc)


def _check_name(name):
    """MindSpore's check of a Parameter name (a ValueError there)."""
    if name is not None and not isinstance(name, str):
        raise ValueError(f"The type of the Parameter's name should be 'string' or 'None', but got {type(name)}.")


def _check_requires_grad(value):
    if not isinstance(value, bool):
        raise TypeError("The argument `requires_grad` must be bool type")


def _check_bool_flag(key, value):
    if not isinstance(value, bool):
        raise TypeError(f"The argument `{key}` must be bool type.")


def _bool_info_property(key, doc):
    def setter(self, value):
        _check_bool_flag(key, value)
        setattr(self.__dict__["_info"], key, value)
    return property(lambda self: getattr(self.__dict__["_info"], key), setter, doc=doc)


_GENERATED_IDS = itertools.count(1)


@jit_forbidden_class
class Parameter(Tensor):
    """A Tensor that belongs to a network: it has a name and may require gradients.

    Args:
        default_input: a Tensor, numpy array, number, or an initialized Tensor.
        name (str): the name; a Cell renames unnamed parameters by their attribute path.
        requires_grad (bool): whether optimizers and `weights=` gradients include it. Default: ``True``.

    >>> import mindseed as ms
    >>> p = ms.Parameter(ms.Tensor([1.0, 2.0]), name="w")
    >>> p.name
    'w'
    """

    # Parameters carry a __dict__ (users attach attributes); plain Tensors stay slotted.
    _base_name = "Parameter"

    @classmethod
    def _generated_name(cls):
        """The name of a Parameter created without one: "Parameter#<n>", unique in the process (MindSpore's); a
        Cell renames it after the attribute it is assigned to."""
        return f"{cls._base_name}#{next(_GENERATED_IDS)}"

    def __init__(self, default_input=None, name=None, requires_grad=True, layerwise_parallel=False,
                 parallel_optimizer=True, storage_format="", device=None):
        recipe = deferred_recipe(default_input) if isinstance(default_input, Tensor) else None
        if recipe is not None:
            # made by `initializer` under nn.utils.no_init_parameters: filled by init_data() or a checkpoint
            self._data = default_input._data
            _keep_placeholder(self)
        elif isinstance(default_input, Tensor):
            # a Parameter owns its storage (as in MindSpore): optimizers update it in place, which must not
            # reach the Tensor it was made from
            self._data = B.clone(default_input._data)
            _keep_placeholder(self)
        elif isinstance(default_input, bool):
            raise ValueError("Parameter data can not be `bool`")
        elif isinstance(default_input, (np.ndarray, numbers.Number, list, tuple)):
            # a Python int makes an int32 Parameter and a float a float32 one (MindSpore's rule)
            dtype = mstype.int32 if isinstance(default_input, int) else \
                mstype.float32 if isinstance(default_input, float) else None
            self._data = _checked_convert(default_input, dtype)
        else:
            raise TypeError(f"For 'Parameter', the 'default_input' must be Tensor, numpy.ndarray, number, list or "
                            f"tuple, but got {type(default_input).__name__}.")
        _check_name(name)
        _check_requires_grad(requires_grad)
        _check_bool_flag("layerwise_parallel", layerwise_parallel)
        _check_bool_flag("parallel_optimizer", parallel_optimizer)
        self.__dict__["_info"] = ParamInfo(name if name is not None else self._generated_name(), requires_grad,
                                           layerwise_parallel, parallel_optimizer)
        self.is_init = False     # MindSpore's flag of a parameter initialized on a GE device: never set here
        self.is_param_ps = False
        self.sliced = False
        self._init_recipe = recipe
        self.init_mode = None if recipe is None else recipe[0]
        self.init_param = recipe is None       # MindSpore's mark of a parameter whose initialization was skipped

    @property
    def name(self):
        return self.__dict__["_info"].name

    @name.setter
    def name(self, value):
        if value is None:
            value = self._generated_name()
        _check_name(value)
        self.__dict__["_info"].name = value

    @property
    def requires_grad(self):
        """Whether optimizers and `weights=` gradients include it."""
        return self.__dict__["_info"].requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        _check_requires_grad(value)
        self.__dict__["_info"].requires_grad = value
    layerwise_parallel = _bool_info_property("layerwise_parallel", "Whether the gradient is not reduced across "
                                                                   "data-parallel ranks (each holds its own slice).")
    parallel_optimizer = _bool_info_property("parallel_optimizer", "Whether the parallel optimizer shards it.")
    comm_fusion = _info_property("comm_fusion", "The fusion group of its gradient's all-reduce.")

    @property
    def cache_enable(self):
        """Whether the parameter is marked for a host-side embedding cache (MindSpore's parameter-server cache; a
        mark that `ModelCheckpoint` reads before saving: it asks such parameters to `flush_from_cache`)."""
        return self.__dict__["_info"].cache_enable

    @cache_enable.setter
    def cache_enable(self, value):
        if not isinstance(value, bool):
            raise TypeError("The argument `cache_enable` must be bool type.")
        self.__dict__["_info"].cache_enable = value

    @property
    def param_info(self):
        """The object holding the Parameter's attributes (see `ParamInfo`)."""
        return self.__dict__["_info"]

    @param_info.setter
    def param_info(self, info):
        if not isinstance(info, ParamInfo):
            raise TypeError(f"For 'Parameter', the 'param_info' must be a ParamInfo, but got {type(info).__name__}.")
        self.__dict__["_info"] = info

    @property
    def inited_param(self):
        return None

    @property
    def unique(self):
        """Whether the parameter is already unique (a flag MindSpore's parallel passes set), False at first."""
        return self.__dict__.get("_unique", False)

    @unique.setter
    def unique(self, unique_):
        self.__dict__["_unique"] = unique_

    @property
    def is_in_parallel(self):
        return False

    @jit_forbidden_register
    def set_data(self, data, slice_shape=False):
        """Replace the value, cast to the parameter's dtype. Any shape is accepted, as MindSpore 2.10 does, except
        while a graph is traced (its shapes are fixed). `data` is a Tensor, an int or a float; a float into an
        integer parameter is a TypeError (no implicit truncation)."""
        if not isinstance(data, (Tensor, int, float)):
            raise TypeError(f"Parameter data must be [`Tensor`, `int`, `float`] or a kind of `Tensor` "
                            f"(like `Tensor`). But with type {type(data)}.")
        if isinstance(data, float) and self.dtype in mstype.int_type:
            raise TypeError(f"Incoming Parameter dtype can not be converted to current dtype implicitly. "
                            f"Current dtype is {self.dtype}, and incoming is Float. Use .set_dtype(xxx) to change "
                            f"the dtype.")
        self._remember_value()
        if isinstance(data, Tensor) and data.dtype != self.dtype:
            data = data.astype(self.dtype)    # MindSpore 2.10 casts any Tensor to the parameter's dtype
        if isinstance(data, Tensor):
            raw = data._data
            rec = _state.tracing
            if rec is not None:
                # a constant made while tracing (`ops.assign(p, Tensor(0.0))`) is a captured graph input
                rec.on_parameter_write(self, data)
        else:
            raw = _checked_convert(data, self.dtype)
        shape = tuple(B.shape_of(raw))
        if shape != self.shape and not slice_shape and self.shape != () and _state.tracing is not None:
            raise ValueError(f"For 'Parameter.set_data', the shape of the new data {shape} must be the "
                             f"same as the shape of the parameter {self.shape}.")
        self._data = raw
        if self.__dict__.get("_init_recipe") is not None:
            self._init_done()       # a value from a checkpoint: nothing left to initialize
        return self

    def _remember_value(self):
        """Before an update: code traced speculatively (an untaken branch, a loop body traced before the loop runs)
        gets the value back at its end (compiler.trace's undo stack)."""
        for undo in _state.param_undo:
            undo.setdefault(id(self), (self, self._data))

    def assign_value(self, value):
        """Replace the data (no autodiff). While a graph is traced it is an Assign of the graph, so every call of
        the compiled function repeats it (a batch norm's running statistics)."""
        self._remember_value()
        rec = _state.tracing
        if rec is not None and isinstance(value, Tensor):
            rec.on_parameter_write(self, value)
        return super().assign_value(value)

    def set_dtype(self, dtype):
        self._data = B.cast(self._data, Tensor(0, dtype).dtype.name)
        return self

    @property
    def has_init(self):
        """Whether the parameter still waits for its initialization (made under nn.utils.no_init_parameters)."""
        return self.__dict__.get("_init_recipe") is not None

    @property
    def init(self):
        """The initializer `init_data()` will fill the Parameter from; None once its data is set (always, unless
        one is assigned: mindseed materializes Parameters when they are created)."""
        return self.__dict__.get("_pending_init")

    @init.setter
    def init(self, value):
        self.__dict__["_pending_init"] = value

    def init_data(self, layout=None, set_sliced=False):
        """Initialize a parameter whose initialization was skipped (nn.utils.no_init_parameters) or whose `init` was
        assigned an initializer; returns it."""
        recipe = self.__dict__.get("_init_recipe")
        if recipe is not None:
            self._data = run_recipe(recipe)._data
            self._init_done()
        pending = self.__dict__.pop("_pending_init", None)
        if pending is not None:
            from mindseed.common.initializer import initializer  # noqa: PLC0415
            self.set_data(initializer(pending, self.shape, self.dtype))
        return self

    def _init_done(self):
        self._init_recipe = None
        self.init_mode = None
        self.init_param = True

    def clone(self, init="same"):
        """A new Parameter of the same name: the same data, or `init`'s. A parameter waiting for its initialization
        (nn.utils.no_init_parameters) gives one that waits too, as does `init` under no_init_parameters (an
        optimizer's state made there: initialized with the parameters, e.g. as a parallel run's slices)."""
        from mindseed.common.initializer import deferred_recipe, initializer  # noqa: PLC0415
        recipe = self.__dict__.get("_init_recipe")
        if init != "same":
            data = initializer(init, self.shape, self.dtype)
            recipe = deferred_recipe(data)
            if recipe is None and data.dtype != self.dtype:
                data = data.astype(self.dtype)
        elif recipe is not None:
            data = Tensor._from_raw(B.meta(self.shape, self.dtype.name))
        else:
            data = Tensor(B.clone(self._data))
        p = Parameter(data, self.name, self.requires_grad, self.layerwise_parallel)
        p.cache_enable = self.cache_enable
        if recipe is not None and not p.has_init:
            p._defer(recipe)
        return p

    def _defer(self, recipe):
        """Wait for initialization by `recipe` (no data until `init_data()`)."""
        self._init_recipe = recipe
        self.init_mode = recipe[0]
        self.init_param = False

    def copy(self):
        """A new Parameter of the same name and data (`clone(init='same')`, as MindSpore's)."""
        return self.clone(init="same")

    def value(self):
        return _handle(self, self._data)

    def add_pipeline_stage(self, stage):
        pass

    def __repr__(self):
        return (f"Parameter (name={self.name}, shape={self.shape}, dtype={self.dtype}, "
                f"requires_grad={self.requires_grad})")

    def __str__(self):
        return self.__repr__()

    def __hash__(self):
        return id(self)

    def __reduce__(self):
        t = Tensor._from_raw(self._data)
        return (_rebuild_param, (t, self.name, self.requires_grad))

    def __deepcopy__(self, memo):
        p = Parameter(Tensor._from_raw(B.clone(self._data)), self.name, self.requires_grad)
        memo[id(self)] = p
        return p

    def __copy__(self):
        return Parameter(Tensor._from_raw(self._data), self.name, self.requires_grad)


def _is_parameter_generated(param_name):
    """Whether `param_name` is the name of a Parameter created without one ("Parameter#<n>"), not a chosen one."""
    if not param_name or not isinstance(param_name, str):
        return False
    return param_name.startswith(Parameter._base_name + "#")


def _rebuild_param(t, name, requires_grad):
    return Parameter(t, name, requires_grad)


class ParameterTuple(tuple):
    """A tuple of Parameters (names must be unique)."""

    def __new__(cls, iterable):
        items = tuple(iterable)
        ids, names = set(), set()
        for x in items:
            if not isinstance(x, Parameter):
                raise TypeError(f"For 'ParameterTuple', all elements must be Parameter, but got {type(x).__name__}.")
            if id(x) not in ids:    # the same Parameter twice is allowed, two Parameters of one name are not
                if x.name in names and not _is_parameter_generated(x.name):
                    raise ValueError(f"The value {x} , its name '{x.name}' already exists. Please set a unique name "
                                     f"for the parameter.")
                names.add(x.name)
                ids.add(id(x))
        return tuple.__new__(cls, items)

    def clone(self, prefix, init="same"):
        out = []
        for p in self:
            c = p.clone(init)
            c.name = f"{prefix}.{p.name}"
            out.append(c)
        return ParameterTuple(out)


class _Buffer(Tensor):
    """A Tensor that is part of a Cell's state but no parameter (BatchNorm's running mean): assigned to a Cell
    attribute it registers as a buffer (`Cell.buffers()`), not as a trainable parameter. It shares `data`'s storage.

    Args:
        data (Tensor): the buffer's value.

    Keyword Args:
        persistent (bool): whether the buffer belongs to the Cell's `state_dict`. Default ``True``.

    Raises:
        ValueError: `data` is None.
        TypeError: `data` is not a Tensor.
    """

    __slots__ = ("persistent",)

    def __new__(cls, data, *, persistent=True):
        if data is None:
            raise ValueError("For create Buffer, input data should not be None")
        if not isinstance(data, Tensor):
            raise TypeError("For create Buffer, type of input data should be Tensor")
        t = object.__new__(cls)
        t._data = data._data
        t.persistent = persistent
        return t

    def __init__(self, data, *, persistent=True):  # noqa: D107 -- __new__ built it
        pass

    def __reduce__(self):
        return (_rebuild_buffer, (Tensor._from_raw(self._data), self.persistent))

    def __deepcopy__(self, memo):
        b = _Buffer(Tensor._from_raw(B.clone(self._data)), persistent=self.persistent)
        memo[id(self)] = b
        return b


def _rebuild_buffer(t, persistent):
    return _Buffer(t, persistent=persistent)
