"""save_graphs: each compile's IR written as files of Python source, one per stage.

`ms.set_context(save_graphs=True, save_graphs_path=...)` (or `MS_DEV_SAVE_GRAPHS=1`). Each compiled graph
gets a number; its files are `<graph#>_<name>_<stage#>_<stage>.ir`: `00_traced`, then one per pass in
pipeline order, and `<graph#>_<name>_99_codegen.py`, the generated code. A compiled function differentiated
from outside (`ms.grad(ms.jit(f))`, `value_and_grad` of a GRAPH_MODE Cell; autodiff.py) is dumped as
`<name>_grad`: its joint forward-and-backward graph through the passes, then the two graphs it is split
into, `90_forward` / `91_forward_codegen` and, per set of requested gradients, `92_backward_<mask>` /
`93_backward_<mask>_codegen` (mask: one 0/1 per input and weight). Every file parses as Python
(`ir.print_graph` prints branch and loop graphs as local functions before their If / While).
"""
import os

from mindseed.common.context import get_context
from mindseed.compiler.ir import print_graph

__all__ = ["saving", "dumper"]

_graph_count = [0]


def saving():
    """Is save_graphs on (the context's, or MS_DEV_SAVE_GRAPHS)?"""
    return get_context("save_graphs") or os.environ.get("MS_DEV_SAVE_GRAPHS")


def dumper(name):
    """A writer `dump(stage, graph_or_source)` of this compile's files, or None when save_graphs is off.
    `stage` is `<number>_<what>`; a `what` ending in `codegen` is generated code (`.py`), else IR (`.ir`)."""
    if not saving():
        return None
    _graph_count[0] += 1
    gid = _graph_count[0]
    safe = "".join(c if c.isalnum() or c in "_-" else "_" for c in name)

    def dump(stage, graph_or_text):
        text = graph_or_text if isinstance(graph_or_text, str) else print_graph(graph_or_text)
        k, _, what = stage.partition("_")
        ext = "py" if what.endswith("codegen") else "ir"
        path = get_context("save_graphs_path") or "."
        os.makedirs(path, exist_ok=True)
        _write(os.path.join(path, f"{gid:04d}_{safe}_{int(k):02d}_{what}.{ext}"), text)
    return dump


def _write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text + ("" if text.endswith("\n") else "\n"))
