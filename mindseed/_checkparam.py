"""mindspore._checkparam: MindSpore's argument checks, used by packages built on MindSpore.

Each check returns the value it accepted (callers assign it) and raises MindSpore's TypeError/ValueError.
Relations are the module constants EQ, NE, LT, LE, GT, GE (against one value) and INC_NEITHER, INC_LEFT,
INC_RIGHT, INC_BOTH (a range, naming which ends are included), IN and NOT_IN (membership).
"""
import functools
import inspect
import numbers
import re
import sys
from collections.abc import Iterable

EQ, NE, LT, LE, GT, GE = 1, 2, 3, 4, 5, 6
INC_NEITHER, INC_LEFT, INC_RIGHT, INC_BOTH = 7, 8, 9, 10
IN, NOT_IN = 11, 12

_RELATIONS = {
    EQ: (lambda x, v: x == v, "= {}"), NE: (lambda x, v: x != v, "!= {}"),
    LT: (lambda x, v: x < v, "< {}"), LE: (lambda x, v: x <= v, "<= {}"),
    GT: (lambda x, v: x > v, "> {}"), GE: (lambda x, v: x >= v, ">= {}"),
    IN: (lambda x, v: x in v, "in {}"), NOT_IN: (lambda x, v: x not in v, "not in {}"),
}
_RANGES = {
    INC_NEITHER: (lambda x, lo, hi: lo < x < hi, "in ({}, {})"),
    INC_LEFT: (lambda x, lo, hi: lo <= x < hi, "in [{}, {})"),
    INC_RIGHT: (lambda x, lo, hi: lo < x <= hi, "in ({}, {}]"),
    INC_BOTH: (lambda x, lo, hi: lo <= x <= hi, "in [{}, {}]"),
}


def _the(arg_name, prim_name):
    name = f"'{arg_name}'" if arg_name else "input value"
    return f"For '{prim_name}', the {name}" if prim_name else f"The {name}"


def _is_int(value):
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _is_number(value):
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _relation(rel, table, kind):
    if rel not in table:
        raise ValueError(f"The relation {rel!r} is not a valid {kind} relation of mindspore._checkparam.")
    return table[rel]


def check_value_type(arg_name, arg_value, valid_types, prim_name=None):
    """`arg_value` is an instance of one of `valid_types` (bool is not accepted as int unless listed)."""
    valid_types = tuple(valid_types) if isinstance(valid_types, (tuple, list)) else (valid_types,)
    ok = isinstance(arg_value, valid_types) and not (isinstance(arg_value, bool) and bool not in valid_types)
    if not ok:
        names = [getattr(t, "__name__", str(t)) for t in valid_types]
        raise TypeError(f"{_the(arg_name, prim_name)} must be {' or '.join(names)}, but got '{arg_value}' with type "
                        f"'{type(arg_value).__name__}'.")
    return arg_value


def check(arg_name, arg_value, value_name, value, rel=EQ, prim_name=None, excp_cls=ValueError):
    """`arg_value` stands in relation `rel` (EQ ... NOT_IN) to `value`, named `value_name` in the message; returns
    it, or raises `excp_cls`."""
    test, text = _relation(rel, _RELATIONS, "binary")
    if not test(arg_value, value):
        prefix = f"For '{prim_name}', the" if prim_name else "The"
        subject = f"{prefix} '{arg_name}'" if " " not in arg_name else f"{prefix} {arg_name}"
        raise excp_cls(f"{subject} should be {text.format(f'{value_name}: {value}')}, but got {arg_value}.")
    return arg_value


def check_type_name(arg_name, arg_type, valid_types, prim_name):
    """`arg_type` (a dtype; a tensor type stands for its element type) is one of `valid_types`; returns it."""
    valid_types = tuple(valid_types) if isinstance(valid_types, (tuple, list, set)) else (valid_types,)
    if hasattr(arg_type, "element_type") and callable(arg_type.element_type):
        arg_type = arg_type.element_type()
    if arg_type not in valid_types:
        names = [t.__name__ if isinstance(t, type) else t for t in valid_types]
        prefix = f"For '{prim_name}', the" if prim_name else "The"
        got = arg_type.__name__ if isinstance(arg_type, type) else repr(arg_type)
        raise TypeError(f"{prefix} '{arg_name}' should be {'one of ' if len(names) > 1 else ''}"
                        f"{names if len(names) > 1 else names[0]}, but got '{got}'.")
    return arg_type


def _type_names(types):
    return " or ".join(getattr(t, "__name__", str(t)) for t in types)


