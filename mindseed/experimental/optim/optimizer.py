"""Optimizer with torch-style parameter groups (mindspore.experimental.optim).

Each group is a dict holding its ``'params'`` and hyper-parameters; its ``'lr'`` is a Parameter
(``learning_rate_group_<i>``) that the schedulers of `lr_scheduler` update in place. The parameter
checks, learning-rate Parameters, gradient processing and step bookkeeping are those of `nn.Optimizer`
(their common base `OptimizerBase`); the updates are the primitives of `ops._prims.optim`.
"""
from collections import defaultdict

import numpy as np

from mindseed.common.parameter import Parameter, ParameterTuple
from mindseed.common.tensor import Tensor
from mindseed.nn.optim import _validator as V
from mindseed.nn.optim._base import OptimizerBase

__all__ = ["Optimizer"]


class Optimizer(OptimizerBase):
    """Base class of the experimental optimizers.

    Args:
        params (Union[list[Parameter], list[dict]]): parameters, or groups: dicts with ``'params'`` and any of
            the optimizer's hyper-parameters (missing ones come from `defaults`).
        defaults (dict): the default hyper-parameters (``'lr'``, ``'weight_decay'``, ...).

    Raises:
        TypeError: a group is not a dict, holds a set or a non-Parameter, or its lr/weight decay has a bad type.
        ValueError: `params` is empty, or a parameter appears in two groups.

    >>> import mindseed as ms
    >>> from mindseed.experimental import optim
    >>> w = ms.Parameter(ms.Tensor([1.0]), name="w")
    >>> opt = optim.SGD([w], lr=0.1)
    >>> float(opt.param_groups[0]["lr"])
    0.10000000149011612
    """

    def __init__(self, params, defaults):
        super().__init__()
        param_groups = self._parameters_base_check(params, "params")
        self.defaults = defaults
        self.state = defaultdict(dict)
        self.param_groups = []
        self.parameters = []
        self.lrs = []
        self.group_start_id = [0]
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)
        self.parameters = ParameterTuple(self.parameters)
        self.enable_tuple_broaden = True

    def __repr__(self):
        text = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    value = group[key]
                    shown = value.value() if key == "lr" and isinstance(value, Parameter) else value
                    text += f"    {key}: {shown}\n"
        return text + ")"

    def add_param_group(self, param_group):
        """Append a parameter group (missing hyper-parameters take the defaults).

        Args:
            param_group (dict): ``'params'`` and optional hyper-parameters.
        """
        group_id = len(self.param_groups)
        param_group = self._preprocess_param_group(param_group)
        self.parameters += tuple(param_group["params"])
        for name, default in self.defaults.items():
            param_group.setdefault(name, default)
        lr = self._build_single_lr(param_group.get("lr"), f"learning_rate_group_{group_id}")
        weight_decay = self._preprocess_weight_decay(param_group.get("weight_decay", 0.0))
        self.lrs.append(lr)
        param_group["lr"] = lr
        param_group["weight_decay"] = weight_decay
        self.param_groups.append(param_group)
        self.group_start_id.append(self.group_start_id[-1] + len(param_group["params"]))

    def _preprocess_param_group(self, param_group):
        if not isinstance(param_group, dict):
            raise TypeError("Param group must be a dict.")
        params = param_group["params"]
        if isinstance(params, Parameter):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("Optimizer parameters need to be organized in ordered collections, but the ordering of "
                            "tensors in sets will change between runs. Please use a list instead.")
        else:
            param_group["params"] = list(params)
        for param in param_group["params"]:
            if not isinstance(param, Parameter):
                raise TypeError(f"Optimizer can only optimize Parameters, but one of the params is "
                                f"{type(param).__name__}")
        seen = {id(p) for group in self.param_groups for p in group["params"]}
        if any(id(p) in seen for p in param_group["params"]):
            raise ValueError("some parameters appear in more than one parameter group.")
        return param_group

    def _build_single_lr(self, learning_rate, name):
        if isinstance(learning_rate, (float, int)) and not isinstance(learning_rate, bool):
            return self._lr_parameter(self._checked_rate(learning_rate, "learning rate"), name)
        if isinstance(learning_rate, Tensor):
            if learning_rate.ndim == 0:
                return self._lr_parameter(learning_rate, name)
            raise ValueError("For 'Optimizer', if 'learning_rate' is a Tensor, then it should be scalar Tensor")
        raise TypeError(f"For 'Optimizer', the argument 'learning_rate' must be int, float or Tensor, but got "
                        f"{type(learning_rate)}.")

    def _preprocess_weight_decay(self, weight_decay):
        if isinstance(weight_decay, (float, int)) and not isinstance(weight_decay, bool):
            return self._checked_rate(weight_decay, "weight_decay")
        raise TypeError(f"For 'Optimizer', the argument 'Weight_decay' must be int or float.but got "
                        f"{type(weight_decay)}")

    # ------------------------------------------------------------ helpers of the subclasses
    def _lr(self, group_id):
        """This group's learning rate as a Python float (a float put in the group directly wins)."""
        lr = self.param_groups[group_id]["lr"]
        if isinstance(lr, float):
            return lr
        return self.lrs[group_id].item()

    def _span(self, group_id):
        return self.group_start_id[group_id], self.group_start_id[group_id + 1]

    def _group_grads(self, gradients, group_id, maximize=False, weight_decay=0.0):
        """The gradients of one group: negated when maximizing, then plus weight_decay * param."""
        lo, hi = self._span(group_id)
        if len(gradients) < hi:
            raise ValueError(f"For '{self.cls_name}', the number of gradients {len(gradients)} must equal the number "
                             f"of parameters {len(self.parameters)}.")
        grads = tuple(gradients[lo:hi])
        if maximize:
            grads = self._negated(grads)
        if weight_decay != 0.0:
            grads = self._decayed(grads, self.parameters[lo:hi], weight_decay)
        return grads

    def _states(self, *names, init="zeros"):
        """One state per parameter for each name (attribute ``self.<name>``, parameters ``<name>.<param>``)."""
        for name in names:
            setattr(self, name, self.parameters.clone(prefix=name, init=init))

    def _step_counter(self, name):
        """The int32 step count ``self.<name>``, a Parameter saved with the optimizer's state."""
        setattr(self, name, Parameter(Tensor(np.int32(0)), name))

    def _next_step(self, counter):
        """Increments the step counter `counter` in place; the new count as an int."""
        self._increment(counter)
        return counter.item()

    def _slice(self, states, group_id):
        lo, hi = self._span(group_id)
        return states[lo:hi]


def check_adam_args(prim, lr, betas, eps, weight_decay):
    """The checks of Adamax and RAdam in MindSpore's order: lr > 0, weight_decay >= 0, eps > 0, betas in [0, 1)."""
    check_args(prim, (lr, "lr", ">0"), (weight_decay, "weight_decay", ">=0"), (eps, "eps", ">0"),
               (betas[0], "betas[0]", "[0,1)"), (betas[1], "betas[1]", "[0,1)"))


def check_args(prim, *rules):
    """Check hyper-parameters in order; each rule is (value, name, bound).

    bound is ``">0"``, ``">=0"``, ``">1"`` (a comparison with a number) or a range such as ``"[0,1)"``.
    """
    for value, name, bound in rules:
        if bound[0] in "([":
            lower, upper = (float(b) for b in bound[1:-1].split(","))
            V.float_range(value, lower, upper, bound[0] + bound[-1], name, prim)
        elif bound.startswith(">="):
            if value < float(bound[2:]):
                raise ValueError(f"For {prim}, the {name} must be greater than or equal to {float(bound[2:])}, but "
                                 f"got {value}.")
        elif value <= float(bound[1:]):
            raise ValueError(f"For {prim}, the {name} must be greater than {float(bound[1:])}, but got {value}.")
