"""Optimizer: the base of MindSpore's optimizers (parameter groups, dynamic learning rate, weight decay).

The state an optimizer keeps is made of Parameters named as MindSpore names them (`global_step`,
`learning_rate`, `moments.<param>`, ...), so optimizer checkpoints line up with MindSpore's. A step
runs outside autodiff: the gradients are preprocessed (weight decay, gradient centralization,
loss-scale division) and the update rule applied in place by the primitives of `ops._prims.optim`
(MindSpore's ApplyMomentum, Adam, ...), one call of a fused kernel for each run of parameters sharing
their hyper-parameters. What it shares with `experimental.optim.Optimizer` is in `OptimizerBase`.
"""
import inspect
from collections.abc import Iterable

import numpy as np

from mindseed import ops
from mindseed._utils import _state
from mindseed.common import dtype as mstype
from mindseed.common.parameter import Parameter, ParameterTuple
from mindseed.common.tensor import RowTensor, Tensor
from mindseed.nn.cell import Cell
from mindseed.nn.layer.container import CellList
from mindseed.nn.learning_rate_schedule import LearningRateSchedule
from mindseed.nn.optim import _validator as V
from mindseed.nn.optim._base import OptimizerBase

__all__ = ["Optimizer", "opt_init_args_register"]

_GROUP_KEYS = ["params", "lr", "weight_decay", "order_params", "grad_centralization"]


def opt_init_args_register(fn):
    """Decorator of optimizer `__init__`s recording the arguments (`init_params`, `init_learning_rate`, `init_args`)."""

    def deco(self, *args, **kwargs):
        arguments = inspect.signature(fn).bind(self, *args, **kwargs)
        arguments.apply_defaults()
        arguments = dict(arguments.arguments)
        arguments.pop("self")
        if "params" in arguments:
            object.__setattr__(self, "init_params", {"params": arguments.pop("params")})
        if "optimizer" in arguments:
            if not hasattr(arguments["optimizer"], "init_params"):
                raise TypeError(f"For '{type(self).__name__}', the 'optimizer' must be an Optimizer, but got "
                                f"{type(arguments['optimizer']).__name__}.")
            object.__setattr__(self, "init_params", {"params": arguments.pop("optimizer").init_params["params"]})
        if "learning_rate" in arguments:
            lr = arguments.pop("learning_rate")
            if isinstance(lr, Tensor):
                lr = lr.asnumpy().tolist()
            object.__setattr__(self, "init_learning_rate", None if isinstance(lr, Cell) else lr)
        object.__setattr__(self, "init_args", arguments)
        fn(self, *args, **kwargs)

    deco.__wrapped__ = fn
    deco.__doc__ = fn.__doc__
    return deco


