"""Checkpoints: save_checkpoint / load_checkpoint / load_param_into_net in MindSpore's `.ckpt` and safetensors.

Files move both ways between mindseed and MindSpore. Loading never executes code: a file is parsed
as data (protobuf wire format or the safetensors JSON header), checked completely (every length,
dtype and element count), and only then turned into Parameters; `load_param_into_net` checks every
shape and dtype before it changes the first parameter. Writes go to a temporary file in the target
directory that is fsync'ed and renamed over the final name, so a crash never leaves a truncated
checkpoint under that name. mindseed always appends MindSpore's CRC footer to a `.ckpt` (MindSpore
reads and strips it whether or not it checks it) and opens the file with a marker field (which
MindSpore's protobuf parser skips as unknown) promising that footer, so a truncated or bit-flipped
mindseed file is always detected; files without a footer are checked structurally.
"""
import io
import logging
import os
import re
import stat
import tempfile
import threading
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from mindseed import _backend as B
from mindseed.common import _parallel
from mindseed.common import dtype as mstype
from mindseed.common.parameter import Parameter
from mindseed.common.tensor import Tensor
from mindseed.nn.cell import Cell
from mindseed.train import _ckpt_format as CF
from mindseed.train._serialization_internal import _exec_save, _parse_ckpt_proto  # noqa: F401 (MindSpore's)
from mindseed.train._wire import DecodeError

try:
    import fcntl
except ImportError:  # not POSIX: no advisory locks, stale temporaries stay
    fcntl = None

__all__ = ["save_checkpoint", "load_checkpoint", "load_param_into_net", "load_checkpoint_async",
           "ckpt_to_safetensors", "safetensors_to_ckpt", "async_ckpt_thread_status"]

logger = logging.getLogger("mindseed")
_ckpt_mutex = threading.RLock()
_ASYNC_NAME = "asyn_save_ckpt"
_FLOAT_TYPES = (mstype.float16, mstype.float32, mstype.float64, mstype.bfloat16)
_INT_TYPES = (mstype.int8, mstype.int16, mstype.int32, mstype.int64)


# ---------------------------------------------------------------- tensors <-> records
def _tensor_record(name, value):
    """(name, dims, type_name, payload) of a Tensor or a str, snapshotting the bytes now."""
    if isinstance(value, str):
        return (name, [0], "str", CF.encode_str(value))
    return (name, list(value.shape), value.dtype.name, B.bytes_of(value._data))


def _tensor_of(shape, type_name, payload):
    # a dtype's repr as the tensor_type (see CF.itemsize): mindnlp writes its checkpoints (PEFT adapters) with
    # `_exec_save` after aliasing the dtypes' str to their repr, and reads them back with `load_checkpoint`
    type_name = CF.canonical_type(type_name)
    return Tensor._from_raw(B.from_bytes(payload, shape, type_name))


def _check_bool(value):
    if not isinstance(value, bool):
        raise TypeError(f"The input value must be a bool, but got {type(value).__name__}.")
    return value


def _check_isinstance(name, value, types):
    if not isinstance(value, types):
        raise ValueError(f"The parameter '{name}' must be isinstance of {types}, but got {value}.")
    return value


# ---------------------------------------------------------------- save
def _check_save_file(save_obj, ckpt_file_name, format):
    if format not in ("safetensors", "ckpt"):
        raise ValueError(f"For 'save_checkpoint', the format must be 'safetensors' or 'ckpt', but got {format}.")
    if not isinstance(save_obj, (Cell, list, dict)):
        raise TypeError(f"For 'save_checkpoint', the parameter 'save_obj' must be nn.Cell, list or dict, "
                        f"but got {type(save_obj)}.")
    if not isinstance(ckpt_file_name, str):
        raise TypeError(f"For 'save_checkpoint', the parameter {ckpt_file_name} for checkpoint file name is invalid,"
                        f"'ckpt_file_name' must be string, but got {type(ckpt_file_name)}.")
    ckpt_file_name = os.path.realpath(ckpt_file_name)
    if os.path.isdir(ckpt_file_name):
        raise IsADirectoryError(f"For 'save_checkpoint', the parameter `ckpt_file_name`: {ckpt_file_name} is a "
                                f"directory, it must be a file name.")
    if not ckpt_file_name.endswith(format):
        ckpt_file_name += f".{format}"
    return ckpt_file_name


def _check_append_dict(append_dict):
    if append_dict is None:
        return None
    if not isinstance(append_dict, dict):
        raise TypeError(f"For 'save_checkpoint', the argument 'append_dict' must be dict, but got {type(append_dict)}.")
    for k, v in append_dict.items():
        if not isinstance(k, str) or not isinstance(v, (int, float, bool, str, Tensor)):
            raise TypeError(f"For 'save_checkpoint', the type of dict 'append_info' must be key: string, value: int, "
                            f"float, bool or Generator, but got key: {type(k)}, value: {type(v)}")
    return append_dict


