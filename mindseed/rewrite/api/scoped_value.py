"""mindspore.rewrite.ScopedValue and ValueType: the values a rewrite node reads and writes."""
from enum import Enum

from mindseed import _checkparam as Validator


class ValueType(Enum):
    """Kind of a `ScopedValue`: a constant, a container of values, a name of another variable (`NamingValue`)
    or any other object (`CustomObjValue`)."""
    ConstantValue = 0
    TupleValue = 20
    ListValue = 21
    DictValue = 22
    NamingValue = 40
    CustomObjValue = 41


class ScopedValue:
    """A value with its scope: a target of an assignment, the callee of a call, or an argument.

    Args:
        arg_type (ValueType): the kind of the value.
        scope (str): the scope of the value; for ``self.var1`` it is ``"self"``. Default: ``""``.
        value: the value: a constant, a tuple/list/dict of ScopedValue, a name (str) or an object.

    >>> from mindseed.rewrite import ScopedValue
    >>> print(ScopedValue.create_naming_value("conv", "self"))
    self.conv
    """

    def __init__(self, arg_type, scope="", value=None):
        Validator.check_value_type("arg_type", arg_type, [ValueType], "ScopedValue")
        Validator.check_value_type("scope", scope, [str], "ScopedValue")
        self.type = arg_type
        self.scope = scope
        self.value = value

    @classmethod
    def create_variable_value(cls, value):
        """A ScopedValue holding `value`: a constant, a (nested) tuple/list/dict of values, or any object."""
        if isinstance(value, (type(None), int, float, str, bool)):
            return cls(ValueType.ConstantValue, "", value)
        if isinstance(value, tuple):
            return cls(ValueType.TupleValue, "", tuple(cls.create_variable_value(v) for v in value))
        if isinstance(value, list):
            return cls(ValueType.ListValue, "", [cls.create_variable_value(v) for v in value])
        if isinstance(value, dict):
            for key in value:
                if not isinstance(key, str):
                    raise TypeError(f"For 'ScopedValue.create_variable_value', the keys of a dict must be str, but "
                                    f"got {key!r} with type '{type(key).__name__}'.")
            return cls(ValueType.DictValue, "", {k: cls.create_variable_value(v) for k, v in value.items()})
        return cls(ValueType.CustomObjValue, "", value)

    @classmethod
    def create_naming_value(cls, name, scope=""):
        """A reference to the variable `name` (in `scope`, e.g. ``"self"``)."""
        Validator.check_value_type("name", name, [str], "ScopedValue")
        Validator.check_value_type("scope", scope, [str], "ScopedValue")
        return cls(ValueType.NamingValue, scope, name)

    @staticmethod
    def create_name_values(names, scopes=None):
        """A list of naming values, one per name (with the scope at the same position of `scopes`)."""
        Validator.check_element_type_of_iterable("names", names, [str], "ScopedValue")
        if scopes is not None:
            Validator.check_element_type_of_iterable("scopes", scopes, [str], "ScopedValue")
            if len(names) != len(scopes):
                raise RuntimeError(f"For 'ScopedValue.create_name_values', the length of names ({len(names)}) must "
                                   f"equal the length of scopes ({len(scopes)}).")
        return [ScopedValue.create_naming_value(n, scopes[i] if scopes is not None else "")
                for i, n in enumerate(names)]

    def __str__(self):
        if self.type == ValueType.ConstantValue:
            return str(self.value)
        if self.type == ValueType.NamingValue:
            return f"{self.scope}.{self.value}" if self.scope else str(self.value)
        if self.type == ValueType.CustomObjValue:
            return f"CustomObj: {self.value}"
        if self.type == ValueType.TupleValue:
            return "(" + ", ".join(str(v) for v in self.value) + ("," if len(self.value) == 1 else "") + ")"
        if self.type == ValueType.ListValue:
            return "[" + ", ".join(str(v) for v in self.value) + "]"
        return "{" + ", ".join(f"{k!r}: {v}" for k, v in self.value.items()) + "}"

    def __repr__(self):
        return str(self)

    def __eq__(self, other):
        if self is other:
            return True
        if not isinstance(other, ScopedValue):
            return False
        return self.type == other.type and self.scope == other.scope and self.value == other.value

    def __hash__(self):
        value = self.value
        if isinstance(value, (list, dict)):
            value = tuple(value.items()) if isinstance(value, dict) else tuple(value)
        try:
            return hash((self.type, self.scope, value))
        except TypeError:
            return hash((self.type, self.scope, id(self.value)))
