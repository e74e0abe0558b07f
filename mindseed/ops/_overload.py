"""MindSpore's errors for Tensor methods with several signatures (overloads) given arguments none of them takes.

MindSpore matches a call of such a method against each signature in turn (argument count, keyword names, then
types) and, when none matches, raises a TypeError listing the valid callings: "Failed calling max with
"max(int, list<int>)". The valid calling should be: ...", each signature followed by why it failed when the
argument count fitted it; with a single signature, or a single one whose argument count fitted, just that one's
reason. `explained` wraps a method so that a call it refuses (TypeError or ValueError) is reported that way when
no signature accepts the arguments; a call that matches a signature keeps the method's own error.

A signature is written as MindSpore prints it, `name(arg=<types>, ..., *, kwonly=<types>)`, with `!` after a
required argument's name, `...` after a variadic one (`reshape(*shape)`), and `~` before the text of a
signature MindSpore keeps only for older code (it is tried first and listed last).
"""
import re

from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor

# the kind of a Python value, as the matcher sees it; the name MindSpore prints for it in "argument ... must be"
_KIND_NAMES = {"int": "int", "bool": "bool", "float": "float", "str": "str", "Tensor": "Tensor", "None": "None",
               "Tuple": "tuple of Any", "List": "list of Any", "any": "Any", "mstype": "mstype"}
# the name MindSpore prints for an expected type (the first of a parameter's types)
_EXPECTED_NAMES = {"number": "Number", "Tuple": "tuple of int", "List": "list of int", "any": "Any"}


def _kind(v):
    if isinstance(v, Tensor):
        return "Tensor"
    if isinstance(v, mstype.Type):
        return "mstype"
    if v is None:
        return "None"
    if isinstance(v, bool):
        return "bool"
    for t, k in ((int, "int"), (float, "float"), (str, "str"), (tuple, "Tuple"), (list, "List")):
        if isinstance(v, t):
            return k
    return "any"


def _accepts(types, v):
    k = _kind(v)
    return k in types or "any" in types or ("number" in types and k in ("bool", "int", "float"))


def type_text(v):
    """A value's type as MindSpore writes it in these messages: `int`, `string`, `list<int, tuple<float>>`."""
    if isinstance(v, (tuple, list)):
        return ("tuple" if isinstance(v, tuple) else "list") + "<" + ", ".join(type_text(x) for x in v) + ">"
    k = _kind(v)
    return {"str": "string", "Tuple": "tuple", "List": "list"}.get(k, k if k != "any" else type(v).__name__)


class _Param:
    __slots__ = ("name", "types", "required", "kwonly", "varargs")

    def __init__(self, text, kwonly):
        m = re.fullmatch(r"(\w+)(!?)(\.\.\.)?=<([\w,]+)>", text)
        self.name, self.required, self.varargs = m.group(1), bool(m.group(2)), bool(m.group(3))
        self.types, self.kwonly = tuple(m.group(4).split(",")), kwonly


class Signature:
    """One overload: its printed text and its parameters (after self)."""

    def __init__(self, text):
        self.deprecated = text.startswith("~")
        text = text.lstrip("~")
        self.name, inner = re.fullmatch(r"(\w+)\((.*)\)", text).groups()
        self.params, kwonly = [], False
        for part in filter(None, (p.strip() for p in inner.split(", "))):
            if part == "*":
                kwonly = True
                continue
            self.params.append(_Param(part, kwonly))
        self.text = "Tensor." + re.sub(r"(!|\.\.\.)(?==)", "", text)

    def match(self, args, kwargs, state):
        """None when the call fits; else the reason. Sets state['size'] when the argument count fits."""
        name, params = self.name, self.params
        positional = [p for p in params if not p.kwonly]
        var = next((i for i, p in enumerate(params) if p.varargs), None)
        n_in = len(args) + len(kwargs)
        state["size"] = var is not None or len(positional) <= n_in <= len(params)
        if var is None and len(args) > len(positional):
            return (f"{name}() takes {len(positional)} positional arguments but {n_in} "
                    f"{'were' if n_in > 1 else 'was'} given.")
        least = sum(p.required for p in params)
        if n_in < least:
            return f"{name}() missing {least - n_in} required argument"
        index = {p.name: i for i, p in enumerate(params)}
        for key in sorted(kwargs):
            if key not in index:
                state["keyword"] = True
                return f"match failed because incorrect keyword name: {key}"
            if index[key] < len(args) and var is None:
                return f"Mismatch: Primitive[{name}] got multiple values for argument '{key}'."
            p = params[index[key]]
            if not _accepts(p.types, kwargs[key]):
                return (f"{name}(): argument '{key}' must be {_expected(p)} but got "
                        f"{_KIND_NAMES[_kind(kwargs[key])]}")
        check = len(args)
        if var is not None and len(args) > var:
            check = var
            p = params[var]
            if not (len(args) == var + 1 and _accepts(p.types, args[var])):
                for i in range(var, len(args)):
                    if _kind(args[i]) != "int":
                        return (f"{name}(): argument '{p.name}' (position {i + 1}) must be {_expected(p)}, "
                                f"not {_KIND_NAMES[_kind(args[i])]}.")
        for i in range(check):
            p = params[i]
            if not _accepts(p.types, args[i]):
                state["failed_at"] = i + 1
                return (f"{name}(): argument '{p.name}' (position {i + 1}) must be {_expected(p)}, "
                        f"not {_KIND_NAMES[_kind(args[i])]}.")
        return None


