"""Checkpoint obfuscation as MindSpore 2.10's mindspore/safeguard does it.

`obfuscate_ckpt` draws secret metadata with numpy's global generator (``random``: integers in
``[1, obfuscate_scale)`` as float16; ``rearrange``: a permutation or a permuted identity), applies the
``weight_obf_ops`` of each target weight (``mul``, ``matmul``, ``permuate``) and writes
``<name>_obf.ckpt``; it returns the saved metadata (``metadata_op`` applied, e.g. the inverse).
Under the same numpy seed the files and metadata equal MindSpore's. `load_obf_params_into_net`
checks its configuration and returns the network unchanged: MindSpore 2.10 inserts no operators.
"""
import os
import re
from pathlib import Path
from string import Template

import numpy as np

from mindseed import log, nn, ops
from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.train.serialization import load_checkpoint, save_checkpoint

_SUPPORTED_CONFIG_TYPES = ("obf_metadata_config", "weight_obf_config", "network_obf_config")
_SUPPORTED_METADATA_TYPES = ("random", "rearrange")
_METADATA_OPS = {"mul": ops.mul, "matmul": ops.matmul, "invert": ops.reciprocal}
_DEPRECATION = ("'target_modules and obf_ratios' will be deprecated and removed in a future version, "
                "use 'obf_config' instead.")


def _transform_target_modules(target_modules):
    """The obf_config MindSpore builds from ``[path, 'a|b', 'obfuscate_layers:n']``."""
    path = target_modules[0]
    metadata = {"name": "obf_metadata", "shape": [1], "type": "random", "save_metadata": True,
                "metadata_op": "invert"}
    metadata_name = "obf_metadata"
    layers = []
    if len(target_modules) >= 3:
        count = target_modules[2].split(":")[1]
        layers = list(range(12 if count == "all" else int(count)))
        path = path.replace("blocks", "blocks/${layer}")
        metadata_name = "obf_metadata_${layer}"
        metadata["layers"] = layers
    config = {"obf_metadata_config": [metadata], "weight_obf_config": [], "network_obf_config": []}
    for name in target_modules[1].split("|"):
        def weight_ops():
            return [{"name": "mul", "input_x": "weight", "input_y": metadata_name}]
        network = {"module": "/" + path, "target": name, "insert_new_input": [{"name": "obf_metadata"}],
                   "insert_ops": weight_ops()}
        entries = [{"target": "/".join([path, name, kind]), "weight_obf_ops": weight_ops()}
                   for kind in ("weight", "bias")]
        # NOTE: MindSpore marks the entries 'layers: []' only when there are no layers, so layered
        # targets are matched literally (with '${layer}' in them); kept for equal files.
        if not layers:
            for entry in entries + [network]:
                entry["layers"] = []
        config["weight_obf_config"].extend(entries)
        config["network_obf_config"].append(network)
    return config


def _gen_obfuscate_tensor(shape, kind, obfuscate_scale):
    if kind == "rearrange":
        if len(shape) == 1:
            return Tensor(np.random.permutation(shape[0]), dtype=mstype.int32)
        if len(shape) == 2:
            identity = np.identity(shape[0]).astype(np.int32)
            return Tensor(identity[:, np.random.permutation(shape[1]).astype(np.int32)], dtype=mstype.int32)
        return None
    if kind == "random":
        return Tensor(np.random.randint(1, obfuscate_scale, size=shape), dtype=mstype.float16)
    return None


def _gen_obf_metadata(configs, obfuscate_scale):
    """(metadata by name, the saved metadata as numpy) in the order MindSpore draws them."""
    metadata, saved = {}, {}
    for config in configs:
        name = config.get("name")
        layers = config.get("layers")
        if layers:
            names = [Template(name).safe_substitute({"layer": str(layer)}) for layer in layers]
        elif name in metadata:
            continue
        else:
            names = [name]
        for obf_name in names:
            tensor = _gen_obfuscate_tensor(config.get("shape"), config.get("type"), obfuscate_scale)
            metadata[obf_name] = tensor
            if not config.get("save_metadata", False):
                continue
            op_name = config.get("metadata_op")
            if op_name is not None:
                tensor = _metadata_op(op_name)(tensor)
            if tensor is not None:
                saved[obf_name] = tensor.asnumpy()
    return metadata, saved


