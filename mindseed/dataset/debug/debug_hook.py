"""The base class of the dataset pipeline's debug hooks."""
from abc import ABC, abstractmethod


class DebugHook(ABC):
    """A debug hook of the dataset pipeline: subclasses define `compute(self, *args)`, which receives the tuple of
    the columns between two transforms of a `map` (set a breakpoint there, or print them).

    Args:
        prev_op_name (str, optional): the name of the transform before this point. Default: ``None``.

    Calling the hook prints which transform's input or output it sees (when it knows the transform), calls
    `compute` and passes the columns on unchanged.
    """

    def __init__(self, prev_op_name=None):
        self.prev_op_name = prev_op_name
        self.is_first_op = None

    def __call__(self, *args):
        if self.prev_op_name:
            side = "INPUT" if self.is_first_op else "OUTPUT"
            print(f"[Dataset debugger] Print the [{side}] of the operation [{self.prev_op_name}].", flush=True)
        self.compute(args)
        return args

    @abstractmethod
    def compute(self, *args):
        """The debugging behaviour; `args` holds one tuple: the columns."""
        raise RuntimeError("compute() is not overridden in subclass of class DebugHook.")

    def set_previous_op_name(self, prev_op_name):
        self.prev_op_name = prev_op_name

    def set_is_first(self, is_first_op):
        self.is_first_op = is_first_op
