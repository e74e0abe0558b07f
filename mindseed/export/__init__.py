"""Export and load: `ms.export` (MINDIR, ONNX), `ms.load` / `load_mindir` returning a runnable `FuncGraph`.

A network is traced into the compiler's IR (`_capture`), then written by a back end: MindIR in MindSpore
2.10's layout (`_mindir_save`, schema in `_schema`), or ONNX built with the `onnx` package (`_onnx`).
Loading a MindIR file (`_mindir_load`) checks it completely and runs its operators through a fixed table of
MindSpore operators on mindseed (`_ms_ops`), so files written by MindSpore and by mindseed load alike.
"""
import os
import shutil

import numpy as np

from mindseed._utils._files import atomic_write
from mindseed.export._capture import capture
from mindseed.export._mindir_format import MindIRError, write_external
from mindseed.export._mindir_load import FuncGraph, load_func_graph, read_model
from mindseed.export._mindir_save import mindir_model
from mindseed.export._split import export_split_mindir

__all__ = ["export", "load", "save_mindir", "load_mindir", "export_split_mindir", "FuncGraph", "MindIRError"]

_FORMATS = ("AIR", "ONNX", "MINDIR")


def export(net, *inputs, file_name, file_format="MINDIR", **kwargs):
    """Export a network (traced on `inputs`) to a file: ``'MINDIR'`` (``file_name.mindir``) or ``'ONNX'``
    (``file_name.onnx``).

    Args:
        net (Cell): the network; it is traced in inference mode (``set_train(False)``) on `inputs`.
        inputs (Tensor): example inputs (their shapes and dtypes are the model's inputs); a placeholder
            ``Tensor(shape=[None, 3], dtype=...)`` makes its None dims dynamic in the file (-1; the sizes the network
            computes from them are computed when the model runs).
        file_name (str): the file to write; the format's suffix is added when missing.
        file_format (str): ``'MINDIR'`` or ``'ONNX'`` (``'AIR'`` needs Ascend and is refused).
        kwargs: ``dynamic_batch=True`` (ONNX) makes the first input dim of every input symbolic.

    A MINDIR model whose weights pass 1 GB is written as MindSpore writes it: the graph in
    ``file_name_graph.mindir`` and the weights in ``file_name_variables/data_0`` (``ms.load`` reads both).

    Raises:
        ValueError: an unknown format, a Parameter not owned by `net`, or an operator with no exported form.

    >>> import numpy as np, mindseed as ms
    >>> net = ms.nn.Dense(3, 2)
    >>> ms.export(net, ms.Tensor(np.ones((1, 3), np.float32)), file_name="/tmp/dense", file_format="MINDIR")
    >>> ms.nn.GraphCell(ms.load("/tmp/dense.mindir"))(ms.Tensor(np.ones((1, 3), np.float32))).shape
    (1, 2)
    """
    if not isinstance(file_name, str):
        raise TypeError(f"For 'export', the argument 'file_name' must be str, but got {type(file_name).__name__}.")
    if file_format not in _FORMATS:
        raise ValueError(f"For 'export', 'file_format' must be one of {list(_FORMATS)}, but got {file_format}.")
    if file_format == "AIR":
        raise ValueError("For 'export', the 'AIR' format is for Ascend devices and is not supported on this backend; "
                         "use 'MINDIR' or 'ONNX'.")
    cap = capture(net, inputs)
    if file_format == "MINDIR":
        model = mindir_model(cap)
        if sum(len(p.raw_data) for p in model.graph.parameter) > TOTAL_SAVE_KB * 1024:
            _split_save(model, file_name)
            return
        data, suffix = model.SerializeToString(), ".mindir"
    else:
        from mindseed.export._onnx import onnx_bytes  # noqa: PLC0415 -- the onnx package is optional
        data, suffix = onnx_bytes(cap, dynamic_batch=bool(kwargs.get("dynamic_batch", False))), ".onnx"
    path = file_name if file_name.endswith(suffix) else file_name + suffix
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    atomic_write(path, data)