def _expected(p):
    t = p.types[0]
    return _EXPECTED_NAMES.get(t, t)


def _arg_texts(args, kwargs):
    return [type_text(a) for a in args] + [f"{k}={type_text(v)}" for k, v in kwargs.items()]


def _type_mismatch_lines(texts, failed_at):
    info = "    match failed because invalid types: ("
    guide = " " * len(info) + "".join((" " if i + 1 < failed_at else "~") * (len(t) + 2) for i, t in enumerate(texts))
    return f"{info}{', '.join(texts)})\n{guide}\n"


def overload_error(name, signatures, args, kwargs):
    """MindSpore's message for `Tensor.<name>(*args, **kwargs)` (self left out), or None when a signature takes
    the arguments."""
    order = sorted(range(len(signatures)), key=lambda i: not signatures[i].deprecated)
    state = {"keyword": False, "failed_at": 0}
    reasons, fitted = {}, []
    for i in order:
        reason = signatures[i].match(args, kwargs, state)
        if reason is None:
            return None
        reasons[i] = reason
        if state["size"]:
            fitted.append(i)
    if len(signatures) == 1:
        return reasons[0]
    if len(fitted) == 1:
        return reasons[fitted[0]]
    texts = _arg_texts(args, kwargs)
    lines = [f'Failed calling {name} with "{name}({", ".join(texts)})".\nThe valid calling should be:\n']
    for text in dict.fromkeys(signatures[i].text for i in sorted(order, key=lambda i: signatures[i].deprecated)):
        lines.append(f'"{text}"\n')
        hit = [i for i in fitted if signatures[i].text == text]
        if hit and state["keyword"]:
            lines.append(f"\t{reasons[hit[0]]}\n")
        elif hit:
            lines.append(_type_mismatch_lines(texts, state["failed_at"]))
    return "".join(lines)


_OVERLOADS = {
    "max": ("max()", "max(dim!=<int>, keepdim=<bool>)",
            "~max(axis=<int,Tuple,None,List>, keepdims=<bool>, *, initial=<number,None>, where=<bool,Tensor>, "
            "return_indices=<bool>)"),
    "add": ("add(other!=<number>, *, alpha=<number>)", "add(other!=<number,Tensor>, *, alpha=<number>)",
            "~add(other!=<any,Tensor>)"),
    "sub": ("sub(other!=<number>, *, alpha=<number>)", "sub(other!=<number,Tensor>, *, alpha=<number>)",
            "~sub(y!=<any,Tensor>)"),
    "clamp": ("clamp(min=<Tensor,None>, max=<Tensor,None>)", "clamp(min=<number,None>, max=<number,None>)"),
    "div": ("div(other!=<number>)", "div(other!=<number,Tensor>)",
            "div(other!=<number>, *, rounding_mode=<str,None>)",
            "div(other!=<number,Tensor>, *, rounding_mode=<str,None>)",
            "~div(other!=<number,Tensor>, *, rounding_mode=<str,None>)"),
    "roll": ("roll(shifts!=<int,Tuple,List>, dims=<int,Tuple,None,List>)",
             "~roll(shifts!=<int,Tuple,List>, dims=<int,Tuple,None,List>)"),
    "less": ("less(other!=<number>)", "less(other!=<number,bool,Tensor>)"),
    "abs": ("abs()",),
    "log": ("log()",),
    "reshape": ("reshape(shape!...=<Tuple,Tensor,List>)",),
    "mean": ("mean(dim=<int,Tuple,Tensor,None,List>, keepdim=<bool>, *, dtype=<mstype,int,None>)",
             "~mean(axis=<int,Tuple,Tensor,None,List>, keep_dims=<bool>)"),
}
_OVERLOADS["min"] = tuple(s.replace("max", "min") for s in _OVERLOADS["max"])
SIGNATURES = {name: [Signature(s) for s in sigs] for name, sigs in _OVERLOADS.items()}


def explained(name, method):
    """`method` (a Tensor method) raising MindSpore's overload TypeError when no signature takes its arguments."""
    signatures = SIGNATURES[name]

    def call(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except (TypeError, ValueError) as exc:
            message = overload_error(name, signatures, args, kwargs) if isinstance(self, Tensor) else None
            if message is None:
                raise
            raise TypeError(message) from exc
    call.__name__, call.__qualname__, call.__doc__ = name, f"Tensor.{name}", method.__doc__
    call.__wrapped__ = method
    return call


def attach_explained(cls):
    for name in SIGNATURES:
        setattr(cls, name, explained(name, getattr(cls, name)))
