"""ModelCheckpoint and CheckpointConfig: save `prefix-epoch_step.ckpt` files during training."""
import logging
import os
import stat
import time

from mindseed.common.parameter import Parameter
from mindseed.common.tensor import Tensor
from mindseed.nn.cell import Cell
from mindseed.train import serialization as S
from mindseed.train.callback._callback import Callback, _make_directory
from mindseed._utils._props import readonly

__all__ = ["CheckpointConfig", "ModelCheckpoint"]

logger = logging.getLogger("mindseed")
_INFO_LIST = ["epoch_num", "step_num"]


def _non_negative_int(value, name):
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"For 'CheckpointConfig', the '{name}' must be int, but got {type(value).__name__}.")
    if value < 0:
        raise ValueError(f"For 'CheckpointConfig', the '{name}' must be a non-negative int, but got {value!r}.")
    return value


class CheckpointConfig:
    """When and how `ModelCheckpoint` saves.

    Args:
        save_checkpoint_steps (int): save every this many steps. Default: ``1``.
        save_checkpoint_seconds (int): save every this many seconds (used when steps is 0). Default: ``0``.
        keep_checkpoint_max (int): keep at most this many files (the oldest is removed). Default: ``5``.
        keep_checkpoint_per_n_minutes (int): keep one file per this many minutes (used when max is 0). Default: ``0``.
        integrated_save (bool): passed to `save_checkpoint`. Default: ``True``.
        async_save (Union[bool, str]): save in a background thread. Default: ``False``.
        saved_network (Cell): save this network instead of the training network. Default: ``None``.
        append_info (list): ``"epoch_num"``, ``"step_num"`` and at most one dict of extra values. Default: ``None``.
        enc_key (bytes): encryption key (not supported by mindseed). Default: ``None``.
        enc_mode (str): encryption mode. Default: ``"AES-GCM"``.
        exception_save (bool): save ``prefix-epoch_step_breakpoint.ckpt`` when training raises. Default: ``False``.
        crc_check (bool): passed to `save_checkpoint`. Default: ``False``.
        remove_redundancy (bool): parallel redundancy removal (parallel jobs only). Default: ``False``.
        format (str): ``"ckpt"`` or ``"safetensors"``. Default: ``"ckpt"``.

    Raises:
        ValueError: every one of steps, seconds, max and minutes is 0 or None, or a value is negative.
        TypeError: `saved_network` is not a Cell or `append_info` is malformed.
    """

    def __init__(self, save_checkpoint_steps=1, save_checkpoint_seconds=0, keep_checkpoint_max=5,
                 keep_checkpoint_per_n_minutes=0, integrated_save=True, async_save=False, saved_network=None,
                 append_info=None, enc_key=None, enc_mode="AES-GCM", exception_save=False, crc_check=False,
                 remove_redundancy=False, format="ckpt", **kwargs):
        for name, value in (("save_checkpoint_steps", save_checkpoint_steps),
                            ("save_checkpoint_seconds", save_checkpoint_seconds),
                            ("keep_checkpoint_max", keep_checkpoint_max),
                            ("keep_checkpoint_per_n_minutes", keep_checkpoint_per_n_minutes)):
            if value is not None:
                _non_negative_int(value, name)
        if saved_network is not None and not isinstance(saved_network, Cell):
            raise TypeError(f"For 'CheckpointConfig', the type of 'saved_network' must be None or Cell, but got "
                            f"{type(saved_network)}.")
        if not save_checkpoint_steps and not save_checkpoint_seconds and not keep_checkpoint_max and \
                not keep_checkpoint_per_n_minutes:
            raise ValueError("For 'CheckpointConfig', the input arguments 'save_checkpoint_steps', "
                             "'save_checkpoint_seconds', 'keep_checkpoint_max' and 'keep_checkpoint_per_n_minutes' "
                             "can't be all None or 0.")
        for name, value in (("exception_save", exception_save), ("integrated_save", integrated_save),
                            ("crc_check", crc_check), ("remove_redundancy", remove_redundancy)):
            if not isinstance(value, bool):
                raise TypeError(f"For 'CheckpointConfig', the '{name}' must be bool, but got {type(value).__name__}.")
        if not isinstance(async_save, (bool, str)) or (isinstance(async_save, str) and
                                                       async_save not in ("process", "thread")):
            raise ValueError(f"For 'CheckpointConfig', the 'async_save' must be bool, 'process' or 'thread', but got "
                             f"{async_save!r}.")
        if enc_key is not None and not isinstance(enc_key, bytes):
            raise ValueError(f"The parameter 'enc_key' must be isinstance of (None, bytes), but got {enc_key}.")
        if format not in ("ckpt", "safetensors"):
            raise ValueError(f"For 'CheckpointConfig', the 'format' must be 'ckpt' or 'safetensors', but got {format}.")
        if format == "safetensors" and (enc_key is not None or enc_mode != "AES-GCM" or crc_check or exception_save):
            raise ValueError("For 'save_checkpoint', when format is 'safetensors', other param must be default.")
        self.exception_save = exception_save
        self._save_checkpoint_steps = save_checkpoint_steps
        self._save_checkpoint_seconds = save_checkpoint_seconds
        if self._save_checkpoint_steps and self._save_checkpoint_steps > 0:
            self._save_checkpoint_seconds = None
        self._keep_checkpoint_max = keep_checkpoint_max
        self._keep_checkpoint_per_n_minutes = keep_checkpoint_per_n_minutes
        if self._keep_checkpoint_max and self._keep_checkpoint_max > 0:
            self._keep_checkpoint_per_n_minutes = None
        elif not self._keep_checkpoint_per_n_minutes:
            self._keep_checkpoint_max = 1
        self._integrated_save = integrated_save
        self._async_save = async_save
        self._saved_network = saved_network
        self._append_dict = self._handle_append_info(append_info)
        self._enc_key = enc_key
        self._enc_mode = enc_mode
        self._crc_check = crc_check
        self._format = format
        self._map_param_inc = kwargs.get("incremental", False)
        self.enable_redundance = kwargs.get("enable_redundance", False)
        self.remove_redundancy = remove_redundancy

    save_checkpoint_steps = property(lambda self: self._save_checkpoint_steps, doc="Steps between saves.")
    save_checkpoint_seconds = property(lambda self: self._save_checkpoint_seconds, doc="Seconds between saves.")
    keep_checkpoint_max = property(lambda self: self._keep_checkpoint_max, doc="Most files kept.")
    keep_checkpoint_per_n_minutes = property(lambda self: self._keep_checkpoint_per_n_minutes,
                                             doc="Keep one file per this many minutes.")
    integrated_save = property(lambda self: self._integrated_save, doc="Merge parallel slices when saving.")
    async_save = property(lambda self: self._async_save, doc="Save in the background.")
    saved_network = property(lambda self: self._saved_network, doc="The network saved instead of the trained one.")
    enc_key = property(lambda self: self._enc_key, doc="Encryption key.")
    enc_mode = property(lambda self: self._enc_mode, doc="Encryption mode.")
    crc_check = property(lambda self: self._crc_check, doc="Store a CRC.")
    format = property(lambda self: self._format, doc="'ckpt' or 'safetensors'.")
    append_dict = property(lambda self: self._append_dict, doc="Extra values saved with each checkpoint.")
    map_param_inc = property(lambda self: self._map_param_inc, doc="Incremental map-parameter saving.")

    def get_checkpoint_policy(self):
        """The saving policy as a dict."""
        return {"save_checkpoint_steps": self.save_checkpoint_steps,
                "save_checkpoint_seconds": self.save_checkpoint_seconds,
                "keep_checkpoint_max": self.keep_checkpoint_max,
                "keep_checkpoint_per_n_minutes": self.keep_checkpoint_per_n_minutes,
                "saved_network": self.saved_network}

    @staticmethod
    def _handle_append_info(append_info):
        if append_info is None or append_info == []:
            return None
        if not isinstance(append_info, list):
            raise TypeError(f"For 'CheckpointConfig', the type of 'append_info' must be list,but got "
                            f"{type(append_info)}.")
        out = {}
        if "epoch_num" in append_info:
            out["epoch_num"] = 0
        if "step_num" in append_info:
            out["step_num"] = 0
        dict_num = 0
        for element in append_info:
            if not isinstance(element, (str, dict)):
                raise TypeError(f"For 'CheckpointConfig', the type of 'append_info' element must be str or dict,but "
                                f"got {type(element)}.")
            if isinstance(element, str) and element not in _INFO_LIST:
                raise ValueError(f"For 'CheckpointConfig', the value of element in the argument 'append_info' must be "
                                 f"in {_INFO_LIST}, but got {element}.")
            if isinstance(element, dict):
                dict_num += 1
                if dict_num > 1:
                    raise TypeError(f"For 'CheckpointConfig', the element of 'append_info' must has only one dict, "
                                    f"but got {dict_num}")
                for k, v in element.items():
                    if not isinstance(k, str) or not isinstance(v, (int, float, bool, str, Parameter, Tensor)):
                        raise TypeError(f"For 'CheckpointConfig', the key type of the dict 'append_info' must be "
                                        f"string, the value type must be int or float or bool, but got key type "
                                        f"{type(k)}, value type {type(v)}")
                    out[k] = v
        return out


