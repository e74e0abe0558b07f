"""msrun: launch a distributed job on this machine, as MindSpore's `msrun` does (same options).

    python -m mindseed.msrun --worker_num=2 --local_worker_num=2 [--master_port 8118] [--log_dir D] [--join True]
                             [--cluster_time_out 600] train.py args...

The launcher starts a scheduler process that hosts the rendezvous (a TCP store at master_addr:master_port, MS_ROLE
MS_SCHED; its log is `scheduler.log`) when master_addr is this machine, then `local_worker_num` workers running
`python train.py args...` with the environment `mindspore.communication.init()` reads (MS_WORKER_NUM, MS_NODE_ID,
MS_SCHED_HOST, MS_SCHED_PORT, MS_TOPO_TIMEOUT, MS_ROLE=MS_WORKER, RANK_ID, RANK_SIZE, DEVICE_ID), each logging to
`<log_dir>/worker_<rank>.log`. Unlike MindSpore's, the scheduler does not run the user's script: it only hosts the
rendezvous, and exits once every worker has released the communication.

Without --join the launcher returns once the processes are started (MindSpore's behaviour). With --join it waits:
the workers' logs are copied to the console (--tail_worker_log picks which), and when a worker dies (non-zero exit
or a signal) every other process is killed and msrun exits with status 1 and a message naming the worker, its exit
status and its log (the last lines of which are printed), so a dead worker never leaves the others hanging.
"""
import argparse
import ast
import os
import re
import signal
import socket
import subprocess
import sys
import time

__all__ = ["get_args", "run", "main"]

_SERVER = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "_backend",
                       "rendezvous.py")   # the scheduler: a script importing torch only, not the framework
_POLL_S = 0.2
_SCHEDULER_GRACE_S = 10.0   # how long the scheduler may outlive the workers (it exits when they have released)
_TAIL_LINES = 20
_PEER_GONE = "a peer process has gone away"   # the communication layer's message when a peer died


def _bool(value):
    if isinstance(value, bool):
        return value
    try:
        got = ast.literal_eval(value)
    except (ValueError, SyntaxError):
        got = value
    if not isinstance(got, bool):
        raise argparse.ArgumentTypeError(f"expected True or False, but got {value!r}")
    return got


def _bind(value):
    """--bind_core: True/False, or a dict {"deviceX": ["0-3", "8"]} of the CPUs of each local worker."""
    if isinstance(value, (bool, dict)):
        return value
    low = value.strip().lower()
    if low in ("true", "false"):
        return low == "true"
    try:
        got = ast.literal_eval(value)
    except (ValueError, SyntaxError):
        raise argparse.ArgumentTypeError(f"expected True, False or a dict of CPU lists, but got {value!r}") from None
    if not isinstance(got, dict):
        raise argparse.ArgumentTypeError(f"expected True, False or a dict of CPU lists, but got {value!r}")
    for key, cpus in got.items():
        if not re.fullmatch(r"device\d+|scheduler", key) or not isinstance(cpus, list):
            raise argparse.ArgumentTypeError(f"Key {key} must be in format 'scheduler' or 'deviceX' with a list of "
                                             f"CPU ranges.")
    return got


