"""ModelThor: a Model whose training steps follow THOR's schedule of second-order refreshes.

One step in every `frequency` runs with the ``thor`` flag set on the train network's cells (the THOR layers
record A and G, the optimizer inverts the damped factors); the steps between run with it cleared (no recording,
the kept inverses precondition the gradients). MindSpore's GPU ModelThor does this in sink mode; here it holds in
both modes, as the refresh schedule is a property of the optimizer, not of the data path.
"""
from mindseed import nn
from mindseed.nn.cell import Cell
from mindseed.train.model import Model

__all__ = ["ModelThor"]


class _RefreshSchedule(Cell):
    """Runs `network` with thor=True on steps 0, f, 2f, ... and thor=False on the others."""

    def __init__(self, network, frequency):
        super().__init__(auto_prefix=False)
        self.network = network
        self.frequency = frequency
        self.__dict__["_step"] = 0
        self.__dict__["_refresh"] = None

    def __call__(self, *inputs):
        refresh = self._step % self.frequency == 0
        if refresh != self._refresh:
            self.network.add_flags_recursive(thor=refresh)
            self.__dict__["_refresh"] = refresh
        self.__dict__["_step"] += 1
        return self.network(*inputs)

    def construct(self, *inputs):
        return self.network(*inputs)


class ModelThor(Model):
    """High-level training with THOR (built by `ConvertModelUtils.convert_to_thor_model`).

    Args:
        network (Cell): the network, or a TrainOneStepCell whose optimizer is THOR's.
        loss_fn, optimizer, metrics, eval_network, eval_indexes, amp_level, kwargs: as `Model`.

    Raises:
        TypeError: the optimizer is not THOR's (it has no `get_frequency`).
    """

    def __init__(self, network, loss_fn=None, optimizer=None, metrics=None, eval_network=None, eval_indexes=None,
                 amp_level="O0", **kwargs):
        optim = network.optimizer if isinstance(network, nn.TrainOneStepCell) else optimizer
        if not callable(getattr(optim, "get_frequency", None)):
            raise TypeError(f"For 'ModelThor', the optimizer must be THOR's (nn.thor), but got "
                            f"{type(optim).__name__}.")
        self._frequency = optim.get_frequency()
        super().__init__(network, loss_fn, optimizer, metrics, eval_network, eval_indexes, amp_level, **kwargs)

    def _build_train_network(self):
        return _RefreshSchedule(super()._build_train_network(), self._frequency)
