"""From the recorded data (FRAMEWORK/mindseed_profile.json) to MindSpore's deliverables in ASCEND_PROFILER_OUTPUT:

    trace_view.json       Chrome trace events (Perfetto, chrome://tracing, MindStudio Insight and TensorBoard's
                          trace viewer open it): process "MindSpore" holds the profiler steps and compiled graph
                          runs, "CPU OP" one event per kernel under its full name, "Scope Layer" one event per cell
                          scope level, derived from the kernels' full names as MindSpore derives it.
    kernel_details.csv    one row per kernel
    op_statistic.csv      one row per op type: count, total/min/avg/max time, share of the total
    step_trace_time.csv   one row per step: computing time, free time (MindSpore's columns; no communication here)
"""
import csv
import json
import os

__all__ = ["analyse_dir", "KERNEL_DETAILS_HEADERS", "OP_STATISTIC_HEADERS", "STEP_TRACE_TIME_HEADERS"]

RAW_FILE = "mindseed_profile.json"
OUTPUT_DIR = "ASCEND_PROFILER_OUTPUT"
FRAMEWORK_DIR = "FRAMEWORK"

KERNEL_DETAILS_HEADERS = ["Step ID", "Model ID", "Task ID", "Stream ID", "Name", "Type", "Accelerator Core",
                          "Start Time(us)", "Duration(us)", "Wait Time(us)", "Block Dim"]
OP_STATISTIC_HEADERS = ["OP Type", "Core Type", "Count", "Total Time(us)", "Min Time(us)", "Avg Time(us)",
                        "Max Time(us)", "Ratio(%)"]
STEP_TRACE_TIME_HEADERS = ["Step", "Computing", "Communication(Not Overlapped)", "Overlapped", "Communication",
                           "Free", "Stage", "Bubble", "Communication(Not Overlapped and Exclude Receive)",
                           "Preparing"]
_PYNATIVE_MODEL_ID = 4294967295     # MindSpore's model id of kernels launched outside a graph
_CORE = "CPU"
_MINDSPORE_PID, _CPU_OP_PID, _SCOPE_PID = 1, 2, 3


def _us(ns):
    return round(ns / 1000.0, 3)


def analyse_dir(ms_dir, pretty=False, step_list=None):
    """Write the deliverables of one `<worker>_<time>_ascend_ms` directory from its recorded data; returns the
    output directory."""
    with open(os.path.join(ms_dir, FRAMEWORK_DIR, RAW_FILE), encoding="utf-8") as f:
        raw = json.load(f)
    ops, graphs, steps, marks = raw["ops"], raw["graphs"], raw["steps"], raw["marks"]
    if step_list is not None:
        keep = set(step_list)
        ops = [o for o in ops if o[4] in keep]
        graphs = [g for g in graphs if g[3] in keep]
        steps = [s for s in steps if s[0] in keep]
    out = os.path.join(ms_dir, OUTPUT_DIR)
    os.makedirs(out, exist_ok=True)
    epoch = raw["epoch_ns"]
    with open(os.path.join(out, "trace_view.json"), "w", encoding="utf-8") as f:
        json.dump(_trace_events(ops, graphs, steps, marks, epoch), f, indent=1 if pretty else None)
    with_steps = bool(steps)
    _write_csv(os.path.join(out, "kernel_details.csv"),
               KERNEL_DETAILS_HEADERS if with_steps else KERNEL_DETAILS_HEADERS[1:], _kernel_rows(ops, epoch,
                                                                                                   with_steps))
    _write_csv(os.path.join(out, "op_statistic.csv"), OP_STATISTIC_HEADERS, _op_statistic(ops))
    _write_csv(os.path.join(out, "step_trace_time.csv"), STEP_TRACE_TIME_HEADERS, _step_rows(ops, steps))
    return out


def _write_csv(path, headers, rows):
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(headers)
        w.writerows(rows)


def _meta(pid, name, sort):
    return [{"ph": "M", "name": "process_name", "pid": pid, "tid": 0, "args": {"name": name}},
            {"ph": "M", "name": "process_sort_index", "pid": pid, "tid": 0, "args": {"sort_index": sort}}]