class Optimizer(OptimizerBase):
    """Base class of optimizers; subclasses define `construct(gradients)` applying one update.

    Args:
        learning_rate (Union[float, int, Tensor, Iterable, LearningRateSchedule]): a fixed rate (float, int or
            0-d Tensor), a rate per step (1-D Tensor or list; step i uses element i), or a schedule called with
            the global step.
        parameters (Union[list[Parameter], list[dict]]): the parameters, or parameter groups: dicts with
            ``'params'`` and optionally ``'lr'``, ``'weight_decay'``, ``'grad_centralization'``; one dict may hold
            only ``'order_params'`` (the order of the parameters, and so of the gradients).
        weight_decay (Union[float, int, Cell]): L2 penalty added to the gradients; without groups, parameters whose
            name contains ``'beta'`` or ``'gamma'`` are not decayed. Default: ``0.0``.
        loss_scale (float): gradients are divided by it (and weight decay multiplied). Default: ``1.0``.

    Raises:
        TypeError: `learning_rate`, `parameters`, `weight_decay` or `loss_scale` has a wrong type.
        ValueError: `loss_scale` <= 0, `weight_decay` < 0, or a Tensor `learning_rate` with more than 1 dimension.

    >>> import mindseed as ms
    >>> class MySGD(ms.nn.Optimizer):
    ...     def __init__(self, params, learning_rate):
    ...         super().__init__(learning_rate, params)
    ...     def construct(self, gradients):
    ...         lr = self.get_lr()
    ...         for p, g in zip(self.parameters, gradients):
    ...             p.set_data(p - lr * g)
    ...         return True
    >>> w = ms.Parameter(ms.Tensor([1.0]), name="w")
    >>> _ = MySGD([w], 0.5)((ms.Tensor([1.0]),))
    >>> float(w[0])
    0.5
    """

    _support_parallel_optimizer = False

    def __init__(self, learning_rate, parameters, weight_decay=0.0, loss_scale=1.0):
        super().__init__()
        parameters = self._parameters_base_check(parameters, "parameters")
        self.param_rank = None
        self.optim_filter = None
        if not all(isinstance(x, Parameter) for x in parameters) and not all(isinstance(x, dict) for x in parameters):
            raise TypeError("For 'Optimizer', all elements of the argument 'parameters' must be 'Parameter' or "
                            "'dict', please check the 'parameters'.")
        if isinstance(loss_scale, int) and not isinstance(loss_scale, bool):
            loss_scale = float(loss_scale)
        V.value_type("loss_scale", loss_scale, [float], self.cls_name)
        V.positive_float(loss_scale, "loss_scale", self.cls_name)
        self.loss_scale = loss_scale
        self.dynamic_weight_decay = False
        self.grad_centralization = False
        self._unique = True
        self.dynamic_lr = False
        self.global_step = Parameter(Tensor(np.zeros([1], np.int32)), name="global_step")
        self._target = self.global_step.device
        # what MindSpore's base class gives the `construct`/`get_lr` of user-written optimizers
        self.global_step_increase_tensor = Tensor([1], mstype.int32)
        self.assignadd = ops.AssignAdd()
        self.hyper_map, self.map_ = ops.HyperMap(), ops.Map()
        self.hyper_map_reverse, self.map_reverse = ops.HyperMap(None, True), ops.Map(None, True)
        self.is_group = False
        self.is_group_lr = False
        self.is_group_params_ordered = False
        learning_rate = self._preprocess_single_lr(learning_rate)
        if isinstance(parameters[0], dict):
            self.is_group = True
            self.group_params = []
            self.group_lr = []
            self.group_weight_decay = []
            self.group_grad_centralization = []
            self._init_group_params(parameters, learning_rate, weight_decay, self.grad_centralization)
        self._init_opt_attrs(learning_rate, parameters, weight_decay)

    # ------------------------------------------------------------ construction
    def _init_opt_attrs(self, learning_rate, parameters, weight_decay):
        weight_decay = self._preprocess_weight_decay(weight_decay)
        if self.is_group_lr:
            if self.dynamic_lr:
                self.learning_rate = CellList(self.group_lr, auto_prefix=False)
            else:
                self.learning_rate = ParameterTuple(self.group_lr)
        else:
            self.learning_rate = self._build_single_lr(learning_rate, "learning_rate")
        if self.is_group:
            self.parameters = ParameterTuple(self.group_params)
            self.decay_flags = tuple(isinstance(x, Cell) or x > 0 for x in self.group_weight_decay)
            self.dynamic_decay_flags = tuple(isinstance(x, Cell) for x in self.group_weight_decay)
            self.weight_decay = tuple(x if flag else Tensor(x, mstype.float32)
                                      for x, flag in zip(self.group_weight_decay, self.dynamic_decay_flags))
            self.exec_weight_decay = any(self.decay_flags)
            self.grad_centralization_flags = tuple(self.group_grad_centralization)
            self.dynamic_weight_decay = any(self.dynamic_decay_flags)
        else:
            self.parameters = ParameterTuple(parameters)
            self.decay_flags = tuple("beta" not in x.name and "gamma" not in x.name for x in self.parameters)
            self.dynamic_decay_flags = isinstance(weight_decay, Cell)
            self.exec_weight_decay = isinstance(weight_decay, Cell) or weight_decay > 0
            self.weight_decay = weight_decay if self.dynamic_decay_flags else Tensor(weight_decay, mstype.float32)
            self.grad_centralization_flags = (False,) * len(self.parameters)
        self._parameters = self.parameters
        self._user_parameters.extend(p.name for p in self._parameters)   # the user's, not renamed with the cell's
        self.reciprocal_scale = Tensor(1.0 / self.loss_scale, mstype.float32)
        self.need_scale = self.loss_scale != 1.0
        self.param_length = len(self._parameters)
        self.optim_filter = (True,) * self.param_length
        self.use_parallel = False
        self._success = (True,) * self.param_length
        self._build_plan()

    def _build_plan(self):
        """Precompute, once, how a step reads learning rates and decays: runs of parameters sharing a rate."""
        lrs = list(self.learning_rate) if self.is_group_lr else [self.learning_rate] * self.param_length
        sources, index, per_param = [], {}, []
        for lr in lrs:
            if id(lr) not in index:
                index[id(lr)] = len(sources)
                sources.append(lr)
            per_param.append(index[id(lr)])
        self.__dict__["_lr_sources"] = sources
        self.__dict__["_segments"] = [tuple(s) for s in _runs(per_param)]
        self.__dict__["_gc_flags"] = tuple(self.grad_centralization_flags)

    def _preprocess_single_lr(self, learning_rate):
        if isinstance(learning_rate, (float, int)) and not isinstance(learning_rate, bool):
            learning_rate = float(learning_rate)
            V.non_negative_float(learning_rate, "learning rate", self.cls_name)
            return learning_rate
        if isinstance(learning_rate, Tensor) and learning_rate.ndim == 0:
            return Tensor(learning_rate.asnumpy(), mstype.float32)
        self.dynamic_lr = True
        if isinstance(learning_rate, LearningRateSchedule):
            return learning_rate
        if isinstance(learning_rate, Tensor):
            if learning_rate.ndim > 1:
                raise ValueError(f"For 'Optimizer', if 'learning_rate' is Tensor type, then the dimension of it "
                                 f"should be 0 or 1, but got {learning_rate.ndim}.")
            return Tensor(learning_rate.asnumpy(), mstype.float32)
        if isinstance(learning_rate, Iterable):
            # as MindSpore: any iterable goes through numpy (a str is its characters: numpy's ValueError)
            return Tensor(np.array(list(learning_rate)).astype(np.float32))
        raise TypeError(f"For 'Optimizer', the argument 'learning_rate' must be int, float, Tensor, Iterable or "
                        f"LearningRateSchedule, but got {type(learning_rate)}.")

    def _build_single_lr(self, learning_rate, name):
        if isinstance(learning_rate, float) or (isinstance(learning_rate, Tensor) and learning_rate.ndim == 0):
            learning_rate = self._lr_parameter(learning_rate, name)
            return _ConvertToCell(learning_rate) if self.is_group_lr and self.dynamic_lr else learning_rate
        if isinstance(learning_rate, Tensor) and learning_rate.ndim == 1:
            return _IteratorLearningRate(learning_rate, name)
        return learning_rate

    def _preprocess_weight_decay(self, weight_decay):
        if isinstance(weight_decay, (float, int)) and not isinstance(weight_decay, bool):
            weight_decay = float(weight_decay)
            V.non_negative_float(weight_decay, "weight_decay", self.cls_name)
            return weight_decay * self.loss_scale
        if isinstance(weight_decay, Cell):
            self.dynamic_weight_decay = True
            return _WrappedWeightDecay(weight_decay, self.loss_scale)
        raise TypeError(f"For 'Optimizer', the argument 'Weight_decay' must be int, float or Cell.but got "
                        f"{type(weight_decay)}")

    @staticmethod
    def _preprocess_grad_centralization(grad_centralization):
        if not isinstance(grad_centralization, bool):
            raise TypeError(f"For 'Optimizer', the 'gradients_centralization' must be bool type, but got "
                            f"{type(grad_centralization)}.")
        return grad_centralization

    def _check_group_params(self, parameters):
        for group in parameters:
            invalid = [k for k in group.keys() if k not in _GROUP_KEYS]
            if invalid:
                raise KeyError(f"For 'Optimizer', the key in group params must be one of in {_GROUP_KEYS}, but got "
                               f"{invalid}.")
            if "order_params" in group:
                if len(group) > 1:
                    raise ValueError(f"For 'Optimizer', the order params dict in group parameters should only "
                                     f"include the 'order_params' key, but got {group.keys()}.")
                if not isinstance(group["order_params"], Iterable):
                    raise TypeError(f"For 'Optimizer', the value of 'order_params' in group parameters should be "
                                    f"Iterable type, but got {type(group['order_params'])}.")
                continue
            params = self._parameters_base_check(group["params"], "group `params`")
            for index, param in enumerate(params):
                if not isinstance(param, Parameter):
                    raise TypeError(f"For 'Optimizer', the element in group parameters must be Parameter type, but "
                                    f"got {type(param)} at index {index}.")

    def _parse_group_params(self, parameters, learning_rate):
        self._check_group_params(parameters)
        tensor_lr_length = learning_rate.size if isinstance(learning_rate, Tensor) and learning_rate.ndim == 1 else 0
        for group in parameters:
            if "order_params" in group:
                self.is_group_params_ordered = True
                continue
            if "lr" in group:
                self.is_group_lr = True
                group_lr = self._preprocess_single_lr(group["lr"])
                if isinstance(group_lr, Tensor) and group_lr.ndim == 1:
                    if tensor_lr_length == 0:
                        tensor_lr_length = group_lr.size
                    elif group_lr.size != tensor_lr_length:
                        raise ValueError("For 'Optimizer', the Tensor type dynamic learning rate in group must be the "
                                         "same size as the argument 'learning_rate'.")

    def _init_group_params(self, parameters, learning_rate, weight_decay, grad_centralization):
        self._parse_group_params(parameters, learning_rate)
        default_lr = self._build_single_lr(learning_rate, "learning_rate")
        params_store = set()
        ordered_parameters = []
        for group_num, group in enumerate(parameters):
            if "order_params" in group:
                ordered_parameters = list(group["order_params"])
                continue
            params = list(group["params"])
            self.group_params += params
            if "lr" in group:
                lr = self._build_single_lr(self._preprocess_single_lr(group["lr"]), f"learning_rate_group_{group_num}")
            else:
                lr = default_lr
            wd = self._preprocess_weight_decay(group.get("weight_decay", weight_decay))
            if "grad_centralization" in group:
                self.grad_centralization = self._preprocess_grad_centralization(group["grad_centralization"])
                gc = self.grad_centralization
            else:
                gc = grad_centralization
            for param in params:
                if param.name in params_store:
                    raise RuntimeError(f"For 'Optimizer', the {param.name} parameter already exists, it does not "
                                       f"support repeated setting. Please check whether the optimizer parameter has "
                                       f"been set multiple times.")
                params_store.add(param.name)
                self.group_lr.append(lr)
                self.group_weight_decay.append(wd)
                self.group_grad_centralization.append(gc)
        if self.is_group_params_ordered and ordered_parameters:
            self._order_and_adjust_group_params(ordered_parameters)

    def _order_and_adjust_group_params(self, ordered_parameters):
        n = len(self.group_params)
        if len(ordered_parameters) != n:
            raise ValueError(f"For 'Optimizer',the length of order parameters must be the same as the length of group "
                             f"parameters, but got order parameters' length {len(ordered_parameters)}, group "
                             f"parameters' length {n}.")
        names = [p.name for p in ordered_parameters]
        order = [None] * n
        for i, param in enumerate(self.group_params):
            if param.name not in names:
                raise ValueError(f"For 'Optimizer', the parameter {param.name} of the groups is not in "
                                 f"'order_params'.")
            order[names.index(param.name)] = i
        self.group_params = [self.group_params[i] for i in order]
        self.group_lr = [self.group_lr[i] for i in order]
        self.group_weight_decay = [self.group_weight_decay[i] for i in order]
        self.group_grad_centralization = [self.group_grad_centralization[i] for i in order]

    # ------------------------------------------------------------ properties
    @property
    def unique(self):
        """Whether sparse gradients are made unique before the update (kept for MindSpore compatibility)."""
        return self._unique

    @unique.setter
    def unique(self, value):
        if not isinstance(value, bool):
            raise TypeError(f"For 'Optimizer', the property 'unique' must be bool, but got {type(value)}")
        self._unique = value

    @property
    def target(self):
        """Where the update runs: 'CPU' or 'GPU' (the device of the parameters)."""
        return self._target

    @target.setter
    def target(self, value):
        self._set_base_target(value)

    def _set_base_target(self, value):
        if not isinstance(value, str):
            raise TypeError(f"For 'Optimizer', the property 'target' must be string, but got {type(value)}")
        if value not in ("CPU", "Ascend", "GPU"):
            raise ValueError(f"For 'Optimizer', the property 'target' must be one of ['CPU', 'Ascend' ,'GPU'], but "
                             f"got {value}")
        if self._target == "CPU" and value in ("Ascend", "GPU"):
            raise ValueError("For 'Optimizer', the property 'target' cannot be set to 'GPU' or 'Ascend' in the 'CPU' "
                             "environment.")
        self._target = value

    # ------------------------------------------------------------ public helpers (MindSpore's API)
    def get_lr(self):
        """The learning rate of the current step: the Parameter (fixed rate), a Tensor (dynamic) or a tuple (groups)."""
        lr = self.learning_rate
        if self.dynamic_lr:
            if self.is_group_lr:
                return tuple(cell(self.global_step).reshape(()) for cell in self.learning_rate)
            return self.learning_rate(self.global_step).reshape(())
        return tuple(lr) if self.is_group_lr else lr

    def get_lr_parameter(self, param):
        """The learning rate (Parameter, or schedule Cell when dynamic) of a Parameter or a list of Parameters.

        >>> import mindseed as ms
        >>> w = ms.Parameter(ms.Tensor([1.0]), name="w")
        >>> opt = ms.nn.SGD([{'params': [w], 'lr': 0.05}], learning_rate=0.1)
        >>> round(float(opt.get_lr_parameter(w)), 4)
        0.05
        """
        if isinstance(param, Parameter):
            param_list = [param]
        elif isinstance(param, list):
            param_list = param
        else:
            raise TypeError(f"For 'get_lr_parameter', the 'param' must be 'Parameter' or 'list' type, but got "
                            f"{type(param)}.")
        ids = [id(p) for p in self._parameters]
        lr = []
        for p in param_list:
            V.value_type("parameter", p, [Parameter], self.cls_name)
            if id(p) not in ids:
                raise ValueError(f"For 'get_lr_parameter', the parameter {p.name} is not in optimizer, please check "
                                 f"whether the argument 'param' is correct.")
            value = self.learning_rate[ids.index(id(p))] if self.is_group_lr else self.learning_rate
            if isinstance(value, (_ConvertToCell, _IteratorLearningRate)):
                value = value.learning_rate
            lr.append(value)
        return lr if isinstance(param, list) else lr[0]

    def get_weight_decay(self):
        """The weight decay of the current step (a Tensor, or a tuple with groups)."""
        if self.dynamic_weight_decay:
            if self.is_group:
                return tuple(wd(self.global_step) if flag else wd
                             for wd, flag in zip(self.weight_decay, self.dynamic_decay_flags))
            return self.weight_decay(self.global_step)
        return self.weight_decay

    def decay_weight(self, gradients):
        """Gradients plus weight_decay * parameter for the parameters being decayed."""
        return self._decay(tuple(gradients))

    def gradients_centralization(self, gradients):
        """Gradients of the parameters flagged `grad_centralization` minus their mean over all axes but the first."""
        return self._centralized(tuple(gradients), self._gc_flags)

    def scale_grad(self, gradients):
        """Gradients divided by the loss scale."""
        return self._scaled(tuple(gradients), 1.0 / self.loss_scale) if self.need_scale else tuple(gradients)

    def flatten_gradients(self, gradients):
        """The gradients unchanged (parameters are never flattened into one buffer here)."""
        return gradients

    def _grad_sparse_indices_deduplicate(self, gradients):
        """Off CPU with `unique` set, each RowTensor gradient with its repeated indices summed into one row (the
        unique indices); on CPU, and for dense gradients, the gradients as they are (MindSpore's rule)."""
        if self._target == "CPU" or not self._unique:
            return gradients
        return tuple(_deduplicated_rows(g) if isinstance(g, RowTensor) else g for g in gradients)

    def broadcast_params(self, optim_result):
        """Parameters as they are (a single process holds all of them)."""
        return optim_result

    def _is_dynamic_lr_or_weight_decay(self):
        return self.dynamic_lr or self.dynamic_weight_decay

    # ------------------------------------------------------------ what the subclasses' steps use
    def _grads(self, gradients):
        """The gradients after weight decay, centralization and loss-scale division."""
        if len(gradients) != self.param_length:
            raise ValueError(f"For '{self.cls_name}', the number of gradients {len(gradients)} must equal the number "
                             f"of parameters {self.param_length}.")
        grads = tuple(gradients)
        if self.exec_weight_decay:
            grads = self._decay(grads)
        if self.is_group and any(self._gc_flags):
            grads = self._centralized(grads, self._gc_flags)
        if self.need_scale:
            grads = self._scaled(grads, 1.0 / self.loss_scale)
        return grads

    def _decay(self, grads):
        if not self.exec_weight_decay:
            return grads
        params = self._parameters
        wds = self.get_weight_decay()
        if not self.is_group:
            idx = [i for i, f in enumerate(self.decay_flags) if f]
            if len(idx) == len(grads):
                return self._decayed(grads, params, wds)
            out = list(grads)
            for i, g in zip(idx, self._decayed([grads[i] for i in idx], [params[i] for i in idx], wds)):
                out[i] = g
            return tuple(out)
        out = list(grads)
        for i, (flag, wd) in enumerate(zip(self.decay_flags, wds)):
            if flag:
                out[i] = self._decayed([grads[i]], [params[i]], wd)[0]
        return tuple(out)

    def _lr_values(self):
        """The learning rate of this step for each rate source, as Python floats (read before the step count moves)."""
        values = []
        step = None
        for src in self._lr_sources:
            if isinstance(src, Parameter):
                values.append(src.item())
            elif isinstance(src, _IteratorLearningRate):
                if step is None:
                    step = int(self.global_step.item())
                values.append(src.rate_at(step))
            elif isinstance(src, _ConvertToCell):
                values.append(src.learning_rate.item())
            else:
                values.append(self._value(src(self.global_step)))
        return values

    def _segments_with_lr(self):
        """(start, stop, lr) for each run of parameters sharing a learning rate."""
        lrs = self._lr_values()
        return [(lo, hi, lrs[k]) for lo, hi, k in self._segments]

    def _advance(self):
        self._increment(self.global_step)

    def _begin_step(self, gradients):
        """A step's processed gradients and its (start, stop, lr) segments; the step count then moves on."""
        grads = self._grads(gradients)
        segments = self._segments_with_lr()
        self._advance()
        return grads, segments


