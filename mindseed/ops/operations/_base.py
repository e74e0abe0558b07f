"""Base classes of the Primitive-class API."""
__all__ = ["Primitive", "PrimitiveWithInfer", "PrimitiveWithCheck", "prim_attr_register", "constexpr"]


class Primitive:
    """MindSpore's operator class: attributes are set at construction, inputs given at call.

    Subclasses implement `__call__` by calling the functional op with their attributes.
    """

    def __init__(self, name=None):
        self.name = name or type(self).__name__
        self.attrs = {}

    def add_prim_attr(self, name, value):
        self.attrs[name] = value
        setattr(self, name, value) if not hasattr(type(self), name) else None
        return self

    def del_prim_attr(self, name):
        self.attrs.pop(name, None)
        return self

    def init_prim_io_names(self, inputs, outputs):
        self.input_names, self.output_names = list(inputs), list(outputs)

    def set_prim_instance_name(self, instance_name):
        self.instance_name = instance_name
        return self

    def shard(self, in_strategy=None, out_strategy=None, **kwargs):
        self.in_strategy, self.out_strategy = in_strategy, out_strategy
        return self

    def recompute(self, mode=True):
        return self

    def set_device(self, device_target):
        return self

    def __repr__(self):
        attrs = ", ".join(f"{k}={v}" for k, v in self.attrs.items())
        return f"Prim[{self.name}]" + (f"<{attrs}>" if attrs else "")

    def __call__(self, *args):
        raise TypeError(f"Primitive '{self.name}' has no implementation: subclass it and define __call__, or use "
                        f"ops.Custom.")


class PrimitiveWithInfer(Primitive):
    def infer_shape(self, *args):
        return None

    def infer_dtype(self, *args):
        return None


class PrimitiveWithCheck(Primitive):
    def check_shape(self, *args):
        return None

    def check_dtype(self, *args):
        return None


def prim_attr_register(fn):
    """Decorator for a Primitive subclass's __init__: records the arguments as attributes."""
    import functools  # noqa: PLC0415
    import inspect  # noqa: PLC0415

    @functools.wraps(fn)
    def deco(self, *args, **kwargs):
        Primitive.__init__(self, type(self).__name__)
        bound = inspect.signature(fn).bind(self, *args, **kwargs)
        bound.apply_defaults()
        for k, v in list(bound.arguments.items())[1:]:
            self.attrs[k] = v
        fn(self, *args, **kwargs)
    return deco


def constexpr(fn=None, get_instance=True, reuse_result=True, check=True):
    """Mark a function as computing constants at compile time (a plain call in PyNative)."""
    if fn is None:
        return lambda f: f
    return fn


def simple_primitive(name, fn, doc):
    """A Primitive class `name` with no attributes whose call is `fn(*args)`."""
    def __init__(self):
        Primitive.__init__(self, name)

    def __call__(self, *args):
        return fn(*args)

    return type(name, (Primitive,), {"__init__": __init__, "__call__": __call__, "__doc__": doc,
                                     "__module__": "mindseed.ops.operations"})
