"""SummaryCollector: record the loss, parameter histograms, input images and run info for TensorBoard."""
import json
import logging
import re

import numpy as np

from mindseed.common.parameter import Parameter
from mindseed.common.tensor import Tensor
from mindseed.train.callback._callback import Callback, _handle_loss, _make_directory
from mindseed.train.summary.summary_record import SummaryRecord, _summary_format

__all__ = ["SummaryCollector"]

logger = logging.getLogger("mindseed")


class SummaryCollector(Callback):
    """Collect training data into a summary file in `summary_dir` (MindSpore's format, or TensorBoard's).

    Every `collect_freq` steps (and at the first step) it records: the loss (``loss/auto``), the
    first input if it is an image batch (``input_data/auto``), histograms of the first five trained
    parameters or of those matching ``histogram_regular`` (``{name}/auto``), and the values of the
    summary ops (``ops.ScalarSummary`` ...). At the end of training it writes the run's lineage
    (epochs, steps, optimizer, learning rate, final loss) as text ``train_lineage``; at the end of
    evaluation the metrics as scalars ``{metric}/eval`` and text ``eval_lineage``.

    Args:
        summary_dir (str): the directory of the event files.
        collect_freq (int): steps between collections. Default: ``10``.
        num_process (int): accepted for compatibility. Default: ``32``.
        collect_specified_data (dict): switches: ``collect_metric``, ``collect_input_data``,
            ``histogram_regular`` (a regular expression or None), ``collect_train_lineage``,
            ``collect_eval_lineage`` (``collect_graph``, ``collect_dataset_graph`` and ``collect_landscape``
            are accepted; graphs are not written). Default: ``None`` (all on).
        keep_default_action (bool): unspecified switches keep their default (True) or are off. Default: ``True``.
        custom_lineage_data (dict): str -> int/float/str written once as text ``custom_lineage_data``.
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
        if custom_lineage_data is not None:
            if not isinstance(custom_lineage_data, dict) or not all(
                    isinstance(k, str) and isinstance(v, (int, float, str)) for k, v in custom_lineage_data.items()):
                raise TypeError("For 'SummaryCollector', the 'custom_lineage_data' must be a dict of str -> int, float "
                                "or str.")
        self._custom_lineage_data = custom_lineage_data
        self._record = None
        self._first_step = True

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
        if self._custom_lineage_data:
            self._record.add_value("text", "custom_lineage_data", json.dumps(self._custom_lineage_data))

    def step_end(self, run_context):
        """Collect every `collect_freq` steps (and at the first step)."""
        cb = run_context.original_args()
        if cb.get("mode") != "train":
            return
        self._ensure_record()
        step = cb.cur_step_num
        tensor_due = self._collect_tensor_freq is not None and step % self._collect_tensor_freq == 0
        if self._first_step or step % self._collect_freq == 0:
            self._collect_input_data(cb)
            self._collect_metric(cb)
            self._collect_histogram(cb)
            self._record.record(step)
        elif tensor_due:
            self._record.record(step, plugin_filter=lambda plugin: plugin == "tensor")
        self._first_step = False

    def epoch_end(self, run_context):
        """Flush the file."""
        if self._record is not None:
            self._record.flush()

    def end(self, run_context):
        """Write the lineage (and eval metrics), then flush."""
        cb = run_context.original_args()
        self._ensure_record()
        if cb.get("mode") == "train":
            if self._specified.get("collect_train_lineage"):
                self._record.add_value("text", "train_lineage", json.dumps(self._train_lineage(cb), default=str))
        else:
            metrics = cb.get("metrics") or {}
            if self._specified.get("collect_metric"):
                for name, value in metrics.items():
                    if np.size(value) == 1:
                        self._record.add_value("scalar", f"{name}/eval", Tensor(np.float32(np.asarray(value).item())))
            if self._specified.get("collect_eval_lineage"):
                self._record.add_value("text", "eval_lineage", json.dumps(
                    {"metrics": {k: np.asarray(v).tolist() for k, v in metrics.items()},
                     "valid_dataset_size": cb.get("batch_num")}, default=str))
        self._record.set_mode("eval")
        self._record.record(cb.get("cur_step_num", 0) or 0)
        self._record.flush()

    # ------------------------------------------------------------ collectors
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
    def _train_lineage(cb):
        optimizer = cb.get("optimizer")
        lr = getattr(optimizer, "learning_rate", None)
        loss = _handle_loss(cb.get("net_outputs"))
        net = cb.get("train_network")
        return {"epoch": cb.get("epoch_num"), "cur_epoch_num": cb.get("cur_epoch_num"),
                "batch_num": cb.get("batch_num"), "cur_step_num": cb.get("cur_step_num"),
                "loss": loss if isinstance(loss, float) else None,
                "optimizer": type(optimizer).__name__ if optimizer is not None else None,
                "learning_rate": float(lr.asnumpy()) if isinstance(lr, Parameter) and lr.size == 1 else None,
                "loss_function": type(cb.get("loss_fn")).__name__ if cb.get("loss_fn") is not None else None,
                "parameter_count": int(sum(p.size for p in net.get_parameters())) if net is not None else None}
