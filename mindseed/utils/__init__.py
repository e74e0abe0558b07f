"""mindspore.utils: DLPack exchange, dry runs, and device health checks."""
from mindseed.utils import dlpack, dryrun, sdc_detect, stress_detect as _stress  # noqa: F401
from mindseed.utils.dlpack import from_dlpack, to_dlpack  # noqa: F401
from mindseed.utils.ms_dispatch import MsDispatchMode  # noqa: F401
from mindseed.utils.sdc_detect import get_sdc_detect_result, sdc_detect_start, sdc_detect_stop  # noqa: F401
from mindseed.utils.stress_detect import stress_detect  # noqa: F401

__all__ = ["from_dlpack", "to_dlpack", "dryrun", "stress_detect", "sdc_detect_start", "sdc_detect_stop",
           "get_sdc_detect_result", "MsDispatchMode"]