def check_element_type_of_iterable(arg_name, arg_value, valid_types, prim_name=None):
    """`arg_value` is a list or tuple whose every element is an instance of one of `valid_types`."""
    check_value_type(arg_name, arg_value, [list, tuple], prim_name)
    for element in arg_value:
        if not isinstance(element, tuple(valid_types)):
            raise TypeError(f"{_the(arg_name, prim_name)} must be a list or tuple of {_type_names(valid_types)}, but "
                            f"got an element '{element}' with type '{type(element).__name__}'.")
    return arg_value


def check_element_type_of_dict(arg_name, arg_value, key_types, value_types, prim_name=None):
    """`arg_value` is a dict whose keys are of `key_types` and values of `value_types`."""
    check_value_type(arg_name, arg_value, [dict], prim_name)
    for key, value in arg_value.items():
        if not isinstance(key, tuple(key_types)) or not isinstance(value, tuple(value_types)):
            raise TypeError(f"{_the(arg_name, prim_name)} must be a dict of {_type_names(key_types)} to "
                            f"{_type_names(value_types)}, but got the item {key!r}: '{value}' with types "
                            f"'{type(key).__name__}' and '{type(value).__name__}'.")
    return arg_value


def check_isinstance(arg_name, arg_value, classes):
    """`arg_value` is an instance of `classes`."""
    if not isinstance(arg_value, classes):
        raise TypeError(f"The type of '{arg_name}' must be {classes}, but got {type(arg_value).__name__}.")
    return arg_value


_DTYPES = "mindseed.common.dtype"     # the module of MindSpore's type objects (a layer above these checks)


def _is_subtype(type_, template):
    """MindSpore's `_issubclass_` for a type template (the same type; any number type under `number`; a tensor type
    under the TensorType class), identity for any other template."""
    if type(template).__module__ == _DTYPES:
        if type_ == template:
            return True
        return str(template) == "Number" and any(
            c.__module__ == _DTYPES and c.__name__ == "Number" for c in type(type_).__mro__)
    if isinstance(template, type) and template.__module__ == _DTYPES:
        return isinstance(type_, template)
    return type_ is template


def check_subclass(arg_name, type_, template_types, prim_name, addition_error_info=None):
    """`type_` (a MindSpore type) is, or is of the kind of, one of `template_types`."""
    if not isinstance(template_types, Iterable):
        template_types = (template_types,)
    if not any(_is_subtype(type_, t) for t in template_types):
        extra = "" if addition_error_info is None else " " + addition_error_info
        got = f"type '{type(type_).__name__}'" if isinstance(type_, (tuple, list)) else str(type_)
        raise TypeError(f"For '{prim_name}', the element of '{arg_name}' must be "
                        f"{'one of ' if len(template_types) > 1 else ''}{', '.join(str(t) for t in template_types)}, "
                        f"but got {got}{extra}.The supported data types depend on the hardware that executes the "
                        f"operator, for more details, please refer to the MindSpore official website to get more "
                        f"information about the data type.")


def check_types_same_and_valid(args, valid_values, prim_name):
    """`args` ({name: MindSpore type}) are each of one of `valid_values` (as check_subclass) and all the same."""
    items = list(args.items())
    for name, type_ in items:
        check_subclass(name, type_, valid_values, prim_name)
    first_name, first = items[0] if items else (None, None)
    for name, type_ in items[1:]:
        if type_ != first:
            raise TypeError(f"For '{prim_name}', the type of '{name}' should be same as '{first_name}', but got "
                            f"'{first_name}' with type {first} and '{name}' with type {type_}.")


def _tensor_types(valid_dtypes):
    tensor_type = sys.modules[_DTYPES].TensorType     # the dtype module is loaded once a dtype exists
    valid_dtypes = valid_dtypes if isinstance(valid_dtypes, Iterable) else [valid_dtypes]
    return [tensor_type(t) for t in valid_dtypes]


def check_tensors_dtypes_same_and_valid(args, valid_dtypes, prim_name):
    """`args` ({name: Tensor type}) are Tensors of one of `valid_dtypes`, all of the same dtype."""
    check_types_same_and_valid(args, _tensor_types(valid_dtypes), prim_name)


def check_tensor_dtype_valid(arg_name, arg_type, valid_dtypes, prim_name):
    """`arg_type` is the type of a Tensor of one of `valid_dtypes`."""
    check_subclass(arg_name, arg_type, _tensor_types(valid_dtypes), prim_name)


