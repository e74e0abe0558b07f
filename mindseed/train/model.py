"""Model: the high-level train / eval / predict / fit loop with callbacks and metrics."""
import copy
import logging
from collections.abc import Iterable

import numpy as np

from mindseed import nn
from mindseed.common._parallel import _get_parallel_mode
from mindseed.common.context import ParallelMode, get_context  # noqa: F401  (MindSpore's train.model exposes it; used by callers)
from mindseed.common.tensor import Tensor
from mindseed.train.callback._callback import InternalCallbackParam, RunContext, _CallbackManager
from mindseed.train.callback._checkpoint import ModelCheckpoint
from mindseed.train.dataset_helper import DatasetHelper, _check_dataset
from mindseed.train.metrics import Loss, get_metric_fn, get_metrics
from mindseed._utils._props import readonly

__all__ = ["Model"]

logger = logging.getLogger("mindseed")
_KWARGS = ("loss_scale_manager", "keep_batchnorm_fp32", "boost_config_dict", "acc_level")
_INTERNAL_CALLBACKS = {"LossMonitor", "TimeMonitor", "ModelCheckpoint", "SummaryCollector", "EarlyStopping",
                       "ReduceLROnPlateau", "History", "LambdaCallback", "LearningRateScheduler", "OnRequestExit",
                       "BackupAndRestore", "ProgressBar"}


def _check_bool(value, name):
    if not isinstance(value, bool):
        raise TypeError(f"The '{name}' must be a bool, but got {type(value).__name__}.")
    return value


def _check_int(value, name, minimum=None):
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"The '{name}' must be int, but got {type(value).__name__}.")
    if minimum is not None and value < minimum:
        kind = "positive" if minimum == 1 else "non-negative"
        raise ValueError(f"The '{name}' must be a {kind} int, but got {value}.")
    return value


