"""The profiler: traces and tables of PyNative and compiled training steps, the schedule's actions step by step."""
import csv
import glob
import json
import os

import numpy as np
import pytest

import mindseed as ms
from mindseed import nn
from mindseed._utils import _state
from mindseed.profiler import (AicoreMetrics, ExportType, ProfilerActivity, ProfilerLevel, _ExperimentalConfig,
                               analyse, mstx, profile, schedule, tensorboard_trace_handler)
from mindseed.profiler._analysis import KERNEL_DETAILS_HEADERS, OP_STATISTIC_HEADERS, STEP_TRACE_TIME_HEADERS
from mindseed.profiler.schedule import ProfilerAction


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 3)
        self.relu = nn.ReLU()

    def construct(self, x):
        return self.relu(self.fc(x))


def _train_step():
    net = Net()
    train = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.1))
    rng = np.random.default_rng(0)
    x = ms.Tensor(rng.random((8, 4), dtype=np.float32))
    y = ms.Tensor(rng.random((8, 3), dtype=np.float32))
    return lambda: train(x, y)


def _outputs(root):
    return sorted(glob.glob(os.path.join(str(root), "*_ascend_ms", "ASCEND_PROFILER_OUTPUT")))


def _read_csv(path):
    with open(path, encoding="utf-8") as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]


def _complete_events(out_dir):
    with open(os.path.join(out_dir, "trace_view.json"), encoding="utf-8") as f:
        events = json.load(f)
    return [e for e in events if e["ph"] == "X"]


def _check_network_trace(out_dir, steps):
    events = _complete_events(out_dir)
    assert all(e["dur"] >= 0 for e in events)
    kernels = [e for e in events if e["pid"] == 2]
    by_type = {}
    for e in kernels:
        by_type.setdefault(e["args"]["Type"], []).append(e)
    # our primitives, under the user's cells, with positive durations
    for prim, cell in (("Dense", "fc-Dense"), ("ReLU", "relu-ReLU")):
        named = [e for e in by_type.get(prim, []) + by_type.get(prim + "Inplace", [])
                 if f"_backbone-Net/{cell}/" in e["name"]]
        assert named, (prim, sorted(by_type))
        assert all(e["dur"] > 0 for e in named)
    assert any(e["name"].startswith("Gradients/") and e["dur"] > 0 for e in kernels)
    scopes = {e["name"] for e in events if e["pid"] == 3}
    assert {"Default/network-WithLossCell/_backbone-Net/fc-Dense",
            "Default/network-WithLossCell/_backbone-Net/relu-ReLU"} <= scopes
    step_events = sorted(e["name"] for e in events if e["name"].startswith("ProfilerStep#"))
    assert step_events == [f"ProfilerStep#{s}" for s in steps]

    header, rows = _read_csv(os.path.join(out_dir, "op_statistic.csv"))
    assert header == OP_STATISTIC_HEADERS
    stats = {r[0]: r for r in rows}
    assert int(stats["Dense"][2]) == len(steps) and float(stats["Dense"][3]) > 0
    assert abs(sum(float(r[7]) for r in rows) - 100.0) < 0.1
    header, rows = _read_csv(os.path.join(out_dir, "kernel_details.csv"))
    assert header == KERNEL_DETAILS_HEADERS
    assert len(rows) == len(kernels)
    assert {int(r[0]) for r in rows} == set(steps)
    assert all(float(r[header.index("Duration(us)")]) > 0 for r in rows)
    header, rows = _read_csv(os.path.join(out_dir, "step_trace_time.csv"))
    assert header == STEP_TRACE_TIME_HEADERS
    assert [int(r[0]) for r in rows] == steps
    assert all(float(r[1]) > 0 for r in rows)


