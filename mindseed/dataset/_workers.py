"""Parallel workers of the pipeline: ordered maps over thread pools and forked process pools.

Both pools apply one function to a stream of chunks (lists of rows) and give the results back in
the input order, with a bounded number of chunks in flight. Process workers are forked (so the
user's functions need not be picklable) and talk to the main process over pipes with a small
array codec (no pickle); large results come back through shared memory (see ProcessMap), and
BatchProcesses has workers write whole batches into shared memory that is handed out as is.
A worker exits on its own when its task pipe closes or its parent dies, and every pool is closed
(its processes joined, its segments unlinked) when its iterator ends, is dropped, or the
interpreter exits.
"""
import atexit
import builtins
import collections
import gc
import itertools
import multiprocessing
import os
import queue
import struct
import threading
import traceback
import weakref
from multiprocessing import resource_tracker, shared_memory

import numpy as np

_LIVE = weakref.WeakSet()
_END = object()
_HDR = struct.Struct("<BBQ")
_SHM_MIN = 1 << 16  # results at least this large go through shared memory (when enabled)


class WorkerError(Exception):
    """A user function failed inside a worker; `text` is the formatted original traceback."""

    def __init__(self, text, exc_type=None):
        super().__init__(text)
        self.text = text
        self.exc_type = exc_type


# ---------------------------------------------------------------------------- codec
def _row_parts(rows):
    """The byte strings / buffers whose concatenation is the message of `rows` (see pack_rows)."""
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
    return parts


def pack_rows(rows):
    """Rows (lists of numpy arrays / scalars / str / bytes) -> one bytes-like message."""
    return b"".join(_row_parts(rows))


def _pack_into(parts, buf):
    """Write the message `parts` into the buffer `buf` (one copy); its length, or None when it does not fit."""
    n = sum(len(p) if isinstance(p, bytes) else p.nbytes for p in parts)
    if n > len(buf):
        return None
    off = 0
    for p in parts:
        k = len(p) if isinstance(p, bytes) else p.nbytes
        buf[off:off + k] = p
        off += k
    return n


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


class OpError(RuntimeError):
    """The exception type of a WorkerError whose text is a built-in transform's own error message (what MindSpore's
    C++ ops report as a pipeline error), not a user traceback."""
    status = None


class OpShapeError(OpError):
    """An OpError of MindSpore's shape-mismatch status (the pipeline error's summary: "Shape is incorrect.")."""
    status = "shape"


def op_failure(name, op, exc):
    """The WorkerError of transform `op` (shown as `name`) raising `exc` inside map: a built-in op's RuntimeError
    keeps its message as the pipeline's error (as MindSpore's C++ ops do), anything else its traceback."""
    from mindseed.dataset.transforms._base import PyTensorOperation, TensorOperation
    if isinstance(exc, RuntimeError) and isinstance(op, TensorOperation) and not isinstance(op, PyTensorOperation):
        kind = OpShapeError if getattr(exc, "_status", None) == "shape" else OpError
        return WorkerError(f"map operation: [{name}] failed. {getattr(exc, '_op_message', exc)}", kind)
    return WorkerError(f"map operation: [{name}] failed. Error description:\n{format_exception(exc)}", type(exc))


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


class _Pool:
    """What the pools share: `close()` (on exhaustion, on error, or at interpreter exit) shuts down once."""

    closed = False

    def close(self):
        if self.closed:
            return
        self.closed = True
        self._shutdown()


class ThreadMap(_Pool):
    """`imap(chunks)` over `num_workers` daemon threads, results in input order."""

    def __init__(self, fn, num_workers, window=None):
        self.fn = fn
        self.window = window or 2 * num_workers
        self.tasks = queue.SimpleQueue()
        self.threads = [threading.Thread(target=self._loop, name=f"mindseed-dataset-worker-{i}", daemon=True)
                        for i in range(num_workers)]
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

    def _shutdown(self):
        for _ in self.threads:
            self.tasks.put(None)
        me = threading.current_thread()
        for t in self.threads:
            if t is not me:
                t.join(timeout=5)


# ---------------------------------------------------------------------------- processes
def _child_start(index, others):
    """A forked worker's first steps: its own random stream, and the parent-side pipe ends it inherited closed
    (so EOF reaches the right process)."""
    from mindseed.dataset._random import reseed_worker
    reseed_worker(index)
    for c in others:
        try:
            c.close()
        except OSError:
            pass


