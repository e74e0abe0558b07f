"""MindDataset: rows of MindRecord files (written by FileWriter, Dataset.save or real MindSpore)."""
import os

from mindseed.dataset import _validate as V
from mindseed.dataset._cache import attach_cache
from mindseed.dataset._engine import UnionBaseDataset
from mindseed.dataset._sources import MappableSource
from mindseed.mindrecord import _format as F

__all__ = ["MindDataset"]


class MindDataset(MappableSource, UnionBaseDataset):
    """Rows of MindRecord files; columns are the schema's fields (sorted) or `columns_list`.

    Args:
        dataset_files (Union[str, list[str]]): one file (its whole shard set is read) or a list of shard files.
        columns_list (list[str], optional): fields to read, in this order. Default: all.
        num_parallel_workers, shuffle, num_shards, shard_id, sampler, num_samples: as every mappable source.
        padded_sample (dict, optional): a row appended `num_padded` times (to even out shards).
        num_padded (int, optional): how many padded rows. Default: ``None``.

    Raises:
        ValueError: a file does not exist.
        RuntimeError: a file or its .db index is not a valid MindRecord file, is truncated or corrupt.
    """

    _mindrecord = True

    def __init__(self, dataset_files, columns_list=None, num_parallel_workers=None, shuffle=None, num_shards=None,
                 shard_id=None, sampler=None, padded_sample=None, num_padded=None, num_samples=None, cache=None):
        if isinstance(dataset_files, str):
            if not os.path.isfile(dataset_files):
                raise ValueError(f"The file {dataset_files} does not exist or permission denied!")
            self.load_dataset = True
            paths = [dataset_files]
        elif isinstance(dataset_files, list) and dataset_files and all(isinstance(f, str) for f in dataset_files):
            for f in dataset_files:
                if not os.path.isfile(f):
                    raise ValueError(f"The file {f} does not exist or permission denied!")
            self.load_dataset = False
            paths = list(dataset_files)
        else:
            raise TypeError(f"Argument dataset_files with value {dataset_files!r} is not of type [<class 'str'>, "
                            f"<class 'list'>].")
        if columns_list is not None:
            columns_list = V.check_columns(columns_list, "columns_list")
        if (padded_sample is None) != (num_padded is None):
            raise RuntimeError("padded_sample and num_padded need to be passed in together.")
        if num_padded is not None:
            V.type_check(num_padded, (int,), "num_padded")
            V.check_range(num_padded, 0, V.INT32_MAX, "num_padded")
        if padded_sample is not None and not isinstance(padded_sample, dict):
            raise TypeError("padded_sample should be a dict.")
        super().__init__(num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id)
        self._reader = F.ShardSetReader(paths, expand=self.load_dataset)
        self.dataset_files = self._reader.source_paths
        self.columns_list = columns_list
        self.padded_sample = padded_sample
        self.num_padded = num_padded or 0
        schema = self._reader.schema
        names = columns_list if columns_list is not None else sorted(schema)
        for c in names:
            if c not in schema:
                raise RuntimeError(f"Invalid columns_list, column '{c}' is not in the MindRecord schema "
                                   f"{sorted(schema)} of {paths[0]}.")
        self.names = list(names)
        attach_cache(self, cache)
        if padded_sample is not None:
            missing = [c for c in self.names if c not in padded_sample]
            if missing:
                raise RuntimeError(f"padded_sample misses the columns {missing}.")

    def _col_names(self):
        return list(self.names)

    def _num_rows(self):
        return len(self._reader) + self.num_padded

    def _fetch(self, ids):
        schema = self._reader.schema
        n = len(self._reader)
        for i in ids:
            if i >= n:
                yield [F.column_array(schema[c], self.padded_sample[c]) for c in self.names]
                continue
            row = self._reader.read(int(i))
            yield [F.column_array(schema[c], row[c]) for c in self.names]

    def _block_ok(self):
        return False

    def __deepcopy__(self, memo):
        new = super().__deepcopy__(memo)
        new._reader = self._reader.reopen()
        return new


