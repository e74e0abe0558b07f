"""Public names generated from primitive declarations: one row per op.

A primitive declared in `ops/_prims/*.py` states its public names next to its kernel and bprop:

    sin_p = Prim("Sin", K.sin)
    sin_p.def_bprop(lambda x, out, dout: (mul_p(dout, cos_p(x)),))
    public(sin_p, "sin(input)", tensor=True, cls="Sin", doc="Sine.")

and gets, with nothing written in any other file:

* the functional function `ops.sin(input)` (and `ops.functional.sin`), which checks its arguments and
  calls the primitive; further signatures are aliases (`"asin(input)", "arcsin(x)"`);
* the Tensor method `Tensor.sin(self)` (`tensor=True`: every functional name; or a tuple of names);
* the Primitive class `ops.Sin()(x)` (`cls=`: one name or a tuple).

A signature is Python: `name(a, b, n=None, *, attr=default)`. Parameters without a default are the
primitive's inputs; parameters with one (positional or keyword-only) are its attributes, passed to the
primitive by keyword. `check` says what the
inputs must be:

* ``"tensor"`` (default): every input a Tensor;
* ``"operands"``: two inputs, Tensors or Python numbers (numpy scalars become numbers), at least one Tensor
  — the arithmetic convention of MindSpore's binary ops;
* ``"float"``: every input a Tensor of a floating dtype;
* ``"inexact"``: every input a Tensor of a floating or complex dtype (MindSpore's CPU kernels of the
  transcendental functions have no integer or bool version: `ops.sin` of an int32 tensor is a TypeError there).

A public name whose MindSpore signature needs real code (argument overloads, defaults computed from the
input, several primitives) is written by hand in `ops/functional/` instead; rows are for the thin ones.
The generated functions are plain Python functions compiled once (`exec` of a template), as fast as
hand-written ones: an `isinstance` per input and the primitive call.
"""
import ast
import numbers

import numpy as np

from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor

__all__ = ["public", "classes", "G", "ROWS", "FUNCTIONS", "METHODS", "CLASSES"]

ROWS = []          # every Row, in declaration order
FUNCTIONS = {}     # functional name -> function
METHODS = {}       # Tensor method name -> function(self, ...)
CLASSES = {}       # Primitive-class name -> class

_CHECKS = ("tensor", "operands", "float", "inexact")
_INEXACT = frozenset(mstype.float_type + mstype.complex_type)
_PY_NUMBERS = (int, float, bool)


class Row:
    """The public names of one primitive (see the module docstring)."""

    __slots__ = ("prim", "signatures", "check", "doc", "functions", "methods", "classes", "numbers")

    def __init__(self, prim, signatures, check, doc, numbers=False):
        self.prim, self.signatures, self.check, self.doc, self.numbers = prim, signatures, check, doc, numbers
        self.functions, self.methods, self.classes = {}, {}, {}

    def __repr__(self):
        return f"Row({self.prim.name}: {', '.join(self.functions) or '-'})"


def public(prim, *signatures, tensor=False, cls=(), check="tensor", doc=None, numbers=False, number_pair=None):
    """Declare the public names of `prim`: functional signatures, Tensor methods, Primitive classes.

    Args:
        prim (Prim): the primitive the names call.
        *signatures (str): `"name(inputs..., attrs=defaults, *, attrs=defaults)"`; the first is the main one, the
            others aliases.
        tensor (Union[bool, tuple[str]]): Tensor methods: True for every functional name, or the names.
        cls (Union[str, tuple[str]]): names of the MindSpore Primitive classes (`ops.Sin`).
        check (str): what the inputs must be: "tensor", "operands", "float" or "inexact".
        doc (str): the docstring of the generated names.
        numbers (bool): the Primitive classes compute on Python numbers too (`ops.FloorDiv()(7, 2)`).
        number_pair (bool): the functions of an "operands" row take two Python numbers (`ops.floor_div(7, 2)`);
            None: as `numbers`.

    Returns:
        Row, also appended to `ROWS`.
    """
    if check not in _CHECKS:
        raise ValueError(f"For 'public', 'check' must be one of {_CHECKS}, but got {check!r}.")
    row = Row(prim, signatures, check, doc or f"The {prim.name} primitive.", numbers)
    for sig in signatures:
        name, inputs, attrs = _parse(sig)
        if check == "operands" and len(inputs) != 2:
            raise ValueError(f"For 'public', the signature {sig!r} of '{prim.name}' must have two inputs to use "
                             f"check='operands'.")
        fn = _function(prim, name, inputs, attrs, check, row.doc, numbers if number_pair is None else number_pair)
        _add(FUNCTIONS, name, fn, prim)
        row.functions[name] = fn
        if tensor is True or (tensor and name in tensor):
            _add(METHODS, name, fn, prim)
            row.methods[name] = fn
    for name in (cls,) if isinstance(cls, str) else cls:
        _add(CLASSES, name, None, prim)      # made by `classes()`, once the class API's base is importable
        row.classes[name] = None
    ROWS.append(row)
    return row


