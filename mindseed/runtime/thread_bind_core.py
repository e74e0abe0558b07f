"""Binding runtime threads to CPU cores: the core lists `set_cpu_affinity` takes."""
import re

__all__ = ["cpu_set"]


def cpu_set(items):
    """{core numbers} of a list of cores and 'a-b' ranges, e.g. ['0-3', 8]."""
    cpus = set()
    for item in items:
        if isinstance(item, int) and not isinstance(item, bool) and item >= 0:
            cpus.add(item)
            continue
        m = re.fullmatch(r"(\d+)(?:-(\d+))?", item) if isinstance(item, str) else None
        if m is None or (m.group(2) is not None and int(m.group(2)) < int(m.group(1))):
            raise ValueError(f"For 'set_cpu_affinity', each item of 'affinity_cpu_list' must be a core number or a "
                             f"range 'a-b' with a <= b, but got {item!r}.")
        cpus.update(range(int(m.group(1)), int(m.group(2) or m.group(1)) + 1))
    return cpus