def _items_of(save_obj, choice_func):
    """[(name, Tensor or str)] of a Cell, a list of Parameters / {"name", "data"} dicts, or a dict."""
    chosen = (lambda name: True) if choice_func is None else choice_func
    if isinstance(save_obj, Cell):
        elsewhere = {id(p) for _, p in save_obj.parameters_and_names() if _parallel.held_elsewhere(p)}
        if elsewhere:  # another pipeline stage's Parameters: neither initialized nor saved by this process
            for _, p in save_obj.parameters_and_names():
                if id(p) not in elsewhere:
                    p.init_data()
        else:
            save_obj.init_parameters_data()
        by_name = OrderedDict()
        for _, p in save_obj.parameters_and_names():
            if chosen(p.name) and id(p) not in elsewhere:
                by_name[p.name] = p
        return list(by_name.items())
    items = []
    if isinstance(save_obj, dict):
        for k, v in save_obj.items():
            if not isinstance(k, str):
                raise TypeError(f"For save_checkpoint, when save_obj is made up by dict, the key should be str and"
                                f"value should be Parameter, but got the type of key is {type(k)} and"
                                f"the type of value is {type(v)}")
            if isinstance(v, np.ndarray):
                v = Tensor(v)
            if not isinstance(v, (Tensor, str)):
                raise TypeError(f"For save_checkpoint, when save_obj is made up by dict, the value should be "
                                f"Parameter, Tensor or str, but got {type(v)} for '{k}'.")
            if chosen(k):
                items.append((k, v))
        return items
    if save_obj and isinstance(save_obj[0], dict):
        for item in save_obj:
            if not (isinstance(item, dict) and "name" in item and "data" in item):
                raise TypeError(f"For save_checkpoint, save_obj should be a list of dict items, and the dict should "
                                f"have key values 'name' and 'value', but got {type(item)} and {item}.")
            if not isinstance(item["name"], str):
                raise TypeError(f"For save_checkpoint, when save_obj is a list of dict items, the name in dict "
                                f"should be string, but got {type(item['name'])}.")
            if not isinstance(item["data"], Tensor):
                raise TypeError(f"For save_checkpoint, when save_obj is a list of dict items, the data in dict "
                                f"should be parameter, but got {type(item['data'])}.")
            if chosen(item["name"]):
                items.append((item["name"], item["data"]))
        return items
    for p in save_obj:
        if not isinstance(p, Parameter):
            raise TypeError(f"For save_checkpoint, when save_obj is made up by list of Parameter,"
                            f"the param should be parameter, but got {type(p)}")
        if chosen(p.name):
            items.append((p.name, p))
    return items