# weights above 1 GB are saved apart from the graph, in weights files of at most 1 TB (MindSpore's limits)
TOTAL_SAVE_KB = 1024 * 1024
PARAMETER_SPLIT_KB = 1024 * 1024 * 1024


def _split_save(model, file_name):
    """MindSpore's layout for large models: the graph in `<name>_graph.mindir`, the weights in
    `<name>_variables/data_0, data_1, ...` (each: a 64-byte header, then every weight padded to 64 bytes), each
    parameter pointing at its bytes with `external_data` (location relative to the graph file's directory)."""
    prefix = os.path.basename(file_name)
    prefix = prefix[:-len(".mindir")] if prefix.endswith(".mindir") else prefix
    directory = os.path.dirname(os.path.abspath(file_name))
    folder = os.path.join(directory, prefix + "_variables")
    if os.path.isdir(folder):
        shutil.rmtree(folder)
    os.makedirs(folder)
    groups, size = [[]], 64
    for p in model.graph.parameter:
        n = len(p.raw_data) + (-len(p.raw_data) % 64)
        if groups[-1] and size + n > PARAMETER_SPLIT_KB * 1024:
            groups.append([])
            size = 64
        groups[-1].append(p)
        size += n
    for index, params in enumerate(groups):
        location = f"{prefix}_variables/data_{index}"
        arrays = [np.frombuffer(p.raw_data, np.uint8) for p in params]
        for p, (offset, length) in zip(params, write_external(os.path.join(directory, location), arrays)):
            p.ClearField("raw_data")
            p.external_data.location, p.external_data.offset, p.external_data.length = location, offset, length
    atomic_write(os.path.join(directory, prefix + "_graph.mindir"), model.SerializeToString())


def load_mindir(file_name, dec_key=None, dec_mode="AES-GCM"):
    """Read a MindIR file as its protobuf `ModelProto` (MindSpore's `load_mindir`); edit it and write it back with
    `save_mindir`. Raises ValueError when the file is missing or is not MindIR."""
    if dec_key is not None:
        raise ValueError("For 'load_mindir', encrypted MindIR files (dec_key) are not supported by mindseed.")
    return read_model(file_name, what="load_mindir")


def save_mindir(model, file_name):
    """Write a MindIR `ModelProto` (from `load_mindir`) to `file_name` (``.mindir`` is added when missing)."""
    if not hasattr(model, "SerializeToString"):
        raise TypeError(f"For 'save_mindir', the argument 'model' must be a MindIR ModelProto, but got "
                        f"{type(model).__name__}.")
    path = file_name if file_name.endswith(".mindir") else file_name + ".mindir"
    atomic_write(path, model.SerializeToString())


def load(file_name, **kwargs):
    """Load a MindIR file written by mindseed or MindSpore; returns a `FuncGraph` to run with `nn.GraphCell`.

    Raises:
        ValueError: the file is missing, not MindIR, truncated or corrupt, or uses an operator mindseed cannot
            run (the message names the file and the node).

    >>> import numpy as np, mindseed as ms
    >>> ms.export(ms.nn.ReLU(), ms.Tensor(np.ones((2,), np.float32)), file_name="/tmp/relu")
    >>> ms.load("/tmp/relu.mindir")(ms.Tensor(np.array([-1.0, 2.0], np.float32)))
    Tensor(shape=[2], dtype=Float32, value= [ 0.00000000e+00,  2.00000000e+00])
    """
    if not isinstance(file_name, str):
        raise ValueError(f"For 'load', the argument 'file_name' must be str, but got {type(file_name).__name__}.")
    if not file_name.endswith(".mindir"):
        raise ValueError(f"For 'load', the argument 'file_name'(MindIR file) should end with '.mindir', please input "
                         f"the correct 'file_name', but got {file_name}.")
    return load_func_graph(file_name)
