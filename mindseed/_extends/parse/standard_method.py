"""mindspore._extends.parse.standard_method: the functions behind Tensor methods, each taking the tensor first
(`unsqueeze(x, 0)` is `x.unsqueeze(0)`). Each is that Tensor method, called on its first argument, so this module
needs nothing of the layers above it."""

# the Tensor methods MindSpore's module defines as functions of the tensor
_METHODS = (
    "abs", "all", "any", "argmax", "argmin", "argsort", "astype", "bernoulli", "choose", "clip", "copy", "cumsum",
    "diagonal", "expand_as", "expand_dims", "fill", "flatten", "float", "int", "item", "max", "mean", "min",
    "narrow", "prod", "ptp", "ravel", "repeat", "reshape", "resize", "searchsorted", "sort", "squeeze", "std", "sum",
    "swapaxes", "take", "topk", "trace", "transpose", "unsqueeze", "var", "view",
)

__all__ = list(_METHODS) + ["tensor_bool", "ms_len"]


def _method(name):
    def call(x, *args, **kwargs):
        return getattr(x, name)(*args, **kwargs)
    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"`x.{name}(*args, **kwargs)`: the Tensor method as a function of the tensor."
    return call


globals().update({_name: _method(_name) for _name in _METHODS})


def tensor_bool(x):
    """The truth of a one-element tensor, as a bool tensor (`bool(x)` in a graph).

    Raises:
        ValueError: `x` has more than one element.
    """
    if x.size != 1:
        raise ValueError(f"The truth value of a Tensor with {x.size} elements is ambiguous: only a one-element "
                         f"Tensor can be converted to bool.")
    return x.bool()


def ms_len(input_data):
    """`len(input_data)`: its `__len__()`."""
    return input_data.__len__()
