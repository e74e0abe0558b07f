"""mindspore.dataset.dataloader.DataLoader: batches of a map- or iterable-style dataset through a sampler and a
collate function, in the main process or in forked worker processes (results in sampler order, or as they come
with in_order=False)."""
import collections
import logging
import multiprocessing
import os
import time
from multiprocessing import connection

import numpy as np

from mindseed.dataset import _workers
from mindseed.dataset.dataloader._utils import check_exclusive_args, check_non_negative, check_positive, check_type
from mindseed.dataset.dataloader._utils import worker as W
from mindseed.dataset.dataloader._utils.collate import default_collate, default_convert
from mindseed.dataset.dataloader.dataset import IterableDataset
from mindseed.dataset.dataloader.sampler import BatchSampler, InfiniteSampler, RandomSampler, SequentialSampler

__all__ = ["DataLoader"]

logger = logging.getLogger("mindseed.dataset")
_ENDED = "ended"


class _Fetcher:
    """Samples for a task (a list of indices, one index, or, for an iterable dataset, how many to take) collated
    into what the loader yields; an iterable dataset's iterator lives here, and `reset` restarts it."""

    def __init__(self, dataset, iterable, auto_collation, collate_fn, drop_last):
        self.dataset, self.iterable, self.auto, self.drop_last = dataset, iterable, auto_collation, drop_last
        self.collate_fn = collate_fn or (default_collate if auto_collation else default_convert)
        self.iterator = None

    def reset(self):
        self.iterator = iter(self.dataset) if self.iterable else None

    def fetch(self, task):
        if not self.iterable:
            data = [self.dataset[i] for i in task] if self.auto else self.dataset[task]
            return self.collate_fn(data)
        if self.iterator is None:
            raise StopIteration
        if not self.auto:
            return self.collate_fn(next(self.iterator))
        data = []
        for _ in range(len(task)):
            try:
                data.append(next(self.iterator))
            except StopIteration:
                self.iterator = None
                break
        if not data or (self.drop_last and len(data) < len(task)):
            raise StopIteration
        return self.collate_fn(data)


class DataLoader:
    """Batches of `dataset` (map style: __getitem__/__len__; iterable style: an `IterableDataset`).

    `batch_size` samples per batch (None: no batching, each sample through `default_convert`), in the order of
    `sampler` (default: sequential, or random from `generator` when `shuffle`) or of `batch_sampler` (lists of
    indices), collated by `collate_fn` (default `default_collate`), the last short batch dropped when `drop_last`.
    `num_workers` > 0 fetches in that many forked processes, each seeded from `generator`, running
    `worker_init_fn(worker_id)` first; `timeout` > 0 bounds the wait for a worker's batch; `persistent_workers`
    keeps them across epochs; `in_order=False` yields batches as workers finish them. `prefetch_factor` and
    `multiprocessing_context` are accepted as MindSpore's (workers are forked, one batch in flight each);
    `pin_memory` has no effect on CPU.
    """

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
                 collate_fn=None, pin_memory=False, drop_last=False, timeout=0.0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor=None, persistent_workers=False,
                 in_order=True):
        _check_args(dataset, batch_size, shuffle, sampler, batch_sampler, num_workers, pin_memory, drop_last,
                    timeout, multiprocessing_context, generator, prefetch_factor, persistent_workers, in_order)
        self.dataset, self.num_workers, self.collate_fn = dataset, num_workers, collate_fn
        self.pin_memory, self.timeout, self.worker_init_fn = pin_memory, timeout, worker_init_fn
        self.generator = generator if generator is not None else np.random.default_rng()
        self.persistent_workers, self.in_order = persistent_workers, in_order
        self.iterable = isinstance(dataset, IterableDataset)
        if sampler is None:
            sampler = InfiniteSampler() if self.iterable else \
                RandomSampler(dataset, generator=self.generator) if shuffle else SequentialSampler(dataset)
        self.sampler = sampler
        if batch_sampler is not None:
            batch_size, drop_last = None, False
        elif batch_size is not None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size, self.drop_last, self.batch_sampler = batch_size, drop_last, batch_sampler
        self.auto_collation = batch_sampler is not None
        self.index_sampler = batch_sampler if self.auto_collation else sampler
        self.multiprocessing_context = multiprocessing_context
        self.prefetch_factor = 2 if prefetch_factor is None and num_workers > 0 else prefetch_factor
        self._pool = None       # the persistent workers

    def __iter__(self):
        if self.pin_memory:
            logger.warning("Set pin_memory as True on CPU device will not have any effect.")
        fetcher = _Fetcher(self.dataset, self.iterable, self.auto_collation, self.collate_fn, self.drop_last)
        if self.num_workers == 0:
            return _single_process(fetcher, self.index_sampler)
        return self._multi_process(fetcher)

    def __len__(self):
        if self.iterable:
            if self.batch_size is None:
                return len(self.dataset)
            if self.drop_last:
                return len(self.dataset) // self.batch_size
            return (len(self.dataset) - 1) // self.batch_size + 1
        return len(self.index_sampler)

    def _multi_process(self, fetcher):
        workers = self.num_workers
        available = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        if workers > available:
            logger.warning(f"DataLoader's num_workers with value {workers} is set too high, exceeding the number of "
                           f"CPUs {available} in the CPU set the current process is restricted to, which may lead "
                           f"to competition for resources and slow down performance of DataLoader. It is "
                           f"recommended to reduce the value of num_workers.")
        pool = self._pool
        if pool is None:
            fetcher.reset()         # as MindSpore's: an iterable dataset's iterator is made in this process too
            base_seed = int(self.generator.integers(low=0, high=np.iinfo(np.int64).max + 1, dtype=np.int64))
            pool = _workers.ProcessMap(_worker_fn(fetcher, workers, base_seed, self.worker_init_fn), workers)
            if self.persistent_workers:
                self._pool = pool
        pool.epoch = getattr(pool, "epoch", -1) + 1
        return _ordered(pool, self.index_sampler, self.iterable, self.in_order, self.timeout,
                        keep=self.persistent_workers)

    def __del__(self):
        if getattr(self, "_pool", None) is not None:
            self._pool.close()


