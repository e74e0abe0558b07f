"""Dataset.save: one epoch of a pipeline written as MindRecord files (MindSpore's implicit type casts)."""
import numpy as np

from mindseed.dataset._engine import Ctx, _base_seed, _number_nodes

_CAST = {"b": ("int32", np.int32), "i1": ("int32", np.int32), "u1": ("int32", np.int32),
         "i2": ("int32", np.int32), "u2": ("int32", np.int32), "i4": ("int32", np.int32),
         "u4": ("int64", np.int64), "i8": ("int64", np.int64), "u8": ("int64", np.int64),
         "f2": ("float32", np.float32), "f4": ("float32", np.float32), "f8": ("float64", np.float64)}


def _field(name, a):
    """(schema entry, converter) of a column from its first value."""
    kind = a.dtype.kind
    if kind == "U":
        if a.ndim:
            raise RuntimeError(f"Dataset.save: column '{name}' is a multi-dimensional string, which MindRecord does "
                               f"not support.")
        return {"type": "string"}, lambda v: str(v)
    if kind == "S":
        if a.size != 1:
            raise RuntimeError(f"Dataset.save: column '{name}' holds several bytes values, which MindRecord does "
                               f"not support.")
        return {"type": "bytes"}, lambda v: np.asarray(v).reshape(-1)[:1].tobytes()
    key = "b" if kind == "b" else f"{kind}{a.dtype.itemsize}"
    if key not in _CAST:
        raise RuntimeError(f"Dataset.save: column '{name}' has unsupported dtype {a.dtype}.")
    t, npt = _CAST[key]
    if a.ndim == 0:
        py = int if t.startswith("int") else float
        return {"type": t}, lambda v: py(v)
    return {"type": t, "shape": [-1] + list(a.shape[1:])}, lambda v: np.asarray(v).astype(npt)


def save_dataset(dataset, file_name, num_files=1, file_type="mindrecord"):
    """Write one epoch of `dataset` to `num_files` MindRecord shard files."""
    from mindseed.mindrecord import FileWriter
    if file_type != "mindrecord":
        raise ValueError(f"Dataset.save: file_type '{file_type}' is not supported; only 'mindrecord'.")
    if isinstance(num_files, bool) or not isinstance(num_files, int) or not 1 <= num_files <= 1000:
        raise ValueError("Input num_files is not within the required interval of [1, 1000].")
    from mindseed.mindrecord.config import _get_enc_key
    if _get_enc_key() is not None and num_files > 1:
        raise RuntimeError("When encode mode is enabled, the automatic sharding function is unavailable.")
    names = dataset.get_col_names()
    rows = dataset._rows(Ctx(_base_seed(), (0,), _number_nodes(dataset)))
    writer = None
    convert = None
    batch = []
    try:
        for row in rows:
            if writer is None:
                fields = [_field(n, a) for n, a in zip(names, row)]
                convert = [f[1] for f in fields]
                writer = FileWriter(file_name, num_files, overwrite=True)
                writer.add_schema({n: f[0] for n, f in zip(names, fields)}, "saved by Dataset.save")
            batch.append({n: c(a) for n, c, a in zip(names, convert, row)})
            if len(batch) >= 256:
                writer.write_raw_data(batch)
                batch = []
        if writer is None:
            raise RuntimeError("Dataset.save: the dataset is empty.")
        if batch:
            writer.write_raw_data(batch)
        writer.commit()
    finally:
        rows.close()
