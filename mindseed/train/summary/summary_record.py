"""SummaryRecord: write scalars, histograms, images, tensors and text to a summary file, lineage to a lineage file.

MindSpore's summary format (what MindInsight reads) by default; TensorBoard's event format on request. Lineage
(`lineage_pb2` messages) goes, as MindSpore writes it, into `<prefix>.out.events.summary.<time>.<rank>.<host>_lineage`.
"""
import logging
import os
import platform
import re
import socket
import threading
import time
from collections import defaultdict

import numpy as np

from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.export._graph_executor import _cell_graph_executor
from mindseed.nn.cell import Cell
from mindseed.ops.operations import _more as _ops_more
from mindseed.train import lineage_pb2
from mindseed.train.summary import _event_file as E
from mindseed.train.summary import _tensorboard

__all__ = ["SummaryRecord"]

logger = logging.getLogger("mindseed")
_PLUGINS = ("scalar", "image", "histogram", "tensor", "text")
# lineage plugin -> (the message add_value takes, its field in LineageEvent)
_LINEAGE = {"train_lineage": (lineage_pb2.TrainLineage, "train_lineage"),
            "eval_lineage": (lineage_pb2.EvaluationLineage, "evaluation_lineage"),
            "dataset_graph": (lineage_pb2.DatasetGraph, "dataset_graph"),
            "custom_lineage_data": (lineage_pb2.UserDefinedInfo, "user_defined_info")}
# names from summary ops carry their plugin: "loss[:Scalar]"
_TAGGED = re.compile(r"(.+)\[:(.+)\]")
_summary_cache = {}
_summary_lock = threading.Lock()
_FORMATS = ("mindspore", "tensorboard")
FORMAT_ENV = "MINDSEED_SUMMARY_FORMAT"


def _record_summary_tensor(name, value):
    """Called by the summary ops (ops.ScalarSummary, ...): keep `value` under 'tag[:Type]' until the next record."""
    with _summary_lock:
        _summary_cache[name] = value


_ops_more._SUMMARY_SINKS.append(_record_summary_tensor)   # where the summary ops (ops.ScalarSummary, ...) put values


def _cache_summary_tensor_data(summary):
    """Keep values for the next record as the summary ops do: `summary` is [{"name": "tag[:Type]", "data": Tensor},
    ...]. Returns True."""
    with _summary_lock:
        for item in summary:
            _summary_cache[item["name"]] = item["data"]
    return True


def _record_summary_tensor_data():
    """MindSpore's step moving the values its PyNative summary ops queued into the cache `_get_summary_tensor_data`
    reads. mindseed's summary ops (graph and PyNative alike) put their values in that cache when they run, so
    nothing is left queued: the cache already holds them."""


def _get_summary_tensor_data():
    """The values the summary ops recorded since the last take, {'tag[:Type]': Tensor}, handed over and cleared.

    MindSpore's private reader: besides SummaryRecord, tools read a layer's outputs through it (MindArmour's
    coverage metrics and out-of-distribution detector put a TensorSummary in the network and call `predict`).
    """
    with _summary_lock:
        cached = dict(_summary_cache)
        _summary_cache.clear()
    return cached


def _check_prefix(value, what):
    if not isinstance(value, str):
        raise TypeError(f"For 'SummaryRecord', `{what}` should be str, but got type {type(value)}")
    if not re.fullmatch(r"[\w\-.]*", value):
        raise ValueError(f"For 'SummaryRecord', the '{what}' {value!r} may only hold letters, digits, '_', '-' "
                         f"and '.'.")


def _rank():
    """MindSpore's number in the file name: the rank once communication is initialised, else the device id."""
    from mindseed.common import context  # noqa: PLC0415
    from mindseed.communication import management  # noqa: PLC0415
    if management.GlobalComm.INITED:
        return management.get_rank()
    return context.get_context("device_id")


def _check_lineage_value(plugin, value):
    """MindSpore's check: a lineage plugin takes its lineage_pb2 message."""
    prototype = _LINEAGE[plugin][0]
    if not isinstance(value, prototype):
        raise TypeError(f"Plugin {plugin!r} expects a {prototype.__name__} value.")


def lineage_event(plugin, data, wall_time=None):
    """The serialized LineageEvent of a lineage plugin's serialized message, stamped with `wall_time` (as MindSpore's,
    without a step)."""
    event = lineage_pb2.LineageEvent(wall_time=time.time() if wall_time is None else wall_time)
    getattr(event, _LINEAGE[plugin][1]).ParseFromString(data)
    return event.SerializeToString()


def _summary_format(value, caller="SummaryRecord"):
    """The format asked for: the argument, else $MINDSEED_SUMMARY_FORMAT, else 'mindspore'."""
    source = "format"
    if value is None:
        value, source = os.environ.get(FORMAT_ENV) or "mindspore", FORMAT_ENV
    if not isinstance(value, str) or value.lower() not in _FORMATS:
        raise ValueError(f"For '{caller}', the '{source}' must be one of {list(_FORMATS)}, but got {value!r}.")
    return value.lower()