def _check_kind(arg_value, ok, kind, arg_name, prim_name):
    if not ok:
        raise TypeError(f"{_the(arg_name, prim_name)} must be {kind}, but got {type(arg_value).__name__}.")
    return arg_value


def check_bool(arg_value, arg_name=None, prim_name=None):
    return _check_kind(arg_value, isinstance(arg_value, bool), "a bool", arg_name, prim_name)


def check_is_int(arg_value, arg_name=None, prim_name=None):
    return _check_kind(arg_value, _is_int(arg_value), "an int", arg_name, prim_name)


def check_is_float(arg_value, arg_name=None, prim_name=None):
    return _check_kind(arg_value, isinstance(arg_value, float), "a float", arg_name, prim_name)


def _check_number_rel(arg_value, value, rel, is_type, kind, arg_name, prim_name):
    _check_kind(arg_value, is_type(arg_value), kind, arg_name, prim_name)
    test, text = _relation(rel, _RELATIONS, "comparison")
    if not test(arg_value, value):
        raise ValueError(f"{_the(arg_name, prim_name)} must be {kind} {text.format(value)}, but got {arg_value}.")
    return arg_value


def check_int(arg_value, value, rel, arg_name=None, prim_name=None):
    """An int standing in relation `rel` to `value`, e.g. check_int(x, 0, GT)."""
    return _check_number_rel(arg_value, value, rel, _is_int, "int", arg_name, prim_name)


def check_equal_int(arg_value, value, arg_name=None, prim_name=None):
    return check_int(arg_value, value, EQ, arg_name, prim_name)


def check_positive_int(arg_value, arg_name=None, prim_name=None):
    return check_int(arg_value, 0, GT, arg_name, prim_name)


def check_non_negative_int(arg_value, arg_name=None, prim_name=None):
    return check_int(arg_value, 0, GE, arg_name, prim_name)


def check_non_positive_int(arg_value, arg_name=None, prim_name=None):
    return check_int(arg_value, 0, LE, arg_name, prim_name)


def check_negative_int(arg_value, arg_name=None, prim_name=None):
    return check_int(arg_value, 0, LT, arg_name, prim_name)


def check_number(arg_name, arg_value, value, rel, prim_name=None):
    """A real number (int or float, not bool) standing in relation `rel` to `value`."""
    return _check_number_rel(arg_value, value, rel, _is_number, "number", arg_name, prim_name)


def check_float(arg_value, value, rel, arg_name=None, prim_name=None):
    """A float standing in relation `rel` to `value`, e.g. check_float(eps, 0.0, GT)."""
    return _check_number_rel(arg_value, value, rel, lambda v: isinstance(v, float), "float", arg_name, prim_name)


def check_positive_float(arg_value, arg_name=None, prim_name=None):
    return check_float(arg_value, 0, GT, arg_name, prim_name)


def check_non_negative_float(arg_value, arg_name=None, prim_name=None):
    return check_float(arg_value, 0, GE, arg_name, prim_name)


def _check_range(arg_value, lower_limit, upper_limit, rel, is_type, kind, arg_name, prim_name):
    _check_kind(arg_value, is_type(arg_value), kind, arg_name, prim_name)
    test, text = _relation(rel, _RANGES, "range")
    if not test(arg_value, lower_limit, upper_limit):
        raise ValueError(f"{_the(arg_name, prim_name)} must be {text.format(lower_limit, upper_limit)}, but got "
                         f"{arg_value}.")
    return arg_value


def check_int_range(arg_value, lower_limit, upper_limit, rel, arg_name=None, prim_name=None):
    """An int within [lower_limit, upper_limit], the ends included as `rel` says (INC_BOTH, INC_LEFT, ...)."""
    return _check_range(arg_value, lower_limit, upper_limit, rel, _is_int, "int", arg_name, prim_name)


def check_float_range(arg_value, lower_limit, upper_limit, rel, arg_name=None, prim_name=None):
    """A real number within the range (ints are accepted as MindSpore does)."""
    return _check_range(arg_value, lower_limit, upper_limit, rel, _is_number, "number", arg_name, prim_name)


def check_string(arg_value, valid_values, arg_name=None, prim_name=None):
    """A str among `valid_values`."""
    if not isinstance(arg_value, str) or arg_value not in valid_values:
        raise ValueError(f"{_the(arg_name, prim_name)} must be str and must be in {list(valid_values)}, but got "
                         f"{arg_value!r}.")
    return arg_value


def _check_regular(target, reg, flag, prim_name):
    if re.match(reg, target, flag) is None:
        where = f"For '{prim_name}', the" if prim_name else "The"
        raise ValueError(f"{where} '{target}' is illegal, it must be match regular'{reg}' by flags'{flag}.'")
    return True


