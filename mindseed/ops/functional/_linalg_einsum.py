"""einsum: the equation is normalized here (implicit output, ellipsis, repeated subscripts) so that the
Einsum primitive only ever sees explicit equations with distinct letters per operand, which keeps its
gradient a plain einsum of the other operands."""
import string

from mindseed.common.tensor import Tensor
from mindseed.ops._prims import array as A
from mindseed.ops._prims import linalg as L

__all__ = ["einsum"]

_LETTERS = string.ascii_letters


def _err(msg):
    return ValueError(f"For 'Einsum', {msg}")


def _expand_ellipsis(subs, operands, out):
    """Replace '...' by fresh letters (right-aligned across operands, numpy broadcasting)."""
    used = set("".join(subs) + (out or ""))
    free = [c for c in _LETTERS if c not in used]
    n_ell = 0
    for s, x in zip(subs, operands):
        if "..." in s:
            n_ell = max(n_ell, x.ndim - (len(s) - 3))
    if n_ell > len(free):
        raise _err("too many dimensions under '...'.")
    ell = "".join(free[:n_ell])
    new = []
    for s, x in zip(subs, operands):
        if "..." in s:
            k = x.ndim - (len(s) - 3)
            if k < 0:
                raise _err(f"the operand of shape {x.shape} has fewer dimensions than the subscripts '{s}'.")
            s = s.replace("...", ell[n_ell - k:])
        new.append(s)
    if out is not None:
        out = out.replace("...", ell)
    return new, out, ell


def _take_diagonals(s, x):
    """An operand with repeated subscripts replaced by its diagonals (the repeated letter moves to the end)."""
    while len(set(s)) != len(s):
        for c in s:
            if s.count(c) > 1:
                i = s.index(c)
                j = s.index(c, i + 1)
                if x.shape[i] != x.shape[j]:
                    raise _err(f"the repeated subscript '{c}' has sizes {x.shape[i]} and {x.shape[j]}.")
                x = A.diagonal_p(x, offset=0, dim1=i, dim2=j)
                s = s[:i] + s[i + 1:j] + s[j + 1:] + c
                break
    return s, x


def _sublist_label(num):
    if num is Ellipsis:
        return "..."
    if isinstance(num, int) and not isinstance(num, bool) and 0 <= num < 52:
        return chr(num + 65) if num < 26 else chr(num + 71)    # 0..25 -> A..Z, 26..51 -> a..z
    raise ValueError(f"For Einsum, the number in sublist should be in range [0, 52), but got {num}")


def _from_sublists(first, rest):
    """einsum(x, [0, 1], y, [1, 2], [0, 2]) (operands each followed by its subscripts as ints or `...`, then
    optionally the output's) as (equation, operands), as MindSpore reads it."""
    args = (first,) + rest
    operands, sublists = args[0::2], args[1::2]
    output = None
    if len(args) % 2 == 1:          # the output's sublist closes the list
        output, operands = args[-1], operands[:-1]
    equation = ",".join("".join(_sublist_label(n) for n in lst) for lst in sublists)
    if output is not None:
        equation += "->" + "".join(_sublist_label(n) for n in output)
    return equation, operands


def einsum(equation, *operands):
    """Einstein summation: e.g. 'ij,jk->ik' is a matrix product, 'ii->i' a diagonal, '...ij->...ji' a transpose.

    Args:
        equation (str): comma-separated subscripts of the operands, optionally '->' and the output's. (Or the
            sublist form: einsum(x, [0, 1], y, [1, 2], [0, 2]), each operand followed by its subscripts as ints in
            [0, 52) or `...`, then optionally the output's.)
        *operands (Tensor): the tensors (or one list of them).

    Raises:
        ValueError: subscripts do not match the operands' ranks or sizes.

    >>> import mindseed as ms
    >>> ms.ops.einsum('ij,jk->ik', ms.ops.ones((2, 3)), ms.ops.ones((3, 4))).shape
    (2, 4)
    """
    if isinstance(equation, Tensor):
        equation, operands = _from_sublists(equation, operands)
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not isinstance(equation, str):
        raise TypeError(f"For 'Einsum', the 'equation' must be str, but got {type(equation).__name__}.")
    for x in operands:
        if not isinstance(x, Tensor):
            raise TypeError(f"For 'Einsum', the operands must be Tensors, but got {type(x).__name__}.")
    eq = equation.replace(" ", "")
    lhs, out = (eq.split("->") + [None])[:2] if "->" in eq else (eq, None)
    subs = lhs.split(",")
    if len(subs) != len(operands):
        raise _err(f"the equation has {len(subs)} operands but {len(operands)} were given.")
    subs, out, ell = _expand_ellipsis(subs, operands, out)
    for s, x in zip(subs, operands):
        if len(s) != x.ndim or not all(c in _LETTERS for c in s):
            raise _err(f"the subscripts '{s}' do not match an operand of shape {x.shape}.")
    if out is None:
        counts = {}
        for c in "".join(subs):
            counts[c] = counts.get(c, 0) + 1
        out = ell + "".join(sorted(c for c, k in counts.items() if k == 1 and c not in ell))
    if len(set(out)) != len(out) or any(c not in "".join(subs) for c in out):
        raise _err(f"the output subscripts '{out}' must be distinct letters of the inputs.")
    sizes = {}
    xs = []
    new_subs = []
    for s, x in zip(subs, operands):
        s, x = _take_diagonals(s, x)
        for c, d in zip(s, x.shape):
            if sizes.setdefault(c, d) != d and d != 1 and sizes[c] != 1:
                raise _err(f"the subscript '{c}' has sizes {sizes[c]} and {d}.")
            if sizes[c] == 1:
                sizes[c] = d
        new_subs.append(s)
        xs.append(x)
    return L.einsum_p(*xs, equation=",".join(new_subs) + "->" + out)