def _chg_ckpt_file_name_if_same_exist(directory, prefix, exception=False):
    """`prefix` or `prefix_N` so that files of an earlier run with this prefix are not mixed in."""
    if callable(prefix) or callable(directory):
        return prefix
    suffix_num = 0
    pre_len = len(prefix)
    for filename in os.listdir(directory):
        ext = os.path.splitext(filename)[-1]
        breakpoint_file = filename.endswith("_breakpoint.ckpt")
        if exception and not breakpoint_file:
            continue
        if not exception and (ext not in (".ckpt", ".safetensors") or breakpoint_file):
            continue
        if filename.startswith(prefix) and len(filename) > pre_len and not filename[pre_len].isalpha():
            index = filename[pre_len:].find("-")
            if index == 0:
                suffix_num = max(suffix_num, 1)
            elif index != -1:
                num = filename[pre_len + 1:pre_len + index]
                if num.isdigit():
                    suffix_num = max(suffix_num, int(num) + 1)
    return f"{prefix}_{suffix_num}" if suffix_num else prefix


class CheckpointManager:
    """The checkpoint files of one prefix in a directory, oldest removed first."""

    def __init__(self, format="ckpt"):
        self._ckpoint_filelist = []
        self._format = format

    ckpoint_filelist = readonly("_ckpoint_filelist")

    @property
    def ckpoint_num(self):
        return len(self._ckpoint_filelist)

    def update_ckpoint_filelist(self, directory, prefix):
        """List `prefix-*.ckpt` files (digits, '-' and '_' only after the prefix)."""
        ext = f".{self._format}"
        self._ckpoint_filelist = []
        for filename in os.listdir(directory):
            if filename.endswith(ext) and filename.startswith(prefix + "-"):
                mid = filename[len(prefix):-len(ext)]
                if not any(c.isalpha() for c in mid):
                    self._ckpoint_filelist.append(os.path.join(directory, filename))

    def remove_ckpoint_file(self, file_name):
        """Delete one file (a warning if that fails)."""
        try:
            os.chmod(file_name, stat.S_IWRITE | stat.S_IREAD)
            os.remove(file_name)
            self._ckpoint_filelist.remove(file_name)
        except (OSError, ValueError):
            logger.warning("Failed to remove the older ckpt file %s.", file_name)

    def remove_oldest_ckpoint_file(self):
        """Delete the least recently written file."""
        files = sorted(self._ckpoint_filelist, key=lambda f: os.stat(f).st_mtime_ns)
        self.remove_ckpoint_file(files[0])

    def keep_one_ckpoint_per_minutes(self, minutes, cur_time):
        """Of the files written in the last `minutes`, keep only the oldest."""
        recent, oldest_file, oldest_time = [], "", cur_time
        for f in self._ckpoint_filelist:
            mtime = os.path.getmtime(f)
            if cur_time - mtime < 60 * minutes:
                recent.append(f)
                if mtime < oldest_time:
                    oldest_time, oldest_file = mtime, f
        for f in recent:
            if f != oldest_file:
                self.remove_ckpoint_file(f)


