"""mindspore.boost.base: the optimizer and parameter rewriting the boost algorithms share.

`OptimizerProcess` rebuilds an optimizer (e.g. with gradient centralization on the weights of its groups);
`ParameterProcess` splits parameters into communication-fusion groups and maps a parameter subset onto an optimizer's
parameter groups."""
import copy

from mindseed import log as logger
from mindseed.common.parameter import Parameter
from mindseed.nn.layer.conv import Conv2d
from mindseed.nn.optim.lars import LARS

__all__ = ["OptimizerProcess", "ParameterProcess"]

_PARAM_KEYS = ("params", "order_params")


def _copy_group(group_param):
    """A copy of one parameter-group dict: its settings are copied, its parameters are kept (they are replaced)."""
    return {key: (value if key in _PARAM_KEYS else copy.deepcopy(value)) for key, value in group_param.items()}


def _check_origin_params(origin_params):
    """The optimizer's `params` argument as a list, checked as MindSpore's boost does."""
    if origin_params is not None and not isinstance(origin_params, list):
        origin_params = list(origin_params)
    if not origin_params:
        raise ValueError("Optimizer got an empty parameter list.")
    if not isinstance(origin_params[0], (dict, Parameter)):
        raise TypeError("Only a list of Parameter or dict can be supported.")
    return origin_params


class _OptimizerRebuild:
    """What rebuilding an optimizer needs: its class, init arguments and learning rate (LARS: of the wrapped one)."""

    def _read_optimizer(self, opt):
        self.is_lars = isinstance(opt, LARS)
        self.single_opt = opt.opt if self.is_lars else opt
        self.opt_class = type(self.single_opt)
        self.opt_init_args = self.single_opt.init_args
        self.learning_rate = self.single_opt.init_learning_rate
        if self.is_lars:
            self.lars_init_args = opt.init_args

    def _build(self, params, learning_rate):
        opt = self.opt_class(params=params, learning_rate=learning_rate, **self.opt_init_args)
        return LARS(opt, **self.lars_init_args) if self.is_lars else opt


class OptimizerProcess(_OptimizerRebuild):
    """Rebuilds an optimizer with gradient centralization (or other parameter-group changes).

    Args:
        opt (Cell): the optimizer (an ``nn.Optimizer``, or ``nn.LARS`` around one).

    >>> import mindseed as ms
    >>> net = ms.nn.Dense(2, 1)
    >>> opt = ms.nn.Momentum([{"params": net.trainable_params()}], 0.1, 0.9)
    >>> process = ms.boost.OptimizerProcess(opt)
    >>> process.add_grad_centralization(net)
    >>> new_opt = process.generate_new_optimizer()
    """

    def __init__(self, opt):
        self._read_optimizer(opt)
        self.origin_params = opt.init_params["params"]

    @staticmethod
    def build_params_dict(network):
        """A dict from each parameter's id to the cell that owns it."""
        params_dict = {}
        for _, cell in network.cells_and_names():
            for par in cell.get_parameters(expand=False):
                params_dict[id(par)] = cell
        return params_dict

    @staticmethod
    def build_gc_params_group(params_dict, parameters):
        """Split each group into the weights that get gradient centralization (not beta/gamma/bias, not of a grouped
        Conv2d or a CommonHeadLastFN) and the others."""
        from mindseed.boost.less_batch_normalization import CommonHeadLastFN
        group_params = []
        for group_param in parameters:
            if "order_params" in group_param.keys():
                group_params.append(group_param)
                continue
            params_gc_value = []
            params_value = []
            for param in group_param["params"]:
                if "beta" in param.name or "gamma" in param.name or "bias" in param.name:
                    params_value.append(param)
                    continue
                param_cell = params_dict[id(param)]
                if (isinstance(param_cell, Conv2d) and param_cell.group > 1) or \
                        isinstance(param_cell, CommonHeadLastFN):
                    params_value.append(param)
                else:
                    params_gc_value.append(param)
            if params_gc_value:
                new_group_param = _copy_group(group_param)
                new_group_param["params"] = params_gc_value
                new_group_param["grad_centralization"] = True
                group_params.append(new_group_param)
            if params_value:
                new_group_param = _copy_group(group_param)
                new_group_param["params"] = params_value
                group_params.append(new_group_param)
        return group_params

    def add_grad_centralization(self, network):
        """Turn on gradient centralization for the weights of the optimizer's groups (only grouped parameters
        support it: with a plain parameter list this warns and changes nothing)."""
        params_dict = OptimizerProcess.build_params_dict(network)
        parameters = _check_origin_params(self.origin_params)
        if isinstance(parameters[0], Parameter):
            logger.warning("Only group parameters support gradient centralization.")
            return
        self.origin_params = OptimizerProcess.build_gc_params_group(params_dict, parameters)

    def generate_new_optimizer(self):
        """A new optimizer of the same class and arguments over `origin_params`."""
        if self.learning_rate is None:
            self.learning_rate = self.single_opt.learning_rate
        return self._build(self.origin_params, self.learning_rate)


class ParameterProcess:
    """Groups parameters for communication fusion and maps parameter subsets onto an optimizer's groups.

    >>> import mindseed as ms
    >>> net = ms.nn.Dense(2, 1)
    >>> params = ms.boost.ParameterProcess().assign_parameter_group(net.trainable_params())
    >>> [p.comm_fusion for p in params]
    [1, 2]
    """

    def __init__(self):
        self._parameter_indices = 1

    @staticmethod
    def generate_group_params(parameters, origin_params):
        """The groups of `origin_params` (an optimizer's `params` argument) restricted to `parameters`; parameters in
        no group go to a last group with the settings of the group with the most keys."""
        origin_params_copy = _check_origin_params(origin_params)
        if isinstance(origin_params_copy[0], Parameter):
            return [{"params": parameters}]
        return ParameterProcess._generate_new_group_params(parameters, origin_params_copy)

    @staticmethod
    def _generate_new_group_params(parameters, origin_params_copy):
        group_params = []
        params_name = [param.name for param in parameters]
        new_params_count = list(params_name)
        new_params_clone = {}
        max_key_number = 0
        for group_param in origin_params_copy:
            if "order_params" in group_param.keys():
                new_group_param = _copy_group(group_param)
                new_group_param["order_params"] = parameters
                group_params.append(new_group_param)
                continue
            params_value = []
            for param in group_param["params"]:
                if param.name in params_name:
                    params_value.append(parameters[params_name.index(param.name)])
                    new_params_count.remove(param.name)
            new_group_param = _copy_group(group_param)
            new_group_param["params"] = params_value
            group_params.append(new_group_param)
            if len(group_param.keys()) > max_key_number:
                max_key_number = len(group_param.keys())
                new_params_clone = _copy_group(group_param)
        if new_params_count:
            params_value = [parameters[params_name.index(name)] for name in new_params_count]
            if new_params_clone:
                new_params_clone["params"] = params_value
                group_params.append(new_params_clone)
            else:
                group_params.append({"params": params_value})
        return group_params

    def assign_parameter_group(self, parameters, split_point=None):
        """Set `comm_fusion` of the parameters: a new fusion group starts at each index of `split_point` (default:
        the middle). Anything but a non-empty list/tuple is returned unchanged."""
        if not isinstance(parameters, (list, tuple)) or not parameters:
            return parameters
        parameter_len = len(parameters)
        split_parameter_index = split_point if split_point else [parameter_len // 2]
        for i in range(parameter_len):
            if i in split_parameter_index:
                self._parameter_indices += 1
            parameters[i].comm_fusion = self._parameter_indices
        return parameters
