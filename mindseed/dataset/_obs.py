"""OBSMindDataset: MindRecord files named by URL, with MindSpore's arguments.

MindSpore downloads `s3://bucket/key` objects through Huawei's `esdk-obs-python` client (`obs.ObsClient`, with
`server`, `ak` and `sk`) into `/cache/dataset`, synchronizes the nodes through marker objects under
`sync_obs_path`, and reads the local copies as MindRecord. mindseed has no object-storage client and no network:
it reads files that are already local — plain paths or `file://` URLs, for the data files and for
`sync_obs_path` (a directory that must exist) — and answers a remote URL with a RuntimeError naming it.
The credentials are checked as MindSpore checks them and not used. Rows, column selection, shuffling and
sharding are MindDataset's: a global row shuffle (Shuffle.FILES/INFILE are refused), and every shard gets the
same number of rows, which is what `shard_equal_rows=True` asks for.
"""
import os
import time
from urllib.parse import unquote, urlparse

from mindseed.dataset import _validate as V
from mindseed.dataset._mind_source import MindDataset
from mindseed.dataset._sources import Shuffle

__all__ = ["OBSMindDataset", "sync_wait_for_dataset"]

_WAIT_STEP_TIME = 0.1  # MindSpore's WAIT_STEP_TIME


def _local_path(url, what):
    parsed = urlparse(url)
    if parsed.scheme == "file":
        return unquote(parsed.path)
    if parsed.scheme and len(parsed.scheme) > 1:  # a one-letter scheme is a Windows drive
        raise RuntimeError(f"OBSMindDataset: {what} {url} is a remote object; mindseed reads only local files "
                           f"(a path or a file:// URL) and has no object-storage client to download it. Copy it "
                           f"to local storage and pass that path.")
    return url


class OBSMindDataset(MindDataset):
    """MindRecord files given as local paths or `file://` URLs (see the module docstring).

    Args:
        dataset_files (list[str]): the MindRecord files.
        server (str): the storage endpoint, starting with http:// or https://.
        ak (str), sk (str): the access key id and secret key.
        sync_obs_path (str): the synchronization directory (it must exist).
        columns_list (list[str], optional): columns to read. Default: all.
        shuffle (Union[bool, Shuffle], optional): Default: ``Shuffle.GLOBAL``.
        num_shards (int, optional), shard_id (int, optional): sharding. Default: ``None``.
        shard_equal_rows (bool, optional): Default: ``True``.
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
        if shuffle in (Shuffle.FILES, Shuffle.INFILE):
            raise ValueError(f"OBSMindDataset: shuffle={shuffle} (file-level shuffling) is not available, "
                             f"mindseed's MindDataset shuffles rows globally: pass Shuffle.GLOBAL, True or False.")
        files = [_local_path(f, "dataset file") for f in dataset_files]
        super().__init__(files, columns_list=columns_list, shuffle=shuffle is not False,
                         num_shards=num_shards, shard_id=shard_id)
        self.server, self.sync_obs_path, self.shard_equal_rows = server, sync_obs_path, shard_equal_rows


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