class SummaryRecord:
    """Write summary data to a summary file: MindSpore's format (read by MindInsight) or TensorBoard's.

    Values added with `add_value` are kept until `record(step)` writes them as one event; lineage values (the plugins
    ``train_lineage``, ``eval_lineage``, ``dataset_graph``, ``custom_lineage_data``) each as a ``LineageEvent`` of
    their own into the lineage file ``{prefix}.out.events.summary.{time}.{rank}.{host}_lineage``, created when the first
    one is written (in MindSpore's framing whatever the format; MindInsight's lineage manager reads it).

    Args:
        log_dir (str): the directory of the event file (created if missing).
        file_prefix (str): file name prefix. Default: ``"events"``.
        file_suffix (str): file name suffix. Default: ``"_MS"``.
        num_process (int): accepted for compatibility (writing is synchronous here). Default: ``32``.
        network (Cell): the network whose computational graph (compiled in GRAPH_MODE) the first `record` writes;
            summary ops of any network reach the open records. Default: ``None``.
        max_file_size (int): start a new file when the current one would grow past this many bytes. Default: ``None``.
        raise_exception (bool): raise on write errors instead of logging them. Default: ``False``.
        export_options (dict): accepted for compatibility. Default: ``None``.
        format (str): ``"mindspore"`` or ``"tensorboard"`` (mindseed's extension). Default: ``None``, which
            takes the environment variable ``MINDSEED_SUMMARY_FORMAT`` and else ``"mindspore"``.

    In MindSpore's format the file is named ``{prefix}.out.events.summary.{time}.{rank}.{host}{suffix}`` as
    MindSpore names it; in TensorBoard's ``{prefix}.out.tfevents.{time}.{host}.{pid}{suffix}`` (TensorBoard
    finds files with "tfevents" in their name), written through the ``tensorboard`` package.

    >>> import mindseed as ms
    >>> with ms.train.SummaryRecord("/tmp/summary_demo") as rec:
    ...     rec.add_value("scalar", "loss", ms.Tensor(0.5))
    ...     rec.record(1)
    True
    """

    count = 0  # open instances (MindSpore allows only one at a time; here several may be open)

    def __init__(self, log_dir, file_prefix="events", file_suffix="_MS", num_process=32, network=None,
                 max_file_size=None, raise_exception=False, export_options=None, format=None):  # noqa: A002
        if not isinstance(log_dir, str) or not log_dir:
            raise ValueError(f"For 'SummaryRecord', the 'log_dir' must be a non-empty str, but got {log_dir!r}.")
        _check_prefix(file_prefix, "file_prefix")
        _check_prefix(file_suffix, "file_suffix")
        if not isinstance(max_file_size, (int, type(None))) or isinstance(max_file_size, bool):
            raise TypeError(f"For 'SummaryRecord', the 'max_file_size' should be int type, but got type "
                            f"{type(max_file_size)}")
        if not isinstance(raise_exception, bool):
            raise TypeError(f"For 'SummaryRecord', the 'raise_exception' must be bool, but got "
                            f"{type(raise_exception)}.")
        if network is not None and not isinstance(network, Cell):
            raise TypeError(f"For 'SummaryRecord', the 'network' must be None or Cell, but got {type(network)}.")
        self.format = _summary_format(format)
        self._codec = _tensorboard.Writer() if self.format == "tensorboard" else E
        self.network = network
        self.base_log_dir = os.path.realpath(log_dir)
        os.makedirs(self.base_log_dir, exist_ok=True)
        self.file_prefix, self.file_suffix = file_prefix, file_suffix
        self.max_file_size = max_file_size if max_file_size is None or max_file_size > 0 else None
        self.raise_exception = raise_exception
        self._mode = "train"
        self._has_graph = False
        self._data_pool = defaultdict(list)
        self._closed = False
        self._file = None
        self._size = 0
        self._lineage_file = None
        self._open_file()
        self.lineage_path = None  # named when the first lineage value is written
        _get_summary_tensor_data()  # as MindSpore: values summary ops left before this record opened are dropped
        with _summary_lock:
            SummaryRecord.count += 1

    # ------------------------------------------------------------ file handling
    @staticmethod
    def _middle(seconds):
        return f".out.events.summary.{seconds}.{_rank()}.{platform.node()}"

    def _open_file(self):
        self._time = int(time.time())
        if self.format == "tensorboard":
            middle = f".out.tfevents.{self._time}.{socket.gethostname()}.{os.getpid()}"
        else:
            middle = self._middle(self._time)
        self.file_path = self._free_path(f"{self.file_prefix}{middle}", self.file_suffix)
        self._file = open(self.file_path, "wb")  # noqa: SIM115 -- kept open until close()
        self._size = 0
        self._write(self._codec.event(time.time(), 0, version=self._codec.VERSION))

    def _free_path(self, stem, suffix, keep_suffix=False):
        """A path not yet taken: `stem + suffix`, else (a second file in the same second) with a counter after the
        suffix, or before it with `keep_suffix` (MindInsight finds lineage files by their '_lineage' ending)."""
        path, n = os.path.join(self.base_log_dir, stem + suffix), 1
        while os.path.exists(path):
            path = os.path.join(self.base_log_dir, f"{stem}.{n}{suffix}" if keep_suffix else f"{stem}{suffix}.{n}")
            n += 1
        return path

    def _write(self, event_bytes):
        size = len(event_bytes) + 16  # framing: length, its CRC, data CRC
        if self.max_file_size is not None and self._size and self._size + size > self.max_file_size:
            self._file.close()
            self._open_file()
        self._guarded(self._codec.record, self._file, event_bytes)
        self._size += size

    def _write_lineage(self, event_bytes):
        if self.lineage_path is None:
            self.lineage_path = self._free_path(f"{self.file_prefix}{self._middle(self._time)}", "_lineage", True)
            self._lineage_file = self._guarded(open, self.lineage_path, "wb")
        if self._lineage_file is not None:
            self._guarded(E.record, self._lineage_file, event_bytes)

    def _guarded(self, write, path_or_file, *args):
        """Run a write; an OSError is raised with `raise_exception`, else logged."""
        try:
            return write(path_or_file, *args)
        except OSError:
            if self.raise_exception:
                raise
            logger.exception("For 'SummaryRecord', writing %s failed.", getattr(path_or_file, "name", path_or_file))
        return None

    def __enter__(self):
        if self._closed:
            raise ValueError("For 'SummaryRecord', SummaryRecord has been closed.")
        return self

    def __exit__(self, *err):
        self.close()

    # ------------------------------------------------------------ public API
    @property
    def log_dir(self):
        """The full path of the current event file."""
        return self.file_path

    def set_mode(self, mode):
        """'train' or 'eval': in 'eval' mode the values of the summary ops are not recorded (as MindSpore)."""
        if mode not in ("train", "eval"):
            raise ValueError(f"For 'set_mode', the argument 'mode' should be 'train' or 'eval', but got {mode}.")
        self._mode = mode

    def add_value(self, plugin, name, value):
        """Queue a value for the next `record`.

        Args:
            plugin (str): ``'scalar'`` (a one-element Tensor), ``'histogram'`` (a Tensor), ``'image'`` (an NCHW Tensor
                with 1 or 3 channels), ``'tensor'`` (a Tensor), ``'text'`` (a str, mindseed's), or a lineage plugin
                taking a `lineage_pb2` message: ``'train_lineage'`` (TrainLineage), ``'eval_lineage'``
                (EvaluationLineage), ``'dataset_graph'`` (DatasetGraph), ``'custom_lineage_data'`` (UserDefinedInfo), or
                ``'landscape'`` (a LossLandscape, from `SummaryLandscape`), or ``'graph'`` (the bytes of an `anf_ir`
                ModelProto: a computational graph, as `Cell.get_func_graph_proto()` gives it).
            name (str): the tag (not used by the lineage plugins).
            value (Union[Tensor, str, message]): the value.

        Raises:
            ValueError: unknown plugin or empty name, or a scalar with more than one element.
            TypeError: the value has the wrong type.
        """
        if plugin in _LINEAGE:
            _check_lineage_value(plugin, value)
            self._data_pool[plugin].append((name, value.SerializeToString()))
            return
        if plugin == "graph":
            self._data_pool[plugin].append((name, E.graph_of_model(value)))
            return
        if plugin == "landscape":
            if not hasattr(value, "SerializeToString"):
                raise TypeError(f"For 'SummaryRecord', a landscape value must be a LossLandscape message, but got "
                                f"{type(value).__name__}.")
            self._data_pool[plugin].append((name, value.SerializeToString()))
            return
        if plugin not in _PLUGINS:
            raise ValueError(f"For 'SummaryRecord.add_value', no such \"plugin\" of {plugin!r}, expect value is one "
                             f"of {list(_PLUGINS) + list(_LINEAGE) + ['graph', 'landscape']}")
        if not name or not isinstance(name, str):
            raise ValueError(f"For 'SummaryRecord', the parameter \"name\" type should be str, but got {type(name)}.")
        if plugin == "text":
            if not isinstance(value, str):
                raise TypeError(f"For 'SummaryRecord', the text value must be str, but got {type(value).__name__}")
            array = value
        else:
            if not isinstance(value, Tensor):
                raise TypeError(f"For 'SummaryRecord', the parameter \"value\" expect to be Tensor, but got "
                                f"{type(value).__name__}")
            array = (value.astype(mstype.float32) if value.dtype == mstype.bfloat16 else value).asnumpy()
            if plugin == "scalar" and array.size != 1:
                raise ValueError(f"For 'SummaryRecord', a scalar must have one element, but '{name}' has shape "
                                 f"{array.shape}.")
        pool = self._data_pool[plugin]
        for i, item in enumerate(pool):
            if item[0] == name:
                logger.warning("For 'SummaryRecord.add_value', '%s/%s' has duplicate values. Only the newest one "
                               "will be recorded.", name, plugin)
                pool[i] = (name, array)
                break
        else:
            pool.append((name, array))

    def record(self, step, train_network=None, plugin_filter=None):
        """Write everything queued (and the values of summary ops) as one event at `step`.

        Args:
            step (int): the training step.
            train_network (Cell): the network whose graph is written (once, with the first record) when the
                record's `network`, given at construction, has compiled none. Default: ``None``.
            plugin_filter (Callable[[str], bool]): write only plugins for which it returns True. Default: ``None``.

        Returns:
            bool, True.
        """
        if not isinstance(step, int) or isinstance(step, bool):
            raise TypeError(f"For 'SummaryRecord.record', the 'step' must be int, but got {type(step).__name__}.")
        if train_network is not None and not isinstance(train_network, Cell):
            raise TypeError(f"For 'SummaryRecord.record', the 'train_network' must be Cell, but got "
                            f"{type(train_network).__name__}.")
        if self._closed:
            logger.error("The record writer is closed.")
            return False
        if self.network is not None and not self._has_graph:
            self._add_network_graph(train_network)
        if self._mode == "train":
            self._take_summary_ops()
        pool, self._data_pool = self._data_pool, defaultdict(list)
        values = []
        for plugin, items in pool.items():
            if plugin_filter is not None and not plugin_filter(plugin):
                continue
            for name, array in items:
                if plugin in _LINEAGE:
                    self._write_lineage(lineage_event(plugin, array))
                elif plugin == "graph":
                    self._write_graph(step, array)
                else:
                    values.append(self._encode(plugin, name, array))
        values = [v for v in values if v is not None]
        if values:
            self._write(self._codec.event(time.time(), step, summary_values=values))
        return True

    def _add_network_graph(self, train_network):
        """The graph of `network` (else of `train_network`) compiled in GRAPH_MODE, queued once (MindSpore)."""
        proto = _cell_graph_executor.get_optimize_graph_proto(self.network)
        if proto is None and train_network is not None:
            proto = _cell_graph_executor.get_optimize_graph_proto(train_network)
        if proto is None:
            logger.warning("Failed to get proto for graph.")
            return
        self.add_value("graph", "graph", proto)

    def _write_graph(self, step, graph_def):
        """A graph event: MindSpore's format only (TensorBoard's graphs are TensorFlow GraphDefs)."""
        if self.format == "tensorboard":
            logger.warning("For 'SummaryRecord', computational graphs are written in MindSpore's summary format "
                           "only; the graph is not written to the TensorBoard file.")
            return
        self._write(E.event(time.time(), step, graph_def=graph_def))
        self._has_graph = True

    def _encode(self, plugin, name, array):
        codec = self._codec
        try:
            if plugin == "scalar":
                return codec.scalar_value(name, np.asarray(array).reshape(-1)[0])
            if plugin == "histogram":
                return codec.histogram_value(name, array)
            if plugin == "image":
                return codec.image_value(name, array)
            if plugin == "text":
                return codec.text_value(name, array)
            if plugin == "landscape":
                return E.landscape_value(name, array)
            return codec.tensor_value(name, array)
        except ValueError:
            if self.raise_exception:
                raise
            logger.exception("For 'SummaryRecord', the %s value '%s' cannot be written.", plugin, name)
            return None

    def _take_summary_ops(self):
        cached = _get_summary_tensor_data()
        for full_name, value in cached.items():
            m = _TAGGED.match(full_name)
            if m is None:
                logger.warning("The name(%r) is invalid, expected 'TAG[:TYPE]'.", full_name)
                continue
            self.add_value(m.group(2).lower(), m.group(1), value)

    def flush(self):
        """Write buffered data to disk."""
        if self._closed:
            logger.error("For 'SummaryRecord', the record writer is closed and can not flush, please check if "
                         "close() method is called")
            return
        for file in (self._file, self._lineage_file):
            if file is not None:
                file.flush()
                os.fsync(file.fileno())

    def close(self):
        """Flush and close the file (also done by a `with` block)."""
        if not self._closed:
            for file in (self._file, self._lineage_file):
                if file is not None:
                    file.close()
            self._closed = True
            with _summary_lock:
                SummaryRecord.count -= 1
