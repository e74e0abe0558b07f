"""APIs a graph (`construct`, `@jit`) may not call, as MindSpore's parser refuses them: whole modules
(initializers, the context, logging) and methods marked with `jit_forbidden_register` (a Cell's parameter, buffer,
hook and state-dict methods, `Tensor.set_const_arg`). The compiler checks each callee of converted user code
(`forbidden_call`); mindseed's own code calling them while traced is not checked."""
import types

__all__ = ["jit_forbidden_register", "jit_forbidden_class", "forbidden_call"]

# module of the callee -> the name MindSpore's message shows for it
_MODULES = {"mindseed.common.initializer": "mindspore.common.initializer", "mindseed.context": "mindspore.context",
            "mindseed.common.context": "mindspore.context", "mindseed.log": "mindspore.log"}


def jit_forbidden_register(fn):
    """Mark a function or method as not callable from a graph."""
    fn.__jit_forbidden__ = True
    return fn


def jit_forbidden_class(cls):
    """Mark a class (and its subclasses) as not instantiable in a graph (Parameter, MultitypeFuncGraph)."""
    cls._jit_forbidden_create = True
    return cls


def _public(module):
    return "mindspore" + module[len("mindseed"):] if module.startswith("mindseed") else module


def _public_owner(obj, name):
    """The public mindseed class that gives obj its method `name`: the class defining it, or for a private mixin
    the public class that includes it (Cell for a method of `_CellBuffers`)."""
    owner = type(obj)
    for cls in type(obj).__mro__:
        if cls.__module__.startswith("mindseed") and \
                not any(part.startswith("_") for part in (*cls.__module__.split("."), cls.__name__)):
            owner = cls
        if name in vars(cls):
            break
    return owner


def forbidden_call(fn):
    """MindSpore's error when a graph may not call `fn`, else None."""
    if isinstance(fn, type) and getattr(fn, "_jit_forbidden_create", False):
        name = next(c.__name__ for c in fn.__mro__ if "_jit_forbidden_create" in vars(c))
        return ValueError(f"Failed to compile in GRAPH_MODE because creating {name} instances is not supported in "
                          f"'construct' or @jit decorated function. Try to create {name} instances external such as "
                          f"initialized in the method '__init__' before assigning.")
    what = _forbidden_api(fn)
    if what is None:
        return None
    return RuntimeError(f"Failed to compile in GRAPH_MODE because {what[0]} is not supported in 'construct' or "
                        f"function with @jit decorator. Try to use {what[1]} externally such as initialized in the "
                        f"method '__init__' before assigning.")


def _forbidden_api(fn):
    if isinstance(fn, types.MethodType) and getattr(fn.__func__, "__jit_forbidden__", False):
        owner = _public_owner(fn.__self__, fn.__name__)
        if owner.__name__ in ("Tensor", "Parameter"):
            return (f"the '{owner.__name__}' object's method '{fn.__name__}'",
                    f"the '{owner.__name__}.{fn.__name__}'")
        what = f"the method or function '{_public(owner.__module__)}.{owner.__name__}.{fn.__name__}'"
        return what, what
    module = getattr(fn, "__module__", None)
    if module not in _MODULES or not callable(fn):
        return None
    kind = "class" if isinstance(fn, type) else "method or function"
    what = f"the {kind} '{_MODULES[module]}.{fn.__qualname__}'"
    return what, what