def save_checkpoint(save_obj, ckpt_file_name, integrated_save=True, async_save=False, append_dict=None,
                    enc_key=None, enc_mode="AES-GCM", choice_func=None, crc_check=False, format="ckpt", **kwargs):
    """Save the parameters of a network (or a list / dict of them) to a checkpoint file.

    Args:
        save_obj (Union[Cell, list, dict]): a Cell; a list of Parameters or of ``{"name": str, "data": Tensor}``;
            or a dict name -> Parameter/Tensor/str (e.g. what `load_checkpoint` returned).
        ckpt_file_name (str): the file; ``.ckpt`` (or ``.safetensors``) is appended when missing.
        integrated_save (bool): merge parallel slices before saving; ``False`` saves this rank's slices of the
            parameters a sharded training step on processes cut (semi-auto / auto parallel). Default: ``True``.
        async_save (Union[bool, str]): write in a background thread (``True``, ``"thread"`` or ``"process"``);
            the values are captured before this returns. Default: ``False``.
        append_dict (dict): extra values (int, float, bool, str, Tensor) saved under their keys. Default: ``None``.
        enc_key (bytes): encryption key; encrypted checkpoints are not supported by mindseed. Default: ``None``.
        enc_mode (str): encryption mode. Default: ``"AES-GCM"``.
        choice_func (Callable[[str], bool]): keep only the parameters for which it returns True. Default: ``None``.
        crc_check (bool): store a CRC32; mindseed always does (a `.ckpt` gets MindSpore's CRC footer, a safetensors
            file MindSpore's `crc_num` and a whole-file checksum in its metadata). Default: ``False``.
        format (str): ``"ckpt"`` or ``"safetensors"``. Default: ``"ckpt"``.

    Raises:
        TypeError: `save_obj` is not a Cell, list or dict, or an argument has the wrong type.
        ValueError: `format` or `async_save` has a wrong value, or `enc_key` is given.

    >>> import mindseed as ms
    >>> net = ms.nn.Cell()
    >>> net.w = ms.Parameter(ms.Tensor([1.0, 2.0]), name="w")
    >>> ms.train.save_checkpoint(net, "/tmp/w.ckpt")
    >>> ms.train.load_checkpoint("/tmp/w.ckpt")["w"].asnumpy()
    array([1., 2.], dtype=float32)
    """
    ckpt_file_name = _check_save_file(save_obj, ckpt_file_name, format)
    _check_bool(integrated_save)
    if not isinstance(async_save, (bool, str)):
        raise TypeError(f"For 'save_checkpoint', the parameter 'async_save' must be bool or str, "
                        f"but got {type(async_save)}.")
    if isinstance(async_save, str) and async_save not in ("process", "thread"):
        raise ValueError(f"For 'save_checkpoint', the argument 'async_save' can only be 'process' or 'thread',"
                         f"but got {async_save}.")
    append_dict = _check_append_dict(append_dict)
    _check_isinstance("enc_key", enc_key, (type(None), bytes))
    _check_isinstance("enc_mode", enc_mode, str)
    _check_isinstance("crc_check", crc_check, bool)
    if enc_key is not None:
        raise ValueError("For 'save_checkpoint', encrypted checkpoints ('enc_key') are not supported by mindseed.")
    if choice_func is not None and not callable(choice_func):
        raise TypeError(f"For 'save_checkpoint', the 'choice_func' must be a function, but got {type(choice_func)}.")

    items = _items_of(save_obj, choice_func)
    if not integrated_save and isinstance(save_obj, Cell):  # a sharded run on processes: this rank's slices
        items = [(name, _parallel.rank_slice(v)) for name, v in items]
    elif isinstance(save_obj, Cell):  # Parameters held in slices: gathered whole
        items = [(name, _parallel.whole_of(v)) for name, v in items]
    if append_dict:
        for k, v in append_dict.items():
            if k == "__exception_save__":
                continue
            items.append((k, v if isinstance(v, str) else Tensor(v)))
    with _ckpt_mutex:
        records = [_tensor_record(name, value) for name, value in items]
    if async_save:
        _wait_async_save()
        thread = threading.Thread(target=_write_file, args=(ckpt_file_name, records, format, crc_check),
                                  name=_ASYNC_NAME)
        thread.start()
    else:
        _write_file(ckpt_file_name, records, format, crc_check)


def _write_file(path, records, format, crc_check):
    """`crc_check` is MindSpore's switch; mindseed writes its checksums always (a `.ckpt` footer, the safetensors
    metadata), so that a damaged file is an error on load, not other numbers."""
    if format == "ckpt":
        _atomic_write(path, _ckpt_chunks(records))
        return
    records = sorted(records, key=lambda r: r[0])
    for name, _, type_name, _ in records:
        if type_name == "str":
            raise ValueError(f"For 'save_checkpoint', the string value '{name}' cannot be saved in the safetensors "
                             f"format.")
    _atomic_write(path, [CF.seal_safetensors(records, {"format": "ms"})])


def _ckpt_chunks(records):
    crc = CF.crc32(CF.MARKER)
    yield CF.MARKER
    for name, dims, type_name, payload in records:
        data = CF.encode_value(name, dims, type_name, payload)
        crc = CF.crc32(data, crc)
        yield data
    yield CF.crc_footer(crc)


def _atomic_write(path, chunks):
    """Write to a temporary file beside `path`, fsync it, rename it over `path` (read-only, as MindSpore).

    The temporary file is locked while it is written: one left behind by a save that was killed is unlocked, and
    the next save to `path` removes it."""
    directory = os.path.dirname(path) or "."
    _remove_stale_temporaries(directory, os.path.basename(path))
    fd, tmp = tempfile.mkstemp(prefix=os.path.basename(path) + ".", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            if fcntl is not None:
                fcntl.flock(f.fileno(), fcntl.LOCK_EX)
            for chunk in chunks:
                f.write(chunk)
            f.flush()
            os.fsync(f.fileno())
            os.chmod(tmp, stat.S_IRUSR)
            os.replace(tmp, path)
    except BaseException:
        logger.critical("Failed to save the checkpoint file %s. Maybe don't have the permission to write files, "
                        "or the disk space is insufficient and so on.", path)
        if os.path.exists(tmp):
            os.chmod(tmp, stat.S_IWUSR | stat.S_IRUSR)
            os.remove(tmp)
        raise
    try:
        dfd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dfd)  # make the rename itself durable
    except OSError:
        pass
    finally:
        os.close(dfd)


