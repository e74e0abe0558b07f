"""mindspore.boost.boost_cell_wrapper: BoostTrainOneStepCell, the training step of boost mode (gradient freezing,
gradient accumulation by the AutoBoost configuration)."""
from mindseed.boost.boost import AutoBoost
from mindseed.boost.grad_accumulation import gradient_accumulation_op, gradient_clear_op
from mindseed.boost.grad_freeze import FreezeOpt, freeze_cell
from mindseed.common import dtype as mstype
from mindseed.common._parallel import _get_gradients_mean
from mindseed.common.context import ParallelMode
from mindseed.common.parameter import Parameter
from mindseed.common.tensor import Tensor
from mindseed.nn.wrap.cell_wrapper import TrainOneStepCell
from mindseed.nn.wrap.grad_reducer import _get_device_num
from mindseed.ops import composite as C
from mindseed.ops import functional as F

__all__ = ["BoostTrainOneStepCell"]


class BoostTrainOneStepCell(TrainOneStepCell):
    """TrainOneStepCell with the boost algorithms: a FreezeOpt optimizer trains one parameter group per step (the
    groups follow its `train_strategy`), and AutoBoost's ``grad_accumulation`` accumulates
    ``grad_accumulation_step`` steps of gradients before each update.

    Args:
        network (Cell): the network with its loss.
        optimizer (Union[Cell, FreezeOpt]): the optimizer.
        sens (numbers.Number): the scale of the loss gradient. Default: ``None`` (1.0).

    Inputs: the network's inputs. Outputs: the loss (a Tensor).

    Raises:
        RuntimeError: the optimizer is marked for AdaSum (with 16 or more data-parallel devices) or DimReduce:
            those updates are not available.
    """

    def __init__(self, network, optimizer, sens=None):
        super().__init__(network, optimizer, sens)
        self.hyper_map = C.HyperMap()
        self.freeze = isinstance(optimizer, FreezeOpt)
        if not self.freeze:
            self.weights = self.optimizer.parameters
        self.train_strategy = getattr(self.optimizer, "train_strategy", None)
        self.auto_boost = AutoBoost()
        self.use_grad_accumulation = self.parallel_mode in (ParallelMode.DATA_PARALLEL, ParallelMode.STAND_ALONE) \
            and bool(self.auto_boost.boost_config.get("grad_accumulation", False))
        self.max_accumulation_step = 1
        if self.use_grad_accumulation:
            self.max_accumulation_step = self.auto_boost.grad_accumulation_step
            if self.max_accumulation_step <= 1:
                self.max_accumulation_step = 1
                self.use_grad_accumulation = False
        self.accumulation_step = Parameter(Tensor(0, dtype=mstype.int32), name="accumulation_step")
        if self.use_grad_accumulation:
            self.grad_accumulation = self.weights.clone(prefix="grad_accumulation", init="zeros")
        self.enable_dim_reduce = self.check_dim_reduce_enable()
        self.freeze_nets = None
        self.step = Parameter(Tensor(0, dtype=mstype.int32), name="step")
        if self.freeze:
            self.mean = _get_gradients_mean() if self.reducer_flag else None
            self.degree = _get_device_num() if self.reducer_flag else None
            self.freeze_nets = freeze_cell(self.reducer_flag, self.network, self.optimizer, self.sens, self.grad,
                                           self.use_grad_accumulation, self.mean, self.degree,
                                           self.max_accumulation_step)
        self.enable_adasum = self.check_adasum_enable()
        self.sync_tensor = Parameter(Tensor(0, dtype=mstype.int32), name="sync_tensor")
        if self.enable_adasum or self.enable_dim_reduce:
            raise RuntimeError(f"For 'BoostTrainOneStepCell', the {'AdaSum' if self.enable_adasum else 'DimReduce'} "
                               f"update is not available in mindseed.")

    def construct(self, *inputs):
        if self.freeze:
            return self.gradient_freeze_process(*inputs)
        loss = self.network(*inputs)
        if self.sense_flag:
            sens = F.fill(loss.dtype, loss.shape, self.sens)
            grads = self.grad(self.network, self.weights)(*inputs, sens)
        else:
            sens = F.fill(loss.dtype, loss.shape, 1.0)
            grads = self.grad_no_sens(self.network, self.weights)(*inputs)
        grads = self.grad_reducer(grads)
        if self.use_grad_accumulation:
            return self.gradient_accumulation_process(loss, grads, sens, *inputs)
        return F.depend(loss, self.optimizer(grads))

    def gradient_freeze_process(self, *inputs):
        """Train the group of this step, then move to the next step of the strategy (cyclically)."""
        step = int(self.step.asnumpy())
        if self.train_strategy is None:
            index, max_index = step, len(self.freeze_nets)
        else:
            index, max_index = int(self.train_strategy[step].asnumpy()), len(self.train_strategy)
        loss = self.freeze_nets[index](*inputs)
        F.assign(self.step, Tensor(0 if step + 1 >= max_index else step + 1, mstype.int32))
        return loss

    def gradient_accumulation_process(self, loss, grads, sens, *inputs):
        """Accumulate the mean gradient; every `max_accumulation_step` steps update with it and clear it."""
        loss = F.depend(loss, self.hyper_map(F.partial(gradient_accumulation_op, self.max_accumulation_step),
                                             self.grad_accumulation, grads))
        loss = F.depend(loss, F.assign_add(self.accumulation_step, Tensor(1, mstype.int32)))
        if self.accumulation_step >= self.max_accumulation_step:
            loss = F.depend(loss, self.optimizer(self.grad_accumulation))
            loss = F.depend(loss, F.assign(self.accumulation_step, Tensor(0, mstype.int32)))
        if self.accumulation_step == 0:
            loss = F.depend(loss, self.hyper_map(F.partial(gradient_clear_op), self.grad_accumulation))
        return loss

    def check_adasum_enable(self):
        """AdaSum runs when the optimizer is marked for it and the data-parallel devices form more than one group
        of 8, a power of two of them."""
        if not getattr(self.optimizer, "adasum", None) or not self.reducer_flag:
            return False
        group_number = _get_device_num() // 8
        return bool(group_number > 1 and (group_number & (group_number - 1)) == 0)

    def check_dim_reduce_enable(self):
        """DimReduce runs when the optimizer is marked for it."""
        return bool(getattr(self.optimizer, "dim_reduce", None))
