"""`mindspore.Symbol`: what a dynamic dim of an input may be (range, `d * N + r`, equal to its other uses).

A Symbol in a placeholder's shape (`Tensor(shape=(None, s, s), dtype=...)` given to `Cell.set_inputs`,
`jit(input_signature=...)` or `enable_dynamic`) makes that dim dynamic, like ``None``, and each call's actual size
is checked against it (`check_dims`)."""
import weakref

__all__ = ["Symbol"]

# id(placeholder Tensor) -> (a weak reference to it, its shape's entries: a Symbol, or None for a plain dim), for the
# placeholders with a Symbol (Tensors compare elementwise, so they are not dictionary keys themselves)
_PLACEHOLDERS = {}


class Symbol:
    r"""The symbolic information of one dynamic dim of an input.

    Args:
        max (int): the largest size; used when greater than `min`. Default: ``0``.
        min (int): the smallest size, positive. Default: ``1``.
        divisor (int): the size is ``divisor * N + remainder`` with ``N >= 1``. Default: ``1``.
        remainder (int): in ``[0, divisor)``. Default: ``0``.
        unique (bool): every dim this Symbol stands for has the same size within one call. Default: ``False``.

    Raises:
        TypeError: `max`, `min`, `divisor`, `remainder` not int, or `unique` not bool.
        ValueError: `min` or `divisor` not positive, or `remainder` not in ``[0, divisor)``.

    >>> import mindseed as ms
    >>> ms.Symbol(max=32, divisor=8).to_dict()
    {'max': 32, 'divisor': 8}
    """

    def __init__(self, max=0, min=1, divisor=1, remainder=0, unique=False, **kwargs):  # noqa: A002 -- MindSpore's names
        for name, v in (("max", max), ("min", min), ("divisor", divisor), ("remainder", remainder)):
            if not isinstance(v, int) or isinstance(v, bool):
                raise TypeError(f"For 'Symbol', the argument '{name}' must be int, but got {type(v)}")
        if not isinstance(unique, bool):
            raise TypeError(f"For 'Symbol', the argument 'unique' must be bool, but got {type(unique)}")
        if min <= 0:
            raise ValueError(f"For 'Symbol', the 'min' value should be positive, but got {min}")
        if divisor <= 0:
            raise ValueError(f"For 'Symbol', the 'divisor' value should be positive, but got {divisor}")
        if remainder < 0 or remainder >= divisor:
            raise ValueError(f"For 'Symbol', the 'remainder' value should be in the range '[0, {divisor})', but got "
                             f"{remainder}")
        self.max, self.min, self.divisor, self.remainder, self.unique = max, min, divisor, remainder, unique
        self.id = id(self)

    def to_dict(self):
        """The constraints that say something (MindSpore's form)."""
        res = {}
        if self.max > self.min:
            res["max"] = self.max
        if self.min > self.divisor + self.remainder:    # the size is d * N + r with N >= 1
            res["min"] = self.min
        if self.divisor != 1:
            res["divisor"] = self.divisor
        if self.remainder != 0:
            res["remainder"] = self.remainder
        if self.unique:
            res["id"] = self.id
        return res

    def __str__(self):
        return str(self.to_dict())

    def __repr__(self):
        return f"Symbol({self.to_dict()})"

    def violation(self, d):
        """Why size `d` does not fit (the end of MindSpore's message), or None."""
        if d < self.min:
            return f"must be greater than or equal to the 'min' value '{self.min}' of `Symbol`, but got '{d}'"
        if self.max > self.min and d > self.max:
            return f"must be less than or equal to the 'max' value '{self.max}' of `Symbol`, but got '{d}'"
        if d < self.divisor + self.remainder or (d - self.remainder) % self.divisor:
            return (f"must match the 'divisor'(d) and 'remainder'(d) of `Symbol`. The value should be 'd * N + r' for "
                    f"'N > 0', got d={self.divisor} and r={self.remainder}, but actual shape value is '{d}'")
        return None


def register_placeholder(tensor, shape):
    """Note the Symbols of a placeholder's shape (called by Tensor(shape=...) when it has one)."""
    key = id(tensor)
    _PLACEHOLDERS[key] = (weakref.ref(tensor, lambda _: _PLACEHOLDERS.pop(key, None)),
                          tuple(s if isinstance(s, Symbol) else None for s in shape))


def symbols_of(tensor):
    """The per-dim Symbols (None elsewhere) of a placeholder, or None when it has none."""
    entry = _PLACEHOLDERS.get(id(tensor))
    return entry[1] if entry is not None and entry[0]() is tensor else None


def check_dims(symbols, per_input):
    """Check the actual shapes of one call against the Symbols of their placeholders.

    Args:
        symbols (list): per input, the per-dim Symbols (None for no Symbol).
        per_input (list): per input, its actual shape.

    Raises:
        ValueError: a size outside its Symbol, or two sizes of one unique Symbol that differ (MindSpore's message).
    """
    seen = {}
    for k, (syms, shape) in enumerate(zip(symbols, per_input)):
        if not syms:
            continue
        for axis, (s, d) in enumerate(zip(syms, shape)):
            if s is None:
                continue
            where = f"The {axis + 1}th shape value of {k + 1}th actual input args"
            tail = f". Actual shape: {list(shape)}, axis: {axis}."
            why = s.violation(d)
            if why is not None:
                raise ValueError(f"{where} {why}{tail}")
            if s.unique:
                prev = seen.setdefault(s.id, d)
                if prev != d:
                    raise ValueError(f"{where} is a unique symbol, all values must be the same. The previous value is "
                                     f"{prev}, but the current value is {d}{tail}")