class _Generated:
    """The generated functions as attributes (`G.sqrt`), for hand-written ops that call them."""

    def __getattr__(self, name):
        try:
            return FUNCTIONS[name]
        except KeyError:
            raise AttributeError(f"no public function '{name}' is declared by a primitive row") from None


G = _Generated()


def classes():
    """The Primitive classes of every row, {name: class} (`ops.operations` imports them)."""
    from mindseed.ops.operations._base import simple_primitive  # noqa: PLC0415 -- the class API sits above the rows
    for row in ROWS:
        main = next(iter(row.functions.values()))
        for name, klass in row.classes.items():
            if klass is None:
                row.classes[name] = CLASSES[name] = simple_primitive(name, main, row.doc, row.numbers,
                                                                       row.check == "operands")
    return dict(CLASSES)


def _add(table, name, obj, prim):
    if name in table:
        raise ValueError(f"The public name '{name}' of primitive '{prim.name}' is declared twice.")
    table[name] = obj


def _parse(sig):
    """'name(a, b, n=None, *, k=1)' -> ('name', ['a', 'b'], [('n', None, False), ('k', 1, True)]).

    Parameters without a default are the primitive's inputs; those with one are its attributes (keyword-only
    after `*`)."""
    try:
        fn = ast.parse(f"def {sig}: pass").body[0]
    except SyntaxError:
        raise ValueError(f"For 'public', {sig!r} is not a signature 'name(inputs, attrs=defaults, *, attrs=defaults)'."
                         ) from None
    args = fn.args
    if args.vararg or args.kwarg or args.posonlyargs:
        raise ValueError(f"For 'public', {sig!r}: a row's signature has no *args, **kwargs or positional-only marker.")
    n_inputs = len(args.args) - len(args.defaults)
    inputs = [a.arg for a in args.args[:n_inputs]]
    attrs = [(a.arg, ast.literal_eval(d), False) for a, d in zip(args.args[n_inputs:], args.defaults)]
    attrs += [(a.arg, ast.literal_eval(d), True) for a, d in zip(args.kwonlyargs, args.kw_defaults)]
    return fn.name, inputs, attrs


def _function(prim, name, inputs, attrs, check, doc, numbers=False):
    """Compile `def name(inputs, attrs=defaults): <checks>; return prim(inputs, attr=attr)`; with `numbers`, an
    "operands" row takes two Python numbers too (the first becomes a 0-d tensor, as MindSpore computes them)."""
    positional = [f"{a}=_d_{a}" for a, _, kw in attrs if not kw]
    keyword = [f"{a}=_d_{a}" for a, _, kw in attrs if kw]
    params = ", ".join(inputs + positional + (["*"] + keyword if keyword else []))
    lines = [f"def {name}({params}):"]
    if check == "operands":
        a, b = inputs
        lines.append(f"    {a}, {b} = _operands({prim.name!r}, {a}, {b}, {tuple(inputs)!r}, {numbers!r})")
    elif check == "float":
        lines += [f"    _check_float({prim.name!r}, {a!r}, {a})" for a in inputs]
    elif check == "inexact":
        for a in inputs:
            lines.append(f"    if not isinstance({a}, Tensor) or {a}.dtype not in _INEXACT:")
            lines.append(f"        check_inexact({prim.name!r}, {a!r}, {a})")
    else:
        for a in inputs:
            lines.append(f"    if not isinstance({a}, Tensor):")
            lines.append(f"        _check_tensor({prim.name!r}, {a!r}, {a})")
    for a, _, _ in attrs:
        # an attribute given as a tensor (a `mutable` axis, a size computed as a tensor): its value, as MindSpore's
        # argument handlers take it
        lines.append(f"    if isinstance({a}, Tensor):")
        lines.append(f"        {a} = _attr_value({a})")
    call = ", ".join(inputs + [f"{a}={a}" for a, _, _ in attrs])
    lines.append(f"    return _prim({call})")
    scope = {"Tensor": Tensor, "_operands": _operands, "_check_tensor": _check_tensor,
             "_check_float": _check_float, "_prim": prim, "_attr_value": _attr_value, "_INEXACT": _INEXACT,
             "check_inexact": check_inexact}
    scope.update({f"_d_{a}": d for a, d, _ in attrs})
    code = compile("\n".join(lines), f"<mindseed.ops.{name}>", "exec")
    exec(code, scope)  # noqa: S102 -- the template above, filled with identifiers parsed by ast
    fn = scope[name]
    fn.__module__ = "mindseed.ops.functional"
    fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


