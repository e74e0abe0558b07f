"""Two training callbacks on the compiled step: `FlopsUtilizationCollector` (model and hardware FLOPs utilisation
per step) and `TrainFaultTolerance` (the weights of the last completed step saved when a step fails)."""
import logging
import os
import time
from math import floor

from mindseed.train.callback._callback import Callback, _make_directory

__all__ = ["FlopsUtilizationCollector", "TrainFaultTolerance"]

logger = logging.getLogger("mindseed")


def _positive_int(value, name, api):
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise TypeError(f"For '{api}', the '{name}' must be a positive int, but got {value!r}.")


def _floored_percentage(index, val, digits):
    val *= 10 ** (digits + 2)
    return index + "{1:.{0}f}%".format(digits, floor(val) / 10 ** digits)


class FlopsUtilizationCollector(Callback):
    """Print the model FLOPs utilisation (MFU) and hardware FLOPs utilisation (HFU) of each training step:
    the step's floating-point work (matrix products, convolutions, flash attention, forward and backward, read
    from the compiled step graph; hardware work adds recomputation) divided by its time and `computility`.

    Args:
        data_size (int): steps between two printed lines.
        computility (int): the peak FLOPs per second of one device. Default: ``1``.
        full_flops (bool): report the whole model's work (True) or one shard's. Default: ``True``.
        enable_ma_collector (bool): also write the figures to ``$MA_LOG_DIR`` files (``flops_rank_0.txt``,
            ``time_step_rank_0.txt``). Default: ``False``.

    Raises:
        TypeError: `data_size` not a positive int, `full_flops` or `enable_ma_collector` not bool.
        ValueError: (at the first step end) the network is not compiled (PyNative) or has dynamic shapes.
    """

    def __init__(self, data_size, computility=1, full_flops=True, enable_ma_collector=False):
        super().__init__()
        for name, v in (("full_flops", full_flops), ("enable_ma_collector", enable_ma_collector)):
            if not isinstance(v, bool):
                raise TypeError(f"For 'FlopsUtilizationCollector', the '{name}' must be bool, but got "
                                f"{type(v).__name__}.")
        _positive_int(data_size, "data_size", "FlopsUtilizationCollector")
        self.step_time = time.time()
        self.computility = computility
        self.full_mfu = self.full_hfu = self.shard_mfu = self.shard_hfu = 0.0
        self.full_model_flops = self.shard_model_flops = 0.0
        self.full_hardware_flops = self.shard_hardware_flops = 0.0
        self.mfu_calculated = False
        self.data_size = data_size
        self.time_step_path = ""
        self.full_flops = full_flops
        self.verbose = not (computility == 1 and enable_ma_collector)
        self.ma = enable_ma_collector
        self.batch_step_size = None

    def on_train_step_begin(self, run_context):
        """Record the step's start time."""
        if self.batch_step_size is None:
            self.batch_step_size = self.data_size
            batch_num = getattr(run_context.original_args(), "batch_num", None)
            if isinstance(batch_num, int) and batch_num > 0:
                self.batch_step_size = batch_num
        self.step_time = time.time()

    def _refuse(self, message):
        if self.verbose:
            raise ValueError(message)
        logger.info(message)
        return False

    def _collect(self, run_context):
        cb_params = run_context.original_args()
        if cb_params.mode not in ("train", "eval"):
            return self._refuse("FlopsUtilizationCollector only support train and eval mode!")
        network = cb_params.train_network if cb_params.mode == "train" else cb_params.eval_network
        compiled = network.__dict__.get("_ms_compiled")
        graph = getattr(compiled, "last_graph", None)
        if graph is None:
            return self._refuse("FlopsUtilizationCollector now only support graph mode.")
        if graph.dynamic:
            return self._refuse("FlopsUtilizationCollector now do not support dynamic shape.")
        from mindseed.compiler import flops  # noqa: PLC0415 -- the compiler is loaded by then
        model, hardware = flops.graph_flops(graph)
        self.full_model_flops = self.shard_model_flops = float(model)
        self.full_hardware_flops = self.shard_hardware_flops = float(hardware)
        return True

    def on_train_step_end(self, run_context):
        """Print the step's time, MFU and HFU (and the FLOPs at the first step)."""
        step_ms = (time.time() - self.step_time) * 1000
        cb_params = run_context.original_args()
        if not self.mfu_calculated:
            if not self._collect(run_context):
                return
            self.full_mfu = self.full_model_flops / self.computility
            self.full_hfu = self.full_hardware_flops / self.computility
            self.shard_mfu = self.shard_model_flops / self.computility
            self.shard_hfu = self.shard_hardware_flops / self.computility
            self.mfu_calculated = True
            if self.ma:
                folder = os.path.realpath(os.getenv("MA_LOG_DIR", "./"))
                self.time_step_path = os.path.join(folder, "time_step_rank_0.txt")
                stamp = int(round(time.time() * 1000))
                with open(os.path.join(folder, "flops_rank_0.txt"), "w", encoding="utf-8") as f:
                    f.write(f'flops{{type="model_flops", rank_id="0"}} {self.shard_model_flops} {stamp}\n')
                    f.write(f'flops{{type="hardware_flops", rank_id="0"}} {self.shard_hardware_flops} {stamp}\n')
            if self.verbose:
                if self.full_flops:
                    print(f"Full model flops is {self.full_model_flops}, Full hardware flops is "
                          f"{self.full_hardware_flops}, Shard model flops is {self.shard_model_flops}, Shard "
                          f"hardware flops is {self.shard_hardware_flops}.", flush=True)
                else:
                    print(f"Shard model flops is {self.shard_model_flops}, Shard hardware flops is "
                          f"{self.shard_hardware_flops}.", flush=True)
        if cb_params.dataset_sink_mode:
            step_ms = step_ms / self.batch_step_size
        if self.ma:
            with open(self.time_step_path, "w", encoding="utf-8") as f:
                f.write(f'time_monitor{{type="per_step_time", rank_id="0"}} {step_ms} '
                        f'{int(round(time.time() * 1000))}\n')
        if self.verbose and cb_params.cur_step_num % self.data_size:
            mfu, hfu = (self.full_mfu, self.full_hfu) if self.full_flops else (self.shard_mfu, self.shard_hfu)
            line = f"{cb_params.mode.title()} per step time: {step_ms:5.3f} ms"
            line += _floored_percentage(" mfu:", 1000 * mfu / step_ms, 2)
            line += _floored_percentage(" hfu:", 1000 * hfu / step_ms, 2)
            print(line, flush=True)

    on_eval_step_begin = on_train_step_begin
    on_eval_step_end = on_train_step_end


