"""mindspore.ops.operations.manually_defined: the operators MindSpore defines by hand rather than generates (the
same objects as in `mindspore.ops`)."""
from mindseed.ops.operations.manually_defined import ops_def  # noqa: F401
from mindseed.ops.operations.manually_defined.ops_def import *  # noqa: F401,F403

__all__ = list(ops_def.__all__)
