"""MindSpore's `mindspore._extends`: `cell_attr_register`, the decorator of a built-in Cell's `__init__` that records
the arguments it was made with (`cell.cell_init_args`, the class name followed by the arguments), which MindSpore's
compiler uses to tell apart cells of one class built differently. Model code (mindformers' layers) decorates its
Cells with it."""
import functools
import inspect

__all__ = ["cell_attr_register"]


def cell_attr_register(fn=None, attrs=None):
    """Decorate a Cell's `__init__`: after it runs, `self.cell_init_args` is the class name followed by the list of
    its arguments (`attrs` None), of the attributes named in `attrs` (a list) or the one attribute `attrs` names.

    Raises:
        ValueError: `attrs` is neither a list, a str nor None, or the list holds something other than str.
    """
    def wrap_cell(init):
        @functools.wraps(init)
        def deco(self, *args, **kwargs):
            arguments = []
            if attrs is None:
                bound = inspect.signature(init).bind(self, *args, **kwargs).arguments
                del bound["self"]
                arguments = bound.values()
            init(self, *args, **kwargs)
            if isinstance(attrs, list):
                for item in attrs:
                    if not isinstance(item, str):
                        raise ValueError("attr must be a string")
                    if hasattr(self, item):
                        arguments.append(getattr(self, item))
            elif isinstance(attrs, str):
                if hasattr(self, attrs):
                    arguments = getattr(self, attrs)
            elif attrs is not None:
                raise ValueError("attrs must be list or string")
            self.cell_init_args = type(self).__name__ + str(arguments)
        return deco

    return wrap_cell(fn) if fn is not None else wrap_cell
