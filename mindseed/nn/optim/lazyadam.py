"""LazyAdam: Adam that, with sparse gradients, updates only the rows present (dense gradients: plain Adam)."""
from mindseed.nn.optim.adam import _AdamBase
from mindseed.nn.optim.optimizer import opt_init_args_register

__all__ = ["LazyAdam"]


class LazyAdam(_AdamBase):
    r"""Adam with lazy updates of sparse rows; on dense gradients the update is `Adam`'s.

    Args:
        params (Union[list[Parameter], list[dict]]): parameters or parameter groups (see `Optimizer`).
        learning_rate (Union[float, int, Tensor, Iterable, LearningRateSchedule]): Default: ``1e-3``.
        beta1 (float): Default: ``0.9``.
        beta2 (float): Default: ``0.999``.
        eps (float): Default: ``1e-8``.
        use_locking (bool): Default: ``False``.
        use_nesterov (bool): Default: ``False``.
        weight_decay (Union[float, int, Cell]): Default: ``0.0``.
        loss_scale (float): Default: ``1.0``.

    State: ``beta1_power``, ``beta2_power`` (shape (1,)), ``moment1.*``, ``moment2.*``.

    >>> import mindseed as ms
    >>> w = ms.Parameter(ms.Tensor([1.0]), name="w")
    >>> _ = ms.nn.LazyAdam([w], learning_rate=0.1)((ms.Tensor([2.0]),))
    >>> round(float(w[0]), 4)
    0.9
    """

    @opt_init_args_register
    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, use_locking=False,
                 use_nesterov=False, weight_decay=0.0, loss_scale=1.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self._init_dense_adam(beta1, beta2, eps, use_locking, use_nesterov)

    def construct(self, gradients):
        return self._adam_step(gradients)
