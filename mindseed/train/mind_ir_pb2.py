"""mindspore.train.mind_ir_pb2: the message classes of MindSpore's MindIR schema (`ModelProto` and the rest), as
tools read MindIR files with them."""
from mindseed.export._schema import _CLASSES

globals().update(_CLASSES)
__all__ = sorted(_CLASSES)