def _next_task(task_conn, parent_pid):
    """The next task message; the worker exits when the parent is gone or the pipe closes."""
    try:
        while not task_conn.poll(1.0):
            if os.getppid() != parent_pid:
                os._exit(0)
        return task_conn.recv_bytes()
    except (EOFError, OSError):
        os._exit(0)


def _error_message(e):
    """A worker's exception as its result message: b"E", the exception type's name, a newline, the traceback."""
    text = e.text if isinstance(e, WorkerError) else format_exception(e)
    kind = e.exc_type.__name__ if isinstance(e, WorkerError) and e.exc_type else type(e).__name__
    return b"E" + f"{kind}\n".encode() + text.encode("utf-8", "replace")


def _reply(result_conn, msg):
    """Send a result to the parent; the worker exits when the parent is gone."""
    try:
        result_conn.send_bytes(msg)
    except (BrokenPipeError, OSError):
        os._exit(0)


def _child_main(fn, task_conn, result_conn, others, parent_pid, index):
    _child_start(index, others)
    seg = None  # the shared-memory segment the parent gave this worker for its results
    while True:
        msg = _next_task(task_conn, parent_pid)
        nlen = msg[0]
        try:
            if nlen:  # a (new) segment: the parent owns and unlinks it; this process only maps it
                if seg is not None:
                    seg.close()
                    seg = None
                seg = shared_memory.SharedMemory(name=msg[1:1 + nlen].decode())
            parts = _row_parts(fn(unpack_rows(memoryview(msg)[1 + nlen:])))
            n = _pack_into(parts, seg.buf) if seg is not None else None
            out = b"R" + b"".join(parts) if n is None else b"S" + struct.pack("<Q", n)
            del parts
        except BaseException as e:  # noqa: BLE001
            out = _error_message(e)
        _reply(result_conn, out)


_BUILTIN_EXC = {k: v for k, v in vars(builtins).items() if isinstance(v, type) and issubclass(v, BaseException)}
_BUILTIN_EXC["OpError"] = OpError
_BUILTIN_EXC["OpShapeError"] = OpShapeError


_SEG_IDS = itertools.count()