def _remove_stale_temporaries(directory, base):
    """Remove `<base>.<random>.tmp` files of `directory` that no live save holds locked (killed saves)."""
    if fcntl is None:
        return
    pattern = re.compile(re.escape(base) + r"\.[A-Za-z0-9_]{8}\.tmp")
    try:
        names = [n for n in os.listdir(directory) if pattern.fullmatch(n)]
    except OSError:
        return
    for n in names:
        tmp = os.path.join(directory, n)
        try:
            fd = os.open(tmp, os.O_RDONLY)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            os.remove(tmp)
        except OSError:
            pass        # a save in progress, or not ours to remove
        finally:
            os.close(fd)


def _wait_async_save():
    for t in threading.enumerate():
        if t.name == _ASYNC_NAME and t is not threading.current_thread():
            t.join()


def async_ckpt_thread_status():
    """Whether an asynchronous checkpoint save is still running (deprecated in MindSpore 2.5)."""
    return any(t.name == _ASYNC_NAME for t in threading.enumerate())


# ---------------------------------------------------------------- load
def _check_prefix(prefix):
    if prefix is None:
        return None
    if not isinstance(prefix, (str, list, tuple)):
        raise TypeError(f"For 'load_checkpoint', the type of 'specify_prefix' or 'filter_prefix' must be string, "
                        f"list[string] or tuple[string], but got {type(prefix)}.")
    if isinstance(prefix, str):
        prefix = (prefix,)
    if not prefix:
        raise ValueError("For 'load_checkpoint', the argument 'specify_prefix' or 'filter_prefix' can't be empty when"
                         " 'specify_prefix' or 'filter_prefix' is list or tuple.")
    for i, p in enumerate(prefix):
        if not isinstance(p, str):
            raise TypeError(f"For 'load_checkpoint', when 'specify_prefix' or 'filter_prefix' is list or tuple, the "
                            f"element in it must be string, but got {type(p)} at index {i}.")
        if p == "":
            raise ValueError("For 'load_checkpoint', the value of 'specify_prefix' or 'filter_prefix' can't "
                             "include ''.")
    return tuple(prefix)


def _check_file(file, format):
    if format not in ("ckpt", "safetensors"):
        raise ValueError("For 'load_checkpoint', the checkpoint file should end with '.ckpt' or '.safetensors', "
                         "please input the correct 'format'.")
    if isinstance(file, io.BytesIO):
        if format == "ckpt":
            raise TypeError("ckpt don't support BytesIO as input type, please change to safetensors.")
        return file
    if not isinstance(file, str):
        raise TypeError(f"For 'load_checkpoint', the argument 'ckpt_file_name' must be string, but got {type(file)}.")
    if not file.endswith(format):
        raise ValueError(f"For 'load_checkpoint', the checkpoint file format must same with 'format', but got "
                         f"file_name:'{file}', format:'{format}'")
    file = os.path.realpath(file)
    if not os.path.exists(file):
        raise ValueError(f"For 'load_checkpoint', the checkpoint file: {file} does not exist, please check whether "
                         f"the 'ckpt_file_name' is correct.")
    return file


def _read(file):
    if isinstance(file, io.BytesIO):
        return file.getvalue()
    try:
        with open(file, "rb") as f:
            return f.read()
    except OSError as e:
        raise ValueError(f"Failed to read the checkpoint file {file}. May not have permission to read it, please "
                         f"check the correct of the file.") from e


def _corrupt(file, detail):
    return ValueError(f"Failed to read the checkpoint file {file}. The file may be corrupted, and the content cannot "
                      f"be parsed: {detail}.")


def _parse_file(file, format, crc_check):
    """[(name, kind, ...)] of every value in the file, fully validated; raises ValueError naming the file."""
    buf = _read(file)
    name = file if isinstance(file, str) else "<BytesIO>"
    if format == "safetensors":
        try:
            records, meta = CF.parse_safetensors(buf)
        except CF.FormatError as e:
            raise _corrupt(name, e) from e
        _checksum_verdict(CF.safetensors_checksum_ok(buf, records, meta), name, crc_check)
        records.sort(key=lambda r: r[0])
        return [(r[0], "tensor", r[1], r[2], r[3]) for r in records]
    if not buf:
        raise _corrupt(name, "the file is empty")
    payload, stored = CF.split_footer(buf)
    if stored is None and payload.startswith(CF.MARKER):
        raise _corrupt(name, "the file was written with a CRC footer that is missing (truncated file)")
    _checksum_verdict(None if stored is None else CF.crc32(payload) == stored, name, crc_check)
    try:
        return CF.parse_ckpt(payload)
    except (DecodeError, CF.FormatError) as e:
        raise _corrupt(name, e) from e


_warned_unchecked = set()


