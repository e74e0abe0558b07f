"""Profiling of mindseed networks (MindSpore's `mindspore.profiler`): per-op and per-step timings of PyNative and
compiled runs, written as a Chrome trace and MindSpore's summary tables. See docs/profiler.md.
"""
from mindseed.profiler.common import AicoreMetrics, ExportType, HostSystem, ProfilerActivity, ProfilerLevel
from mindseed.profiler.experimental_config import _ExperimentalConfig  # noqa: F401
from mindseed.profiler.mstx import Mstx as mstx
from mindseed.profiler.profiler import Profiler, analyse, profile, tensorboard_trace_handler  # noqa: F401
from mindseed.profiler.schedule import ProfilerAction, Schedule as schedule  # noqa: F401
from mindseed.profiler.dynamic_profiler import DynamicProfilerMonitor, EnvProfiler

__all__ = ["Profiler", "profile", "schedule", "tensorboard_trace_handler", "ProfilerLevel", "ProfilerActivity",
           "AicoreMetrics", "ExportType", "HostSystem", "mstx", "DynamicProfilerMonitor", "EnvProfiler"]