def _single_process(fetcher, index_sampler):
    fetcher.reset()
    for task in index_sampler:
        try:
            yield fetcher.fetch(task)
        except StopIteration:
            return


def _worker_fn(fetcher, num_workers, base_seed, worker_init_fn):
    """The function a worker runs on each task row [epoch, task]: the first call starts the worker, a new epoch
    restarts an iterable dataset's iterator; a StopIteration answers "ended", an error the text MindSpore shows."""
    state = {"epoch": None}

    def run(rows):
        (epoch, task), = rows
        worker_id = _workers_index()
        try:
            if state["epoch"] is None:
                W.start_worker(worker_id, num_workers, base_seed, fetcher.dataset, worker_init_fn)
            if state["epoch"] != int(epoch):
                state["epoch"] = int(epoch)
                fetcher.reset()
            item = task.tolist()
            if task.dtype.kind == "U":      # an iterable dataset's placeholders: one (None) or a batch of them
                item = None if task.ndim == 0 else [None] * len(item)
            return [[np.array(worker_id)] + W.encode(fetcher.fetch(item))]
        except StopIteration:
            return [[np.array(worker_id), np.array(_ENDED)]]
        except Exception as e:  # noqa: BLE001 -- the worker's error goes to the main process as MindSpore words it
            text = (f"DataLoader worker {worker_id} (pid: {os.getpid()}) caught {type(e).__name__} with message:\n"
                    f"{_workers.format_exception(e)}")
            return [[np.array(worker_id), np.array("error"), np.array(text)]]
    return run


def _workers_index():
    from mindseed.dataset import _random  # noqa: PLC0415 -- set in the forked worker
    return _random._worker[0] - 1


def _task_row(epoch, task):
    """A task as a row of arrays: an iterable dataset's placeholder (None, or a list of them) as a string array."""
    if task is None:
        return [np.array(epoch), np.array("one")]
    if isinstance(task, list) and task and task[0] is None:
        return [np.array(epoch), np.array(["n"] * len(task))]
    return [np.array(epoch), np.asarray(task, dtype=np.int64)]


