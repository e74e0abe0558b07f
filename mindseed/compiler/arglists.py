"""Lists of constants passed to a compiled function: the caller's own list objects.

As in MindSpore, a list argument holding no tensor (at any depth) is the caller's object in the graph: a result
that is that list is the caller's list itself (`f(x) is x` for `def f(x): return x`), and an in-place update the
function makes (`x.reverse()`, `x.insert(0, 5)`, also of a list inside a tuple argument) is seen by the caller
after the call. The graph is traced on copies of the arguments (`cache._unflatten`); this module pairs each such
copy with the caller's list by its place in the arguments (`path`), and after the trace records, per cache entry,
what the call does to them: the new contents of the lists it changed and the places of the result that are an
argument list. A cache hit replays both on the caller's objects (the cache keys lists of constants by value, so
the contents after the call are the same for every call of the entry).
"""
from mindseed.common.tensor import Tensor
from mindseed.common._mutable import _Mutable


def holds(obj, kind):
    """Whether `obj` is, or its nested tuples, lists and dict values hold, an instance of `kind`."""
    if isinstance(obj, kind):
        return True
    if isinstance(obj, (tuple, list)):
        return any(holds(o, kind) for o in obj)
    if isinstance(obj, dict):
        return any(holds(o, kind) for o in obj.values())
    return False


def _has_tensor(obj):
    return holds(obj, Tensor)


def pair_lists(given, traced, path=(), out=None):
    """[(path, caller's list, traced copy)] for the lists of constants among the arguments (`given` and `traced`
    are `(args, kwargs)` and the traced function's view of them)."""
    out = [] if out is None else out
    if isinstance(given, _Mutable):
        return out
    if isinstance(given, list) and isinstance(traced, list) and not _has_tensor(given):
        out.append((path, given, traced))
    if isinstance(given, dict) and isinstance(traced, dict):
        for k in given:
            if k in traced:
                pair_lists(given[k], traced[k], path + (k,), out)
    elif isinstance(given, (tuple, list)) and isinstance(traced, (tuple, list)) and len(given) == len(traced):
        for i, (g, t) in enumerate(zip(given, traced)):
            pair_lists(g, t, path + (i,), out)
    return out


def _freeze(obj, where):
    """A template of a constant structure; the traced argument lists in it as ("A", path)."""
    path = where.get(id(obj))
    if path is not None:
        return ("A", path)
    if isinstance(obj, list):
        return ("l", tuple(_freeze(o, where) for o in obj))
    if isinstance(obj, tuple) and type(obj) is tuple:
        return ("t", tuple(_freeze(o, where) for o in obj))
    return ("c", obj)


def _thaw(tmpl, root):
    tag, val = tmpl
    if tag == "A":
        for k in val:
            root = root[k]
        return root
    if tag == "l":
        return [_thaw(t, root) for t in val]
    if tag == "t":
        return tuple(_thaw(t, root) for t in val)
    return val


def updates_of(pairs):
    """((path, template of the new contents)) of the argument lists the trace changed and left free of tensors."""
    where = {id(t): p for p, _, t in pairs}
    return tuple((p, tuple(_freeze(o, where) for o in t)) for p, g, t in pairs if t != g and not _has_tensor(t))


def apply_updates(updates, root):
    """Give the caller's lists (under root = (args, kwargs)) their contents after the call."""
    if not updates:
        return
    # every template is read against the lists as they were, before any of them changes
    new = [(_thaw(("A", p), root), [_thaw(t, root) for t in items]) for p, items in updates]
    for lst, items in new:
        lst[:] = items


def result_aliases(result, pairs):
    """((place in the result, path of the argument)) for the parts of a result that are argument lists."""
    where = {id(t): p for p, _, t in pairs if not _has_tensor(t)}
    found = []

    def walk(obj, place):
        p = where.get(id(obj))
        if p is not None:
            found.append((place, p))
        elif isinstance(obj, (tuple, list)):
            for i, o in enumerate(obj):
                walk(o, place + (i,))
    if where:
        walk(result, ())
    return tuple(found)


def apply_aliases(result, aliases, root):
    """The result with each aliased place replaced by the caller's list at its path."""
    for place, path in aliases:
        result = _replace(result, place, _thaw(("A", path), root))
    return result


def _replace(obj, place, value):
    if not place:
        return value
    i, rest = place[0], place[1:]
    if isinstance(obj, list):
        obj[i] = _replace(obj[i], rest, value)
        return obj
    items = list(obj)
    items[i] = _replace(items[i], rest, value)
    return type(obj)(items) if type(obj) is tuple else type(obj)(*items)
