"""mindspore.nn.grad: Cells that compute the Jacobian-vector and vector-Jacobian products of a network."""
from mindseed.nn.grad.cell_grad import Jvp, Vjp

__all__ = ["Jvp", "Vjp"]
