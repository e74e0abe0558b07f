"""mindspore.boost.grad_accumulation: accumulate gradients over several steps, then update once."""
from mindseed.common import dtype as mstype
from mindseed.common.parameter import Parameter
from mindseed.common.tensor import Tensor
from mindseed.nn.cell import Cell
from mindseed.ops import composite as C
from mindseed.ops import functional as F

__all__ = ["GradientAccumulation", "gradient_accumulation_op", "gradient_clear_op"]

gradient_accumulation_op = C.MultitypeFuncGraph("gradient_accumulation_op")


@gradient_accumulation_op.register("Int64", "Tensor", "Tensor")
def _accumulate(accumulation_step, cumulative_grad, grad):
    """cumulative_grad += grad / accumulation_step (the mean over the accumulated steps)."""
    return F.assign_add(cumulative_grad, grad / accumulation_step)


gradient_clear_op = C.MultitypeFuncGraph("gradient_clear_op")


@gradient_clear_op.register("Tensor")
def _clear(cumulative_grad):
    return F.assign(cumulative_grad, F.zeros_like(cumulative_grad))


class GradientAccumulation(Cell):
    """Accumulates the gradients of `max_accumulation_step` steps, then calls the optimizer with their mean.

    Args:
        max_accumulation_step (int): steps whose gradients are accumulated before one update.
        optimizer (Cell): the optimizer; its parameters get zero-initialised accumulators
            ``grad_accumulation.<name>``.

    Inputs: ``(loss, grads)``, the step's loss and gradients (one per optimizer parameter).
    Outputs: the loss, after the accumulation (and the update, at the last step of a round).

    >>> import mindseed as ms
    >>> net = ms.nn.Dense(2, 1)
    >>> acc = ms.boost.GradientAccumulation(2, ms.nn.SGD(net.trainable_params(), 0.1))
    """

    def __init__(self, max_accumulation_step, optimizer):
        super().__init__()
        if isinstance(max_accumulation_step, bool) or not isinstance(max_accumulation_step, int) \
                or max_accumulation_step <= 0:
            raise ValueError(f"For 'GradientAccumulation', 'max_accumulation_step' must be a positive int, but got "
                             f"{max_accumulation_step!r}.")
        self._max_accumulation_step = max_accumulation_step
        self.optimizer = optimizer
        self.weights = optimizer.parameters
        self.hyper_map = C.HyperMap()
        self._grad_accumulation = self.weights.clone(prefix="grad_accumulation", init="zeros")
        self._accumulation_step = Parameter(Tensor(0, dtype=mstype.int32), name="accumulation_step")

    def construct(self, loss, grads):
        loss = F.depend(loss, self.hyper_map(F.partial(gradient_accumulation_op, self._max_accumulation_step),
                                             self._grad_accumulation, grads))
        # the step counter is updated in place (as graph mode compiles MindSpore's `self._accumulation_step += 1`),
        # so the cell runs the same in PyNative
        loss = F.depend(loss, F.assign_add(self._accumulation_step, Tensor(1, mstype.int32)))
        if self._accumulation_step >= self._max_accumulation_step:
            loss = F.depend(loss, self.optimizer(self._grad_accumulation))
            loss = F.depend(loss, F.assign(self._accumulation_step, Tensor(0, mstype.int32)))
        if self._accumulation_step == 0:
            loss = F.depend(loss, self.hyper_map(F.partial(gradient_clear_op), self._grad_accumulation))
        return loss