def _ordered(pool, index_sampler, iterable, in_order, timeout, keep):
    """Each task of `index_sampler` to a worker (one in flight per worker, a worker's next task sent once its
    result is read), results in task order (or, with in_order=False, as workers finish), until the sampler or, for
    an iterable dataset, every worker's iterator is exhausted."""
    tasks = iter(index_sampler)
    n = len(pool.procs)
    busy, ended = collections.deque(), set()

    def send(w):
        if w in ended:
            return
        task = next(tasks, _ENDED)
        if task is _ENDED:
            return
        pool._send(w, [_task_row(pool.epoch, task)])
        busy.append(w)

    try:
        for w in range(n):
            send(w)
        while busy:
            w = busy[0] if in_order else _first_ready(pool, busy)
            busy.remove(w)
            (row,) = pool._result(w, _receive(pool, w, timeout))
            if len(row) > 1 and row[1].dtype.kind == "U" and str(row[1]) in (_ENDED, "error"):
                if str(row[1]) == "error":
                    raise RuntimeError(str(row[2]))
                ended.add(w)
                if not iterable or len(ended) == n:
                    break
                send(w)
                continue
            send(w)
            yield W.decode(row[1:])
    finally:
        if not keep:
            pool.close()
        else:
            for w in list(busy):        # drain what is still in flight, so the next epoch starts clean
                pool._result(w, _receive(pool, w, timeout))


def _first_ready(pool, busy):
    ready = connection.wait([pool.result_conns[w] for w in busy])
    return next(w for w in busy if pool.result_conns[w] in ready)


def _receive(pool, w, timeout):
    if timeout > 0:
        deadline = time.monotonic() + timeout
        while not pool.result_conns[w].poll(0.05):
            if time.monotonic() > deadline:
                raise RuntimeError(f"DataLoader timed out waiting for data after {timeout} seconds.")
    return pool._recv(w)


def _check_args(dataset, batch_size, shuffle, sampler, batch_sampler, num_workers, pin_memory, drop_last, timeout,
                multiprocessing_context, generator, prefetch_factor, persistent_workers, in_order):
    if isinstance(dataset, IterableDataset):
        description = "when dataset is iterable style"
        check_exclusive_args(shuffle, "shuffle", description)
        check_exclusive_args(sampler is not None, "sampler", description)
        check_exclusive_args(batch_sampler is not None, "batch_sampler", description)
    elif not hasattr(dataset, "__getitem__"):
        raise NotImplementedError(f"{dataset.__class__.__name__} should implement __getitem__ method if it is map "
                                  f"style.")
    check_type(batch_size, "batch_size", valid_type=int, invalid_type=bool, allow_none=True)
    check_positive(batch_size, "batch_size", allow_none=True)
    check_type(shuffle, "shuffle", valid_type=bool, allow_none=True)
    if sampler is not None and shuffle:
        raise ValueError("sampler cannot be specified with shuffle.")
    if batch_sampler is not None:
        description = "with batch_sampler"
        check_exclusive_args(batch_size != 1, "batch_size", description)
        check_exclusive_args(shuffle, "shuffle", description)
        check_exclusive_args(sampler is not None, "sampler", description)
        check_exclusive_args(drop_last, "drop_last", description)
    check_type(num_workers, "num_workers", valid_type=int, invalid_type=bool)
    check_non_negative(num_workers, "num_workers")
    check_type(pin_memory, "pin_memory", valid_type=bool)
    check_type(drop_last, "drop_last", valid_type=bool)
    check_type(timeout, "timeout", valid_type=(int, float), invalid_type=bool)
    check_non_negative(timeout, "timeout")
    if multiprocessing_context is not None:
        if num_workers <= 0:
            raise ValueError(f"multiprocessing_context must only be specified when num_workers is greater than 0, "
                             f"but got: {num_workers}.")
        if not isinstance(multiprocessing_context, (str, multiprocessing.context.BaseContext)):
            raise TypeError(f"multiprocessing_context must be {multiprocessing.get_all_start_methods()} or "
                            f"multiprocessing.context.BaseContext, but got: {multiprocessing_context}.")
    check_type(generator, "generator", valid_type=np.random.Generator, allow_none=True)
    if prefetch_factor is not None:
        if num_workers <= 0:
            raise ValueError(f"prefetch_factor must only be specified when num_workers is greater than 0, but got: "
                             f"{num_workers}.")
        check_type(prefetch_factor, "prefetch_factor", valid_type=int, invalid_type=bool)
        check_positive(prefetch_factor, "prefetch_factor")
    check_type(persistent_workers, "persistent_workers", valid_type=bool)
    if persistent_workers and num_workers <= 0:
        raise ValueError(f"persistent_workers must only be specified when num_workers is greater than 0, but got: "
                         f"{num_workers}.")
    check_type(in_order, "in_order", valid_type=bool)