@pytest.mark.parametrize("mode", ["pynative", "jit"])
def test_profile_training_steps_writes_trace_and_tables(tmp_path, mode):
    step = _train_step()
    if mode == "jit":
        ms.set_context(mode=ms.GRAPH_MODE)
    try:
        step()      # compiled before profiling: the profiled run uses the cached graph
        with profile(schedule=schedule(wait=1, warmup=1, active=2, repeat=1),
                     on_trace_ready=tensorboard_trace_handler(str(tmp_path))) as prof:
            for _ in range(6):
                step()
                prof.step()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert not _state.profiling and not _state.scopes
    outs = _outputs(tmp_path)
    assert len(outs) == 1
    _check_network_trace(outs[0], [2, 3])
    if mode == "jit":
        graphs = [e for e in _complete_events(outs[0]) if e["name"].startswith("RunGraph::")]
        assert len(graphs) == 2 and all(e["dur"] > 0 for e in graphs)


def test_ms_jit_function_kernels_carry_cell_scopes(tmp_path):
    net = Net()
    fn = ms.jit(net)
    x = ms.ops.ones((2, 4), ms.float32)
    fn(x)
    with profile(on_trace_ready=tensorboard_trace_handler(str(tmp_path))):
        fn(x)
    events = _complete_events(_outputs(tmp_path)[0])
    names = [e["name"] for e in events if e["pid"] == 2]
    assert any(n.startswith("Default/fc-Dense/Dense-op") for n in names), names
    assert any(n.startswith("Default/relu-ReLU/ReLU") for n in names), names


def test_schedule_actions_step_by_step():
    s = schedule(wait=1, warmup=1, active=2, repeat=2, skip_first=1)
    N, W, R, S = ProfilerAction.NONE, ProfilerAction.WARM_UP, ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE
    assert [s(i) for i in range(11)] == [N, N, W, R, S, N, W, R, S, N, N]
    forever = schedule(wait=0, active=1)
    assert [forever(i) for i in range(3)] == [S, S, S]
    with pytest.raises(ValueError):
        s(-1)
    assert schedule(wait=-1, active=0).to_dict() == {"wait": 0, "active": 1, "warmup": 0, "repeat": 0,
                                                     "skip_first": 0}


def test_schedule_cycles_hand_recorded_steps_to_on_trace_ready():
    seen = []
    relu = nn.ReLU()
    x = ms.ops.ones((3,), ms.float32)

    def on_ready(prof):
        rec = prof._pending[-1]
        seen.append(([s[0] for s in rec.steps], sorted({o[4] for o in rec.ops}), prof.step_num))

    recording = []
    with profile(schedule=schedule(wait=1, warmup=1, active=2, repeat=2), on_trace_ready=on_ready) as prof:
        for _ in range(9):
            relu(x)
            recording.append(bool(_state.profiling))
            prof.step()
    # steps 0,1 (wait, warm-up) and 4,5 are not recorded; each cycle of two steps is handed over when it ends
    assert recording == [False, False, True, True, False, False, True, True, False]
    assert seen == [([2, 3], [2, 3], 4), ([6, 7], [6, 7], 8)]


def test_profiler_start_stop_analyse_and_op_analyse(tmp_path):
    relu = nn.ReLU()
    x = ms.ops.ones((3,), ms.float32)
    prof = ms.Profiler(output_path=str(tmp_path), start_profile=False)
    relu(x)                       # not recorded
    prof.start()
    relu(x)
    relu(x)
    prof.stop()
    relu(x)                       # not recorded
    prof.analyse()
    out = _outputs(tmp_path)
    assert len(out) == 1
    header, rows = _read_csv(os.path.join(out[0], "op_statistic.csv"))
    assert rows[0][0] == "ReLU" and int(rows[0][2]) == 2
    info = json.loads(prof.op_analyse("ReLU"))
    assert sum(r["op_exe_times"] for r in info["ReLU"]) == 2
    assert all(r["op_total_time(us)"] > 0 for r in info["ReLU"])
    with pytest.raises(TypeError, match="op_name"):
        prof.op_analyse(3)
    with pytest.raises(TypeError, match="device_id"):
        prof.op_analyse("ReLU", device_id="0")