def _parser():
    p = argparse.ArgumentParser(prog="msrun", description="Launch a distributed mindseed job (MindSpore's msrun).")
    p.add_argument("--worker_num", type=int, default=8, help="the number of workers of the whole job")
    p.add_argument("--local_worker_num", type=int, default=8, help="the number of workers started on this machine")
    p.add_argument("--master_addr", default="127.0.0.1", type=str, help="the scheduler's address")
    p.add_argument("--master_port", default=8118, type=int, help="the scheduler's port (1024-65535)")
    p.add_argument("--node_rank", default=-1, type=int, help="this machine's index (ranks node_rank * local + i)")
    p.add_argument("--log_dir", default="", type=str, help="the directory of the scheduler's and workers' logs")
    p.add_argument("--join", default=False, type=_bool, help="wait for the workers to finish")
    p.add_argument("--cluster_time_out", default=600, type=int, help="seconds to wait for the cluster to form")
    p.add_argument("--bind_core", default=False, type=_bind, help="bind each worker to its share of the CPUs")
    p.add_argument("--bind_numa", default=False, type=_bool, help="bind to NUMA nodes (False only)")
    p.add_argument("--sim_level", default=-1, type=int, help="dry-run level (-1 only: plans run without a "
                   "cluster with python -m mindseed.parallel.plan)")
    p.add_argument("--sim_rank_id", default=-1, type=int, help="the rank of a dry run")
    p.add_argument("--rank_table_file", default="", type=str, help="exported as RANK_TABLE_FILE")
    p.add_argument("--worker_log_name", default="", type=str, help="the workers' log name ({ip}, {hostname})")
    p.add_argument("--tail_worker_log", default="-1", type=str, help="with --join, the ranks whose logs go to the "
                   "console (comma-separated; -1: all)")
    p.add_argument("task_script", type=str, help="the script to run (or python/python3/pytest, then its arguments)")
    p.add_argument("task_script_args", nargs=argparse.REMAINDER, help="the script's arguments")
    return p


def _bare_join(argv):
    """`argv` with a bare `--join` (before the script) given its value True; MindSpore's form is `--join True`."""
    argv, i = list(argv), 0
    while i < len(argv) and argv[i].startswith("--"):
        if "=" not in argv[i]:
            if argv[i] == "--join" and (i + 1 == len(argv) or argv[i + 1].lower() not in ("true", "false")):
                argv.insert(i + 1, "True")
            i += 1          # the option's value
        i += 1
    return argv


def get_args(argv=None):
    """The command-line arguments of msrun."""
    return _parser().parse_args(_bare_join(sys.argv[1:] if argv is None else argv))


def _check(args):
    if args.worker_num <= 0:
        raise ValueError(f"worker_num must be greater than 0, but got {args.worker_num}.")
    if args.local_worker_num <= 0:
        raise ValueError(f"local_worker_num must be greater than 0, but got {args.local_worker_num}.")
    if args.local_worker_num > args.worker_num:
        raise ValueError(f"Total worker number is {args.worker_num}, but got exceeded local worker number: "
                         f"{args.local_worker_num}.")
    if not 1024 <= args.master_port <= 65535:
        raise ValueError(f"master_port must be in [1024, 65535], but got {args.master_port}.")
    if args.cluster_time_out <= 0:
        raise ValueError(f"cluster_time_out must be positive, but got {args.cluster_time_out}.")
    if args.bind_numa:
        raise ValueError("--bind_numa is not supported by mindseed's msrun (use --bind_core).")
    if args.sim_level != -1:
        raise ValueError("--sim_level (dry run) is not supported by msrun: plan a job without a cluster with "
                         "`python -m mindseed.parallel.plan script.py --devices N`.")
    if args.tail_worker_log != "-1" and not re.fullmatch(r"\d+(,\d+)*", args.tail_worker_log):
        raise ValueError(f"--tail_worker_log must be -1 or comma-separated ranks, but got {args.tail_worker_log!r}.")


def _is_local(addr):
    try:
        ip = socket.gethostbyname(addr)
    except OSError:
        return False
    if ip.startswith("127.") or ip == "0.0.0.0":
        return True
    try:
        return ip in socket.gethostbyname_ex(socket.gethostname())[2]
    except OSError:
        return False


def _command(script, script_args):
    """MindSpore's rule: a script runs under python; python/python3/pytest run with their arguments."""
    if script in ("python", "python3"):
        return [sys.executable] + list(script_args)
    if script == "pytest":
        return [sys.executable, "-m", "pytest"] + list(script_args)
    return [sys.executable, script] + list(script_args)