def _runs(keys):
    """(start, stop, key) for each run of equal consecutive keys."""
    runs = []
    for i, key in enumerate(keys):
        if runs and runs[-1][2] == key:
            runs[-1][1] = i + 1
        else:
            runs.append([i, i + 1, key])
    return runs


class _ConvertToCell(LearningRateSchedule):
    """A fixed learning-rate Parameter seen as a schedule (groups mixing fixed and dynamic rates)."""

    def __init__(self, learning_rate):
        super().__init__()
        if not isinstance(learning_rate, Parameter):
            raise TypeError(f"For 'Optimizer', the argument 'learning_rate' must be Parameter, but got "
                            f"{type(learning_rate)}.")
        self.learning_rate = learning_rate

    def construct(self, global_step):
        return self.learning_rate + 1.0 - 1.0


class _IteratorLearningRate(LearningRateSchedule):
    """A 1-D Tensor of rates seen as a schedule: step i reads element i."""

    def __init__(self, learning_rate, name):
        super().__init__()
        if not isinstance(learning_rate, Tensor):
            raise TypeError(f"For 'Optimizer', the argument 'learning_rate' must be Tensor, but got "
                            f"{type(learning_rate)}.")
        if learning_rate.ndim != 1:
            raise ValueError(f"For 'Optimizer', the dimension of the argument 'learning_rate' should be 1, but got "
                             f"{learning_rate.ndim}.")
        self.learning_rate = Parameter(learning_rate, name)

    def construct(self, global_step):
        """Gather's result: the rate of each step in `global_step`, shaped as `global_step` (the optimizer's step
        count is a 1-element vector, so a 1-element vector; `get_lr` reshapes it to a scalar)."""
        if _state.tracing is not None:
            # a graph node: the rate of the step the compiled function runs, not of the step it was traced at
            return ops.gather(self.learning_rate, global_step, 0)
        steps = np.asarray(global_step.asnumpy() if isinstance(global_step, Tensor) else global_step)
        if steps.dtype.kind not in "iu":
            raise TypeError(f"For 'Gather', the 'input_indices' must be an integer Tensor, but got {steps.dtype}.")
        rates = [self.rate_at(int(step)) for step in steps.reshape(-1)]
        return Tensor(np.array(rates, np.float32).reshape(steps.shape), self.learning_rate.dtype)

    def rate_at(self, step):
        """The rate of step `step` as a Python float."""
        n = self.learning_rate.shape[0]
        if not 0 <= step < n:
            raise RuntimeError(f"For 'Gather', the 'input_indices' should be in the range [0, {n}), but got {step}: "
                               f"the dynamic learning rate has {n} values and step {step} asks for one more.")
        return self.learning_rate[step].item()


class _WrappedWeightDecay(Cell):
    """A dynamic weight decay (a Cell of the step) multiplied by the loss scale."""

    def __init__(self, weight_decay, loss_scale=1.0):
        super().__init__()
        self.weight_decay = weight_decay
        self.loss_scale = Tensor(loss_scale, mstype.float32)

    def construct(self, global_step):
        return self.weight_decay(global_step) * self.loss_scale


def _deduplicated_rows(grad):
    """A RowTensor whose rows at equal indices are summed: unique indices, values by unsorted segment sum."""
    indices, position = ops.unique(grad.indices)
    values = ops.unsorted_segment_sum(grad.values, position, indices.shape[0])
    return RowTensor(indices, values, grad.dense_shape)