def test_offline_analyse_of_unanalysed_data(tmp_path):
    relu, x = nn.ReLU(), ms.ops.ones((2,), ms.float32)
    with profile(on_trace_ready=tensorboard_trace_handler(str(tmp_path), worker_name="w", analyse_flag=False)):
        relu(x)
    assert not _outputs(tmp_path)
    ms_dirs = glob.glob(os.path.join(str(tmp_path), "w_*_ascend_ms"))
    assert len(ms_dirs) == 1
    analyse(str(tmp_path))
    _, rows = _read_csv(os.path.join(_outputs(tmp_path)[0], "op_statistic.csv"))
    assert [r[0] for r in rows] == ["ReLU"]
    with pytest.raises(ValueError, match="ascend_ms"):
        analyse(str(tmp_path / "nothing"))


def test_mstx_marks_and_ranges_in_the_trace(tmp_path):
    with profile(on_trace_ready=tensorboard_trace_handler(str(tmp_path))):
        mstx.mark("begin")
        rid = mstx.range_start("work")
        nn.ReLU()(ms.ops.ones((2,), ms.float32))
        mstx.range_end(rid)
    with open(os.path.join(_outputs(tmp_path)[0], "trace_view.json"), encoding="utf-8") as f:
        events = json.load(f)
    assert any(e["name"] == "begin" and e["ph"] == "i" for e in events)
    work = [e for e in events if e["name"] == "work"]
    relu = [e for e in events if e.get("args", {}).get("Type") == "ReLU"]
    assert len(work) == 1 and work[0]["dur"] > 0
    assert work[0]["ts"] <= relu[0]["ts"] and relu[0]["ts"] + relu[0]["dur"] <= work[0]["ts"] + work[0]["dur"] + 1


def test_enums_and_experimental_config_values():
    assert ProfilerLevel.Level0.value == "Level0" and ProfilerActivity.CPU.value == "CPU"
    assert AicoreMetrics.AiCoreNone.value == "None" and ExportType.Text.value == "text"
    cfg = _ExperimentalConfig(profiler_level="bad", export_type=[ExportType.Db])
    assert cfg.profiler_level is ProfilerLevel.Level0 and cfg.export_type == [ExportType.Db]
    with pytest.raises(TypeError, match="activities"):
        profile(activities=["CPU"])


def test_no_profiler_leaves_dispatch_untouched():
    assert _state.profiling == [] and _state.scopes == []
    relu = nn.ReLU()
    relu(ms.ops.ones((2,), ms.float32))
    assert _state.profiling == [] and _state.scopes == []


def test_dynamic_profiler_monitor_profiles_the_configured_steps(tmp_path):
    from mindseed.profiler import DynamicProfilerMonitor
    cfg = tmp_path / "cfg"
    cfg.mkdir()
    (cfg / "profiler_config.json").write_text(json.dumps({"start_step": 2, "stop_step": 3, "analyse_mode": 0}))
    out = tmp_path / "out"
    relu, x = nn.ReLU(), ms.ops.ones((2,), ms.float32)
    monitor = DynamicProfilerMonitor(cfg_path=str(cfg), output_path=str(out), poll_interval=0)
    recording = []
    for _ in range(5):
        relu(x)
        recording.append(bool(_state.profiling))
        monitor.step()
    assert recording == [False, True, True, False, False]
    outs = _outputs(out / "rank0_start2_stop3")
    _, rows = _read_csv(os.path.join(outs[0], "op_statistic.csv"))
    assert rows[0][0] == "ReLU" and int(rows[0][2]) == 2
    with pytest.raises(TypeError, match="cfg_path"):
        DynamicProfilerMonitor()


def test_env_profiler_reads_ms_profiler_options(tmp_path, monkeypatch):
    from mindseed.profiler import EnvProfiler
    monkeypatch.setenv("MS_PROFILER_OPTIONS", json.dumps({"start": True, "output_path": str(tmp_path)}))
    relu, x = nn.ReLU(), ms.ops.ones((2,), ms.float32)
    prof = EnvProfiler()
    relu(x)
    prof.analyse()
    assert not _state.profiling
    _, rows = _read_csv(os.path.join(_outputs(tmp_path)[0], "op_statistic.csv"))
    assert [r[0] for r in rows] == ["ReLU"]
    monkeypatch.setenv("MS_PROFILER_OPTIONS", "[1]")
    with pytest.raises(ValueError, match="MS_PROFILER_OPTIONS"):
        EnvProfiler()
