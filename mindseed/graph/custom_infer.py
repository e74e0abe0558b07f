"""Op wrappers and custom inferences: what a compiled graph runs for a primitive's class-API call, and attributes
computed for its output while the graph is compiled."""
from mindseed.ops.operations._base import OP_INFERS, OP_WRAPPERS

__all__ = ["register_op_infer", "register_op_wrapper", "clear_op_infer", "clear_op_wrapper"]


def _check_name(arg, value):
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{arg} must be a non-empty string")


def register_op_infer(op_name, infer_name):
    """Decorator: inside a compiled graph, each call of the primitive `op_name` (its class API, `ops.Add()(x, y)`)
    gives its output the attribute `infer_name`, the decorated function's result on the call's arguments; later
    inferences read it (`x.layout`).

    Args:
        op_name (str): the primitive's name (``"Add"``).
        infer_name (str): the attribute's name.

    Returns:
        The decorator (it returns the function unchanged).

    Raises:
        ValueError: `op_name` or `infer_name` is not a non-empty string.
        RuntimeError: an inference of that name is already registered for the primitive.

    >>> from mindseed.graph import register_op_infer, clear_op_infer
    >>> _ = register_op_infer("Add", "layout")(lambda x, y: x.shape + y.shape)
    >>> clear_op_infer()
    """
    _check_name("op_name", op_name)
    _check_name("infer_name", infer_name)

    def decorator(func):
        funcs = OP_INFERS.setdefault(op_name, {})
        if infer_name in funcs:
            raise RuntimeError(f"Registering function: {infer_name} for op: {op_name} multiple times.")
        funcs[infer_name] = func
        return func
    return decorator


def clear_op_infer():
    """Remove every registered custom inference."""
    OP_INFERS.clear()


def register_op_wrapper(op_name):
    """Decorator: inside a compiled graph, a call of the primitive `op_name` (its class API) runs
    `func(*args)(*args)` instead: the decorated function gets the call's arguments and returns the function to run.

    Args:
        op_name (str): the primitive's name (``"Add"``).

    Returns:
        The decorator (it returns the function unchanged).

    Raises:
        ValueError: `op_name` is not a non-empty string.
        RuntimeError: a wrapper is already registered for the primitive.

    >>> from mindseed.graph import register_op_wrapper, clear_op_wrapper
    >>> _ = register_op_wrapper("Add")(lambda x, y: lambda x, y: x + 2 * y)
    >>> clear_op_wrapper()
    """
    _check_name("op_name", op_name)

    def decorator(func):
        if op_name in OP_WRAPPERS:
            raise RuntimeError(f"Registering op wrapper for op: {op_name} multiple times.")
        OP_WRAPPERS[op_name] = func
        return func
    return decorator


def clear_op_wrapper():
    """Remove every registered op wrapper."""
    OP_WRAPPERS.clear()
