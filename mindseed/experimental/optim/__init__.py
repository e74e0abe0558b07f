"""mindspore.experimental.optim: optimizers with torch-style parameter groups, and `lr_scheduler`."""
from mindseed.experimental.optim.optimizer import Optimizer
from mindseed.experimental.optim.adamw import AdamW
from mindseed.experimental.optim.sgd import SGD
from mindseed.experimental.optim.adam import Adam
from mindseed.experimental.optim.adadelta import Adadelta
from mindseed.experimental.optim.adagrad import Adagrad
from mindseed.experimental.optim.asgd import ASGD
from mindseed.experimental.optim.adamax import Adamax
from mindseed.experimental.optim.rmsprop import RMSprop
from mindseed.experimental.optim.rprop import Rprop
from mindseed.experimental.optim.radam import RAdam
from mindseed.experimental.optim.nadam import NAdam
from mindseed.experimental.optim import lr_scheduler  # noqa: F401

__all__ = ["Optimizer", "AdamW", "SGD", "Adam", "Adadelta", "Adagrad", "ASGD", "Adamax", "RMSprop", "Rprop",
           "RAdam", "NAdam"]
