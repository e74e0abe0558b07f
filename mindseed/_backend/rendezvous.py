"""The rendezvous server of a job (msrun's scheduler role): a TCP store the workers meet at.

Imported by `kernels.comm`, and run by msrun as a script (`python .../rendezvous.py`), which imports torch only,
not the framework: the scheduler starts in the time torch takes to load. As a script it reads MS_SCHED_HOST,
MS_SCHED_PORT, MS_WORKER_NUM and MS_TOPO_TIMEOUT.
"""
import datetime
import os
import sys
import time

if __name__ == "__main__":   # run by path: this directory's modules (errors, devices, ...) must not shadow others
    _HERE = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

import torch.distributed as dist  # noqa: E402


def serve(host, port, size, timeout_s):
    """Host the rendezvous store for `size` workers until they have all released (each adds 1 to
    "mindseed/released" when it leaves the world). Returns False, without waiting longer, when fewer than `size`
    workers joined ("mindseed/joined") within `timeout_s` seconds: the cluster never formed."""
    store = dist.TCPStore(host, int(port), None, True, timeout=datetime.timedelta(seconds=timeout_s),
                          wait_for_workers=False)
    deadline = time.monotonic() + timeout_s
    # the workers need the store while they create groups, so it lives until each has said goodbye
    while int(store.add("mindseed/released", 0)) < size:
        if time.monotonic() > deadline and int(store.add("mindseed/joined", 0)) < size:
            return False
        time.sleep(0.2)
    return True


if __name__ == "__main__":
    workers, waited = int(os.environ["MS_WORKER_NUM"]), int(os.environ.get("MS_TOPO_TIMEOUT", "600"))
    if not serve(os.environ.get("MS_SCHED_HOST", "127.0.0.1"), int(os.environ.get("MS_SCHED_PORT", "8118")), workers,
                 waited):
        sys.exit(f"scheduler: fewer than {workers} workers joined within {waited} s (MS_TOPO_TIMEOUT): the cluster did "
                 f"not form.")