def _checksum_verdict(ok, name, crc_check):
    """A checksum that does not match is an error; a file without one loads (said once per file) unless
    `crc_check` asks for one."""
    if ok is False:
        raise ValueError(f"For 'load_checkpoint', the crc check has failed. Please check whether the checkpoint file "
                         f"{name} is damaged.")
    if ok is None:
        if crc_check:
            raise ValueError(f"For 'load_checkpoint', 'crc_check' is True but the checkpoint file {name} carries no "
                             f"crc code, so its contents cannot be verified.")
        if name not in _warned_unchecked:
            _warned_unchecked.add(name)
            logger.warning("For 'load_checkpoint', the checkpoint file %s does not contain the crc code: its contents "
                           "cannot be verified (load it with crc_check=True to refuse such files).", name)


def _whether_load(specify_prefix, filter_prefix, name):
    ok = True
    if specify_prefix:
        ok = any(name.startswith(p) for p in specify_prefix)
    if filter_prefix and any(name.startswith(p) for p in filter_prefix):
        ok = False
    return ok


def load_checkpoint(ckpt_file_name, net=None, strict_load=False, filter_prefix=None, dec_key=None,
                    dec_mode="AES-GCM", specify_prefix=None, choice_func=None, crc_check=False,
                    remove_redundancy=False, format="ckpt"):
    """Load a checkpoint file into a dict name -> Parameter (str for string values), optionally into `net`.

    The whole file is parsed and validated before anything is returned or loaded; a truncated or
    corrupt file raises ValueError naming the file and leaves `net` unchanged.

    Args:
        ckpt_file_name (Union[str, io.BytesIO]): the file (a BytesIO only for safetensors).
        net (Cell): load the parameters into this network too. Default: ``None``.
        strict_load (bool): see `load_param_into_net`. Default: ``False``.
        filter_prefix (Union[str, list, tuple]): skip names starting with these (deprecated). Default: ``None``.
        dec_key (bytes): decryption key; encrypted checkpoints are not supported by mindseed. Default: ``None``.
        dec_mode (str): decryption mode. Default: ``"AES-GCM"``.
        specify_prefix (Union[str, list, tuple]): load only names starting with these (deprecated). Default: ``None``.
        choice_func (Callable[[str], bool]): load only names for which it is True (ignored when a prefix is given).
        crc_check (bool): refuse a file that carries no checksum (one present in the file is always verified; a
            file without one loads with a warning, once per file). Default: ``False``.
        remove_redundancy (bool): load a checkpoint saved with redundancy removal (parallel only).
        format (str): ``"ckpt"`` or ``"safetensors"``. Default: ``"ckpt"``.

    Returns:
        dict: name -> Parameter (or str / list of numpy arrays for string and map values).

    Raises:
        ValueError: the file does not exist, is corrupt or truncated, or nothing is left after filtering.
        TypeError: a prefix has the wrong type.
    """
    specify_prefix = _check_prefix(specify_prefix)
    filter_prefix = _check_prefix(filter_prefix)
    _check_isinstance("dec_key", dec_key, (type(None), bytes))
    _check_isinstance("dec_mode", dec_mode, str)
    _check_isinstance("crc_check", crc_check, bool)
    _check_isinstance("remove_redundancy", remove_redundancy, bool)
    if format == "safetensors" and (dec_key is not None or dec_mode != "AES-GCM"):
        bad = "dec_key" if dec_key is not None else "dec_mode"
        raise ValueError(f"For 'load_checkpoint', when format is 'safetensors', the parameter '{bad}' must be set to "
                         f"default value '{None if bad == 'dec_key' else 'AES-GCM'}', but got "
                         f"'{dec_key if bad == 'dec_key' else dec_mode}'.")
    if dec_key is not None:
        raise ValueError("For 'load_checkpoint', encrypted checkpoints ('dec_key') are not supported by mindseed.")
    file = _check_file(ckpt_file_name, format)
    values = _parse_file(file, format, crc_check)
    use_choice = specify_prefix is None and filter_prefix is None and choice_func is not None
    parameter_dict = {}
    for value in values:
        tag = value[0]
        if not _whether_load(specify_prefix, filter_prefix, tag) or (use_choice and not choice_func(tag)):
            continue
        if value[1] == "map":
            parameter_dict[tag] = value[2]
        elif value[3] == "str":
            parameter_dict[tag] = CF.decode_str(value[4])
        else:
            parameter_dict[tag] = Parameter(_tensor_of(value[2], value[3], value[4]), name=tag)
    if not parameter_dict:
        raise ValueError("The loaded parameter dict is empty after filter or specify, please check whether "
                         "'filter_prefix' or 'specify_prefix' are set correctly.")
    if net is not None:
        load_param_into_net(net, parameter_dict, strict_load, remove_redundancy)
    return parameter_dict


class ParamDictFuture:
    """The pending result of `load_checkpoint_async`; `result()` waits and returns the parameter dict."""

    def __init__(self, executor, param_dict_future):
        self.executor = executor
        self.param_dict_future = param_dict_future

    def result(self):
        param_dict = self.param_dict_future.result()
        self.executor.shutdown()
        return param_dict


