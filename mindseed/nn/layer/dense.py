"""`mindspore.nn.layer.dense` (MindSpore's module path for BiDense; the cell lives in nn.layer.basic)."""
from mindseed.nn.layer.basic import BiDense  # noqa: F401

__all__ = ["BiDense"]
