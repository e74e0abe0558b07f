"""Primitive classes made from a table: one row per class names its constructor attributes, its call inputs and
the function it calls. For classes whose whole job is "keep the constructor arguments, call one function with the
inputs and those attributes" — no class body is written for them."""
import inspect

from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.ops.functional._core import inplace_result
from mindseed.ops.operations._base import Primitive

__all__ = ["primitive_class", "REQUIRED"]

REQUIRED = inspect.Parameter.empty


def _bind_inputs(name, inputs, args, kwargs):
    """The call's inputs in order, given by position and by keyword (MindSpore's input names)."""
    values = dict(zip(inputs, args))
    for k, v in kwargs.items():
        if k not in inputs or k in values:
            raise TypeError(f"For '{name}', got an unexpected or repeated input '{k}'; the inputs are "
                            f"{', '.join(inputs)}.")
        values[k] = v
    missing = [i for i in inputs if i not in values]
    if missing:
        raise TypeError(f"For '{name}', {len(inputs)} inputs ({', '.join(inputs)}) are required, but "
                        f"{', '.join(missing)} not given.")
    return tuple(values[i] for i in inputs)


def primitive_class(name, fn, attrs=(), inputs=None, tensors=(), same_shape=(), returns=None, doc=None,
                    module="mindseed.ops.operations", int_tensors=(), check=None, half_single=()):
    """A Primitive class `name`: `name(**attrs)(*inputs)` returns `fn(*inputs, **attrs)`.

    Args:
        fn (callable): what a call runs; it receives the call's inputs positionally and the attributes by keyword.
        attrs (tuple): (attribute, default) pairs; default `REQUIRED` makes it a required constructor argument.
        inputs (tuple[str]): the names of the call's inputs (for messages and `returns`); None: any number.
        tensors (tuple[str]): inputs that must be Tensors.
        same_shape (tuple[str]): inputs whose shapes must equal the first one's (a variable and its state).
        returns (Union[None, str, tuple[str]]): return these inputs (updated in place by `fn`) instead of fn's result.
        int_tensors (tuple[str]): inputs that must be Tensors of an integer dtype (indices).
        check (callable): called with the attributes (a dict) at construction, raising MindSpore's error for a bad
            one.
        half_single (tuple[str]): inputs that must be Tensors of float16 or float32.
    """
    params = [inspect.Parameter(a, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=d) for a, d in attrs]
    signature = inspect.Signature(params)

    def __init__(self, *args, **kwargs):
        Primitive.__init__(self, name)
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise TypeError(f"For '{name}', {exc}.") from None
        bound.apply_defaults()
        if check is not None:
            check(dict(bound.arguments))
        for k, v in bound.arguments.items():
            self.add_prim_attr(k, v)

    def __call__(self, *args, **kwargs):
        if kwargs and inputs is None:   # any inputs (Partial, PyFunc): the keywords go to fn as they are
            return fn(*args, **kwargs, **{a: self.attrs[a] for a, _ in attrs})
        if kwargs:
            args = _bind_inputs(name, inputs, args, kwargs)
        if inputs is not None and len(args) != len(inputs):
            raise TypeError(f"For '{name}', {len(inputs)} inputs ({', '.join(inputs)}) are required, but got "
                            f"{len(args)}.")
        named = dict(zip(inputs, args)) if inputs is not None else {}
        for arg in tensors:
            if not isinstance(named[arg], Tensor):
                raise TypeError(f"For '{name}', the '{arg}' must be a Tensor or Parameter, but got "
                                f"{type(named[arg]).__name__}.")
        for arg in int_tensors:
            if not isinstance(named[arg], Tensor) or not mstype.is_integral(named[arg].dtype):
                got = f"Tensor[{named[arg].dtype}]" if isinstance(named[arg], Tensor) else type(named[arg]).__name__
                raise TypeError(f"For '{name}', the '{arg}' must be a Tensor of int32 or int64, but got {got}.")
        for arg in half_single:
            if named[arg].dtype not in (mstype.float16, mstype.float32):
                raise TypeError(f"For primitive[{name}], the input argument[{arg}] must be a type of "
                                f"{{Tensor[Float16], Tensor[Float32]}}, but got Tensor[{named[arg].dtype}].")
        for arg in same_shape[1:]:
            if named[arg].shape != named[same_shape[0]].shape:
                raise ValueError(f"For '{name}', the shape of '{arg}' {named[arg].shape} must be the same as the "
                                 f"shape of '{same_shape[0]}' {named[same_shape[0]].shape}.")
        out = fn(*args, **{a: self.attrs[a] for a, _ in attrs})
        if returns is None:
            return out
        # the inputs updated in place, as MindSpore's outputs: a Parameter as a Tensor of its new value
        if isinstance(returns, str):
            return inplace_result(named[returns])
        return tuple(inplace_result(named[r]) for r in returns)

    __init__.__signature__ = inspect.Signature([inspect.Parameter("self", inspect.Parameter.POSITIONAL_ONLY)]
                                               + params)
    return type(name, (Primitive,), {"__init__": __init__, "__call__": __call__, "__module__": module,
                                     "__doc__": doc or getattr(fn, "__doc__", None)})
