"""`mindspore.mint.nn.layer.activation` (MindSpore's module path; the same Cells as mint.nn)."""
from mindseed.mint.nn.layer import (ELU, GLU, LogSigmoid, SiLU, Tanh, Threshold)

__all__ = ["ELU", "GLU", "LogSigmoid", "SiLU", "Tanh", "Threshold"]