class ModelCheckpoint(Callback):
    """Save checkpoints during training as ``{prefix}-{epoch}_{step_in_epoch}.ckpt`` in `directory`.

    Args:
        prefix (Union[str, Callable]): file name prefix, or a function of cb_params returning it. Default: ``'CKP'``.
        directory (Union[str, Callable]): where to save (created if missing). Default: the current directory.
        config (CheckpointConfig): the policy. Default: ``CheckpointConfig()``.

    Raises:
        ValueError: `prefix` contains '/'.
        TypeError: `config` is not a CheckpointConfig.
    """

    def __init__(self, prefix="CKP", directory=None, config=None):
        super().__init__()
        self._latest_ckpt_file_name = ""
        self._last_time = time.time()
        self._last_time_for_keep = time.time()
        self._last_triggered_step = 0
        self._prefix_func = prefix if callable(prefix) else None
        self._directory_func = directory if callable(directory) else None
        if not callable(prefix) and (not isinstance(prefix, str) or "/" in prefix):
            raise ValueError(f"For 'ModelCheckpoint', the argument 'prefix' for checkpoint file name is invalid, it "
                             f"must be callable or string that does not contain '/', but got {prefix}.")
        self._prefix = prefix
        self._exception_prefix = prefix
        if directory is None:
            self._directory = os.getcwd()
        elif not callable(directory):
            self._directory = _make_directory(directory)
        if config is None:
            config = CheckpointConfig()
        elif not isinstance(config, CheckpointConfig):
            raise TypeError(f"For 'ModelCheckpoint', the type of argument 'config' should be 'CheckpointConfig', but "
                            f"got {type(config)}.")
        self._config = config
        self._manager = CheckpointManager(config.format)
        if not callable(directory) and not callable(prefix):
            self._prefix = _chg_ckpt_file_name_if_same_exist(self._directory, self._prefix)
        self._append_dict = dict(config.append_dict or {})
        self._append_epoch_num = self._append_dict.get("epoch_num", 0)
        self._append_step_num = self._append_dict.get("step_num", 0)
        self._need_flush_from_cache = True

    def step_end(self, run_context):
        """Save if the policy says so."""
        cb_params = run_context.original_args()
        if self._prefix_func:
            self._prefix = self._prefix_func(cb_params)
            if not isinstance(self._prefix, str) or "/" in self._prefix:
                raise ValueError(f"For 'ModelCheckpoint', the argument 'prefix' for checkpoint file name is callable, "
                                 f"it must return a string that does not contain '/', but got {self._prefix}.")
        if self._directory_func:
            self._directory = _make_directory(self._directory_func(cb_params))
        self._save_ckpt(cb_params)

    def end(self, run_context):
        """Save the last step if it was not saved yet."""
        self._save_ckpt(run_context.original_args(), force_to_save=True)
        S._wait_async_save()

    def _check_save_ckpt(self, cb_params, force_to_save):
        steps = self._config.save_checkpoint_steps
        if steps and steps > 0:
            return cb_params.cur_step_num >= self._last_triggered_step + steps or force_to_save
        seconds = self._config.save_checkpoint_seconds
        if seconds and seconds > 0:
            now = time.time()
            if now - self._last_time > seconds or force_to_save:
                self._last_time = now
                return True
        return False

    def _save_ckpt(self, cb_params, force_to_save=False):
        if cb_params.cur_step_num == self._last_triggered_step:
            return
        if self._need_flush_from_cache:
            self._flush_from_cache(cb_params)
        if not self._check_save_ckpt(cb_params, force_to_save):
            return
        S._wait_async_save()
        fmt = self._config.format
        step_in_epoch = int((cb_params.cur_step_num - 1) % cb_params.batch_num + 1)
        if self._prefix_func:
            name = f"{self._prefix}.{fmt}"
        else:
            name = f"{self._prefix}-{cb_params.cur_epoch_num}_{step_in_epoch}.{fmt}"
        self._manager.update_ckpoint_filelist(self._directory, self._prefix)
        keep_max, per_min = self._config.keep_checkpoint_max, self._config.keep_checkpoint_per_n_minutes
        if keep_max and 0 < keep_max <= self._manager.ckpoint_num:
            self._manager.remove_oldest_ckpoint_file()
        elif per_min and per_min > 0:
            now = time.time()
            if now - self._last_time_for_keep < per_min * 60:
                self._manager.keep_one_ckpoint_per_minutes(per_min, now)
        cur_file = os.path.join(self._directory, name)
        self._last_time_for_keep = time.time()
        self._last_triggered_step = cb_params.cur_step_num
        if "epoch_num" in self._append_dict:
            self._append_dict["epoch_num"] = self._append_epoch_num + cb_params.cur_epoch_num
        if "step_num" in self._append_dict:
            self._append_dict["step_num"] = self._append_step_num + cb_params.cur_step_num
        network = self._config.saved_network if self._config.saved_network is not None else cb_params.train_network
        if self._config.remove_redundancy:
            raise TypeError("The deduplication feature for saving checkpoint can only be used in parallel scenarios, "
                            "but got 'stand_alone'.")
        S.save_checkpoint(network, cur_file, self._config.integrated_save, self._config.async_save,
                          self._append_dict or None, self._config.enc_key, self._config.enc_mode,
                          crc_check=self._config.crc_check, format=fmt)
        self._latest_ckpt_file_name = cur_file

    def _flush_from_cache(self, cb_params):
        """Ask the parameters marked `cache_enable` to write their cached rows back before a save; with none
        marked, never look again."""
        cached = [p for p in cb_params.train_network.get_parameters() if p.cache_enable]
        for param in cached:
            param.flush_from_cache()
        if not cached:
            self._need_flush_from_cache = False

    def _save_exception_ckpt(self, network, epoch, step_in_epoch):
        """The breakpoint checkpoint written when training raises (CheckpointConfig(exception_save=True))."""
        prefix = _chg_ckpt_file_name_if_same_exist(self._directory, self._exception_prefix, True)
        path = os.path.join(self._directory, f"{prefix}-{epoch}_{step_in_epoch}_breakpoint.ckpt")
        S.save_checkpoint(network, path, self._config.integrated_save, False, self._append_dict or None,
                          crc_check=self._config.crc_check)
        return path

    latest_ckpt_file_name = readonly("_latest_ckpt_file_name", 'The path of the last checkpoint written.')
    _get_save_checkpoint_steps = readonly("_config.save_checkpoint_steps")
    _get_last_trigger_step = readonly("_last_triggered_step")