class ProcessMap(_Pool):
    """`imap(chunks)` over `num_workers` forked processes; chunks are lists of rows of arrays.

    Tasks travel through pipes. Results do too, unless `shared_memory`: then each worker, once it has returned
    a result of at least `_SHM_MIN` bytes, gets a shared-memory segment (created, grown and unlinked by this
    process only, named mindseed_<pid>_<n>) and writes its later results there; the pipe carries just their
    length, and the parent copies each result out before the worker gets its next task.
    """

    def __init__(self, fn, num_workers, shared_memory=False):
        self.procs, self.task_conns, self.result_conns = [], [], []
        self.use_shm = shared_memory
        self.segs = [None] * num_workers    # this process's handle of each worker's segment
        self.new_seg = [None] * num_workers  # a segment name to hand to the worker with its next task
        if shared_memory:
            # one tracker for the parent and the workers (forked after it starts), so a worker mapping a segment
            # never starts a tracker of its own that would unlink the segment when the worker exits
            resource_tracker.ensure_running()
        _start_workers(self, _child_main, fn, num_workers)
        _LIVE.add(self)

    def _send(self, w, payload):
        name = self.new_seg[w]
        self.new_seg[w] = None
        head = bytes([0]) if name is None else bytes([len(name)]) + name.encode()
        self.task_conns[w].send_bytes(head + pack_rows(payload))

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

    def _result(self, w, msg):
        """The rows of worker `w`'s result message (copied out of its segment), or raise its error."""
        kind = msg[:1]
        if kind == b"S":
            (n,) = struct.unpack_from("<Q", msg, 1)
            return unpack_rows(self.segs[w].buf[:n])
        if kind == b"E":
            raise _sent_error(msg)
        size = len(msg) - 1
        if self.use_shm and size >= _SHM_MIN:  # (re)make this worker's segment large enough for such results
            old = self.segs[w]
            self.segs[w] = shared_memory.SharedMemory(name=f"mindseed_{os.getpid()}_{next(_SEG_IDS)}",
                                                      create=True, size=size + size // 4)
            self.new_seg[w] = self.segs[w].name
            if old is not None:
                _drop_segment(old)
        return unpack_rows(memoryview(msg)[1:])

    def imap(self, chunks):
        # One task in flight per worker, and a worker's next task is sent only once its result has been read:
        # a task or a result can be far larger than a pipe's buffer, and a parent blocked writing a task to a
        # worker that is itself blocked writing a result would deadlock. (It also frees the worker's segment.)
        n = len(self.procs)
        it = iter(chunks)
        busy = collections.deque()  # workers with a task in flight, in task order
        try:
            for w in range(n):
                payload = next(it, _END)
                if payload is _END:
                    break
                self._send(w, payload)
                busy.append(w)
            exhausted = len(busy) < n
            while busy:
                w = busy.popleft()
                rows = self._result(w, self._recv(w))
                if not exhausted:
                    payload = next(it, _END)
                    if payload is _END:
                        exhausted = True
                    else:  # refill before handing the result on, so the worker is busy meanwhile
                        self._send(w, payload)
                        busy.append(w)
                yield rows
        finally:
            self.close()

    def _shutdown(self):
        self._stop_workers()
        segs, self.segs = self.segs, []
        for seg in segs:
            if seg is not None:
                _drop_segment(seg)

    def _stop_workers(self):
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


def _sent_error(msg):
    """The WorkerError of a worker's b"E" message: its exception's builtin type name, a newline, the text."""
    name, _, text = bytes(msg[1:]).decode("utf-8", "replace").partition("\n")
    return WorkerError(text, _BUILTIN_EXC.get(name))


def _drop_segment(seg):
    """Unmap and unlink a segment this process created (a worker may still map it; it goes when they unmap)."""
    try:
        seg.close()
    except BufferError:  # a view of it is still alive somewhere: the mapping goes with it
        pass
    try:
        seg.unlink()
    except FileNotFoundError:
        pass


def close_all():
    """Close every live pool (interpreter exit)."""
    for pool in list(_LIVE):
        pool.close()


atexit.register(close_all)


# ---------------------------------------------------------------------------- process-built batches
_SHARED = weakref.WeakValueDictionary()  # id -> arrays living in a pool's shared memory (safe to share as Tensors)


def is_pipeline_array(a):
    """Whether `a` is a batch array a BatchProcesses pool handed out (it owns its slot; nothing else aliases it)."""
    return _SHARED.get(id(a)) is a


def _batch_child(write, task_conn, result_conn, others, parent_pid, index):
    _child_start(index, others)
    segs = {}
    while True:
        msg = _next_task(task_conn, parent_pid)
        try:
            nlen = msg[0]
            name = msg[1:1 + nlen].decode()
            (start, nbytes), off = struct.unpack_from("<QQ", msg, 1 + nlen), 17 + nlen
            seg = segs.get(name)  # mappings are kept (a pool has a few slots); they go when the worker exits
            if seg is None:
                seg = segs[name] = shared_memory.SharedMemory(name=name)
            rows = unpack_rows(memoryview(msg)[off:])
            write(seg.buf[:nbytes], start, rows)
            out = b"D"
        except BaseException as e:  # noqa: BLE001
            out = _error_message(e)
        _reply(result_conn, out)


def shm_room(nbytes):
    """Whether POSIX shared memory (/dev/shm, where visible) has `nbytes` free: writing past a full tmpfs
    kills the writer with SIGBUS, so segments are only made when they fit."""
    try:
        st = os.statvfs("/dev/shm")
    except OSError:
        return True
    return st.f_bavail * st.f_frsize >= nbytes


def _start_workers(pool, target, fn, num_workers, widen=False):
    """Fork `num_workers` processes running target(fn, task_conn, result_conn, parent_side, parent_pid, i); their
    processes and this side's pipe ends go to pool.procs / task_conns / result_conns. If a start fails, the pool
    is closed (the workers started so far stop) and the error propagates. `widen` enlarges the task pipes."""
    ctx = multiprocessing.get_context("fork")
    parent_side = []
    try:
        for i in range(num_workers):
            task_r, task_w = ctx.Pipe(duplex=False)
            res_r, res_w = ctx.Pipe(duplex=False)
            parent_side += [task_w, res_r]
            p = ctx.Process(target=target, name=f"mindseed-dataset-worker-{i}",
                            args=(fn, task_r, res_w, list(parent_side), os.getpid(), i), daemon=True)
            p.start()
            task_r.close()
            res_w.close()
            if widen:
                _widen_pipe(task_w)
            pool.procs.append(p)
            pool.task_conns.append(task_w)
            pool.result_conns.append(res_r)
    except BaseException:
        pool.close()
        raise


def _widen_pipe(conn, size=1 << 20):
    """Let a task pipe hold a whole batch's encoded images, so sending one does not wait for the worker to read
    (Linux F_SETPIPE_SZ; elsewhere, or above the system's limit, the pipe keeps its size)."""
    try:
        import fcntl
        fcntl.fcntl(conn.fileno(), getattr(fcntl, "F_SETPIPE_SZ", 1031), size)
    except (ImportError, OSError, ValueError):
        pass


class BatchProcesses(_Pool):
    """Batches written in forked worker processes straight into shared memory, handed out without a copy.

    `write(buffer, start, rows)` runs in a worker: it fills `buffer` (the batch's bytes) from the rows of one
    batch (row `start + k` is the k-th). Each batch gets a slot (a shared-memory segment made and unlinked by
    this process only, named mindseed_<pid>_<n>); the array handed out is a view of the slot, and the slot is
    reused once that array (and every Tensor sharing it) is gone. Slots are unlinked when the pool closes
    (arrays still alive keep their memory until they go; no name is left in /dev/shm).
    """

    def __init__(self, write, num_workers, shape, dtype):
        self.shape, self.dtype = tuple(shape), np.dtype(dtype)
        self.procs, self.task_conns, self.result_conns = [], [], []
        self.free = collections.deque()  # slots whose arrays are gone
        self.slots = []
        self.live = set()  # names of the slots whose arrays are still alive
        resource_tracker.ensure_running()  # one tracker for all (see ProcessMap)
        gc.freeze()  # the children's collector leaves the inherited objects alone (no copy-on-write of the heap)
        try:
            _start_workers(self, _batch_child, write, num_workers, widen=True)
        finally:
            gc.unfreeze()
        _LIVE.add(self)

    def _slot(self, n):
        nbytes = n * int(np.prod(self.shape, dtype=np.int64)) * self.dtype.itemsize
        while self.free:
            seg = self.free.popleft()
            if seg.size >= nbytes and not self.closed:
                return seg
        if not shm_room(nbytes):
            raise RuntimeError(f"Dataset batch workers: /dev/shm has no room for another {nbytes} byte batch; "
                               f"free shared memory, keep fewer batches alive, or call "
                               f"ds.config.set_enable_shared_mem(False).")
        seg = shared_memory.SharedMemory(name=f"mindseed_{os.getpid()}_{next(_SEG_IDS)}", create=True,
                                         size=max(nbytes, 1))
        self.slots.append(seg)
        return seg

    def _release(self, seg):
        self.live.discard(seg.name)
        if not self.closed:
            self.free.append(seg)

    def imap(self, groups):
        """For each (start, rows, keep) of `groups`: (the batch array written from `rows`, keep), in order."""
        n = len(self.procs)
        it = iter(groups)
        busy = collections.deque()  # (worker, slot, count, keep) per task in flight, in order
        size = int(np.prod(self.shape, dtype=np.int64)) * self.dtype.itemsize

        def prepare():  # the next task, made while the workers compute (files read, message packed, slot taken)
            item = next(it, _END)
            if item is _END:
                return None
            start, rows, keep = item
            seg = self._slot(len(rows))
            head = bytes([len(seg.name)]) + seg.name.encode() + struct.pack("<QQ", start, len(rows) * size)
            return head + pack_rows(rows), seg, len(rows), keep

        try:
            ready = prepare()
            for w in range(n):
                if ready is None:
                    break
                self.task_conns[w].send_bytes(ready[0])
                busy.append((w,) + ready[1:])
                ready = prepare()
            while busy:
                w, seg, count, keep = busy.popleft()
                msg = ProcessMap._recv(self, w)
                if msg[:1] == b"E":
                    self.free.append(seg)
                    raise _sent_error(msg)
                if ready is not None:
                    self.task_conns[w].send_bytes(ready[0])
                    busy.append((w,) + ready[1:])
                    ready = prepare()
                arr = np.ndarray((count,) + self.shape, self.dtype, buffer=seg.buf)
                _SHARED[id(arr)] = arr
                self.live.add(seg.name)
                weakref.finalize(arr, self._release, seg)
                yield arr, keep
        finally:
            self.close()

    def _shutdown(self):
        ProcessMap._stop_workers(self)
        self.free.clear()
        slots, self.slots = self.slots, []
        for seg in slots:
            try:
                seg.unlink()
            except FileNotFoundError:
                pass
            # numpy does not pin the mapping: a slot whose array is alive stays mapped until that array goes
            # (the array's finalizer holds the slot, whose own finalizer unmaps it)
            if seg.name not in self.live:
                seg.close()
