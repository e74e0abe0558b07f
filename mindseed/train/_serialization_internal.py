"""`mindspore.train.serialization._exec_save` and `_parse_ckpt_proto`: the two steps of MindSpore's checkpoint
functions that code of its own checkpoint handling calls directly (mindnlp's `core.serialization`).

`_exec_save(name, data_list)` writes `{name: [dims, dtype string, flat numpy array or str]}` (dims `[0]` for a
scalar) as a `.ckpt`; `_parse_ckpt_proto(name, dec_key, dec_mode, crc_check)` reads one back as MindSpore's parsed
`Checkpoint` message: `.value`, a list of entries with `.tag` and `.tensor` (`.dims`, `.tensor_type`,
`.tensor_content`), slices of one value joined. Both use mindseed's checkpoint reader and writer (the same file
checks, the CRC footer); encrypted checkpoints are refused as `save_checkpoint` / `load_checkpoint` refuse them.
"""
from types import SimpleNamespace

import numpy as np

from mindseed.train import _ckpt_format as CF

__all__ = ["_exec_save", "_parse_ckpt_proto"]


def _exec_save(ckpt_file_name, data_list, enc_key=None, enc_mode="AES-GCM", map_param_inc=False, crc_check=False,
               format="ckpt", remove_redundancy=None):
    """Write `data_list` (`{name: [dims, dtype string, flat numpy array]}`) to `ckpt_file_name`."""
    from mindseed.train.serialization import _write_file  # noqa: PLC0415 (that module imports this one)
    if enc_key is not None:
        raise ValueError("For 'save_checkpoint', encrypted checkpoints ('enc_key') are not supported by mindseed.")
    if format not in ("ckpt", "safetensors"):
        raise ValueError(f"For 'save_checkpoint', the 'format' must be 'ckpt' or 'safetensors', but got {format}.")
    records = []
    for name, value in data_list.items():
        if not isinstance(value, (list, tuple)) or len(value) != 3:
            raise TypeError(f"For 'save_checkpoint', each entry of the data list must be [dims, type, data], but "
                            f"'{name}' is {value!r:.80}.")
        dims, type_name, data = value
        if type_name == "str":
            records.append((name, [0], "str", CF.encode_str(str(data))))
            continue
        # written as given, a dtype's repr (mindspore.float32) too, as MindSpore does (see CF.itemsize)
        if not isinstance(type_name, str) or CF.itemsize(type_name) is None:
            raise TypeError(f"For 'save_checkpoint', the type of '{name}' must be one of {sorted(CF.ITEMSIZE)}, but "
                            f"got {type_name!r}.")
        payload = np.ascontiguousarray(data).tobytes()
        CF._check_size(name, list(dims), type_name, payload)
        records.append((name, list(dims), type_name, payload))
    _write_file(ckpt_file_name, records, format, crc_check)


def _parse_ckpt_proto(ckpt_file_name, dec_key=None, dec_mode="AES-GCM", crc_check=False):
    """The parsed `Checkpoint` message of a `.ckpt` file (see the module docstring)."""
    from mindseed.train.serialization import _parse_file  # noqa: PLC0415
    if dec_key is not None:
        raise ValueError("For 'load_checkpoint', encrypted checkpoints ('dec_key') are not supported by mindseed.")
    values = []
    for record in _parse_file(ckpt_file_name, "ckpt", crc_check):
        if record[1] != "tensor":
            continue            # a MapParameter's components: not a TensorProto
        tag, _, dims, type_name, payload = record
        tensor = SimpleNamespace(dims=list(dims) or [0], tensor_type=type_name, tensor_content=payload)
        values.append(SimpleNamespace(tag=tag, tensor=tensor))
    return SimpleNamespace(value=values)
