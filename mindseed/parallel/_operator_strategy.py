"""The operator strategies of sharding propagation saved to / loaded from a JSON file (MindSpore's
`set_op_strategy_config(mode, path)` and `AutoParallel.save_operator_strategy_file` / `load_operator_strategy_file`).

Under ``auto_parallel`` with ``search_mode="sharding_propagation"``: with a save file, each sharded run writes the
strategy of every forward call that ran sharded, ``{"<Primitive>-op<call index>": [[cuts of each dim] per input]}``;
with a load file, the forward calls take the strategies the file names (by the same keys) instead of searching, so a
run reproduces the saved plan (MindSpore's dry run saves on one device, the cluster loads). Only the same network
with the same configuration loads its file: a key naming another primitive than the call's is refused.
"""
import json
import os

from mindseed.common._parallel import _values, get_auto_parallel_context
from mindseed._utils._files import atomic_write

__all__ = ["set_op_strategy_config", "loaded_program", "save_strategies"]

_DANGEROUS = ("/etc", "/usr", "/bin", "/sbin", "/boot", "/proc", "/sys")


def check_json_path(path):
    """MindSpore's checks of an operator-strategy file path.

    Raises:
        KeyError: a relative path, or one not ending in ``.json``.
        PermissionError: a path in a system directory.
    """
    if not os.path.isabs(path):
        raise KeyError("File path must be an absolute path")
    if os.path.splitext(path)[1] != ".json":
        raise KeyError("File type must be .json")
    normalized = os.path.abspath(os.path.realpath(path))
    for dangerous in _DANGEROUS:
        if normalized.startswith(dangerous):
            raise PermissionError(f"Writing to system directory '{dangerous}' is not allowed")


def set_op_strategy_config(mode="SAVE", path=""):
    """Save the operator strategies sharding propagation chooses to the JSON file `path` (``"SAVE"``), or load
    them from it (``"LOAD"``); the last call decides.

    Raises:
        KeyError: `mode` neither ``"SAVE"`` nor ``"LOAD"``; a relative path or one not ending in ``.json``.
        PermissionError: a path in a system directory.
    """
    check_json_path(path)
    directory = os.path.dirname(path)
    if directory and not os.path.exists(directory):
        os.makedirs(directory, mode=0o700, exist_ok=True)
    if mode not in ("SAVE", "LOAD"):
        raise KeyError("Type must be 'SAVE' or 'LOAD'")
    _values["ops_strategy_save_file"], _values["ops_strategy_load_file"] = (path, "") if mode == "SAVE" else \
        ("", path)


def _propagating():
    return get_auto_parallel_context("parallel_mode") == "auto_parallel" and \
        get_auto_parallel_context("search_mode") == "sharding_propagation"


def loaded_program(program, n_forward):
    """`program` with its forward calls given the strategies of the load file (None: no file to load under
    sharding propagation).

    Raises:
        ValueError: a missing file, or a key naming another primitive than the call of its index.
    """
    from mindseed.parallel._spmd import Call, Program  # noqa: PLC0415  (_spmd calls this module)
    path = _values.get("ops_strategy_load_file")
    if not path or not _propagating():
        return None
    if not os.path.isfile(path):
        raise ValueError(f"For the operator strategy file, {path} does not exist.")
    with open(path, encoding="utf-8") as f:
        saved = json.load(f)
    calls = list(program.calls)
    for key, strategy in saved.items():
        name, _, index = key.rpartition("-op")
        i = int(index)
        if i >= n_forward or calls[i].prim.name != name:
            found = calls[i].prim.name if i < len(calls) else "nothing"
            raise ValueError(f"For the operator strategy file {path}, '{key}' names {name} at forward call {i}, but "
                             f"the network runs {found} there: load the file of the same network and configuration.")
        c = calls[i]
        calls[i] = Call(c.prim, c.args, c.attrs, c.out, (tuple(tuple(s) for s in strategy), None))
    loaded = Program(calls, program.args, program.outputs, program.result, program.differentiates, program.sums)
    loaded.graph, loaded.updates = program.graph, program.updates
    return loaded


def save_strategies(execution, n_forward):
    """Write the forward calls' strategies of `execution` to the save file, under sharding propagation."""
    path = _values.get("ops_strategy_save_file")
    if not path or not _propagating():
        return
    content = {}
    for i, p in enumerate(execution.plans[:n_forward]):
        if p.cuts is not None:
            content[f"{p.call.prim.name}-op{i}"] = [[lay.cuts(d) for d in range(len(lay.shape))]
                                                    for lay in p.in_layouts]
    os.makedirs(os.path.dirname(path), exist_ok=True)
    atomic_write(path, json.dumps(content, indent=1))