def _metadata_op(op_name):
    if op_name not in _METADATA_OPS:
        raise KeyError(f"'op name' must be in {list(_METADATA_OPS)}, but got {op_name}.")
    return _METADATA_OPS[op_name]


def _input_name(obf_op, key, layer):
    name = obf_op.get(key)
    if name is None:
        log.error("can not find input: {} for op: {}.".format(key, obf_op.get("name")))
        return None
    return Template(name).safe_substitute({"layer": str(layer)})


def _obfuscate_param(param, metadata, obf_ops, layer):
    """The weight after `obf_ops`, or None (logged) when an input is missing."""
    dtype = param.dtype
    value = param
    for obf_op in obf_ops:
        op_name = obf_op.get("name")
        if not isinstance(op_name, str):
            raise TypeError("{} should be str type, but got {}".format(op_name, type(op_name)))
        if op_name == "mul":
            y = metadata.get(_input_name(obf_op, "input_y", layer))
            if y is None:
                log.error("input_x or input_y is None")
                return None
            value = ops.mul(value, ops.cast(y, dtype))
        elif op_name == "permuate":
            p = metadata.get(_input_name(obf_op, "input_x", layer))
            if p is None:
                log.error("input_x or param is None")
                return None
            value = value[p]
        elif op_name == "matmul":
            # NOTE: as in MindSpore, only names starting with 'obf_metadata' read the metadata;
            # any other name stands for the weight itself.
            x, y = (_matmul_input(_input_name(obf_op, key, layer), metadata, value)
                    for key in ("input_x", "input_y"))
            if x is None or y is None:
                log.error("the input_x or input_y of op: {} is None.".format(op_name))
                return None
            x = ops.transpose(x, (1, 0)) if obf_op.get("transpose_a", False) else x
            y = ops.transpose(y, (1, 0)) if obf_op.get("transpose_b", False) else y
            value = ops.matmul(ops.cast(x, dtype), ops.cast(y, dtype))
        else:
            log.error("unsupported op, op must be matmul or permuate or mul, but got {}.".format(op_name))
            return None
    return value


def _matmul_input(name, metadata, value):
    if name is None:
        return None
    return metadata.get(name) if name.startswith("obf_metadata") else value


def _obfuscate_single_ckpt(ckpt_path, metadata, obf_config, saved_path):
    try:
        params = load_checkpoint(ckpt_path)
    except (ValueError, TypeError, OSError):
        log.error("Load checkpoint failed for file {}.".format(ckpt_path))
        return False
    for item, param in params.items():
        param_path = "/".join(item.split("."))
        for target_config in obf_config.get("weight_obf_config", []):
            if not isinstance(target_config, dict):
                raise TypeError("{} should be dict type, but got {}".format(target_config, type(target_config)))
            target = target_config.get("target")
            obf_ops = target_config.get("weight_obf_ops")
            if not target or not obf_ops:
                raise KeyError("target or obf_ops is None.")
            layers = target_config.get("layers", [])
            matches = [(layer, Template(target).safe_substitute({"layer": str(layer)})) for layer in layers]
            if not layers:
                matches = [(0, target)]
            for layer, target_path in matches:
                if target_path != param_path:
                    continue
                value = _obfuscate_param(param.value(), metadata, obf_ops, layer)
                if value is None:
                    log.error("obfuscate weight {} failed.".format(item))
                    return False
                param.set_data(value)
    name = os.path.basename(ckpt_path).split(".")[0] + "_obf.ckpt"
    out_path = os.path.join(os.path.realpath(saved_path), name)
    save_checkpoint([{"name": k, "data": v} for k, v in params.items()], out_path)
    return True


def _obfuscate_dir(ckpt_dir, metadata, obf_config, saved_path):
    """Every ``.ckpt`` of `ckpt_dir` and of its direct subdirectories (mirrored under `saved_path`)."""
    for entry in os.listdir(ckpt_dir):
        sub_path = os.path.join(os.path.realpath(ckpt_dir), entry)
        if Path(sub_path).is_dir():
            out_dir = os.path.join(os.path.realpath(saved_path), entry)
            os.makedirs(out_dir, mode=0o700, exist_ok=True)
            for name in os.listdir(sub_path):
                if name.endswith(".ckpt"):
                    _obfuscate_single_ckpt(os.path.join(sub_path, name), metadata, obf_config, out_dir)
        elif entry.endswith(".ckpt"):
            _obfuscate_single_ckpt(sub_path, metadata, obf_config, saved_path)