def load_checkpoint_async(ckpt_file_name, net=None, strict_load=False, filter_prefix=None, dec_key=None,
                          dec_mode="AES-GCM", specify_prefix=None, choice_func=None):
    """Start `load_checkpoint` in a background thread; returns an object whose `result()` gives its dict."""
    if not isinstance(ckpt_file_name, str):
        raise TypeError(f"For 'load_checkpoint_async', the 'ckpt_file_name' must be a str, but got "
                        f"{type(ckpt_file_name).__name__}.")
    format = "safetensors" if ckpt_file_name.endswith(".safetensors") else "ckpt"
    executor = ThreadPoolExecutor(max_workers=2)
    future = executor.submit(load_checkpoint, ckpt_file_name, net, strict_load, filter_prefix, dec_key, dec_mode,
                             specify_prefix, choice_func, format=format)
    return ParamDictFuture(executor, future)


# ---------------------------------------------------------------- load_param_into_net
def _shape_msg(param, new):
    return (f"For 'load_param_into_net', {param.name} in the argument 'net' should have the same shape as "
            f"{param.name} in the argument 'parameter_dict'. But got its shape {param.shape} in the argument 'net' "
            f"and shape {new.shape} in the argument 'parameter_dict'.May you need to check whether the checkpoint "
            f"you loaded is correct or the batch size and so on in the 'net' and 'parameter_dict' are same.")


def _new_value(param, new, strict_load):
    """The Tensor `param` will hold after loading `new`, or RuntimeError (checked before any parameter changes)."""
    data = new
    if param.shape != new.shape:
        extra = new.shape[len(param.shape):]
        # MindSpore accepts trailing size-1 dims in the file, e.g. (12, 2048, 1, 1) -> (12, 2048)
        if len(new.shape) > len(param.shape) and all(d == 1 for d in extra) and \
                new.shape[:len(param.shape)] == param.shape:
            data = Tensor._from_raw(B.reshape(new._data, param.shape))
        else:
            raise RuntimeError(_shape_msg(param, new))
    if param.dtype != new.dtype:
        pair = {param.dtype, new.dtype}
        if not strict_load and (pair <= set(_FLOAT_TYPES) or pair <= set(_INT_TYPES)):
            logger.warning("The type of %s:%s in 'parameter_dict' is different from the type of it in 'net':%s, "
                           "then the type convert from %s to %s in the network.", new.name, new.dtype, param.dtype,
                           new.dtype, param.dtype)
            return data.astype(param.dtype)
        raise RuntimeError(f"For 'load_param_into_net', {param.name} in the argument 'net' should have the same type "
                           f"as {param.name} in the argument 'parameter_dict'. but got its type {param.dtype} in the "
                           f"argument 'net' and type {new.dtype} in the argument 'parameter_dict'.May you need to "
                           f"check whether the checkpoint you loaded is correct.")
    return Tensor._from_raw(B.clone(data._data))


def load_param_into_net(net, parameter_dict, strict_load=False, remove_redundancy=False):
    """Load a parameter dict (from `load_checkpoint`) into a network.

    Every matching parameter is checked (shape, dtype) before the first one is changed, so a
    mismatch leaves the network as it was. Without `strict_load`, float<->float and int<->int
    dtype differences are converted, and a common name prefix in the dict is stripped.

    Args:
        net (Cell): the network.
        parameter_dict (dict): name -> Parameter (str values are skipped).
        strict_load (bool): no dtype conversion or prefix matching. Default: ``False``.
        remove_redundancy (bool): checkpoint saved with redundancy removal (needs a parallel job). Default: ``False``.

    Returns:
        tuple(list, list): (parameter names of `net` not loaded, names in `parameter_dict` not loaded).

    Raises:
        TypeError: `net` is not a Cell or `parameter_dict` not a dict of Parameters.
        RuntimeError: a shape or dtype does not match.
    """
    if not isinstance(net, Cell):
        raise TypeError(f"For 'load_param_into_net', the argument 'net' should be a Cell, but got {type(net)}.")
    if not isinstance(parameter_dict, dict):
        raise TypeError(f"For 'load_param_into_net', the argument 'parameter_dict' should be a dict, but got "
                        f"{type(parameter_dict)}.")
    for k, v in parameter_dict.items():
        if not isinstance(k, str) or not isinstance(v, (Parameter, str, list)):
            raise TypeError(f"For 'parameter_dict', the element in the argument 'parameter_dict' should be a 'str' "
                            f"and 'Parameter' , but got {type(k)} and {type(v)}.")
    strict_load = _check_bool(strict_load)
    _check_isinstance("remove_redundancy", remove_redundancy, bool)
    if remove_redundancy:
        raise TypeError("The deduplication feature for loading checkpoint can only be used in parallel scenarios, "
                        "but got stand_alone.")
    plan, param_not_load = [], []
    ckpt_not_load = list(parameter_dict.keys())
    params = [p for _, p in net.parameters_and_names()]
    for param in params:
        new = parameter_dict.get(param.name)
        if new is not None:
            if not isinstance(new, Parameter):
                continue
            plan.append((param, _new_value(param, new, strict_load)))
            ckpt_not_load.remove(param.name)
        elif not param.name.startswith("accu_grads"):
            param_not_load.append(param.name)
    if param_not_load and not strict_load:
        _match_prefixed(params, parameter_dict, param_not_load, plan, strict_load)
    for param, value in plan:
        param.set_data(value)
    if param_not_load:
        logger.warning("For 'load_param_into_net', %d parameters in the 'net' are not loaded, because they are not "
                       "in the 'parameter_dict', please check whether the network structure is consistent when "
                       "training and loading checkpoint.", len(param_not_load))
    return param_not_load, ckpt_not_load


