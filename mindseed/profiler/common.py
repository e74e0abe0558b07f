"""The profiler's enums, with MindSpore 2.10's members and values (`mindspore.profiler.common.constant`)."""
from enum import Enum

__all__ = ["ProfilerLevel", "ProfilerActivity", "AicoreMetrics", "ExportType", "HostSystem"]


class ProfilerLevel(Enum):
    """The profiler level enum."""

    LevelNone = "LevelNone"
    Level0 = "Level0"
    Level1 = "Level1"
    Level2 = "Level2"


class ProfilerActivity(Enum):
    """The profiler activity enum."""

    NPU = "NPU"
    GPU = "GPU"
    CPU = "CPU"


class AicoreMetrics(Enum):
    """The aicore metrics enum."""

    PipeUtilization = "PipeUtilization"
    ArithmeticUtilization = "ArithmeticUtilization"
    Memory = "Memory"
    MemoryL0 = "MemoryL0"
    MemoryUB = "MemoryUB"
    ResourceConflictRatio = "ResourceConflictRatio"
    L2Cache = "L2Cache"
    MemoryAccess = "MemoryAccess"
    AiCoreNone = "None"


class ExportType(Enum):
    """What the analysis writes: text files (trace_view.json and the csv tables) or a database."""

    Db = "db"
    Text = "text"


class HostSystem(Enum):
    """host system"""

    CPU = "cpu"
    MEM = "mem"
    DISK = "disk"
    NETWORK = "network"
    OSRT = "osrt"