def _read_tail(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.readlines()[-_TAIL_LINES:]
    except OSError:
        return []


def _cpu_ranges(items):
    cpus = []
    for item in items:
        for part in str(item).replace(" ", "").split(","):
            lo, _, hi = part.partition("-")
            cpus.extend(range(int(lo), int(hi or lo) + 1))
    return cpus


class _Worker:
    """One started worker: its process, rank (None: assigned at rendezvous), log file and console offset."""

    def __init__(self, proc, local_rank, rank, log):
        self.proc, self.local_rank, self.rank, self.log, self.offset = proc, local_rank, rank, log, 0
        self.killed = False   # by msrun, after another worker failed

    @property
    def name(self):
        return f"worker {self.rank if self.rank is not None else self.local_rank}"


class _ProcessManager:
    """Starts the scheduler and the workers of this machine; with `join`, supervises them."""

    def __init__(self, args):
        _check(args)
        self.args = args
        self.log_dir = args.log_dir
        if self.log_dir:
            os.makedirs(self.log_dir, exist_ok=True)
        self.is_master = _is_local(args.master_addr)
        self.scheduler = None
        self.workers = []
        self.cmd = _command(args.task_script, args.task_script_args)
        tails = args.tail_worker_log
        self.tailed = None if tails == "-1" else {int(r) for r in tails.split(",")}

    # ------------------------------------------------------------ starting
    def _env(self):
        env = dict(os.environ)
        env.update(MS_WORKER_NUM=str(self.args.worker_num), MS_SCHED_HOST=self.args.master_addr,
                   MS_SCHED_PORT=str(self.args.master_port), MS_TOPO_TIMEOUT=str(self.args.cluster_time_out),
                   RANK_SIZE=str(self.args.worker_num))
        if self.args.rank_table_file:
            env["RANK_TABLE_FILE"] = self.args.rank_table_file
        return env

    def _log_name(self):
        name = self.args.worker_log_name or "worker"
        ip = socket.gethostbyname(socket.gethostname()) if "{ip}" in name else ""
        return name.replace("{ip}", ip).replace("{hostname}", socket.gethostname())

    def _node_id(self, local_rank):
        a = self.args
        if a.local_worker_num == a.worker_num:
            return local_rank
        if a.node_rank >= 0:
            return a.node_rank * a.local_worker_num + local_rank
        return None

    def _affinity(self, local_rank):
        bind = self.args.bind_core
        if bind is True:
            cpus = sorted(os.sched_getaffinity(0))
            share = max(1, len(cpus) // self.args.local_worker_num)
            return cpus[local_rank * share:(local_rank + 1) * share] or cpus
        if isinstance(bind, dict):
            mine = bind.get(f"device{local_rank}")
            return _cpu_ranges(mine) if mine else None
        return None

    def start_scheduler(self):
        env = self._env()
        env.update(MS_ROLE="MS_SCHED", RANK_ID="0")
        env.pop("MS_NODE_ID", None)
        log = os.path.join(self.log_dir, "scheduler.log")
        cmd = [sys.executable, _SERVER]
        print(f"Start scheduler process, log file:{log}. Execute command: {' '.join(cmd)}", flush=True)
        with open(log, "w", encoding="utf-8") as out:
            self.scheduler = subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.STDOUT,
                                              start_new_session=True)

    def start_workers(self):
        for local_rank in range(self.args.local_worker_num):
            node_id = self._node_id(local_rank)
            env = self._env()
            env.update(MS_ROLE="MS_WORKER", DEVICE_ID=str(local_rank))
            if node_id is None:
                env.pop("MS_NODE_ID", None)
                env.pop("RANK_ID", None)
            else:
                env.update(MS_NODE_ID=str(node_id), RANK_ID=str(node_id))
            log = os.path.join(self.log_dir, f"{self._log_name()}_{local_rank if node_id is None else node_id}.log")
            cpus = self._affinity(local_rank)
            print(f"Start worker process with rank id:{node_id}, log file:{log}. Environment variable "
                  f"[RANK_ID={node_id}] is exported. Execute command: {' '.join(self.cmd)}", flush=True)
            with open(log, "w", encoding="utf-8") as out:
                proc = subprocess.Popen(self.cmd, env=env, stdout=out, stderr=subprocess.STDOUT,
                                        start_new_session=True,
                                        preexec_fn=(lambda c=cpus: os.sched_setaffinity(0, c)) if cpus else None)
            self.workers.append(_Worker(proc, local_rank, node_id, log))

    def run(self):
        if self.is_master:
            self.start_scheduler()
        self.start_workers()
        if self.args.join:
            return self.join_processes()
        return 0

    # ------------------------------------------------------------ supervising
    def _tail(self, final=False):
        for w in self.workers:
            if self.tailed is not None and w.rank not in self.tailed and w.local_rank not in self.tailed:
                continue
            try:
                with open(w.log, "rb") as f:
                    f.seek(w.offset)
                    data = f.read()
            except OSError:
                continue
            if not final:   # a line at a time: a partial line waits for its end
                data = data[:data.rfind(b"\n") + 1]
            if data:
                w.offset += len(data)
                sys.stdout.write(data.decode("utf-8", "replace"))
                sys.stdout.flush()

    def kill_all_processes(self):
        """Kill every process of the job still running (the workers' whole process groups, the scheduler)."""
        for w in self.workers:
            w.killed = w.killed or w.proc.poll() is None
        for p in [w.proc for w in self.workers] + ([self.scheduler] if self.scheduler else []):
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    p.kill()
            p.wait()

    def _failed(self):
        """Kill what still runs and report the failed workers, the likely cause first: a worker that died by
        itself before one that failed because its peer had gone."""
        time.sleep(_POLL_S)   # the peers of a dead worker fail within moments: report them together
        self._tail(final=True)
        self.kill_all_processes()
        failed = [w for w in self.workers if w.proc.returncode not in (None, 0, -signal.SIGKILL) or
                  (w.proc.returncode == -signal.SIGKILL and not w.killed)]
        logs = {w: _read_tail(w.log) for w in failed}
        failed.sort(key=lambda w: (any(_PEER_GONE in line for line in logs[w]), w.local_rank))
        first = failed[0]
        sys.stderr.write("".join(f"  | {line}" for line in logs[first]))
        for w in failed:
            code = w.proc.returncode
            how = f"was killed by signal {-code}" if code < 0 else f"exited with code {code}"
            sys.stderr.write(f"msrun: {w.name} (pid {w.proc.pid}) {how}; see its log {w.log}.\n")
        sys.stderr.write(f"msrun: {first.name} failed, so the other processes were killed. Distributed job exited "
                         f"with exception. Please check logs in directory: {self.log_dir or os.getcwd()}.\n")
        sys.stderr.flush()
        return 1

    def join_processes(self):
        """Wait for the workers: 0 when they all succeed; 1, after killing the rest, when one fails."""
        def on_signal(signum, frame):
            self.kill_all_processes()
            sys.stderr.write(f"msrun: received signal {signum}, all processes killed.\n")
            raise SystemExit(128 + signum)

        old = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
        try:
            while True:
                self._tail()
                if any(w.proc.poll() not in (None, 0) for w in self.workers):
                    return self._failed()
                if self.scheduler is not None and self.scheduler.poll() not in (None, 0):
                    self._tail(final=True)
                    self.kill_all_processes()
                    sys.stderr.write(f"msrun: the scheduler exited with code {self.scheduler.returncode}; the "
                                     f"workers were killed. See {os.path.join(self.log_dir, 'scheduler.log')}.\n")
                    return 1
                if all(w.proc.poll() == 0 for w in self.workers):
                    break
                time.sleep(_POLL_S)
            self._tail(final=True)
            if self.scheduler is not None:
                try:   # it exits once every worker has released; a script that never called init() leaves it
                    self.scheduler.wait(timeout=_SCHEDULER_GRACE_S)
                except subprocess.TimeoutExpired:
                    self.kill_all_processes()
            return 0
        finally:
            for s, handler in old.items():
                signal.signal(s, handler)


def run(args):
    """Run the job described by `args` (from `get_args`); returns the exit status."""
    return _ProcessManager(args).run()


def main(argv=None):
    """The `msrun` command."""
    try:
        args = get_args(argv)
        status = run(args)
    except ValueError as exc:
        sys.stderr.write(f"msrun: {exc}\n")
        status = 2
    raise SystemExit(status)


if __name__ == "__main__":
    main()