def _match_prefixed(params, parameter_dict, param_not_load, plan, strict_load):
    """MindSpore's fallback: find a prefix P with P + name in the dict for a missing name, load those too."""
    prefix_name = ""
    longest_name = param_not_load[0]
    while prefix_name != longest_name and param_not_load:
        prefix_name = longest_name
        for net_name in param_not_load:
            for dict_name in parameter_dict:
                if dict_name.endswith(net_name):
                    prefix_name = dict_name[:-len(net_name)]
                    break
            if prefix_name != longest_name:
                break
        if prefix_name != longest_name:
            logger.warning("For 'load_param_into_net', remove parameter prefix name: %s, continue to load.",
                           prefix_name)
            for param in params:
                full = prefix_name + param.name
                if param.name in param_not_load and isinstance(parameter_dict.get(full), Parameter):
                    plan.append((param, _new_value(param, parameter_dict[full], strict_load)))
                    param_not_load.remove(param.name)


# ---------------------------------------------------------------- format conversion
def _convert_one(src, dst, name_map, src_format, dst_format):
    params = load_checkpoint(src, format=src_format)
    if name_map is not None:
        params = {name_map.get(k, k): v for k, v in params.items()}
    save_checkpoint(params, dst, format=dst_format)


def _convert(file_path, save_path, name_map, file_name_regex, processes_num, dst_format):
    src_format = "ckpt" if dst_format == "safetensors" else "safetensors"
    src_suffix, dst_suffix = f".{src_format}", f".{dst_format}"
    func = "ckpt_to_safetensors" if dst_format == "safetensors" else "safetensors_to_ckpt"
    for name, v in (("file_path", file_path), ("save_path", save_path)):
        if not isinstance(v, str) and (v is not None or name == "file_path"):
            raise TypeError(f"For {func}, the '{name}' must be a str, but got {type(v).__name__}.")
    is_dir, is_file = os.path.isdir(file_path), os.path.isfile(file_path)
    if not is_dir and not is_file:
        raise ValueError(f"For {func}, the input path must be a valid path or file, but got {file_path}")
    if save_path and os.path.splitext(save_path)[1]:
        raise ValueError(f"For {func}, the save_path must be a directory, but got '{save_path}'")
    if name_map is not None and not isinstance(name_map, dict):
        raise ValueError(f"For {func}, the type of 'name_map' must be a directory, but got '{type(name_map)}'")
    if is_file:
        if not file_path.endswith(src_suffix):
            raise ValueError(f"For {func}, the input file must be a {src_suffix} file, but got {file_path}")
        if file_name_regex is not None and not re.findall(file_name_regex, file_path):
            raise ValueError(f"For {func}, the input file does not match the regular expression.")
        if save_path:
            os.makedirs(save_path, exist_ok=True)
        base = os.path.basename(file_path).replace(src_suffix, dst_suffix)
        dst = os.path.join(save_path if save_path else os.path.dirname(file_path), base)
        _convert_one(file_path, dst, name_map, src_format, dst_format)
        return
    rank_dirs = sorted(d for d in os.listdir(file_path)
                       if d.startswith("rank") and os.path.isdir(os.path.join(file_path, d)))
    if not rank_dirs:
        raise ValueError(f"For '{func}', no directories starting with 'rank' found in {file_path}.")
    tasks = []
    for rank_dir in rank_dirs:
        src_root = os.path.join(file_path, rank_dir)
        dst_root = os.path.join(save_path, rank_dir) if save_path is not None else src_root
        os.makedirs(dst_root, exist_ok=True)
        for f in sorted(os.listdir(src_root)):
            if f.endswith(src_suffix) and (file_name_regex is None or re.search(file_name_regex, f)):
                tasks.append((os.path.join(src_root, f), os.path.join(dst_root, f.replace(src_suffix, dst_suffix))))
    with ThreadPoolExecutor(max_workers=max(1, int(processes_num))) as pool:
        for fut in [pool.submit(_convert_one, s, d, name_map, src_format, dst_format) for s, d in tasks]:
            fut.result()


