"""What a profiler records while it is active: one `_Recorder` sits on `_state.profiling` (see there) and collects

    ops     (op type, full name, start ns, end ns, step)   one per primitive call or compiled kernel
    graphs  (name, start ns, end ns, step)                 one per run of a compiled graph
    steps   (step number, start ns, end ns)                one per profiler step
    marks   (message, start ns, end ns)                    `mstx` marks (end == start) and ranges

Times are `time.perf_counter_ns()`; `epoch_ns` maps them to wall-clock time. PyNative ops are named
"<cell scope>/<Type>-op<n>" as MindSpore names kernels ("Default/fc-Dense/MatMul-op3"); compiled kernels carry the
scope of the cell they were traced in.
"""
import time
from time import perf_counter_ns as _now

from mindseed._utils import _scope, _state

__all__ = []


class _Recorder:
    def __init__(self):
        self.ops = []
        self.graphs = []
        self.steps = []
        self.marks = []
        self.step = None            # the step being recorded (None: no schedule)
        self.epoch_ns = time.time_ns() - _now()
        self._count = 0

    # ------------------------------------------------------------ the _state.profiling protocol
    def run_op(self, prim, args, attrs):
        stack = _state.profiling
        stack.pop()     # the primitive runs as usual; what it calls inside is part of it
        t0 = _now()
        try:
            return prim(*args, **attrs)
        finally:
            t1 = _now()
            stack.append(self)
            self.ops.append((prim.name, f"{_scope.current()}/{prim.name}-op{self._count}", t0, t1, self.step))
            self._count += 1

    def run_cell(self, cell, call):
        _scope.push(cell)
        try:
            return call()
        finally:
            _scope.pop()

    def kernel(self, op_type, name, t0, t1):
        self.ops.append((op_type, name, t0, t1, self.step))

    def run_graph(self, name, call):
        t0 = _now()
        try:
            return call()
        finally:
            self.graphs.append((name, t0, _now(), self.step))

    # ------------------------------------------------------------ control
    def install(self):
        _state.profiling.append(self)

    def uninstall(self):
        stack = _state.profiling
        if self in stack:
            stack.remove(self)

    def to_raw(self):
        """The recorded data as JSON-able lists (the FRAMEWORK data the analysis reads)."""
        return {"epoch_ns": self.epoch_ns, "ops": self.ops, "graphs": self.graphs, "steps": self.steps,
                "marks": self.marks}
