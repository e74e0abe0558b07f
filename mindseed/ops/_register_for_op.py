"""MindSpore's `ops._register_for_op`: the registries that map a Primitive (its class, or its name) to a function —
a bprop or a Python ("vm") implementation — and `PyFuncRegistry` for functions looked up by key."""
from collections import UserDict

from mindseed.ops.primitive import Primitive


class Registry(UserDict):
    """Functions registered per Primitive class (`register(P.Add)`) or per primitive name (`register("Add")`)."""

    def register(self, prim):
        def deco(fn):
            if isinstance(prim, str):
                self[prim] = fn
            elif isinstance(prim, type) and issubclass(prim, Primitive):
                self[id(prim)] = fn
            else:
                raise TypeError(f"For 'Registry.register', the key must be a Primitive class or a name, but got "
                                f"{type(prim).__name__}.")
            return fn
        return deco

    def get(self, prim_obj, default):
        """The function of a Primitive instance (by its class, then its name) or of a name; `default` if none."""
        if isinstance(prim_obj, str):
            return self.data.get(prim_obj, default)
        if isinstance(prim_obj, Primitive):
            key = id(prim_obj.__class__)
            if key in self.data:
                return self.data[key]
            return self.data.get(prim_obj.name, default)
        return default


class PyFuncRegistry(UserDict):
    """Python functions by key."""

    def register(self, key, value):
        self[key] = value

    def get(self, key):
        if key not in self:
            raise ValueError(f"Python function with key{key} not registered.")
        return self[key]