def _config_from_args(network, target_modules, obf_config, config_type):
    if not isinstance(network, nn.Cell):
        raise TypeError("network must be nn.Cell, but got {}.".format(type(network)))
    if obf_config is None:
        _check_valid_target(network, target_modules)
        log.warning(_DEPRECATION)
        obf_config = _transform_target_modules(target_modules)
    if not isinstance(obf_config, dict):
        raise TypeError("obf_config type should be dict, but got {}.".format(type(obf_config)))
    if not obf_config or not all(_check_valid_obf_config(obf_config, kind) for kind in config_type):
        raise ValueError("'obf_config' is empty or not valid, please check the input.")
    return obf_config


def obfuscate_ckpt(network, ckpt_files, target_modules=None, obf_config=None, saved_path="./", obfuscate_scale=100):
    """Obfuscate the plaintext checkpoint files of a directory according to an obfuscation config.

    Args:
        network (nn.Cell): the original network.
        ckpt_files (str): the directory of the original ``.ckpt`` files (and of subdirectories of them).
        target_modules (list[str]): ``[path, 'a|b']`` or ``[path, 'a|b', 'obfuscate_layers:all' or ':n']``:
            the Dense-like cells whose weight and bias are scaled; used when `obf_config` is None.
        obf_config (dict): ``obf_metadata_config``, ``weight_obf_config`` and ``network_obf_config`` lists.
        saved_path (str): the directory the ``<name>_obf.ckpt`` files are written to. Default: ``'./'``.
        obfuscate_scale (Union[float, int]): random metadata is drawn from ``[1, obfuscate_scale)``. Default: 100.

    Returns:
        dict[str, numpy.ndarray], the saved metadata (e.g. the inverse scales) needed to run the obfuscated net.

    Raises:
        TypeError: `network` is not a Cell, a path is not a str or not a directory, a config entry has a wrong type.
        ValueError: a path does not exist, `target_modules` is malformed or names no cell, `obf_config` is empty or
            invalid, or `obfuscate_scale` is not larger than 1.

    >>> import os, tempfile, numpy as np, mindseed as ms
    >>> net = ms.nn.SequentialCell([ms.nn.Dense(2, 2)])
    >>> d = tempfile.mkdtemp(); ms.save_checkpoint(net, os.path.join(d, "net.ckpt"))
    >>> cfg = {"obf_metadata_config": [{"name": "s", "shape": [2, 1], "type": "random", "metadata_op": "invert",
    ...                                 "save_metadata": True}],
    ...        "weight_obf_config": [{"target": "0/weight",
    ...                               "weight_obf_ops": [{"name": "mul", "input_x": "weight", "input_y": "s"}]}]}
    >>> sorted(ms.obfuscate_ckpt(net, d, obf_config=cfg, saved_path=d))
    ['s']
    """
    _check_dir_path("ckpt_files", ckpt_files)
    _check_dir_path("saved_path", saved_path)
    obf_config = _config_from_args(network, target_modules, obf_config, ("obf_metadata_config", "weight_obf_config"))
    if isinstance(obfuscate_scale, bool) or not isinstance(obfuscate_scale, (float, int)) or obfuscate_scale <= 1:
        raise ValueError("obfuscate_scale must be float or int, and larger than 1, but got {}.".format(obfuscate_scale))
    metadata, saved = _gen_obf_metadata(obf_config.get("obf_metadata_config", []), obfuscate_scale)
    _obfuscate_dir(ckpt_files, metadata, obf_config, saved_path)
    return saved