def _complete(name, pid, tid, t0, t1, epoch, args=None, cat=None):
    ev = {"ph": "X", "name": name, "pid": pid, "tid": tid, "ts": _us(t0 + epoch), "dur": _us(t1 - t0)}
    if args:
        ev["args"] = args
    if cat:
        ev["cat"] = cat
    return ev


def _trace_events(ops, graphs, steps, marks, epoch):
    events = _meta(_MINDSPORE_PID, "MindSpore", 1) + _meta(_CPU_OP_PID, "CPU OP", 2) + _meta(_SCOPE_PID,
                                                                                             "Scope Layer", 12)
    for step, t0, t1 in steps:
        events.append(_complete(f"ProfilerStep#{step}", _MINDSPORE_PID, 1, t0, t1, epoch))
    for name, t0, t1, _ in graphs:
        events.append(_complete(f"RunGraph::{name}", _MINDSPORE_PID, 2, t0, t1, epoch))
    for message, t0, t1 in marks:
        if t1 == t0:
            events.append({"ph": "i", "s": "t", "name": message, "pid": _MINDSPORE_PID, "tid": 3,
                           "ts": _us(t0 + epoch), "cat": "MsTx"})
        else:
            events.append(_complete(message, _MINDSPORE_PID, 3, t0, t1, epoch, cat="MsTx"))
    for op_type, name, t0, t1, _ in ops:
        events.append(_complete(name, _CPU_OP_PID, 1, t0, t1, epoch, {"Type": op_type}))
    events.extend(_scope_layer(ops, epoch))
    return events


def _scope_layer(ops, epoch):
    """One event per run of consecutive kernels sharing a scope prefix, one thread per depth (MindSpore's scope
    layer: Default, Default/network-WithLossCell, ...)."""
    events, runs = [], []       # runs[depth] = [scope, start, end], the runs still open

    def close(depth):
        while len(runs) > depth:
            scope, start, end = runs.pop()
            events.append(_complete(scope, _SCOPE_PID, len(runs), start, end, epoch))

    for _, name, t0, t1, _ in sorted(ops, key=lambda o: o[2]):
        parts = name.split("/")[:-1]
        same = 0
        while same < min(len(parts), len(runs)) and runs[same][0] == "/".join(parts[:same + 1]):
            same += 1
        close(same)
        for run in runs:
            run[2] = max(run[2], t1)
        runs.extend(["/".join(parts[:d + 1]), t0, t1] for d in range(same, len(parts)))
    close(0)
    return events


def _kernel_rows(ops, epoch, with_steps):
    rows, prev_end = [], None
    for task, (op_type, name, t0, t1, step) in enumerate(sorted(ops, key=lambda o: o[2])):
        wait = 0.0 if prev_end is None else max(0.0, _us(t0 - prev_end))
        prev_end = t1
        row = [_PYNATIVE_MODEL_ID, task, 0, name, op_type, _CORE, _us(t0 + epoch), _us(t1 - t0), wait, 1]
        rows.append(([step] if with_steps else []) + row)
    return rows


def _op_statistic(ops):
    by_type = {}
    for op_type, _, t0, t1, _ in ops:
        by_type.setdefault(op_type, []).append((t1 - t0) / 1000.0)
    total = sum(sum(v) for v in by_type.values()) or 1.0
    rows = []
    for op_type, durs in sorted(by_type.items(), key=lambda kv: -sum(kv[1])):
        s = sum(durs)
        rows.append([op_type, _CORE, len(durs), round(s, 3), round(min(durs), 3), round(s / len(durs), 3),
                     round(max(durs), 3), round(100.0 * s / total, 2)])
    return rows


def _step_rows(ops, steps):
    """Computing: the kernels' busy time in the step; Free: the rest of the step (host time between kernels)."""
    if not steps:
        if not ops:
            return []
        start, end = min(o[2] for o in ops), max(o[3] for o in ops)
        steps = [(0, start, end)]
    rows = []
    for step, s0, s1 in steps:
        busy = sum(min(t1, s1) - max(t0, s0) for _, _, t0, t1, _ in ops if t1 > s0 and t0 < s1)
        computing, free = _us(busy), _us(max(0, (s1 - s0) - busy))
        rows.append([step, computing, 0, 0, 0, free, 0, 0, 0, 0])
    return rows
