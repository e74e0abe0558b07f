"""Dry runs: `MS_SIMULATION_LEVEL` set means the script is being simulated (compiled, not trained for real)."""
import os

__all__ = ["set_simulation", "is_simulation"]


def is_simulation():
    """Whether this process runs under `MS_SIMULATION_LEVEL` (a dry run)."""
    return bool(os.environ.get("MS_SIMULATION_LEVEL"))


def set_simulation(level="0"):
    """Mark this process as a dry run of simulation level `level` ('0'..'3')."""
    if str(level) not in ("0", "1", "2", "3"):
        raise ValueError(f"For 'set_simulation', the argument 'level' must be one of '0', '1', '2', '3', but got "
                         f"{level!r}.")
    os.environ["MS_SIMULATION_LEVEL"] = str(level)
