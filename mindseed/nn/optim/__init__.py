"""mindspore.nn.optim: optimizers with MindSpore's update rules, state names and parameter groups."""
from mindseed.nn.optim.optimizer import Optimizer
from mindseed.nn.optim.momentum import Momentum
from mindseed.nn.optim.adam import Adam, AdamWeightDecay, AdamOffload
from mindseed.nn.optim.lamb import Lamb
from mindseed.nn.optim.sgd import SGD
from mindseed.nn.optim.asgd import ASGD
from mindseed.nn.optim.rprop import Rprop
from mindseed.nn.optim.lars import LARS
from mindseed.nn.optim.ftrl import FTRL
from mindseed.nn.optim.rmsprop import RMSProp
from mindseed.nn.optim.proximal_ada_grad import ProximalAdagrad
from mindseed.nn.optim.lazyadam import LazyAdam
from mindseed.nn.optim.ada_grad import Adagrad
from mindseed.nn.optim.adafactor import AdaFactor
from mindseed.nn.optim.adamax import AdaMax
from mindseed.nn.optim.adadelta import Adadelta
from mindseed.nn.optim.thor import thor
from mindseed.nn.optim.tft_wrapper import OptTFTWrapper
from mindseed.nn.optim.adasum import AdaSumByDeltaWeightWrapCell, AdaSumByGradWrapCell

__all__ = ["Optimizer", "Momentum", "LARS", "Adam", "AdamWeightDecay", "LazyAdam", "AdamOffload", "Lamb", "SGD",
           "ASGD", "Rprop", "FTRL", "RMSProp", "ProximalAdagrad", "Adagrad", "AdaFactor", "AdaMax", "Adadelta", "thor",
           "OptTFTWrapper", "AdaSumByDeltaWeightWrapCell", "AdaSumByGradWrapCell"]