class Model:
    """High-level training and inference of a network.

    Args:
        network (Cell): the network (computes logits, or the loss when `loss_fn` is None).
        loss_fn (Cell): the loss function. Default: ``None``.
        optimizer (Cell): the optimizer; without it `train` cannot run. Default: ``None``.
        metrics (Union[dict, set]): metrics for `eval`/`fit`: name -> Metric, or a set of names. Default: ``None``.
        eval_network (Cell): the evaluation network (default: network + loss_fn in `nn.WithEvalCell`).
        eval_indexes (list): positions of (loss, logits, labels) in the eval network's outputs. Default: ``None``.
        amp_level (str): mixed precision level "O0", "O1", "O2", "O3" or "auto". Default: ``"O0"``.
        boost_level (str): "O0", "O1" or "O2": at O1/O2 `boost.AutoBoost` rewrites the network and optimizer and
            training runs in `boost.BoostTrainOneStepCell`. Default: ``"O0"``.
        kwargs: ``loss_scale_manager`` (amp.LossScaleManager), ``keep_batchnorm_fp32`` (bool).

    >>> import mindseed as ms
    >>> # model = ms.train.Model(net, nn.CrossEntropyLoss(), nn.Momentum(net.trainable_params(), 0.1, 0.9),
    >>> #                        metrics={"accuracy"})
    >>> # model.fit(3, train_ds, valid_ds, callbacks=[ms.train.LossMonitor()])
    """

    def _check_kwargs(self, kwargs):
        """The keyword arguments Model accepts (subclasses such as privacy-preserving Models call it too)."""
        for arg in kwargs:
            if arg not in _KWARGS:
                raise ValueError(f"The argument in 'kwargs' should be 'loss_scale_manager' or 'keep_batchnorm_fp32' or "
                                 f"'boost_config_dict' or 'acc_level', but got '{arg}'.")

    def __init__(self, network, loss_fn=None, optimizer=None, metrics=None, eval_network=None, eval_indexes=None,
                 amp_level="O0", boost_level="O0", **kwargs):
        self._check_kwargs(kwargs)
        self._parallel_mode = _get_parallel_mode()
        if not isinstance(network, nn.Cell):
            raise TypeError(f"For 'Model', the type of 'network' should be Cell, but got {type(network).__name__}.")
        self._network = network
        self._loss_fn = loss_fn
        self._optimizer = optimizer
        self._loss_scale_manager = kwargs.get("loss_scale_manager")
        self._loss_scale_manager_set = "loss_scale_manager" in kwargs
        self._keep_bn_fp32 = kwargs.get("keep_batchnorm_fp32")
        self._amp_level = amp_level
        self._boost_level = kwargs.get("acc_level", boost_level)
        self._metrics = metrics
        if isinstance(network, nn.GraphCell) and (loss_fn is not None or optimizer is not None):
            raise ValueError(f"For 'Model', 'loss_fn' and 'optimizer' should be None when network is a GraphCell, but "
                             f"got 'loss_fn': {loss_fn}, 'optimizer': {optimizer}.")
        if optimizer is None and amp_level != "O0":
            raise ValueError("Auto mixed precision will not work because 'optimizer' is None.Please set amp_level='O0' "
                             "to disable auto mixed precision or set 'optimizer' not be None to use auto mixed "
                             "precision.")
        eval_network = self._build_boost_network(kwargs, eval_network)
        self._train_network = self._build_train_network()
        self._eval_network, self._eval_indexes = eval_network, None
        self._build_eval_network(metrics, eval_network, eval_indexes)
        self._predict_network = network
        self._current_epoch_num = 0
        self._current_step_num = 0
        self.epoch_iter = 0
        self.batch_num = -1
        self._backbone_is_train = True

    # ------------------------------------------------------------ building
    def _build_boost_network(self, kwargs, eval_network):
        """At boost level O1/O2 the network and optimizer are rewritten by `boost.AutoBoost` (LessBN, gradient
        freezing ...); returns the evaluation network (LessBN-marked as well)."""
        from mindseed.boost import AutoBoost  # noqa: PLC0415 -- a sibling package of layer 6, needed only here
        if "acc_level" in kwargs:
            logger.warning("Next version acc_level will be removed, please replace with boost_level")
        processor = AutoBoost(self._boost_level, kwargs.get("boost_config_dict", ""))
        if processor.level not in ("O1", "O2"):
            return eval_network
        if self._optimizer is None:
            logger.warning("In boost mode, the optimizer must be defined.")
            return eval_network
        if eval_network is None and self._metrics is None:
            logger.warning("In boost mode, the eval_network and metrics cannot be undefined at the same time.")
            return eval_network
        self._network, self._optimizer = processor.network_auto_process_train(self._network, self._optimizer)
        if eval_network is not None:
            eval_network = processor.network_auto_process_eval(eval_network)
        return eval_network

    def _build_train_network(self):
        network = self._network
        if self._loss_scale_manager is not None and self._optimizer is None:
            raise ValueError("The argument 'optimizer' can not be None when set 'loss_scale_manager'.")
        if self._optimizer is None:
            return nn.WithLossCell(network, self._loss_fn) if self._loss_fn else network
        if self._amp_level == "O0" and not self._loss_scale_manager_set and self._boost_level in ("O0", None):
            # what amp.build_train_network builds at O0 without a loss-scale manager
            if self._loss_fn:
                network = nn.WithLossCell(network, self._loss_fn)
            return nn.TrainOneStepCell(network, self._optimizer)
        from mindseed import amp  # noqa: PLC0415 -- a sibling package of layer 6, needed only for mixed precision
        config = {}
        if self._loss_scale_manager_set:
            config["loss_scale_manager"] = self._loss_scale_manager
        if self._keep_bn_fp32 is not None:
            config["keep_batchnorm_fp32"] = self._keep_bn_fp32
        return amp.build_train_network(network, self._optimizer, self._loss_fn, level=self._amp_level,
                                       boost_level=self._boost_level, **config)

    def _build_eval_network(self, metrics, eval_network, eval_indexes):
        self._metric_fns = get_metrics(metrics)
        if not self._metric_fns:
            return
        if eval_network is not None:
            if eval_indexes is not None and not (isinstance(eval_indexes, list) and len(eval_indexes) == 3):
                raise ValueError(f"The argument 'eval_indexes' must be a list or None. If 'eval_indexes' is a list, "
                                 f"length of it must be three. But got 'eval_indexes' {eval_indexes}")
            self._eval_network, self._eval_indexes = eval_network, eval_indexes
            return
        if self._loss_fn is None:
            raise ValueError("If `metrics` is set, `eval_network` must not be None. Do not set `metrics` if you don't "
                             "want an evaluation.\nIf evaluation is required, you need to specify `eval_network`, "
                             "which will be used in the framework to evaluate the model.\nFor the simple scenarios "
                             "with one data, one label and one logits, `eval_network` is optional, and then you can "
                             "set `eval_network` or `loss_fn`. For the latter case, framework will automatically "
                             "build an evaluation network with `network` and `loss_fn`.")
        self._eval_network = nn.WithEvalCell(self._network, self._loss_fn, self._amp_level in ("O2", "O3", "auto"))
        self._eval_indexes = [0, 1, 2]

    # ------------------------------------------------------------ metrics
    def _clear_metrics(self):
        for metric in self._metric_fns.values():
            metric.clear()

    def _update_metrics(self, outputs):
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        if isinstance(outputs, list):
            outputs = tuple(outputs)
        if not isinstance(outputs, tuple):
            raise ValueError(f"The argument 'outputs' should be tuple, but got {type(outputs)}.")
        if self._eval_indexes is not None and len(outputs) < 3:
            raise ValueError(f"The length of 'outputs' must be >= 3, but got {len(outputs)}")
        for metric in self._metric_fns.values():
            if self._eval_indexes is None:
                metric.update(*outputs)
            elif isinstance(metric, Loss):
                metric.update(outputs[self._eval_indexes[0]])
            else:
                metric.update(outputs[self._eval_indexes[1]], outputs[self._eval_indexes[2]])

    def _get_metrics(self):
        # numpy scalars become Python numbers: the values print as in MindSpore's (numpy 1.x) environment
        return {k: _plain(v.eval()) for k, v in self._metric_fns.items()}

    def _check_network_mode(self, network, is_train):
        if self._backbone_is_train != is_train:
            network.set_train(is_train)
            self._backbone_is_train = is_train
        if not is_train:
            network.set_grad(False)
        return network

    # ------------------------------------------------------------ train
    def train(self, epoch, train_dataset, callbacks=None, dataset_sink_mode=False, sink_size=-1, initial_epoch=0):
        """Train for `epoch` epochs (counting `initial_epoch` as already done).

        Args:
            epoch (int): the final epoch number.
            train_dataset (Dataset): yields (data, label) when `loss_fn` is set, else the network's inputs.
            callbacks (Union[Callback, list[Callback]]): called during training. Default: ``None``.
            dataset_sink_mode (bool): run `sink_size` steps per epoch from a continuing data stream. Default: ``False``.
            sink_size (int): steps per epoch in sink mode (-1: the dataset size). Default: ``-1``.
            initial_epoch (int): epochs already done (for resuming). Default: ``0``.

        Raises:
            ValueError: `epoch` <= `initial_epoch`, the dataset is empty, or `sink_size` is invalid.
            TypeError: a callback is not a Callback.
        """
        sink_size = self._check_train_args("Model.train", epoch, train_dataset, dataset_sink_mode, sink_size,
                                           initial_epoch)
        self._warn_old_callbacks(callbacks, "train")
        self._train(epoch, train_dataset, callbacks, dataset_sink_mode, sink_size, initial_epoch)

    def fit(self, epoch, train_dataset, valid_dataset=None, valid_frequency=1, callbacks=None, dataset_sink_mode=False,
            valid_dataset_sink_mode=False, sink_size=-1, initial_epoch=0):
        """Train, evaluating on `valid_dataset` every `valid_frequency` epochs (the results reach the callbacks).

        Args:
            epoch (int): the final epoch number.
            train_dataset (Dataset): the training data.
            valid_dataset (Dataset): the validation data. Default: ``None``.
            valid_frequency (Union[int, list]): evaluate every this many epochs, or at these epochs. Default: ``1``.
            callbacks (Union[Callback, list[Callback]]): called during training. Default: ``None``.
            dataset_sink_mode (bool): see `train`. Default: ``False``.
            valid_dataset_sink_mode (bool): accepted (validation runs over the whole dataset). Default: ``False``.
            sink_size (int): see `train`. Default: ``-1``.
            initial_epoch (int): epochs already done. Default: ``0``.
        """
        _check_bool(valid_dataset_sink_mode, "valid_dataset_sink_mode")
        sink_size = self._check_train_args("Model.fit", epoch, train_dataset, dataset_sink_mode, sink_size,
                                           initial_epoch)
        if not isinstance(valid_frequency, (int, list)) or isinstance(valid_frequency, bool):
            raise TypeError(f"For 'Model.fit', the type of 'valid_frequency' must be a list or an integer, but got "
                            f"type {type(valid_frequency)}.")
        if valid_dataset and not self._metric_fns:
            raise ValueError("For 'Model.fit', if valid_dataset is not None, the model argument 'metrics' can not be"
                             "None or empty, you should set the argument 'metrics' for model.")
        self._warn_old_callbacks(callbacks, "fit")
        self._train(epoch, train_dataset, callbacks, dataset_sink_mode, sink_size, initial_epoch,
                    (valid_dataset, valid_frequency))

    def _check_train_args(self, where, epoch, dataset, sink_mode, sink_size, initial_epoch):
        _check_bool(sink_mode, "dataset_sink_mode")
        _check_int(sink_size, "sink_size")
        _check_int(epoch, "epoch", 1)
        _check_int(initial_epoch, "initial_epoch", 0)
        if initial_epoch >= epoch:
            raise ValueError(f"For '{where}', the parameter 'epoch' must bigger than parameter 'initial_epoch', "
                             f"but got the parameter 'epoch' is {epoch}, 'initial_epoch' is {initial_epoch}.")
        _check_dataset(dataset, where)
        size = dataset.get_dataset_size()
        if size == 0:
            raise ValueError("There is no valid data in dataset, please check dataset file firstly.")
        if sink_size == -1:
            sink_size = size
        if sink_size < -1 or sink_size == 0:
            raise ValueError(f"For '{where}', The argument 'sink_size' must be -1 or positive, but got {sink_size}.")
        return sink_size

    @staticmethod
    def _warn_old_callbacks(callbacks, mode):
        old = {"begin", "end", "epoch_begin", "epoch_end", "step_begin", "step_end"}
        for cb in callbacks if isinstance(callbacks, list) else [callbacks] if callbacks else []:
            name = type(cb).__name__
            if name not in _INTERNAL_CALLBACKS and set(type(cb).__dict__) & old:
                logger.warning("For %s callback, %s methods may not be supported in later version, Use methods "
                               "prefixed with 'on_train' or 'on_eval' instead when using customized callbacks.",
                               name, set(type(cb).__dict__) & old)

    def _train(self, epoch, train_dataset, callbacks, sink_mode, sink_size, initial_epoch, valid_infos=(None, 1)):
        cb_params = InternalCallbackParam()
        cb_params.cur_step_num = 0
        cb_params.train_network = self._train_network
        cb_params.epoch_num = epoch - initial_epoch
        cb_params.batch_num = sink_size if sink_mode else train_dataset.get_dataset_size()
        self.batch_num = cb_params.batch_num
        cb_params.mode = "train"
        cb_params.loss_fn = self._loss_fn
        cb_params.optimizer = self._optimizer
        cb_params.parallel_mode = "stand_alone"
        cb_params.device_number = 1
        cb_params.train_dataset = train_dataset
        cb_params.list_callback = self._transform_callbacks(callbacks)
        cb_params.train_dataset_element = None
        cb_params.network = self._network
        cb_params.last_save_ckpt_step = None
        cb_params.latest_ckpt_file = None
        cb_params.loss_scale_mananger = self._loss_scale_manager  # (sic) MindSpore's spelling
        cb_params.initial_step = None
        if sink_mode and get_context("device_target") == "CPU":
            # as MindSpore: a CPU has no dataset sink, every epoch runs over the whole dataset (callbacks still
            # count the steps of an epoch in sink_size)
            sink_mode = False
        cb_params.dataset_sink_mode = sink_mode
        if sink_mode:
            cb_params.sink_size = sink_size
        self._check_reuse_dataset(train_dataset)
        with _CallbackManager(callbacks) as list_callback:
            try:
                self._train_process(epoch, train_dataset, list_callback, cb_params, initial_epoch, valid_infos,
                                    sink_mode, sink_size)
            except BaseException as exc:
                self._exception_save(callbacks)
                for cb in list_callback._callbacks:
                    if hasattr(cb, "_on_train_failure"):
                        cb._on_train_failure(exc)      # TrainFaultTolerance: the last whole step's weights
                raise

    def _train_process(self, epoch, train_dataset, list_callback, cb_params, initial_epoch, valid_infos, sink_mode,
                       sink_size):
        helper = DatasetHelper(train_dataset, sink_mode, sink_size, epoch)
        self._train_network.set_train(True)
        self._backbone_is_train = True
        run_context = RunContext(cb_params)
        list_callback.on_train_begin(run_context)
        lsm = self._loss_scale_manager
        for i in range(initial_epoch, epoch):
            cb_params.cur_epoch_num = i + 1
            self._current_epoch_num = cb_params.cur_epoch_num
            self._current_step_num = 0
            list_callback.on_train_epoch_begin(run_context)
            for element in helper:
                if self._loss_fn and len(element) != 2:
                    raise ValueError(f"When 'loss_fn' is not None, 'train_dataset' should return two elements, but "
                                     f"got {len(element)}, please check the number of elements returned by "
                                     f"'train_dataset'")
                cb_params.cur_step_num += 1
                self._current_step_num = int((cb_params.cur_step_num - 1) % cb_params.batch_num + 1)
                # a list, as MindSpore's: step_begin callbacks may change the batch in place (SCOP appends its
                # knockoff data) or hand back another one, and the step trains on that
                element = list(element)
                cb_params.train_dataset_element = element
                list_callback.on_train_step_begin(run_context)
                element = cb_params.train_dataset_element
                self._check_network_mode(self._train_network, True)
                outputs = self._train_network(*element)
                cb_params.net_outputs = outputs
                if lsm is not None and lsm.get_drop_overflow_update():
                    lsm.update_loss_scale(bool(np.all(outputs[1].asnumpy())))
                list_callback.on_train_step_end(run_context)
                if run_context.get_stop_requested():
                    break
            self._eval_during_train(valid_infos, cb_params, list_callback)
            if not sink_mode and hasattr(train_dataset, "reset"):
                train_dataset.reset()
            list_callback.on_train_epoch_end(run_context)
            cb_params.pop("metrics", None)
            cb_params.pop("eval_results", None)
            if run_context.get_stop_requested():
                break
        helper.release()
        list_callback.on_train_end(run_context)

    def _eval_during_train(self, valid_infos, cb_params, list_callback):
        valid_dataset, valid_frequency = valid_infos
        if not valid_dataset or not self._should_eval(cb_params.cur_epoch_num, valid_frequency):
            return
        saved = (cb_params.cur_step_num, cb_params.batch_num, cb_params.dataset_sink_mode, cb_params.get("net_outputs"))
        # built-in callbacks other than TimeMonitor act on training only
        eval_callbacks = [cb for cb in list_callback._callbacks
                          if type(cb).__name__ not in _INTERNAL_CALLBACKS or type(cb).__name__ == "TimeMonitor"]
        cb_params.eval_network = self._eval_network
        cb_params.valid_dataset = valid_dataset
        cb_params.batch_num = valid_dataset.get_dataset_size()
        cb_params.mode = "eval"
        cb_params.cur_step_num = 0
        self._clear_metrics()
        self._eval_process(valid_dataset, _CallbackManager(eval_callbacks), cb_params, add_eval_loss=True)
        cb_params.mode = "train"
        cb_params.cur_step_num, cb_params.batch_num, cb_params.dataset_sink_mode, cb_params.net_outputs = saved
        self._check_network_mode(self._train_network, True)

    @staticmethod
    def _should_eval(epoch, frequency):
        return epoch % frequency == 0 if isinstance(frequency, int) else epoch in frequency

    @staticmethod
    def _transform_callbacks(callbacks):
        if callbacks is None:
            return []
        if isinstance(callbacks, Iterable):
            return list(callbacks)
        return [callbacks]

    def _check_reuse_dataset(self, dataset):
        owner = getattr(dataset, "__model_hash__", None)
        if owner is None:
            try:
                dataset.__model_hash__ = hash(self)
            except AttributeError:
                return
        elif owner != hash(self):
            raise RuntimeError("The dataset object had been used in other model by model.train(...), please create a "
                               "new dataset.")

    def _exception_save(self, callbacks):
        """CheckpointConfig(exception_save=True): write a breakpoint checkpoint when training raises."""
        items = callbacks if isinstance(callbacks, list) else [callbacks]
        ckpt = next((cb for cb in items if isinstance(cb, ModelCheckpoint)), None)
        if ckpt is None or not ckpt._config.exception_save:
            return
        try:
            path = ckpt._save_exception_ckpt(self._train_network, self._current_epoch_num, self._current_step_num)
            logger.info("Saved the breakpoint checkpoint %s.", path)
        except Exception:  # noqa: BLE001 -- the training error is the one to report
            logger.exception("Saving the breakpoint checkpoint failed.")

    # ------------------------------------------------------------ eval / predict
    def eval(self, valid_dataset, callbacks=None, dataset_sink_mode=False):
        """Evaluate the metrics on a dataset.

        Args:
            valid_dataset (Dataset): yields (data, label) for the default eval network.
            callbacks (Union[Callback, list[Callback]]): called during evaluation. Default: ``None``.
            dataset_sink_mode (bool): accepted (evaluation runs over the whole dataset). Default: ``False``.

        Returns:
            dict, metric name -> value.

        Raises:
            ValueError: the Model has no metrics.
        """
        _check_bool(dataset_sink_mode, "dataset_sink_mode")
        if not self._metric_fns:
            raise ValueError("For Model.eval, the model argument 'metrics' can not be None or empty, you should set "
                             "the argument 'metrics' for model.")
        _check_dataset(valid_dataset, "Model.eval")
        self._warn_old_callbacks(callbacks, "eval")
        cb_params = InternalCallbackParam()
        cb_params.eval_network = self._eval_network
        cb_params.valid_dataset = valid_dataset
        cb_params.batch_num = valid_dataset.get_dataset_size()
        cb_params.mode = "eval"
        cb_params.cur_step_num = 0
        cb_params.list_callback = self._transform_callbacks(callbacks)
        cb_params.network = self._network
        self._clear_metrics()
        with _CallbackManager(callbacks) as list_callback:
            return self._eval_process(valid_dataset, list_callback, cb_params)

    def _eval_process(self, valid_dataset, list_callback, cb_params, add_eval_loss=False):
        run_context = RunContext(cb_params)
        cb_params.dataset_sink_mode = False
        list_callback.on_eval_begin(run_context)
        helper = DatasetHelper(valid_dataset, False, -1, 1)
        self._eval_network.set_train(False)
        self._backbone_is_train = False
        list_callback.on_eval_epoch_begin(run_context)
        eval_loss = get_metric_fn("loss") if add_eval_loss else None
        for element in helper:
            cb_params.cur_step_num += 1
            cb_params.eval_dataset_element = element
            list_callback.on_eval_step_begin(run_context)
            self._check_network_mode(self._eval_network, False)
            outputs = self._eval_network(*element)
            cb_params.net_outputs = outputs
            list_callback.on_eval_step_end(run_context)
            self._update_metrics(outputs)
            if eval_loss is not None:
                eval_loss.update(outputs[self._eval_indexes[0]])
            if run_context.get_stop_requested():
                break
        helper.release()
        list_callback.on_eval_epoch_end(run_context)
        if hasattr(valid_dataset, "reset"):
            valid_dataset.reset()
        metrics = self._get_metrics()
        cb_params.metrics = metrics
        if eval_loss is not None:
            cb_params.eval_results = copy.deepcopy(metrics)
            cb_params.eval_results["eval_loss"] = _plain(eval_loss.eval())
        list_callback.on_eval_end(run_context)
        return metrics

    def predict(self, *predict_data, backend=None, config=None):
        """Run the network in inference mode on `predict_data` (Tensors, None or Python scalars).

        Raises:
            ValueError: an empty Tensor, or `backend` other than None/'lite'.
            TypeError: an input of another type.
        """
        if backend not in ("lite", None):
            raise ValueError(f"For Model.predict, `backend` should be 'lite' or None, but got {backend}")
        if backend == "lite":
            logger.warning("Import mindspore_lite failed, fallback to original inference!")
        for item in predict_data:
            if item is None or isinstance(item, (int, float, str)):
                continue
            if isinstance(item, Tensor):
                if item.size == 0:
                    raise ValueError("The input data can not be empty.")
                continue
            raise TypeError(f"The types of input data must be in the Union(Tensor, None, int, float, str, "
                            f"tuple[Tensor, None, int, float, str], list[Tensor, None, int, float, str], "
                            f"dict[Tensor, None, int, float, str]), but got type {type(item).__name__}.")
        self._check_network_mode(self._predict_network, False)
        return self._predict_network(*predict_data)

    def build(self, train_dataset=None, valid_dataset=None, sink_size=-1, epoch=1, sink_mode=True):
        """Check the datasets and networks before training (networks run eagerly, so nothing is compiled ahead).

        Raises:
            ValueError: both datasets are None, or `valid_dataset` is given without metrics.
        """
        _check_int(epoch, "epoch", 1)
        if not train_dataset and not valid_dataset:
            raise ValueError("The argument 'train_dataset' and 'valid_dataset' can not both be None or empty.")
        if train_dataset:
            _check_dataset(train_dataset, "Model.build")
        if valid_dataset:
            _check_dataset(valid_dataset, "Model.build")
            if not self._metric_fns:
                raise RuntimeError("If define `valid_dataset`, metric fn can not be None or empty, you should set the "
                                   "argument 'metrics' for model.")

    train_network = readonly("_train_network", 'The network one training step runs (e.g. TrainOneStepCell).')
    predict_network = readonly("_predict_network", 'The network `predict` runs.')
    eval_network = readonly("_eval_network", 'The network `eval` runs.')


def _plain(value):
    if isinstance(value, np.generic):
        return value.item()
    return value