def ckpt_to_safetensors(file_path, save_path=None, name_map=None, file_name_regex=None, processes_num=1):
    """Convert a `.ckpt` file (or the `rank*/` folders of a directory) into `.safetensors` files.

    Args:
        file_path (str): a .ckpt file, or a directory with rank* subdirectories of .ckpt files.
        save_path (str): output directory (default: next to the input). Default: ``None``.
        name_map (dict): rename parameters old -> new. Default: ``None``.
        file_name_regex (str): convert only files matching this regular expression. Default: ``None``.
        processes_num (int): parallel workers for a directory. Default: ``1``.

    Raises:
        ValueError: the path is invalid, `save_path` is not a directory, or the file is not a .ckpt.
    """
    _convert(file_path, save_path, name_map, file_name_regex, processes_num, "safetensors")


def safetensors_to_ckpt(file_path, save_path=None, name_map=None, file_name_regex=None, processes_num=1):
    """Convert a `.safetensors` file (or the `rank*/` folders of a directory) into `.ckpt` files: the inverse of
    `ckpt_to_safetensors`, with the same arguments and errors (`file_path` a .safetensors file or a directory with
    rank* subdirectories of them).
    """
    _convert(file_path, save_path, name_map, file_name_regex, processes_num, "ckpt")


def _get_merged_param_data(net, parameter_layout_dict, param_name, param_data, integrated_save):
    """The whole value of parameter `param_name` from `param_data`, this rank's slice of it (MindSpore's merge before
    saving a sharded parameter).

    `parameter_layout_dict[param_name]` is MindSpore's layout list: [device matrix, tensor map, slice shape, field,
    uniform split, optimizer-shard group, full shape before reshape, slice shape after reshape, ...]. A layout of
    fewer than 8 entries, or `integrated_save` False, returns `param_data` as it is; so does a `param_data` that
    already has the parameter's full shape (mindseed's parameters hold their whole value on every rank). A slice is
    gathered from every rank (first over the optimizer-shard group along axis 0) and the ranks' blocks are put in
    place by the tensor map.
    """
    layout = parameter_layout_dict[param_name]
    if len(layout) < 8 or not integrated_save:
        return param_data
    dev_mat, tensor_map, opt_group = list(layout[0]), list(layout[1]), layout[5]
    full_shape = list(layout[6]) if layout[6] else None
    cuts = [dev_mat[len(dev_mat) - 1 - m] if m != -1 else 1 for m in tensor_map]
    whole = [n * c for n, c in zip(layout[2] or param_data.shape, cuts)]
    if list(param_data.shape) in (whole, full_shape):
        return param_data
    from mindseed.ops.operations.comm_ops import AllGather  # noqa: PLC0415  (loaded on first use)
    if opt_group:
        param_data = AllGather(opt_group)(param_data)
    if all(m == -1 for m in tensor_map):
        return param_data
    blocks = np.split(AllGather()(param_data).asnumpy(), int(np.prod(dev_mat)), axis=0)
    out = np.empty([b * c for b, c in zip(blocks[0].shape, cuts)], blocks[0].dtype)
    for rank, block in enumerate(blocks):
        coords = np.unravel_index(rank, dev_mat)
        where = tuple(slice(None) if m == -1 else slice(coords[len(dev_mat) - 1 - m] * n,
                                                        (coords[len(dev_mat) - 1 - m] + 1) * n)
                      for m, n in zip(tensor_map, block.shape))
        out[where] = block
    if full_shape and list(out.shape) != full_shape:
        out = out.reshape(full_shape)
    return Tensor(out, param_data.dtype)


# MindSpore's serialization module also holds export/load and the distributed-checkpoint functions; mindseed keeps
# them with the export and parallel packages, and this module hands them out by name (on first use: those packages
# import this one).
_ELSEWHERE = {"export": "mindseed.export", "load": "mindseed.export", "export_split_mindir": "mindseed.export",
              "build_searched_strategy": "mindseed.parallel._strategy_file",
              "restore_group_info_list": "mindseed.parallel._strategy_file",
              "get_ckpt_path_with_strategy": "mindseed.parallel.checkpoint_transform",
              "load_distributed_checkpoint": "mindseed.parallel.checkpoint_transform",
              "merge_sliced_parameter": "mindseed.parallel.checkpoint_transform"}


def __getattr__(name):
    if name in _ELSEWHERE:
        import importlib  # noqa: PLC0415
        return getattr(importlib.import_module(_ELSEWHERE[name]), name)
    raise AttributeError(f"module '{__name__}' has no attribute '{name}'")
