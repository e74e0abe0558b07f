"""Named data queues: a dataset sent to a queue (`Dataset.device_que(queue_name=...)` / `to_device`) is read row by
row by the `GetNext` primitive of that name, as MindSpore's data sink feeds a network."""
import uuid

__all__ = []

_QUEUES = {}     # name -> [dataset, its endless row iterator or None]


def open_queue(dataset, name=""):
    """Register `dataset` under `name` (a fresh name when empty); returns the name."""
    name = name or uuid.uuid4().hex
    _QUEUES[name] = [dataset, None]
    return name


def next_row(name):
    """The next row (a list of Tensors) of the queue `name`; the stream continues across passes of the dataset."""
    entry = _QUEUES.get(name)
    if entry is None:
        raise RuntimeError(f"For 'GetNext', there is no data queue named {name!r}: send a dataset to it with "
                           f"dataset.device_que(queue_name={name!r}) first.")
    for _ in range(2):
        if entry[1] is None:
            entry[1] = iter(entry[0].create_tuple_iterator(num_epochs=1))
        try:
            return next(entry[1])
        except StopIteration:
            entry[1] = None         # the next pass of the dataset
    raise RuntimeError(f"For 'GetNext', the dataset of the data queue {name!r} is empty.")


def close_queue(name):
    _QUEUES.pop(name, None)
