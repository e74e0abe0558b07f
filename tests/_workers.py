"""Launching worker processes for the multi-process tests (tests/communication, tests/mint)."""
import os
import socket
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LAUNCH_VARS = ("MS_WORKER_NUM", "MS_NODE_ID", "MS_SCHED_HOST", "MS_SCHED_PORT", "MS_ROLE", "RANK_ID", "RANK_SIZE",
               "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "MS_TOPO_TIMEOUT")
LIMIT_S = 120


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def clean_env(**extra):
    """This process's environment without any launcher variable, with the repository on PYTHONPATH."""
    env = {k: v for k, v in os.environ.items() if k not in LAUNCH_VARS}
    env.update(OMP_NUM_THREADS="1", PYTHONPATH=ROOT + os.pathsep + env.get("PYTHONPATH", ""), **extra)
    return env


def run(tmp_path, workers):
    """Run `workers`, a list of (name, argv after the interpreter, env), each logging to tmp_path/<name>.log;
    wait at most LIMIT_S in all, kill what is left, and fail naming a worker that did not exit with 0."""
    procs, logs = [], []
    try:
        for name, argv, env in workers:
            log = open(tmp_path / f"{name}.log", "w+", encoding="utf-8")
            logs.append(log)
            procs.append(subprocess.Popen([sys.executable, *argv], env=env, stdout=log, stderr=subprocess.STDOUT,
                                          cwd=str(tmp_path)))
        deadline = time.monotonic() + LIMIT_S
        for p in procs:
            try:
                p.wait(timeout=max(1.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                break    # the check below names the process that hung
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        for log in logs:
            log.close()
    for (name, _, _), p in zip(workers, procs):
        text = (tmp_path / f"{name}.log").read_text()
        assert p.returncode == 0, \
            f"{name} exited with {p.returncode} (killed after {LIMIT_S} s if negative):\n{text[-3000:]}"
