"""mindspore.boost.grad_freeze: gradient freezing. The trainable parameters are split into groups; each step trains
only the parameters from one group on (the others are frozen), following a generated group-index sequence."""
import numpy as np

from mindseed.boost.base import ParameterProcess, _OptimizerRebuild
from mindseed.boost.grad_accumulation import GradientAccumulation
from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.nn.cell import Cell
from mindseed.nn.layer.basic import Identity
from mindseed.nn.optim.optimizer import Optimizer
from mindseed.nn.wrap.grad_reducer import DistributedGradReducer
from mindseed.ops import functional as F

__all__ = ["GradientFreeze", "FreezeOpt", "freeze_cell"]

CONTINUOUS_STRATEGY = 0
INTERVAL_STRATEGY = 1


class FreezeOpt(Cell, _OptimizerRebuild):
    """One optimizer per parameter group (same class and arguments as `opt`), for gradient freezing.

    Args:
        opt (Cell): the optimizer (``nn.LARS`` around one is supported).
        train_parameter_groups (Union[tuple, list], optional): the parameter groups, each a tuple/list of
            Parameters. Default: ``None`` (one group: all of `opt`'s parameters).
        train_strategy (Union[tuple(int), list(int), Tensor], optional): the group trained at each step.
            Default: ``None``.
    """

    def __init__(self, opt, train_parameter_groups=None, train_strategy=None):
        super().__init__()
        if not isinstance(opt, Optimizer):
            raise TypeError(f"The first arg 'opt' must be an Optimizer instance, but got {type(opt)}")
        if train_strategy is not None and train_parameter_groups is None:
            raise ValueError("When the 'train_strategy' is specified, the value of 'train_parameter_groups' must "
                             "also be specified")
        self._read_optimizer(opt)
        self.parameters = self.single_opt.parameters
        self.dynamic_lr = self.single_opt.dynamic_lr
        self.opts = []
        if train_parameter_groups is None:
            self.groups_num = 1
            train_parameter_groups = (tuple(opt.parameters),)
        else:
            if not isinstance(train_parameter_groups, (tuple, list)):
                raise TypeError("The specified 'train_parameter_groups' should be tuple or list")
            self.groups_num = len(train_parameter_groups)
        self._init_train_strategy(train_strategy)
        self._create_new_group_learning_rate()
        self.opt_index = 0
        for params in train_parameter_groups:
            if not isinstance(params, (tuple, list)):
                raise TypeError("The each element of 'train_parameter_groups' should be tuple or list to store "
                                "the Parameter")
            self.opts.append(self._generate_new_optimizer(params))
            self.opt_index += 1

    def _init_train_strategy(self, train_strategy):
        if isinstance(train_strategy, (tuple, list)):
            for ele in train_strategy:
                if not isinstance(ele, int):
                    raise ValueError("The element in train_strategy should be int number")
            self.train_strategy = Tensor(train_strategy, mstype.int32)
        elif isinstance(train_strategy, Tensor):
            if train_strategy.ndim != 1 or train_strategy.dtype != mstype.int32:
                raise ValueError("When train_strategy is a Tensor, the dimension should be 1 and the dtype should be "
                                 "int32")
            self.train_strategy = train_strategy
        elif train_strategy is None:
            self.train_strategy = None
        else:
            raise TypeError("The specified 'train_strategy' should be None, tuple, list or Tensor")

    def _create_new_group_learning_rate(self):
        """A dynamic (per-step list) learning rate is split by the train strategy: each group gets the rates of the
        steps it trains."""
        self.dynamic_learning_rate = [[] for _ in range(self.groups_num)]
        if self.learning_rate is None:
            self.learning_rate = self.single_opt.learning_rate
            return
        if self.dynamic_lr and isinstance(self.learning_rate, list) and isinstance(self.train_strategy, Tensor):
            train_strategy = list(self.train_strategy.asnumpy())
            if len(self.learning_rate) <= len(train_strategy):
                for i, lr in enumerate(self.learning_rate):
                    self.dynamic_learning_rate[train_strategy[i]].append(lr)

    def _generate_new_optimizer(self, params):
        lr = self.dynamic_learning_rate[self.opt_index] or self.learning_rate
        opt = self._build(params, lr)
        prefix = f"boost_{self.opt_index}"
        if self.is_lars:
            opt.opt._update_local_parameters_name(prefix)
        opt._update_local_parameters_name(prefix)
        return opt


