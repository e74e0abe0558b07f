"""SummaryCollector: record the loss, parameter histograms, input images, and the run's lineage for MindInsight."""
import json
import logging
import os
import re

import numpy as np

from mindseed.common.parameter import Parameter
from mindseed.common.tensor import Tensor
from mindseed.train.callback import _lineage as L
from mindseed.train.callback._callback import Callback, _handle_loss, _make_directory
from mindseed.train.callback._landscape import LandscapeCollection
from mindseed.train.summary.summary_record import SummaryRecord, _summary_format

__all__ = ["SummaryCollector"]

logger = logging.getLogger("mindseed")


class SummaryCollector(Callback):
    """Collect training data into a summary file in `summary_dir` (MindSpore's format, or TensorBoard's).

    Every `collect_freq` steps (and at the first step) it records: the loss (``loss/auto``), the
    first input if it is an image batch (``input_data/auto``), histograms of the first five trained
    parameters or of those matching ``histogram_regular`` (``{name}/auto``), and the values of the
    summary ops (``ops.ScalarSummary`` ...). As MindSpore's, it writes into the lineage file (see
    `SummaryRecord`) the train dataset's graph and the custom lineage data at the first step, the train
    lineage (optimizer, learning rate, loss function, epochs, batch size, parallel mode, device number,
    train dataset path and size, network name, final loss, last checkpoint's path and size) at the end of
    training and the eval lineage (metrics as JSON, valid dataset path and size) at the end of evaluation.

    Args:
        summary_dir (str): the directory of the event files.
        collect_freq (int): steps between collections. Default: ``10``.
        num_process (int): accepted for compatibility. Default: ``32``.
        collect_specified_data (dict): switches: ``collect_metric``, ``collect_input_data``,
            ``histogram_regular`` (a regular expression or None), ``collect_train_lineage``,
            ``collect_eval_lineage``, ``collect_dataset_graph``, ``collect_landscape`` (a dict: the parameters
            at the steps or epochs of its ``intervals`` and ``train_metadata.json`` go to ``summary_dir/ckpt_dir``
            for `SummaryLandscape`) and ``collect_graph`` (the network's computational graph, when it runs in
            GRAPH_MODE).
            Default: ``None`` (all on).
        keep_default_action (bool): unspecified switches keep their default (True) or are off. Default: ``True``.
        custom_lineage_data (dict): str -> int/float/str written once as ``UserDefinedInfo`` lineage, over the
            ``custom_lineage_data`` of the ``MINDINSIGHT_HYPER_CONFIG`` environment variable. Default: ``None``.
        collect_tensor_freq (int): steps between collections of tensor summaries. Default: ``None``.
        max_file_size (int): start a new event file past this many bytes. Default: ``None``.
        export_options (dict): accepted for compatibility. Default: ``None``.
        format (str): ``"mindspore"`` or ``"tensorboard"``, as for `SummaryRecord` (mindseed's extension).
            Default: ``None`` (the environment variable ``MINDSEED_SUMMARY_FORMAT``, else ``"mindspore"``).
    """

    _DEFAULT_SPECIFIED_DATA = {"collect_metric": True, "collect_graph": True, "collect_train_lineage": True,
                               "collect_eval_lineage": True, "collect_input_data": True,
                               "collect_dataset_graph": True, "histogram_regular": None, "collect_landscape": None}

    def __init__(self, summary_dir, collect_freq=10, num_process=32, collect_specified_data=None,
                 keep_default_action=True, custom_lineage_data=None, collect_tensor_freq=None, max_file_size=None,
                 export_options=None, format=None):  # noqa: A002
        super().__init__()
        self._summary_dir = _make_directory(summary_dir)
        for name, value, allow_none in (("collect_freq", collect_freq, False),
                                        ("collect_tensor_freq", collect_tensor_freq, True),
                                        ("max_file_size", max_file_size, True)):
            if value is None and allow_none:
                continue
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise ValueError(f"For 'SummaryCollector', the '{name}' must be a positive int, but got {value!r}.")
        if not isinstance(keep_default_action, bool):
            raise TypeError(f"For 'SummaryCollector', the 'keep_default_action' must be bool, but got "
                            f"{type(keep_default_action).__name__}.")
        self._collect_freq = collect_freq
        self._collect_tensor_freq = collect_tensor_freq
        self._max_file_size = max_file_size
        self._format = _summary_format(format, "SummaryCollector")
        self._specified = self._process_specified_data(collect_specified_data, keep_default_action)
        self._custom_lineage_data = L.process_custom_lineage_data(custom_lineage_data)
        self._record = None
        self._first_step = True
        self._has_saved_graph = False
        self._has_saved_custom_data = False
        landscape = self._specified.get("collect_landscape")
        self._landscape = LandscapeCollection(self._summary_dir, landscape) if landscape else None

    def _process_specified_data(self, specified, keep_default):
        if specified is None:
            return dict(self._DEFAULT_SPECIFIED_DATA) if keep_default else {}
        if not isinstance(specified, dict):
            raise TypeError(f"For 'SummaryCollector', the 'collect_specified_data' must be dict, but got "
                            f"{type(specified).__name__}.")
        unexpected = set(specified) - set(self._DEFAULT_SPECIFIED_DATA)
        if unexpected:
            raise ValueError(f"For 'collect_specified_data' the keys {unexpected} are unsupported, expect the follow "
                             f"keys: {list(self._DEFAULT_SPECIFIED_DATA)}")
        regular = specified.get("histogram_regular")
        if regular is not None:
            if not isinstance(regular, str):
                raise TypeError(f"For 'SummaryCollector', the 'histogram_regular' must be str or None, but got "
                                f"{type(regular).__name__}.")
            re.compile(regular)
        for key, value in specified.items():
            if key not in ("histogram_regular", "collect_landscape") and not isinstance(value, bool):
                raise TypeError(f"For 'SummaryCollector', the '{key}' must be bool, but got {type(value).__name__}.")
        result = dict(self._DEFAULT_SPECIFIED_DATA) if keep_default else {}
        result.update(specified)
        return result

    def __enter__(self):
        self._record = SummaryRecord(self._summary_dir, max_file_size=self._max_file_size, format=self._format)
        self._first_step = True
        return self

    def __exit__(self, *err):
        if self._record is not None:
            self._record.close()

    def _ensure_record(self):
        if self._record is None:  # used outside Model's `with` block
            self.__enter__()

    def begin(self, run_context):
        """Open the event file and set its mode (train or eval)."""
        self._ensure_record()
        cb = run_context.original_args()
        if cb.get("mode") not in ("train", "eval"):
            raise ValueError(f"Only support `train` (model.train) and `eval` (model.eval) mode, but got "
                             f"`{cb.get('mode')}` mode.")
        self._record.set_mode(cb.mode)

    def step_end(self, run_context):
        """Collect every `collect_freq` steps (and at the first step)."""
        cb = run_context.original_args()
        if cb.get("mode") != "train":
            return
        self._ensure_record()
        step = cb.cur_step_num
        if not self._has_saved_graph:
            self._collect_graph(cb)
            self._collect_dataset_graph(cb)
            self._has_saved_graph = True
            self._record.record(step)
        if self._custom_lineage_data and not self._has_saved_custom_data:
            self._record.add_value("custom_lineage_data", "custom_lineage_data",
                                   L.package_custom_lineage_data(self._custom_lineage_data))
            self._has_saved_custom_data = True
            self._record.record(step)
        tensor_due = self._collect_tensor_freq is not None and step % self._collect_tensor_freq == 0
        if self._first_step or step % self._collect_freq == 0:
            self._collect_input_data(cb)
            self._collect_metric(cb)
            self._collect_histogram(cb)
            self._record.record(step)
        elif tensor_due:
            self._record.record(step, plugin_filter=lambda plugin: plugin == "tensor")
        self._first_step = False
        if self._landscape is not None:
            self._landscape.maybe_save(cb, "step")

    def epoch_end(self, run_context):
        """Save the parameters for the landscapes (unit 'epoch'); flush the file."""
        if self._landscape is not None:
            self._landscape.maybe_save(run_context.original_args(), "epoch")
        if self._record is not None:
            self._record.flush()

    def end(self, run_context):
        """Write the lineage (and eval metrics), then flush."""
        cb = run_context.original_args()
        self._ensure_record()
        if cb.get("mode") == "train":
            if self._specified.get("collect_train_lineage"):
                self._record.add_value("train_lineage", "train_lineage",
                                       L.train_lineage_message(self._train_lineage(cb)))
        elif self._specified.get("collect_eval_lineage"):
            self._record.add_value("eval_lineage", "eval_lineage",
                                   L.eval_lineage_message(cb.get("metrics"), cb.get("valid_dataset")))
        self._record.set_mode("eval")  # as MindSpore: the summary ops' values are not taken
        self._record.record(0)
        self._record.flush()
        if self._landscape is not None and cb.get("mode") == "train":
            self._landscape.save_metadata(cb.batch_num)

    # ------------------------------------------------------------ collectors
    def _collect_graph(self, cb):
        """The computational graph of the network compiled in GRAPH_MODE (none in PyNative mode, as MindSpore)."""
        if not self._specified.get("collect_graph"):
            return
        network = cb.train_network if cb.get("mode") == "train" else cb.get("eval_network")
        proto = network.get_func_graph_proto() if network is not None else None
        if proto is None:
            logger.warning("Can not get graph proto, it may not be 'GRAPH_MODE' in context currently, so "
                           "SummaryCollector will not collect graph.")
            return
        self._record.add_value("graph", "train_network/auto", proto)

    def _collect_dataset_graph(self, cb):
        """The train dataset's graph (MindSpore takes the eval dataset's as the same)."""
        if not self._specified.get("collect_dataset_graph") or cb.get("mode") != "train":
            return
        graph = L.package_dataset_graph(cb.get("train_dataset"))
        if graph is not None:
            self._record.add_value("dataset_graph", "train_dataset", graph)

    def _collect_input_data(self, cb):
        if not self._specified.get("collect_input_data"):
            return
        data = cb.get("train_dataset_element")
        if isinstance(data, (list, tuple)) and data:
            data = data[0]
        if isinstance(data, Tensor) and data.ndim == 4 and data.shape[1] in (1, 3):
            self._record.add_value("image", "input_data/auto", data)
        else:
            logger.warning("The input data of network are not image, so will not collect by SummaryCollector.")
            self._specified["collect_input_data"] = False

    def _collect_metric(self, cb):
        if not self._specified.get("collect_metric"):
            return
        loss = _handle_loss(cb.get("net_outputs"))
        if isinstance(loss, float):
            self._record.add_value("scalar", "loss/auto", Tensor(np.float32(loss)))

    def _collect_histogram(self, cb):
        if "histogram_regular" not in self._specified:
            return
        optimizer = cb.get("optimizer")
        params = list(optimizer.parameters) if optimizer is not None else \
            list(cb.train_network.trainable_params())
        regular = self._specified.get("histogram_regular")
        chosen = [p for p in params if re.match(regular, p.name)] if regular is not None else params[:5]
        for p in chosen:
            self._record.add_value("histogram", p.name + "/auto", p)

    @staticmethod
    def _optimizer(cb):
        """The run's optimizer: the callback argument's, else the first Optimizer in the train network."""
        from mindseed.nn.optim.optimizer import Optimizer  # noqa: PLC0415
        optimizer = cb.get("optimizer")
        if optimizer is None and cb.get("train_network") is not None:
            for _, cell in cb.train_network.cells_and_names():
                candidate = cell if isinstance(cell, Optimizer) else getattr(cell, "optimizer", None)
                if isinstance(candidate, Optimizer):
                    optimizer = candidate
                    break
        return optimizer if isinstance(optimizer, Optimizer) else None

    @staticmethod
    def _loss_fn(cb):
        from mindseed.nn.loss.loss import LossBase  # noqa: PLC0415
        if cb.get("loss_fn") is not None or cb.get("train_network") is None:
            return cb.get("loss_fn")
        return next((c for _, c in cb.train_network.cells_and_names() if isinstance(c, LossBase)), None)

    @staticmethod
    def _checkpoint_path(cb):
        """The real path of the last checkpoint a ModelCheckpoint of the run wrote, else None."""
        from mindseed.train.callback._checkpoint import ModelCheckpoint  # noqa: PLC0415
        path = None
        for callback in cb.get("list_callback") or []:
            if isinstance(callback, ModelCheckpoint):
                path = callback.latest_ckpt_file_name
        return os.path.realpath(path) if path else None

    def _train_lineage(self, cb):
        """The train lineage as MindSpore's collector gathers it (its LineageMetadata keys)."""
        optimizer = self._optimizer(cb)
        lr = getattr(optimizer, "learning_rate", None)
        loss = _handle_loss(cb.get("net_outputs"))
        loss_fn = self._loss_fn(cb)
        ckpt = self._checkpoint_path(cb)
        path, batch_size, size = L.dataset_lineage(cb.get("train_dataset"))
        return {"loss": loss if isinstance(loss, float) else None,
                "learning_rate": float(np.atleast_1d(lr.asnumpy())[0]) if isinstance(lr, Parameter) else None,
                "optimizer": type(optimizer).__name__ if optimizer is not None else None,
                "network": type(cb.get("network")).__name__,
                "loss_function": type(loss_fn).__name__ if loss_fn is not None else None,
                "epoch": cb.get("epoch_num"), "step_num": cb.get("cur_step_num"),
                "parallel_mode": cb.get("parallel_mode"), "device_num": cb.get("device_number"),
                "model_path": json.dumps({"ckpt": ckpt}), "model_size": os.path.getsize(ckpt) if ckpt else 0,
                "batch_size": batch_size, "train_dataset_path": path, "train_dataset_size": size}
