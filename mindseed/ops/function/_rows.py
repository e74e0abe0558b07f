"""The functions generated from the primitive rows (`ops._api`) of given declaration files (`ops/_prims/<family>.py`),
so each layout module lists the rows of its family."""
import importlib

from mindseed.ops import _api


def _ids(value, out):
    out.add(id(value))
    if isinstance(value, dict):        # a family may keep its primitives in (nested) tables
        for v in value.values():
            _ids(v, out)
    elif isinstance(value, (list, tuple)):
        for v in value:
            _ids(v, out)


def generated(*families):
    ids = set()
    for family in families:
        for value in vars(importlib.import_module(f"mindseed.ops._prims.{family}")).values():
            _ids(value, ids)
    return {name: fn for row in _api.ROWS if id(row.prim) in ids for name, fn in row.functions.items()}