class TrainFaultTolerance(Callback):
    """Training fault tolerance: when a training step fails (an exception out of the step), save the weights of
    the last completed step to ``<ckpt_save_path>/ttp_saved_checkpoints-step_<n>/ttp_rank_0-<epoch>_<n>.ckpt``
    (or hand them to `ckpt_save_fn(cb_params, append_dict)`), so training can resume from there. The optimizer
    must be wrapped in `nn.OptTFTWrapper`, which tells whether the failed step had begun updating the weights:
    then they are half updated and nothing is saved.

    Args:
        ckpt_save_path (str): the directory of the saved checkpoints. Default: ``None``.
        kwargs: ``ckpt_save_fn`` (callable), used instead of a path (and before it when both are given).

    Raises:
        ValueError: neither `ckpt_save_path` nor `ckpt_save_fn`; (at training begin) an optimizer not wrapped in
            `nn.OptTFTWrapper`.
    """

    def __init__(self, ckpt_save_path=None, **kwargs):
        super().__init__()
        self.save_cb = kwargs.get("ckpt_save_fn")
        if self.save_cb is None and ckpt_save_path is None:
            raise ValueError("For 'TrainFaultTolerance', 'ckpt_save_path' is None and kwargs has no 'ckpt_save_fn': "
                             "give one of them.")
        if self.save_cb is not None and not callable(self.save_cb):
            raise TypeError(f"For 'TrainFaultTolerance', 'ckpt_save_fn' must be callable, but got "
                            f"{type(self.save_cb).__name__}.")
        self.ckpt_save_path = ckpt_save_path
        self.cb_params = None
        self.saved_path = None

    def on_train_begin(self, run_context):
        from mindseed.nn.optim.tft_wrapper import OptTFTWrapper  # noqa: PLC0415 -- nn imports train's callbacks
        cb_params = run_context.original_args()
        if not isinstance(cb_params.optimizer, OptTFTWrapper):
            raise ValueError(f"For 'TrainFaultTolerance', the optimizer must be wrapped in nn.OptTFTWrapper, but got "
                             f"{type(cb_params.optimizer).__name__}.")
        self.cb_params = cb_params

    def _on_train_failure(self, exc):
        """A step raised `exc`: save the last completed step's weights when the failure left them whole."""
        if self.cb_params is None:
            return None
        cb_params, opt = self.cb_params, self.cb_params.optimizer
        if int(opt.tft_updating.asnumpy()[0]) != 0:
            logger.error("TrainFaultTolerance: the step failed while the optimizer was updating the weights (%s); "
                         "they are half updated and are not saved.", exc)
            return None
        step = int(opt.tft_step.asnumpy()[0])
        epoch = cb_params.cur_epoch_num
        append = {"epoch_num": epoch, "step_num": step}
        if self.save_cb is not None:
            self.save_cb(cb_params, append)
            return None
        from mindseed.train.serialization import save_checkpoint  # noqa: PLC0415 -- serialization imports callbacks
        folder = os.path.join(self.ckpt_save_path, f"ttp_saved_checkpoints-step_{step}")
        _make_directory(folder)
        self.saved_path = os.path.join(folder, f"ttp_rank_0-{epoch}_{step}.ckpt")
        save_checkpoint(cb_params.train_network, self.saved_path, append_dict=append)
        logger.info("TrainFaultTolerance saved the weights of step %d to %s.", step, self.saved_path)
        return self.saved_path