def _attr_value(t):
    """A tensor given for an attribute: a Python number (0-d) or a tuple of them. Anything else as it is (inside a
    graph, reading a `mutable` argument's value keys the compiled graph by that value)."""
    if not isinstance(t, Tensor):
        return t
    return t.item() if t.ndim == 0 else tuple(t.tolist())


# ---------------------------------------------------------------- argument checks (off the fast path)
_CALL_TYPE_NAMES = {str: "String", int: "Int64", float: "Float32", bool: "Bool", list: "List", tuple: "Tuple",
                    dict: "Dictionary", type(None): "None"}


def _check_tensor(op, name, value):
    """A non-Tensor input of a primitive: MindSpore's 'Failed calling' TypeError (naming the argument, its type and
    the valid one), then the plain statement."""
    if not isinstance(value, Tensor):
        got = _CALL_TYPE_NAMES.get(type(value), type(value).__name__)
        raise TypeError(f'Failed calling {op} with "{name}={got}".\nThe valid calling should be: "{name}=<Tensor>".'
                        f"\nFor '{op}', the '{name}' must be a Tensor, but got {type(value).__name__}.")


def _check_float(op, name, value):
    _check_tensor(op, name, value)
    if not mstype.is_float(value.dtype):
        raise TypeError(f"For '{op}', the '{name}' must be a Tensor of float type, but got {value.dtype}.")


def check_inexact(op, name, value):
    """The input of a floating/complex-only function: a Tensor of such a dtype (MindSpore CPU's TypeError)."""
    _check_tensor(op, name, value)
    if value.dtype not in _INEXACT:
        raise TypeError(f"Select CPU operator[{op}] fail! Unsupported data type! For '{op}', the '{name}' must be a "
                        f"Tensor of a floating-point or complex type, but got {value.dtype}.")


def _operands(op, x, y, names=("input", "other"), two_numbers=False):
    """(x, y) as a Tensor and a Tensor or Python number; numpy scalars become Python numbers. Two numbers are
    refused, unless `two_numbers`: then x becomes a 0-d Tensor."""
    if isinstance(x, Tensor):
        if isinstance(y, Tensor) or type(y) in _PY_NUMBERS:
            return x, y
    elif isinstance(y, Tensor) and type(x) in _PY_NUMBERS:
        return x, y
    out = []
    for name, v in zip(names, (x, y)):
        if isinstance(v, np.generic):
            v = v.item()
        elif isinstance(v, (list, tuple)):
            v = Tensor(v)
        if not isinstance(v, (Tensor, numbers.Number)):
            raise TypeError(f"For '{op}', the '{name}' must be a Tensor, number or bool, but got {type(v).__name__}.")
        out.append(v)
    if not isinstance(out[0], Tensor) and not isinstance(out[1], Tensor):
        if two_numbers:
            return Tensor(out[0]), out[1]
        raise TypeError(f"For '{op}', at least one of '{names[0]}' and '{names[1]}' must be a Tensor, but got "
                        f"{type(x).__name__} and {type(y).__name__}.")
    return out[0], out[1]
