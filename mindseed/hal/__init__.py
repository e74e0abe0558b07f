"""mindspore.hal: devices, streams, events and memory statistics (MindSpore's older names for `mindspore.runtime`).

The same objects as `mindseed.runtime`; the memory functions also take the `device_target` MindSpore's hal takes.
"""
from mindseed.hal import device, event, memory, stream  # noqa: F401
from mindseed.hal.device import *  # noqa: F401,F403
from mindseed.hal.event import *  # noqa: F401,F403
from mindseed.hal.memory import *  # noqa: F401,F403
from mindseed.hal.stream import *  # noqa: F401,F403
