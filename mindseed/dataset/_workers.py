"""Parallel workers of the pipeline: ordered maps over thread pools and forked process pools.

Both pools apply one function to a stream of chunks (lists of rows) and give the results back in
the input order, with a bounded number of chunks in flight. Process workers are forked (so the
user's functions need not be picklable) and talk to the main process over pipes with a small
array codec (no pickle). A worker exits on its own when its task pipe closes or its parent dies,
and every pool is closed when its iterator ends, is dropped, or the interpreter exits.
"""
import atexit
import builtins
import collections
import multiprocessing
import os
import queue
import struct
import threading
import traceback
import weakref

import numpy as np

_LIVE = weakref.WeakSet()
_END = object()
_HDR = struct.Struct("<BBQ")


class WorkerError(Exception):
    """A user function failed inside a worker; `text` is the formatted original traceback."""

    def __init__(self, text, exc_type=None):
        super().__init__(text)
        self.text = text
        self.exc_type = exc_type


# ---------------------------------------------------------------------------- codec
def pack_rows(rows):
    """Rows (lists of numpy arrays / scalars / str / bytes) -> one bytes-like message."""
    parts = [struct.pack("<I", len(rows))]
    for row in rows:
        parts.append(struct.pack("<I", len(row)))
        for v in row:
            a = v if isinstance(v, np.ndarray) else np.asarray(v)
            if a.dtype.hasobject:
                raise TypeError(f"a worker result of type {type(v).__name__} cannot be sent between processes; "
                                f"return numpy arrays, numbers, str or bytes.")
            if not a.flags.c_contiguous:
                a = a.copy()  # (np.ascontiguousarray would turn 0-d arrays into 1-d)
            dt = a.dtype.str.encode()
            parts.append(_HDR.pack(len(dt), a.ndim, a.nbytes))
            parts.append(dt)
            parts.append(struct.pack(f"<{a.ndim}q", *a.shape))
            parts.append(a.reshape(-1).view(np.uint8).data if a.nbytes else b"")
    return b"".join(parts)


def unpack_rows(buf):
    """The inverse of `pack_rows`; arrays are writeable and own one shared buffer."""
    buf = bytearray(buf)
    mv = memoryview(buf)
    (n_rows,), off = struct.unpack_from("<I", mv, 0), 4
    rows = []
    for _ in range(n_rows):
        (n_cols,), off = struct.unpack_from("<I", mv, off), off + 4
        row = []
        for _ in range(n_cols):
            ldt, ndim, nbytes = _HDR.unpack_from(mv, off)
            off += _HDR.size
            dt = np.dtype(bytes(mv[off:off + ldt]).decode())
            off += ldt
            shape = struct.unpack_from(f"<{ndim}q", mv, off)
            off += 8 * ndim
            count = nbytes // dt.itemsize if dt.itemsize else 0
            row.append(np.frombuffer(buf, dtype=dt, count=count, offset=off).reshape(shape))
            off += nbytes
        rows.append(row)
    return rows


def format_exception(exc):
    """The traceback text of `exc` as the user would have seen it."""
    return "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))


# ---------------------------------------------------------------------------- threads
class _Job:
    __slots__ = ("payload", "done", "result", "error")

    def __init__(self, payload):
        self.payload = payload
        self.done = threading.Event()
        self.result = None
        self.error = None


class ThreadMap:
    """`imap(chunks)` over `num_workers` daemon threads, results in input order."""

    def __init__(self, fn, num_workers, window=None):
        self.fn = fn
        self.window = window or 2 * num_workers
        self.tasks = queue.SimpleQueue()
        self.threads = [threading.Thread(target=self._loop, name=f"mindseed-dataset-worker-{i}", daemon=True)
                        for i in range(num_workers)]
        self.closed = False
        for t in self.threads:
            t.start()
        _LIVE.add(self)

    def _loop(self):
        fn = self.fn
        while True:
            job = self.tasks.get()
            if job is None:
                return
            try:
                job.result = fn(job.payload)
            except WorkerError as e:
                job.error = e
            except BaseException as e:  # noqa: BLE001  (reported to the consumer with its traceback)
                job.error = WorkerError(format_exception(e), type(e))
            job.done.set()

    def imap(self, chunks):
        pending = collections.deque()
        it = iter(chunks)
        exhausted = False
        try:
            while True:
                while not exhausted and len(pending) < self.window:
                    try:
                        payload = next(it)
                    except StopIteration:
                        exhausted = True
                        break
                    job = _Job(payload)
                    pending.append(job)
                    self.tasks.put(job)
                if not pending:
                    return
                job = pending.popleft()
                job.done.wait()
                if job.error is not None:
                    raise job.error
                yield job.result
        finally:
            self.close()

    def close(self):
        if self.closed:
            return
        self.closed = True
        for _ in self.threads:
            self.tasks.put(None)
        me = threading.current_thread()
        for t in self.threads:
            if t is not me:
                t.join(timeout=5)


