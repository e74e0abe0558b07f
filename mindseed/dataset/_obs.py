"""OBSMindDataset: MindRecord files named by URL, with MindSpore's arguments and its reading plan.

MindSpore downloads `s3://bucket/key` objects through Huawei's `esdk-obs-python` client (`obs.ObsClient`, with
`server`, `ak` and `sk`) into `/cache/dataset`, synchronizes the nodes through marker objects under
`sync_obs_path`, and reads the local copies as MindRecord. mindseed has no object-storage client and no network:
it reads files that are already local — plain paths or `file://` URLs, for the data files and for
`sync_obs_path` (a directory that must exist) — and answers a remote URL with a RuntimeError naming it.
The credentials are checked as MindSpore checks them and not used.

The reading plan is MindSpore's: each epoch the file list is shuffled (unless `shuffle` is False or
Shuffle.INFILE) with Python's `random` seeded 1, 2, ... per epoch, as MindSpore seeds it; with sharding and
`shard_equal_rows` every shard reads a contiguous span of ceil(rows / num_shards) rows of that list (the last
span wraps to the start), without it shard k reads files k, k + num_shards, ...; rows inside a file are read
in random order for Shuffle.GLOBAL/INFILE and in file order otherwise.
"""
import math
import os
import random
import time
from urllib.parse import unquote, urlparse

from mindseed.dataset import _validate as V
from mindseed.dataset._mind_source import MindDataset
from mindseed.dataset._sources import GeneratorDataset, Shuffle
from mindseed.dataset.samplers import RandomSampler, SequentialSampler, SubsetRandomSampler, SubsetSampler

__all__ = ["OBSMindDataset", "sync_wait_for_dataset"]

_WAIT_STEP_TIME = 0.1  # MindSpore's WAIT_STEP_TIME
_SEED = 1  # MindSpore's Config.SEED: the first epoch's file-shuffle seed


def _local_path(url, what):
    parsed = urlparse(url)
    if parsed.scheme == "file":
        return unquote(parsed.path)
    if parsed.scheme and len(parsed.scheme) > 1:  # a one-letter scheme is a Windows drive
        raise RuntimeError(f"OBSMindDataset: {what} {url} is a remote object; mindseed reads only local files "
                           f"(a path or a file:// URL) and has no object-storage client to download it. Copy it "
                           f"to local storage and pass that path.")
    return url


def shard_spans(sizes, size_per_shard, shard_id):
    """[(file index, start, end)] of a shard's contiguous span of `size_per_shard` rows over files of `sizes`
    (MindSpore's make_shard_samples: the list is walked again from the start until the span is covered)."""
    spans, before = [], 0
    lo, hi = shard_id * size_per_shard, (shard_id + 1) * size_per_shard
    while True:
        for i, size in enumerate(sizes):
            start, end, push = 0, size, False
            if before <= lo < before + size:
                start, push = lo - before, True
                end = hi - before if before < hi <= before + size else size
            if lo <= before < hi:
                start, push = 0, True
                end = hi - before if before + size >= hi else size
            if push:
                spans.append((i, start, end))
            before += size
        if before >= hi or not any(sizes):
            return spans


class _OBSRows:
    """The rows of one shard, planned per epoch as MindSpore's MindRecordFromOBS plans them."""

    def __init__(self, files, columns_list, shuffle, num_shards, shard_id, shard_equal_rows):
        self.files, self.columns_list, self.shuffle = files, columns_list, shuffle
        self.num_shards, self.shard_id, self.shard_equal_rows = num_shards, shard_id, shard_equal_rows
        self.sizes = {f: MindDataset([f], columns_list=columns_list).get_dataset_size() for f in files}
        self.epoch = 0

    def _plan(self, epoch):
        files = list(self.files)
        if self.shuffle not in (False, Shuffle.INFILE):
            random.Random(_SEED + epoch).shuffle(files)
        if not self.num_shards:
            return [(f, 0, self.sizes[f]) for f in files]
        if self.shard_equal_rows:
            per = math.ceil(sum(self.sizes.values()) / self.num_shards)
            return [(files[i], a, b) for i, a, b in shard_spans([self.sizes[f] for f in files], per, self.shard_id)]
        return [(f, 0, self.sizes[f]) for k, f in enumerate(files) if k % self.num_shards == self.shard_id]

    def __len__(self):
        return sum(b - a for _, a, b in self._plan(self.epoch))

    def __iter__(self):
        plan, self.epoch = self._plan(self.epoch), self.epoch + 1
        in_file_random = self.shuffle in (True, Shuffle.GLOBAL, Shuffle.INFILE)
        for f, a, b in plan:
            whole = a == 0 and b == self.sizes[f]
            if in_file_random:
                sampler = RandomSampler() if whole else SubsetRandomSampler(list(range(a, b)))
            else:
                sampler = SequentialSampler() if whole else SubsetSampler(list(range(a, b)))
            d = MindDataset([f], columns_list=self.columns_list, sampler=sampler)
            for row in d.create_tuple_iterator(num_epochs=1, output_numpy=True):
                yield tuple(row)