def check_str_by_regular(target, reg=None, flag=re.ASCII, prim_name=None):
    """A name matching `reg` (default: a word character, then letters, digits, '_' and '.')."""
    return _check_regular(target, r"^\w+[0-9a-zA-Z\_\.]*$" if reg is None else reg, flag, prim_name)


def check_str_and_none_by_regular(target, reg=None, flag=re.ASCII, prim_name=None):
    """A possibly empty name matching `reg` (default: word characters, then letters, digits, '_', '.' and '-')."""
    return _check_regular(target, r"^\w*[0-9a-zA-Z\_\.\-]*$" if reg is None else reg, flag, prim_name)


def check_input_format(input_param):
    """'NCHW', the one data format accepted."""
    if input_param == "NCHW":
        return input_param
    raise ValueError(f"The data format must be NCHW, but got {input_param}.")


def _expand_tuple(n_dimensions):
    """A function taking an int to the tuple of it `n_dimensions` times, or a tuple of that many ints as it is."""
    def convert(m):
        if not isinstance(m, tuple):
            if _is_int(m):
                return (m,) * n_dimensions
            raise TypeError(f"When expanding an int number to tuple, input type must be integer or tuple[int], "
                            f"but got {type(m)}")
        if len(m) != n_dimensions:
            raise TypeError(f"When expanding an int number to tuple, input tuple dimension must be {n_dimensions}, "
                            f"but got {m}")
        for i in m:
            if not _is_int(i):
                raise TypeError(f"When expanding an int number to tuple, the type of element in input tuple must be "
                                f"an integer, but got {type(i)}.")
        return m
    return convert


once, twice, triple = _expand_tuple(1), _expand_tuple(2), _expand_tuple(3)


def args_type_check(*type_args, **type_kwargs):
    """Decorator checking the types of a function's arguments: each argument named (or given by position) here
    must be an instance of its type(s) or None, else TypeError naming the parameter, the types and the type given.
    A function taking ``**kwargs`` has the types of those keyword arguments checked (MindSpore's `set_context`)."""
    def type_check(func):
        sig = inspect.signature(func)
        bound_types = sig.bind_partial(*type_args, **type_kwargs).arguments
        bound_types = bound_types.get("kwargs", bound_types)

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            values = sig.bind(*args, **kwargs).arguments
            values = values.get("kwargs", values)
            for name, value in values.items():
                if name in bound_types and value is not None and not isinstance(value, bound_types[name]):
                    raise TypeError(f"The parameter '{name}' must be {bound_types[name]}, but got {type(value)}")
            return func(*args, **kwargs)
        return wrapper
    return type_check


def check_coo_tensor_shape(indices_shp, values_shp, shape):
    """MindSpore's COOTensor shapes: a 2-D dense `shape` of positive ints holding the values, `indices` (N, 2) and
    `values` (N,)."""
    if len(shape) != 2:
        raise ValueError(f"For COOTensor, the length of 'shape' must be 2, but got {shape}.")
    if indices_shp == (0,) and values_shp == (0,):
        return
    for d in shape:
        if not isinstance(d, numbers.Integral) or isinstance(d, bool):
            raise TypeError(f"For COOTensor, the element type of 'shape' must be int, but got {type(d)}")
        if d <= 0:
            raise ValueError(f"For COOTensor, the element of 'shape' must be positive, but got {d} in {shape}.")
    if len(values_shp) >= 1 and shape[0] * shape[1] < values_shp[0]:
        raise ValueError(f"For COOTensor, shape is too small: ({shape[0] * shape[1]}) to hold all "
                         f"values({values_shp[0]}).")
    if len(indices_shp) != 2:
        raise ValueError(f"For COOTensor, 'indices' must be a 2-dimensional tensor, but got a {len(indices_shp)}"
                         f"-dimensional tensor.")
    if len(values_shp) != 1:
        raise ValueError(f"For COOTensor, 'values' must be a 1-dimensional tensor, but got a {len(values_shp)}"
                         f"-dimensional tensor.")
    if indices_shp[0] != values_shp[0]:
        raise ValueError(f"For COOTensor, 'indices.shape[0]' must be equal to 'values.shape[0]', but got "
                         f"'indices.shape[0]' = {indices_shp[0]} and 'values.shape[0]' = {values_shp[0]}.")
    if indices_shp[1] != 2:
        raise ValueError(f"For COOTensor, 'indices.shape[1]' must be 2, but got {indices_shp[1]}.")
