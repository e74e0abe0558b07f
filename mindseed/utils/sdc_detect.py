"""Silent data corruption detection.

MindSpore watches Ascend kernel outputs for silent corruption. Here, while detection is active, each
`get_sdc_detect_result()` runs the device self-check of `stress_detect` (a fixed computation repeated and compared
bit for bit); a disagreement is remembered for the rest of the process.
"""
from mindseed.utils.stress_detect import stress_detect

__all__ = ["sdc_detect_start", "sdc_detect_stop", "get_sdc_detect_result"]

_state = {"active": False, "detected": False}


def sdc_detect_start():
    """Start detecting silent data corruption."""
    _state["active"] = True


def sdc_detect_stop():
    """Stop detecting silent data corruption."""
    _state["active"] = False


def get_sdc_detect_result():
    """True when corruption was seen since detection started: the device's repeated self-check disagreed."""
    if _state["active"] and stress_detect() != 0:
        _state["detected"] = True
    return _state["detected"]