class _TrainFreezeCell(Cell):
    """One training step updating one group's parameters: loss, gradients (scaled by `sens`), reduction, update."""

    def __init__(self, net, sens, grad, grad_reducer, use_grad_accumulation, optimizer, max_accumulation_step=1):
        super().__init__(auto_prefix=False)
        self.net = net
        self.grad = grad
        self.grad_reducer = grad_reducer
        self.opt = optimizer
        self.parameters = optimizer.parameters
        self.sens = sens
        self.use_grad_accumulation = use_grad_accumulation
        self.max_accumulation_step = max_accumulation_step
        if use_grad_accumulation:
            self.grad_accumulation = GradientAccumulation(self.max_accumulation_step, self.opt)

    def construct(self, *inputs):
        loss = self.net(*inputs)
        sens = F.fill(loss.dtype, loss.shape, self.sens)
        grads = self.grad(self.net, self.parameters)(*inputs, sens)
        grads = self.grad_reducer(grads)
        if self.use_grad_accumulation:
            return self.grad_accumulation(loss, grads)
        return F.depend(loss, self.opt(grads))


class GradientFreeze:
    """Generates the gradient-freezing groups, step sequence and optimizer.

    Args:
        param_groups (int): number of parameter groups.
        freeze_type (int): 0 (continuous: runs of group 0 then each other group) or 1 (interval: random groups).
        freeze_p (float): the share of steps that train every parameter (group 0).
        total_steps (int): steps of the training.
    """

    def __init__(self, param_groups, freeze_type, freeze_p, total_steps):
        self._param_groups = param_groups
        self._freeze_type = freeze_type
        self._freeze_p = freeze_p
        self._total_steps = total_steps
        self.grad_reducer = Identity()

    def split_parameters_groups(self, net, freeze_para_groups_number):
        """Chunks of >= 3 parameters (bn and bias parameters join the current chunk); group i holds the chunks from
        i * stride on."""
        grouped_params = []
        tmp = []
        for para in net.trainable_params():
            name = para.name
            if "bn" in name or "bias" in name:
                tmp.append(para)
            elif len(tmp) >= 3:
                grouped_params.append(tmp)
                tmp = [para]
            else:
                tmp.append(para)
        if tmp:
            grouped_params.append(tmp)
        stride = len(grouped_params) // freeze_para_groups_number
        return [sum(grouped_params[i * stride:], []) for i in range(freeze_para_groups_number)]

    def generate_freeze_index_sequence(self, parameter_groups_number, freeze_strategy, freeze_p, total_steps):
        """The group index trained at each step (int(total_steps * 1.01) of them at least)."""
        total_step = int(total_steps * 1.01)
        if parameter_groups_number <= 1:
            return [0 for _ in range(total_step)]
        if freeze_strategy == CONTINUOUS_STRATEGY:
            zero_cnt = int(freeze_p * (parameter_groups_number - 1) // (1 - freeze_p) + 0.5)
            sub_idx = [0] * zero_cnt + list(range(1, parameter_groups_number))
            freeze_idxes = []
            while len(freeze_idxes) < total_step:
                freeze_idxes += sub_idx
            return freeze_idxes
        if freeze_strategy == INTERVAL_STRATEGY:
            index_all = list(range(1, parameter_groups_number))
            prob = [x / sum(index_all) for x in index_all]
            freeze_idxes = [0]
            zero_cnt = 1
            freeze_cnt = 0
            while len(freeze_idxes) < total_step:
                freeze_p_cur = 1.0 * freeze_cnt / (zero_cnt + freeze_cnt)
                if freeze_p_cur < 1 - freeze_p:
                    freeze_idxes.append(int(np.random.choice(index_all[::-1], p=prob)))
                    freeze_cnt += 1
                else:
                    freeze_idxes.append(0)
                    zero_cnt += 1
            return freeze_idxes
        raise ValueError(f"Unsupported freezing training strategy '{freeze_strategy}'")

    def freeze_generate(self, network, optimizer):
        """(network, FreezeOpt over the groups of `network`, with the optimizer's group settings)."""
        train_para_groups = self.split_parameters_groups(network, self._param_groups)
        for i in range(self._param_groups):
            train_para_groups[i] = ParameterProcess.generate_group_params(train_para_groups[i],
                                                                          optimizer.init_params["params"])
        train_strategy = self.generate_freeze_index_sequence(self._param_groups, self._freeze_type, self._freeze_p,
                                                             self._total_steps)
        return network, FreezeOpt(optimizer, train_para_groups, train_strategy)


def freeze_cell(reducer_flag, network, optimizer, sens, grad, use_grad_accumulation, mean=None, degree=None,
                max_accumulation_step=1):
    """One training cell per optimizer of the FreezeOpt `optimizer` (with a DistributedGradReducer each when
    `reducer_flag`)."""
    if reducer_flag:
        param_processer = ParameterProcess()
        reducers = [DistributedGradReducer(param_processer.assign_parameter_group(opt.parameters), mean, degree)
                    for opt in optimizer.opts]
    else:
        reducers = [Identity() for _ in optimizer.opts]
    return tuple(_TrainFreezeCell(network, sens, grad, reducer, use_grad_accumulation, opt, max_accumulation_step)
                 for reducer, opt in zip(reducers, optimizer.opts))