def load_obf_params_into_net(network, target_modules=None, obf_ratios=None, obf_config=None, data_parallel_num=1,
                             **kwargs):
    """Check an obfuscation config against `network` and return the network to run an obfuscated checkpoint.

    MindSpore 2.10 inserts no operators here: the network is returned as it is, and the obfuscated
    weights loaded into it are used as they are.

    Args:
        network (nn.Cell): the network (the obfuscated checkpoint loaded or to be loaded into it).
        target_modules (list[str]): as for `obfuscate_ckpt`; used when `obf_config` is None.
        obf_ratios (Tensor): the ratios `obfuscate_ckpt` returned (unused, as in MindSpore 2.10).
        obf_config (dict): the obfuscation config; its ``network_obf_config`` is checked.
        data_parallel_num (int): the data parallel number of parallel training. Default: 1.
        kwargs: ``ignored_func_decorators`` / ``ignored_class_decorators`` (unused, as in MindSpore 2.10).

    Returns:
        nn.Cell, the network.

    Raises:
        TypeError: `network` is not a Cell or `obf_config` is not a dict or has entries of a wrong type.
        ValueError: `target_modules` is malformed, `obf_config` is empty or invalid, or `data_parallel_num` is not
            a positive int.

    >>> import mindseed as ms
    >>> net = ms.nn.SequentialCell([ms.nn.Dense(2, 2)])
    >>> cfg = {"network_obf_config": [{"module": "/", "target": "0", "insert_ops": []}]}
    >>> ms.load_obf_params_into_net(net, obf_config=cfg) is net
    True
    """
    _config_from_args(network, target_modules, obf_config, ("network_obf_config",))
    if isinstance(data_parallel_num, bool) or not isinstance(data_parallel_num, int) or data_parallel_num <= 0:
        raise ValueError("data_parallel_num must be positive number, but got {}.".format(data_parallel_num))
    return network


def _check_dir_path(name, dir_path):
    if not isinstance(dir_path, str):
        raise TypeError("{} must be string, but got {}.".format(name, type(dir_path)))
    if not os.path.exists(dir_path):
        raise ValueError("{} is not exist, please check the input {}.".format(dir_path, name))
    if not Path(dir_path).is_dir():
        raise TypeError("{} must be a directory path, but got {}.".format(name, dir_path))


def _check_valid_target(network, target_modules):
    """Raise unless `target_modules` names cells of `network`, as MindSpore checks it."""
    if not isinstance(target_modules, list):
        raise TypeError("target_modules type should be list, but got {}.".format(type(target_modules)))
    if len(target_modules) < 2:
        raise ValueError("target_modules should contain at least two string values, in the form of "
                         "['A/B/C', 'D1|D2'], but got {}.".format(target_modules))
    path, names = target_modules[0], target_modules[1]
    if not isinstance(path, str) or not isinstance(names, str):
        raise TypeError("The values of target_modules should be string, but got {} and {}."
                        .format(type(path), type(names)))
    if not names:
        raise ValueError("{} should be a non-empty string value, in the form of 'D1|D2'".format(names))
    if not re.fullmatch(r"[a-zA-Z0-9/_]*", path) or not re.fullmatch(r"[a-zA-Z0-9|_]*", names):
        raise ValueError("please check the input 'target_modules'{}, it should be in the form of ['A/B/C', 'D1|D2']. "
                         "target_modules[0] can only contain uppercase and lowercase letters, numbers, '_' and '/', "
                         "target_modules[1] can only contain uppercase and lowercase letters, numbers, '_' and '|'"
                         .format(target_modules))
    net = _walk_network_path(network, path)
    found = [name for name in names.split("|") if hasattr(net, name)]
    for name in names.split("|"):
        if name not in found:
            log.warning("{} does not exist in the path {}".format(name, path))
    if not found:
        raise ValueError("all targets {} do not exist in the path {}.".format(names.split("|"), path))
    if len(target_modules) >= 3:
        layers = target_modules[2].split(":")
        if len(layers) != 2 or layers[0] != "obfuscate_layers" or not (layers[1] == "all" or layers[1].isdigit()):
            raise ValueError("The third value of target_modules should be in the format of 'obfuscate_layers:all' "
                             "or 'obfuscate_layers:int'")