# ---------------------------------------------------------------------------- processes
def _child_main(fn, task_conn, result_conn, others, parent_pid, index):
    from mindseed.dataset._random import reseed_worker
    reseed_worker(index)
    for c in others:  # parent-side ends inherited by fork: close them so EOF reaches the right process
        try:
            c.close()
        except OSError:
            pass
    while True:
        try:
            while not task_conn.poll(1.0):
                if os.getppid() != parent_pid:
                    os._exit(0)
            msg = task_conn.recv_bytes()
        except (EOFError, OSError):
            os._exit(0)
        try:
            out = b"R" + pack_rows(fn(unpack_rows(msg)))
        except BaseException as e:  # noqa: BLE001
            text = e.text if isinstance(e, WorkerError) else format_exception(e)
            name = e.exc_type.__name__ if isinstance(e, WorkerError) and e.exc_type else type(e).__name__
            out = b"E" + f"{name}\n".encode() + text.encode("utf-8", "replace")
        try:
            result_conn.send_bytes(out)
        except (BrokenPipeError, OSError):
            os._exit(0)


_BUILTIN_EXC = {k: v for k, v in vars(builtins).items() if isinstance(v, type) and issubclass(v, BaseException)}


class ProcessMap:
    """`imap(chunks)` over `num_workers` forked processes; chunks are lists of rows of arrays."""

    def __init__(self, fn, num_workers):
        ctx = multiprocessing.get_context("fork")
        self.procs, self.task_conns, self.result_conns = [], [], []
        self.closed = False
        parent_side = []
        try:
            for i in range(num_workers):
                task_r, task_w = ctx.Pipe(duplex=False)
                res_r, res_w = ctx.Pipe(duplex=False)
                parent_side += [task_w, res_r]
                p = ctx.Process(target=_child_main, name=f"mindseed-dataset-worker-{i}",
                                args=(fn, task_r, res_w, list(parent_side), os.getpid(), i), daemon=True)
                p.start()
                task_r.close()
                res_w.close()
                self.procs.append(p)
                self.task_conns.append(task_w)
                self.result_conns.append(res_r)
        except BaseException:
            self.close()
            raise
        _LIVE.add(self)

    def _recv(self, w):
        conn, proc = self.result_conns[w], self.procs[w]
        while not conn.poll(0.5):
            if not proc.is_alive():
                raise RuntimeError(f"Dataset worker process {proc.pid} exited unexpectedly with exit code "
                                   f"{proc.exitcode}.")
        try:
            return conn.recv_bytes()
        except EOFError:
            proc.join(timeout=1)
            raise RuntimeError(f"Dataset worker process {proc.pid} exited unexpectedly with exit code "
                               f"{proc.exitcode}.") from None

    def imap(self, chunks):
        # One task in flight per worker, and a worker's next task is sent only once its result has been read:
        # a task or a result can be far larger than a pipe's buffer, and a parent blocked writing a task to a
        # worker that is itself blocked writing a result would deadlock.
        n = len(self.procs)
        it = iter(chunks)
        busy = collections.deque()  # workers with a task in flight, in task order
        try:
            for w in range(n):
                payload = next(it, _END)
                if payload is _END:
                    break
                self.task_conns[w].send_bytes(pack_rows(payload))
                busy.append(w)
            exhausted = len(busy) < n
            while busy:
                w = busy.popleft()
                msg = self._recv(w)
                if not exhausted:
                    payload = next(it, _END)
                    if payload is _END:
                        exhausted = True
                    else:  # refill before handing the result on, so the worker is busy meanwhile
                        self.task_conns[w].send_bytes(pack_rows(payload))
                        busy.append(w)
                if msg[:1] == b"E":
                    name, _, text = bytes(msg[1:]).decode("utf-8", "replace").partition("\n")
                    raise WorkerError(text, _BUILTIN_EXC.get(name))
                yield unpack_rows(memoryview(msg)[1:])
        finally:
            self.close()

    def close(self):
        if self.closed:
            return
        self.closed = True
        # result pipes first: a worker blocked sending a result nobody will read gets EPIPE and exits
        for c in self.result_conns + self.task_conns:
            try:
                c.close()
            except OSError:
                pass
        for p in self.procs:
            p.join(timeout=2)
            if p.is_alive():
                p.terminate()
                p.join(timeout=2)
            if p.is_alive():
                p.kill()
                p.join()
        for p in self.procs:
            try:
                p.close()
            except ValueError:
                pass


def close_all():
    """Close every live pool (interpreter exit)."""
    for pool in list(_LIVE):
        pool.close()


atexit.register(close_all)
