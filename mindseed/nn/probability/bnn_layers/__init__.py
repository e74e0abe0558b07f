"""mindspore.nn.probability.bnn_layers: reparameterised Bayesian Dense/Conv layers and their loss wrapper."""
from mindseed.nn.probability.bnn_layers.layer_distribution import NormalPosterior, NormalPrior
from mindseed.nn.probability.bnn_layers.dense_variational import DenseLocalReparam, DenseReparam
from mindseed.nn.probability.bnn_layers.conv_variational import ConvReparam
from mindseed.nn.probability.bnn_layers.bnn_cell_wrapper import WithBNNLossCell
from mindseed.nn.probability.bnn_layers import (bnn_cell_wrapper, conv_variational,  # noqa: F401
                                                dense_variational, layer_distribution)

__all__ = ["ConvReparam", "DenseLocalReparam", "DenseReparam", "NormalPosterior", "NormalPrior", "WithBNNLossCell"]
