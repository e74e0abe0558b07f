"""`_ExperimentalConfig`: the extensible options of `mindspore.profiler.profile`."""
from mindseed import log as logger
from mindseed.profiler.common import AicoreMetrics, ExportType, HostSystem, ProfilerLevel

__all__ = ["_ExperimentalConfig"]


class _ExperimentalConfig:
    """Options of `profile` beyond its arguments (MindSpore's `_ExperimentalConfig`). On CPU the level, AICORE
    metrics, l2 cache, host-system and interconnect options select Ascend hardware counters and have no data to
    collect; `export_type` is honoured (text deliverables), `mstx` enables `mstx` marks.

    Args:
        profiler_level (ProfilerLevel): Default ``ProfilerLevel.Level0``.
        aic_metrics (AicoreMetrics): Default ``AicoreMetrics.AiCoreNone``.
        l2_cache (bool): Default ``False``.
        mstx (bool): record `mstx.mark` / `range_start` / `range_end`. Default ``False``.
        data_simplification (bool): Default ``True``.
        export_type (list[ExportType]): Default ``[ExportType.Text]``.
        mstx_domain_include, mstx_domain_exclude (list[str]): mstx domains recorded / not recorded.
        sys_io, sys_interconnection (bool): Default ``False``.
        host_sys (list[HostSystem]): Default ``[]``.
    """

    def __init__(self, profiler_level=ProfilerLevel.Level0, aic_metrics=AicoreMetrics.AiCoreNone, l2_cache=False,
                 mstx=False, data_simplification=True, export_type=None, mstx_domain_include=None,
                 mstx_domain_exclude=None, sys_io=False, sys_interconnection=False, host_sys=None):
        self.profiler_level = _member(ProfilerLevel, "profiler_level", profiler_level, ProfilerLevel.Level0)
        self.aic_metrics = _member(AicoreMetrics, "aic_metrics", aic_metrics, AicoreMetrics.AiCoreNone)
        self.l2_cache = _flag("l2_cache", l2_cache, False)
        self.mstx = _flag("mstx", mstx, False)
        self.data_simplification = _flag("data_simplification", data_simplification, True)
        types = [ExportType.Text] if export_type is None else list(export_type)
        self.export_type = [_member(ExportType, "export_type", t, ExportType.Text) for t in types]
        self.mstx_domain_include = list(mstx_domain_include or [])
        self.mstx_domain_exclude = list(mstx_domain_exclude or [])
        self.sys_io = _flag("sys_io", sys_io, False)
        self.sys_interconnection = _flag("sys_interconnection", sys_interconnection, False)
        self.host_sys = [_member(HostSystem, "host_sys", h, None) for h in (host_sys or [])]


def _member(enum, name, value, default):
    """MindSpore resets an option of the wrong kind to its default with a warning."""
    if isinstance(value, enum):
        return value
    logger.warning(f"For '_ExperimentalConfig', the parameter '{name}' must be a member of {enum.__name__}, but "
                   f"got {value!r}; it is reset to {default}.")
    return default


def _flag(name, value, default):
    if isinstance(value, bool):
        return value
    logger.warning(f"For '_ExperimentalConfig', the parameter '{name}' must be bool, but got "
                   f"{type(value).__name__}; it is reset to {default}.")
    return default