def _walk_network_path(network, path):
    """The cell `path` ('a/b/c') leads to, descending into CellLists depth first as MindSpore does."""
    parts = path.split("/")
    stack, net, i = [network], network, 0
    while stack and i < len(parts):
        net = stack.pop()
        if not hasattr(net, parts[i]):
            continue
        net = getattr(net, parts[i])
        i += 1
        if isinstance(net, nn.CellList):
            stack.extend(net)
        elif isinstance(net, nn.Cell):
            stack.append(net)
        else:
            raise TypeError("Target_modules[0] should be a subgraph and it's type should be nn.Cell(nn.CellList), "
                            "but got type {}".format(type(net)))
    if path != "" and i != len(parts):
        raise ValueError("the path {} does not exist.".format(path))
    return net


def _check_ops_info(ops_info):
    for op in ops_info:
        for key in ("name", "input_x", "input_y"):
            if not isinstance(op.get(key), str):
                raise TypeError("{} type should be str, but got {}.".format(
                    "op_name" if key == "name" else key + "_name", type(op.get(key))))
        for key in ("transpose_a", "transpose_b"):
            if not isinstance(op.get(key, False), bool):
                raise TypeError("{} type should be bool, but got {}.".format(key, type(op.get(key))))


def _check_str(config, key):
    value = config.get(key)
    if not value or not isinstance(value, str):
        raise TypeError("obf_config[][]['{}'] type should be str, but got {}.".format(key, type(value)))


def _check_obf_metadata_config(config):
    _check_str(config, "name")
    shape = config.get("shape")
    if not shape or not isinstance(shape, list) or not all(isinstance(d, int) for d in shape):
        raise TypeError("obf_config[][]['shape'] type should be a non-empty list of int, but got {}.".format(shape))
    if not isinstance(config.get("save_metadata", True), bool):
        raise TypeError("obf_config[][]['save_metadata'] type should be bool, but got {}."
                        .format(type(config.get("save_metadata"))))
    kind = config.get("type")
    if kind is not None and kind not in _SUPPORTED_METADATA_TYPES:
        raise TypeError("obf_config[][]['type'] should be str and must in {}, but got {}."
                        .format(list(_SUPPORTED_METADATA_TYPES), kind))


def _check_weight_obf_config(config):
    _check_str(config, "target")
    _check_ops_list(config, "weight_obf_ops")


def _check_ops_list(config, key):
    ops_list = config.get(key, [])
    if not isinstance(ops_list, list):
        raise TypeError("obf_config[][]['{}'] type should be list, but got {}.".format(key, type(ops_list)))
    _check_ops_info(ops_list)


def _check_network_obf_config(config):
    _check_str(config, "target")
    _check_str(config, "module")
    new_inputs = config.get("insert_new_input", [])
    if not isinstance(new_inputs, list):
        raise TypeError("obf_config[][]['insert_new_input'] type should be list, but got {}.".format(type(new_inputs)))
    for new_input in new_inputs:
        if not isinstance(new_input.get("name"), str):
            raise TypeError("obf_config[][]['insert_new_input'][]['name'] type should be str, but got {}."
                            .format(type(new_input.get("name"))))
    _check_ops_list(config, "insert_ops")


_CONFIG_CHECKS = {"obf_metadata_config": _check_obf_metadata_config, "weight_obf_config": _check_weight_obf_config,
                  "network_obf_config": _check_network_obf_config}


def _check_valid_obf_config(obf_config, config_type):
    for key in obf_config:
        if not isinstance(key, str) or key not in _SUPPORTED_CONFIG_TYPES:
            raise TypeError("config_type must be str, and in {}, but got {}."
                            .format(list(_SUPPORTED_CONFIG_TYPES), key))
    configs = obf_config.get(config_type)
    if not isinstance(configs, list):
        raise TypeError("obf_config[] type of should be list, but got {}.".format(type(configs)))
    for config in configs:
        if not isinstance(config, dict):
            raise TypeError("obf_config[][] type should be dict, but got {}.".format(type(config)))
        _CONFIG_CHECKS[config_type](config)
        layers = config.get("layers")
        if layers is not None:
            if not isinstance(layers, list):
                raise TypeError("obf_config[][]['layers'] type should be list, but got {}.".format(type(layers)))
            for layer in layers:
                if not isinstance(layer, int):
                    raise TypeError("obf_config[][]['layers'][] type should be int, but got {}."
                                    .format(type(layer)))
    return True