class OBSMindDataset(GeneratorDataset):
    """MindRecord files given as local paths or `file://` URLs (see the module docstring).

    Args:
        dataset_files (list[str]): the MindRecord files.
        server (str): the storage endpoint, starting with http:// or https://.
        ak (str), sk (str): the access key id and secret key.
        sync_obs_path (str): the synchronization directory (it must exist).
        columns_list (list[str], optional): columns to read. Default: all.
        shuffle (Union[bool, Shuffle], optional): Default: ``Shuffle.GLOBAL``.
        num_shards (int, optional), shard_id (int, optional): sharding. Default: ``None``.
        shard_equal_rows (bool, optional): every shard reads the same number of rows. Default: ``True``.
    """

    def __init__(self, dataset_files, server, ak, sk, sync_obs_path, columns_list=None, shuffle=Shuffle.GLOBAL,
                 num_shards=None, shard_id=None, shard_equal_rows=True):
        V.type_check(dataset_files, (list,), "dataset_files")
        for f in dataset_files:
            if not isinstance(f, str):
                raise TypeError(f"Item of dataset files is not of type [{type('')}], but got {type(f)}.")
        for name, value in (("num_shards", num_shards), ("shard_id", shard_id)):
            if value is not None:
                V.type_check(value, (int,), name)
        if columns_list is not None:
            V.type_check(columns_list, (list,), "columns_list")
        V.type_check(shard_equal_rows, (bool,), "shard_equal_rows")
        for name, value in (("server", server), ("ak", ak), ("sk", sk), ("sync_obs_path", sync_obs_path)):
            V.type_check(value, (str,), name)
        if not server.startswith(("http://", "https://")):
            raise ValueError(f"server should be a str that starts with http:// or https://, but got {server}.")
        if shuffle is not None and not isinstance(shuffle, (bool, Shuffle)):
            raise TypeError("shuffle must be of boolean or enum of 'Shuffle' values like 'Shuffle.GLOBAL' or "
                            "'Shuffle.FILES'.")
        V.check_sharding(num_shards, shard_id)
        sync_dir = _local_path(sync_obs_path, "sync_obs_path")
        if not os.path.isdir(sync_dir):
            raise RuntimeError(f"OBSMindDataset: sync_obs_path {sync_obs_path} does not exist or is not a "
                               f"directory.")
        files = [_local_path(f, "dataset file") for f in dataset_files]
        if not files:
            raise ValueError("OBSMindDataset: dataset_files should not be empty.")
        full = MindDataset(files[:1]).get_col_names()
        if columns_list and not set(columns_list).issubset(full):
            raise ValueError(f"columns_list: {columns_list} can not found in MindRecord fields: {full}")
        shuffle = Shuffle.GLOBAL if shuffle is None or shuffle is True else shuffle
        rows = _OBSRows(files, columns_list, shuffle, num_shards, shard_id, shard_equal_rows)
        super().__init__(rows, column_names=columns_list or full, shuffle=False)
        self.dataset_files, self.server, self.sync_obs_path = dataset_files, server, sync_obs_path
        self.columns_list, self.shuffle, self.shard_equal_rows = columns_list, shuffle, shard_equal_rows
        self.num_shards, self.shard_id = num_shards, shard_id


def sync_wait_for_dataset(rank_id, rank_size, current_epoch, obs_runtime):
    """Barrier of the ranks reading an OBSMindDataset: mark `rank_id` ready for `current_epoch` and wait until
    `rank_size` ranks are.

    The markers are `<rank>.txt` files in `<sync_obs_path>/<BATCH_JOB_ID or 'unknown'>/<epoch>/`, as MindSpore
    lays them out under its sync object path; `obs_runtime` is the OBSMindDataset (anything with a local
    `sync_obs_path`). Like MindSpore's, the wait has no time limit.
    """
    for name, value in (("rank_id", rank_id), ("rank_size", rank_size), ("current_epoch", current_epoch)):
        V.type_check(value, (int,), name)
    if not 0 <= rank_id < rank_size:
        raise ValueError(f"sync_wait_for_dataset: rank_id should be in [0, {rank_size}), but got {rank_id}.")
    sync = getattr(obs_runtime, "sync_obs_path", None)
    if not isinstance(sync, str):
        raise TypeError(f"sync_wait_for_dataset: obs_runtime should be the OBSMindDataset being read (with a "
                        f"sync_obs_path), but got {type(obs_runtime).__name__}.")
    ready_dir = os.path.join(_local_path(sync, "sync_obs_path"), os.environ.get("BATCH_JOB_ID", "unknown"),
                             str(current_epoch))
    os.makedirs(ready_dir, exist_ok=True)
    with open(os.path.join(ready_dir, f"{rank_id}.txt"), "w", encoding="utf-8") as f:
        f.write(str(rank_id))
    while sum(name.endswith(".txt") for name in os.listdir(ready_dir)) < rank_size:
        time.sleep(_WAIT_STEP_TIME)
