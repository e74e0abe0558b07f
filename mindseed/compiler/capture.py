"""The compile records of functions jitted with ``capture_mode="bytecode"`` (MindSpore's PIJit), which
`mindspore._c_expression.get_code_extra(fn)` returns.

MindSpore attaches to the code object of a PIJit-compiled function a record of what ran at its last call:

    {"stat": "GRAPH_CALLABLE", "compile_count_": 2, "break_count_": 0,
     "code": {"phase_": "<name of the graph>", "call_count_": 3}}

`compile_count_` counts the compiles (one per new input signature), `code` describes the compiled code the last
call ran and `call_count_` how many calls ran it. mindseed compiles every capture mode from the source: a call whose
trace stopped at code the graph cannot hold runs the whole function in the interpreter, which is one graph break
(`break_count_` 1) and no graph (`code` has the function's own code as `compiled_code_`, no `phase_`).
"""

__all__ = ["note_call", "note_raise", "record_of"]

_records = {}     # code object -> _Record


class _Record:
    __slots__ = ("compiles", "breaks", "calls", "last")

    def __init__(self):
        self.compiles = 0
        self.breaks = 0
        self.calls = {}     # id(entry) -> [entry, calls, phase or None]
        self.last = None

    def as_dict(self, code):
        entry, calls, phase = self.last
        ran = {"phase_": phase} if phase is not None else {"compiled_code_": code}
        ran["call_count_"] = calls
        return {"stat": "GRAPH_CALLABLE", "compile_count_": self.compiles, "break_count_": self.breaks,
                "code": ran}


def note_call(code, entry, compiled, graph):
    """A call of a bytecode-captured function whose code is `code` ran `entry` (a cache entry; None for a compiled
    forward and backward pair), compiled by this call or not, as a graph (`graph`) or in the interpreter."""
    rec = _records.get(code)
    if rec is None:
        rec = _records[code] = _Record()
    if compiled:
        rec.compiles += 1
        rec.breaks = 0 if graph else 1
    slot = rec.calls.get(id(entry))
    if slot is None or slot[0] is not entry or compiled:
        phase = f"{code.co_filename}_{code.co_firstlineno}_{rec.compiles - 1}R.<compile[{rec.compiles - 1}]>" \
                f"{code.co_name}.pi_jit" if graph else None
        slot = rec.calls[id(entry)] = [entry, 0, phase]
    slot[1] += 1
    rec.last = slot


def note_raise(code, tb, compiled, library_dir, original):
    """A call of the bytecode-captured function whose code is `code` raised, with traceback `tb`: a graph break
    at the `raise`. It is recorded for that function (compiled by this call or not) and for each function of the
    user's (outside `library_dir`) it called on the way to the raise, which MindSpore compiles on its own after
    the break. `original(frame_code)` is the code of the user's function a frame runs (its converted version's)."""
    user = False
    while tb is not None:
        frame_code = original(tb.tb_frame.f_code)
        if frame_code is code:
            user = True
            note_call(code, None, compiled, False)
        elif user and not frame_code.co_filename.startswith(library_dir):
            note_call(frame_code, None, frame_code not in _records, False)
        tb = tb.tb_next


def record_of(code):
    """The record of the function whose code object is `code`, as a dict, or None when it was never called as a
    bytecode-captured function."""
    rec = _records.get(code)
    return None if rec is None or rec.last is None else rec.as_dict(code)
