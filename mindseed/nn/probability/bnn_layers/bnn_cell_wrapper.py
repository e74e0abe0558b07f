"""mindspore.nn.probability.bnn_layers.WithBNNLossCell: task loss plus the Bayesian layers' KL."""
from mindseed.nn.cell import Cell

__all__ = ["WithBNNLossCell"]


class WithBNNLossCell(Cell):
    """loss = dnn_factor * loss_fn(backbone(x), label) + bnn_factor * (sum of the Bayesian layers' KL)."""

    def __init__(self, backbone, loss_fn, dnn_factor=1, bnn_factor=1):
        super().__init__(auto_prefix=False)
        for arg, v in (("dnn_factor", dnn_factor), ("bnn_factor", bnn_factor)):
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise TypeError(f"For 'WithBNNLossCell', '{arg}' must be an int or float, but got "
                                f"{type(v).__name__}.")
        self._backbone, self._loss_fn = backbone, loss_fn
        self.dnn_factor, self.bnn_factor = dnn_factor, bnn_factor
        self.kl_loss = [c for _, c in backbone.cells_and_names() if hasattr(c, "compute_kl_loss")]

    def construct(self, x, label):
        loss = self._loss_fn(self._backbone(x), label) * self.dnn_factor
        for cell in self.kl_loss:
            loss = loss + cell.compute_kl_loss() * self.bnn_factor
        return loss

    @property
    def backbone_network(self):
        return self._backbone
