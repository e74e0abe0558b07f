"""Distributed checkpoints: each rank's slices, merged or re-cut for another strategy or another number of ranks.

A sharded run saves one checkpoint per rank holding that rank's slice of every parameter (`save_checkpoint` of
`Execution.rank_parameters(rank)` in the simulated world, as `integrated_save=False` does on a cluster) and, under
`set_auto_parallel_context(strategy_ckpt_save_file=...)`, the strategy file naming each parameter's layout. From
these:

* `merge_sliced_parameter` joins the slices of one parameter (in rank order) into the whole parameter;
* `rank_list_for_transform(rank, src, dst)` names the source ranks whose files rank `rank` of the destination
  strategy needs; `transform_checkpoint_by_rank` writes that rank's checkpoint, `transform_checkpoints` every
  rank's (``dst/rank_<r>/<prefix><r>.ckpt``), from ``src/rank_<r>/*.ckpt``;
* `load_distributed_checkpoint` loads the slices of a training run into a network for another strategy (or whole);
* `unified_safetensors` writes the whole parameters of a run as ``part<i>.safetensors`` files with
  ``param_name_map.json``; `load_segmented_checkpoints` reads every checkpoint of a directory into one dict;
  `get_ckpt_path_with_strategy` finds the checkpoint of another rank holding the same slices.

A slice of the destination is copied from the source slices it overlaps (per dim, the intersection of the two
boxes), so any pair of layouts on any numbers of ranks transforms exactly; a source piece held by several ranks is
read from the lowest of them.
"""
import glob
import json
import math
import os
import re

import numpy as np

from mindseed.common import dtype as mstype
from mindseed.common._parallel import auto_parallel_cell, get_auto_parallel_context
from mindseed.common.parameter import Parameter
from mindseed.common.tensor import Tensor
from mindseed.communication.management import get_group_size, get_rank
from mindseed.nn.cell import Cell
from mindseed.parallel import _strategy_file as SF
from mindseed.parallel._layout import DeviceMesh, TensorLayout
from mindseed.train.serialization import load_checkpoint, load_param_into_net, save_checkpoint

__all__ = ["merge_sliced_parameter", "rank_list_for_transform", "transform_checkpoint_by_rank",
           "transform_checkpoints", "load_distributed_checkpoint", "load_segmented_checkpoints",
           "unified_safetensors", "get_ckpt_path_with_strategy", "rank_list_for_convert",
           "convert_checkpoint_by_rank", "convert_checkpoints"]

_WHOLE = DeviceMesh((1,), ("whole",))


# ---------------------------------------------------------------- numpy of a parameter, and back
def _array(value):
    data = value.data if isinstance(value, Parameter) else value
    if data.dtype == mstype.bfloat16:
        return data.astype(mstype.float32).asnumpy()
    return data.asnumpy()


def _tensor(array, like):
    out = Tensor(array)
    return out.astype(mstype.bfloat16) if like.dtype == mstype.bfloat16 else out


# ---------------------------------------------------------------- layouts of one parameter on both sides
def _layout(rec, shape, name):
    """The TensorLayout of strategy record `rec` (None: whole on one rank) for a tensor of `shape`."""
    if rec is None:
        return TensorLayout(_WHOLE, shape)
    if list(rec.param_split_shape[0].dim):
        raise ValueError(f"For the checkpoint transform, parameter '{name}' is sliced unevenly (param_split_shape "
                         f"{list(rec.param_split_shape[0].dim)}): only 'merge_sliced_parameter' merges such slices.")
    if rec.field:
        raise ValueError(f"For the checkpoint transform, parameter '{name}' has the embedding field layout "
                         f"(field {rec.field}), which mindseed's transforms do not cut.")
    return SF.tensor_layout(rec, shape, f"parameter '{name}'")


def _cuts(rec, ndim, name):
    probe = _layout(rec, (0,) * ndim, name)
    return [probe.cuts(d) for d in range(ndim)]


def _pair(name, src_rec, dst_rec, slice_shape=None):
    """(source layout, destination layout) of a parameter; its global shape from a source slice's shape, or, for
    planning without files, the least shape both layouts cut evenly."""
    ndim = len((src_rec or dst_rec).tensor_map[0].dim) if slice_shape is None else len(slice_shape)
    src_cuts = _cuts(src_rec, ndim, name)
    if slice_shape is None:
        dst_cuts = _cuts(dst_rec, ndim, name)
        shape = tuple(math.lcm(a, b) for a, b in zip(src_cuts, dst_cuts))
    else:
        shape = tuple(s * c for s, c in zip(slice_shape, src_cuts))
    return _layout(src_rec, shape, name), _layout(dst_rec, shape, name)


def _key(box):
    return tuple((b.start, b.stop) for b in box)


def _overlap(a, b):
    return all(max(x.start, y.start) < min(x.stop, y.stop) for x, y in zip(a, b))


def _needed(src, dst, rank, has=lambda q: True):
    """The source ranks whose slices make up `rank`'s destination slice: for each distinct source piece that
    overlaps it, the lowest rank holding it (for which `has` is true)."""
    box = dst.box(rank)
    chosen = {}
    for q in range(src.mesh.size):
        b = src.box(q)
        k = _key(b)
        if k in chosen or not _overlap(b, box) or not has(q):
            continue
        chosen[k] = q
    return sorted(chosen.values())


def _piece(name, src, dst, rank, slices):
    """Rank `rank`'s slice under `dst`, copied from the source `slices` (source rank -> numpy array)."""
    box = dst.box(rank)
    out, covered = None, 0
    for q, array in slices.items():
        if tuple(array.shape) != src.local_shape:
            raise ValueError(f"For the checkpoint transform, the slice of parameter '{name}' from rank {q} has shape "
                             f"{tuple(array.shape)}, but its strategy {src} gives {src.local_shape}.")
        b = src.box(q)
        if not _overlap(b, box):
            continue
        if out is None:
            out = np.empty(dst.local_shape, dtype=array.dtype)
        inter = [slice(max(x.start, y.start), min(x.stop, y.stop)) for x, y in zip(b, box)]
        src_idx = tuple(slice(i.start - x.start, i.stop - x.start) for i, x in zip(inter, b))
        dst_idx = tuple(slice(i.start - y.start, i.stop - y.start) for i, y in zip(inter, box))
        out[dst_idx] = array[src_idx]
        covered += math.prod(i.stop - i.start for i in inter)
    if out is None or covered != math.prod(dst.local_shape):
        raise ValueError(f"For the checkpoint transform, the slices of parameter '{name}' from ranks "
                         f"{sorted(slices)} do not cover rank {rank}'s slice {dst.local_shape}.")
    return out


# ---------------------------------------------------------------- stages
def _stage_devices(layout_map):
    if not layout_map:
        return 1
    rec = next(iter(layout_map.values()))[0]
    return math.prod(int(d) for d in rec.dev_matrix[0].dim) or 1


def _local_params(rank_id, src_map, dst_map):
    """(name -> (src record, dst record, src stage)) of the parameters in destination rank `rank_id`'s stage, and
    that rank's index in its stage."""
    dst_dev = _stage_devices(dst_map)
    stage = rank_id // dst_dev if dst_map else 0
    names = list(src_map or {})
    names += [n for n in dst_map or {} if n not in (src_map or {})]
    out = {}
    for name in names:
        src_rec, src_stages = (src_map or {}).get(name, (None, [0]))
        dst_rec, dst_stages = (dst_map or {}).get(name, (None, None))
        if dst_stages is not None and stage not in dst_stages:
            continue
        out[name] = (src_rec, dst_rec, src_stages[0])
    return out, (rank_id % dst_dev if dst_map else 0)


def _check_rank(rank_id, api):
    if isinstance(rank_id, bool) or not isinstance(rank_id, int) or rank_id < 0:
        raise TypeError(f"For '{api}', the rank_id should be a non-negative int, but got {rank_id!r}.")


def rank_list_for_transform(rank_id, src_strategy_file=None, dst_strategy_file=None):
    """The source ranks whose checkpoints rank `rank_id` needs under the destination strategy.

    Args:
        rank_id (int): a rank of the destination strategy.
        src_strategy_file (str): the source run's strategy file (None: every parameter whole on rank 0).
        dst_strategy_file (str): the destination strategy file (None: every parameter whole).

    Returns:
        list[int], sorted.

    Raises:
        TypeError: `rank_id` is not an int, or a strategy file is not a str or not a strategy file.
        ValueError: a strategy file does not exist or holds no parameter.
    """
    _check_rank(rank_id, "rank_list_for_transform")
    if src_strategy_file is None:
        return [0]
    src_map = SF.layout_map(src_strategy_file, "rank_list_for_transform")
    dst_map = SF.layout_map(dst_strategy_file, "rank_list_for_transform")
    params, local = _local_params(rank_id, src_map, dst_map)
    src_dev = _stage_devices(src_map)
    out = set()
    for name, (src_rec, dst_rec, stage) in params.items():
        if src_rec is None:
            continue
        src, dst = _pair(name, src_rec, dst_rec)
        out.update(stage * src_dev + q for q in _needed(src, dst, local))
    return sorted(out)


def _transform(rank_id, src_map, dst_map, files, api):
    """{name: Tensor} of destination rank `rank_id`, read from `files` (source rank -> checkpoint file)."""
    params, local = _local_params(rank_id, src_map, dst_map)
    src_dev = _stage_devices(src_map)
    loaded = {}

    def ckpt(rank):
        if rank not in loaded:
            if rank not in files:
                raise ValueError(f"For '{api}', the checkpoint file of rank {rank} is needed for converting rank "
                                 f"{rank_id}'s checkpoint, but it is missing.")
            path = files[rank]
            loaded[rank] = load_checkpoint(path, format="safetensors" if path.endswith(".safetensors") else "ckpt")
        return loaded[rank]

    out = {}
    for name, (src_rec, dst_rec, stage) in params.items():
        base = stage * src_dev if src_rec is not None else min(files)
        count = math.prod(int(d) for d in src_rec.dev_matrix[0].dim) if src_rec is not None else 1

        def has(q, name=name, base=base):
            return base + q in files and name in ckpt(base + q)

        first = next((q for q in range(count) if has(q)), None)
        if first is None:
            continue
        like = ckpt(base + first)[name]
        src, dst = _pair(name, src_rec, dst_rec, like.shape)
        needed = _needed(src, dst, local, has)
        got = {_key(src.box(q)) for q in needed}
        for q in _needed(src, dst, local):
            if _key(src.box(q)) not in got:
                raise ValueError(f"For '{api}', the checkpoint file of rank {base + q} is needed for converting rank "
                                 f"{rank_id}'s checkpoint, but it is missing (or lacks parameter '{name}').")
        slices = {q: _array(ckpt(base + q)[name]) for q in needed}
        out[name] = _tensor(_piece(name, src, dst, local, slices), like)
    ckpt(min(files))
    for rank in sorted(loaded):  # values outside the strategies (step counters, learning rates): whole in a file
        for name, value in loaded[rank].items():
            if name not in out and name not in (src_map or {}) and name not in (dst_map or {}):
                out[name] = value
    return out


def _check_files_map(checkpoint_files_map, api):
    if not isinstance(checkpoint_files_map, dict):
        raise TypeError(f"For '{api}', the checkpoint_files_map should be a dict, but got "
                        f"{type(checkpoint_files_map)}.")
    for rank, path in checkpoint_files_map.items():
        if not isinstance(path, str) or not os.path.exists(path):
            raise ValueError(f"For '{api}', the checkpoint file {path} of rank {rank} does not exist.")


def transform_checkpoint_by_rank(rank_id, checkpoint_files_map, save_checkpoint_file_name, src_strategy_file=None,
                                 dst_strategy_file=None):
    """Write rank `rank_id`'s checkpoint under the destination strategy from the source ranks' checkpoints.

    Args:
        rank_id (int): the destination rank.
        checkpoint_files_map (dict): source rank -> its checkpoint file (at least `rank_list_for_transform`'s).
        save_checkpoint_file_name (str): the file to write; must end with ``.ckpt``.
        src_strategy_file (str): the source strategy file (None: parameters whole).
        dst_strategy_file (str): the destination strategy file (None: parameters whole).

    Raises:
        TypeError: an argument of the wrong type.
        ValueError: a file missing, a name without ``.ckpt``, or slices that do not fit their strategy.
    """
    api = "transform_checkpoint_by_rank"
    _check_files_map(checkpoint_files_map, api)
    _check_rank(rank_id, api)
    if not isinstance(save_checkpoint_file_name, str):
        raise TypeError(f"For '{api}', the save_checkpoint_file_name should be a str, but got "
                        f"{type(save_checkpoint_file_name)}.")
    if not save_checkpoint_file_name.endswith(".ckpt"):
        raise ValueError(f"The save_checkpoint_file_name {save_checkpoint_file_name} should end with .ckpt")
    src_map, dst_map = SF.layout_map(src_strategy_file, api), SF.layout_map(dst_strategy_file, api)
    save_checkpoint(_transform(rank_id, src_map, dst_map, checkpoint_files_map, api), save_checkpoint_file_name)


def _collect_files(directory, format, api, file_suffix=None):
    """{rank: file} of ``directory/rank_<r>/*.<format>`` (the last name in order when a rank has several)."""
    out = {}
    for sub in sorted(glob.glob(os.path.join(directory, "rank_*"))):
        tail = os.path.basename(sub)[len("rank_"):]
        if not os.path.isdir(sub) or not tail.isdigit():
            continue
        pattern = f"*{file_suffix}.{format}" if file_suffix else f"*.{format}"
        found = sorted(glob.glob(os.path.join(sub, pattern)))
        if found:
            out[int(tail)] = found[-1]
    return out


def _stage_count(layout_map):
    if not layout_map:
        return 1
    stages = sorted({s for _, st in layout_map.values() for s in st})
    if stages != list(range(len(stages))):
        raise ValueError("The strategy file for pipeline parallel dose not contains all stages.")
    return len(stages)


def transform_checkpoints(src_checkpoints_dir, dst_checkpoints_dir, ckpt_prefix, src_strategy_file=None,
                          dst_strategy_file=None, process_num=1, output_format="ckpt"):
    """Re-cut a distributed checkpoint (``src/rank_<r>/*.ckpt``) for the destination strategy: writes
    ``dst/rank_<r>/<ckpt_prefix><r>.<output_format>`` for every destination rank.

    Args:
        src_checkpoints_dir (str): the source directory.
        dst_checkpoints_dir (str): the destination directory (made when missing).
        ckpt_prefix (str): the name prefix of the written files.
        src_strategy_file (str): the source strategy file (None: parameters whole on rank 0).
        dst_strategy_file (str): the destination strategy file (None: parameters whole, one rank).
        process_num (int): accepted for MindSpore's signature; the transform runs in this process. Default: 1.
        output_format (str): ``"ckpt"`` or ``"safetensors"``. Default: ``"ckpt"``.

    Raises:
        NotADirectoryError: `src_checkpoints_dir` is not a directory.
        TypeError: `ckpt_prefix` is not a str, or `process_num` not a positive int.
        ValueError: the directory holds no checkpoint or both formats, a needed rank's file is missing, or
            `output_format` is not ``"ckpt"``/``"safetensors"``.
    """
    api = "transform_checkpoints"
    if not isinstance(src_checkpoints_dir, str) or not os.path.isdir(src_checkpoints_dir):
        raise NotADirectoryError(f"src_checkpoints_dir {src_checkpoints_dir} is not a directory.")
    if not isinstance(ckpt_prefix, str):
        raise TypeError("The ckpt_prefix should be a str.")
    if isinstance(process_num, bool) or not isinstance(process_num, int) or process_num < 1:
        raise TypeError(f"For '{api}', the process_num should be a positive int, but got {process_num!r}.")
    if output_format not in ("ckpt", "safetensors"):
        raise ValueError(f"For '{api}', the output_format must be 'ckpt' or 'safetensors', but got {output_format}.")
    ckpts = _collect_files(src_checkpoints_dir, "ckpt", api)
    safes = _collect_files(src_checkpoints_dir, "safetensors", api)
    if ckpts and safes:
        raise ValueError(f"For '{api}', the 'src_checkpoints_dir' cannot contain both ckpt file and safetensors file "
                         f"simultaneously")
    files = ckpts or safes
    if not files:
        raise ValueError(f"For '{api}', the 'src_checkpoints_dir' can not be empty.")
    src_map, dst_map = SF.layout_map(src_strategy_file, api), SF.layout_map(dst_strategy_file, api)
    dst_ranks = _stage_devices(dst_map) * _stage_count(dst_map)
    os.makedirs(dst_checkpoints_dir, exist_ok=True)
    for rank in range(dst_ranks):
        values = _transform(rank, src_map, dst_map, files, api)
        directory = os.path.join(dst_checkpoints_dir, f"rank_{rank}")
        os.makedirs(directory, exist_ok=True)
        save_checkpoint(values, os.path.join(directory, f"{ckpt_prefix}{rank}.{output_format}"),
                        format=output_format)


# ---------------------------------------------------------------- merging one parameter
def _merge_uneven(arrays, name, rec):
    """Slices cut unevenly along dim 0 (`param_split_shape`: the dim-0 size of each piece, in piece order)."""
    dev = [int(d) for d in rec.dev_matrix[0].dim]
    split = [int(s) for s in rec.param_split_shape[0].dim]
    layout = SF.tensor_layout(rec, (0,) * arrays[0].ndim, f"parameter '{name}'")
    cuts = [layout.cuts(d) for d in range(arrays[0].ndim)]
    if len(split) != math.prod(cuts):
        raise ValueError(f"For 'merge_sliced_parameter', the param_split_shape length in 'strategy' should be "
                         f"{math.prod(cuts)}, but got {len(split)}.")
    pieces = {}
    mesh = DeviceMesh(tuple(dev))
    for rank, array in enumerate(arrays):
        index = [mesh.index_along(rank, axes)[0] for axes in layout.dims]
        flat = 0
        for i, c in zip(index, cuts):
            flat = flat * c + i
        if array.shape[0] != split[flat]:
            raise ValueError(f"For 'merge_sliced_parameter', the slice {flat} should be {split[flat]} in 0 axis, but "
                             f"got {array.shape[0]}.")
        pieces[tuple(index)] = array

    def join(prefix, d):
        if d == len(cuts):
            return pieces[tuple(prefix)]
        return np.concatenate([join(prefix + [i], d + 1) for i in range(cuts[d])], axis=d)

    return join([], 0)


def merge_sliced_parameter(sliced_parameters, strategy=None):
    """Merge the slices of one parameter (in rank order) into the whole parameter.

    Args:
        sliced_parameters (list[Parameter]): the slices, one per rank, all of one name.
        strategy (dict): parameter name -> its layout (`build_searched_strategy`'s values); None: the slices are
            joined along dim 0.

    Returns:
        Parameter: the whole parameter (name, requires_grad and layerwise_parallel of the first slice).

    Raises:
        TypeError: `sliced_parameters` is not a list of Parameters, or `strategy` not a dict.
        ValueError: empty, slices of different names or trailing shapes, or slices that do not fit the strategy.
        KeyError: the parameter's name is not in `strategy`.
    """
    if not isinstance(sliced_parameters, list):
        raise TypeError(f"For 'merge_sliced_parameter', the argument 'sliced_parameters' should be list, but got "
                        f"{type(sliced_parameters)}.")
    if not sliced_parameters:
        raise ValueError("For 'merge_sliced_parameter', the argument 'sliced_parameters' should not be empty.")
    if strategy and not isinstance(strategy, dict):
        raise TypeError(f"For 'merge_sliced_parameter', the argument 'strategy' should be dict, but got "
                        f"{type(strategy)}.")
    for index, p in enumerate(sliced_parameters):
        if not isinstance(p, Parameter):
            raise TypeError(f"For 'merge_sliced_parameter', the element in 'sliced_parameters' should be "
                            f"'Parameter', but got {type(p)} at index {index}.")
    first = sliced_parameters[0]
    name, shape = first.name, tuple(first.shape)
    even = True
    for index, p in enumerate(sliced_parameters):
        if p.name != name or len(p.shape) != len(shape) or tuple(p.shape[1:]) != shape[1:]:
            raise ValueError(f"For 'merge_sliced_parameter', please make sure that the elements in 'slice_parameters'"
                             f" have the same name, dimension length and shape except 0 axis. The name, dimension "
                             f"length, shape except 0 axis should be {name}, {len(shape)}, {shape[1:]}, but got name: "
                             f"{p.name}, dimension length: {len(p.shape)}, shape except 0 axis: {tuple(p.shape[1:])} "
                             f"at index {index}.")
        even = even and tuple(p.shape) == shape
    arrays = [_array(p) for p in sliced_parameters]
    if not strategy:
        merged = np.concatenate(arrays)
    else:
        if name not in strategy:
            raise KeyError(f"For 'merge_sliced_parameter', the parameter name {name} should be a key in the "
                           f"'strategy'. Please check 'sliced_parameter' and 'strategy'.")
        rec = strategy[name]
        devices = math.prod(int(d) for d in rec.dev_matrix[0].dim)
        if len(arrays) != devices:
            raise ValueError(f"For 'merge_sliced_parameter', the length of 'sliced_parameters' should be equal to "
                             f"device_count. The length of 'sliced_parameters' is {len(arrays)}, but device_count "
                             f"is {devices}.")
        if list(rec.param_split_shape[0].dim):
            merged = _merge_uneven(arrays, name, rec)
        else:
            if not even:
                raise ValueError("For 'merge_sliced_parameter', the shape of every parameter in 'sliced_parameters' "
                                 "should be the same when slice manner is even.")
            src, dst = _pair(name, rec, None, shape)
            merged = _piece(name, src, dst, 0, {q: arrays[q] for q in _needed(src, dst, 0)})
    return Parameter(_tensor(merged, first), name, first.requires_grad, first.layerwise_parallel)


# ---------------------------------------------------------------- loading into a network
def _predict_layouts(predict_strategy, api):
    """name -> (ParallelLayouts, optimizer-shard group or None) of `load_distributed_checkpoint`'s
    `predict_strategy`: a strategy file, or a dict name -> [dev_matrix, tensor_map, param_split_shape, field, ...,
    opt_shard_group]."""
    if predict_strategy is None:
        return None
    if isinstance(predict_strategy, str):
        return {n: (rec, None) for n, (rec, _) in SF.layout_map(predict_strategy, api).items()}
    if not isinstance(predict_strategy, dict):
        raise TypeError(f"For '{api}', the argument 'predict_strategy' should be a dict or a str, but got "
                        f"{type(predict_strategy)}.")
    out = {}
    for name, item in predict_strategy.items():
        if not isinstance(name, str) or not isinstance(item, (list, tuple)) or len(item) < 2:
            raise ValueError(f"For '{api}', the element of 'predict_strategy' should be a str key and a list of "
                             f"[dev_matrix, tensor_map, ...], but got {name!r}: {item!r}.")
        split = item[2] if len(item) > 2 else ()
        field = item[3] if len(item) > 3 else 0
        group = item[5] if len(item) > 5 and item[5] else None
        out[name] = (SF.ParallelLayouts(item[0], item[1], split, (), field), group)
    return out


def load_distributed_checkpoint(network, checkpoint_filenames=None, predict_strategy=None,
                                train_strategy_filename=None, strict_load=False, dec_key=None, dec_mode="AES-GCM",
                                format="ckpt", unified_safetensors_dir=None, dst_safetensors_dir=None, rank_id=None,
                                output_format="safetensors", name_map=None, max_process_num=64,
                                return_param_dict=False):
    """Load the slices a training run saved (one checkpoint per rank) into `network`, cut for this rank under
    `predict_strategy` (None: whole parameters).

    Args:
        network (Cell): the network to load into.
        checkpoint_filenames (list[str]): the training run's checkpoint files in rank order (``format="ckpt"``).
        predict_strategy (Union[dict, str]): name -> [dev_matrix, tensor_map, param_split_shape, field, ...,
            opt_shard_group], or a strategy file. Default: ``None``.
        train_strategy_filename (str): the training run's strategy file; default: the one an `AutoParallel` of
            `network` saves (`save_param_strategy_file`), else the context's
            ``strategy_ckpt_load_file``.
        strict_load (bool): see `load_param_into_net`. Default: ``False``.
        dec_key, dec_mode: decryption (not supported: `dec_key` must be None).
        format (str): ``"ckpt"`` (`checkpoint_filenames`) or ``"safetensors"`` (`unified_safetensors_dir`, the
            output of `unified_safetensors`). Default: ``"ckpt"``.
        unified_safetensors_dir (str): the directory of whole parameters (``format="safetensors"``).
        dst_safetensors_dir (str): with ``format="safetensors"`` and no network: write the slices of rank
            `rank_id` (every rank of `predict_strategy` when None) to ``dst/rank_<r>/checkpoint_<r>.<output_format>``.
        rank_id (int): the rank to cut for; default: this process's rank.
        output_format (str): the format written in the save mode. Default: ``"safetensors"``.
        name_map (dict): checkpoint name -> network name, applied before loading. Default: ``None``.
        max_process_num (int): accepted for MindSpore's signature. Default: 64.
        return_param_dict (bool): return the dict loaded instead of True. Default: ``False``.

    Returns:
        True, or the parameter dict when `return_param_dict`.

    Raises:
        TypeError: an argument of the wrong type.
        ValueError: the files do not match the training strategy, or the format's arguments are missing.
    """
    api = "load_distributed_checkpoint"
    if format not in ("ckpt", "safetensors") or output_format not in ("ckpt", "safetensors"):
        raise ValueError(f"For '{api}', 'format' and 'output_format' must be 'ckpt' or 'safetensors', but got "
                         f"{format} and {output_format}.")
    if dec_key is not None:
        raise ValueError(f"For '{api}', encrypted checkpoints ('dec_key') are not supported by mindseed.")
    if name_map is not None and not isinstance(name_map, dict):
        raise TypeError(f"For '{api}', the 'name_map' should be a dict, but got {type(name_map)}.")
    predict = _predict_layouts(predict_strategy, api)
    if format == "safetensors":
        return _load_unified(network, unified_safetensors_dir, predict, dst_safetensors_dir, rank_id, output_format,
                             name_map, return_param_dict, checkpoint_filenames, train_strategy_filename)
    if not isinstance(network, Cell):
        raise TypeError(f"For '{api}', the argument 'network' should be a Cell, but got {type(network)}.")
    if not isinstance(checkpoint_filenames, list) or not checkpoint_filenames or \
            any(not isinstance(f, str) or not os.path.isfile(f) for f in checkpoint_filenames):
        raise ValueError(f"For '{api}', the 'checkpoint_filenames' should be a non-empty list of existing files, "
                         f"but got {checkpoint_filenames!r}.")
    if train_strategy_filename is None:   # the file an AutoParallel saved, else the context's
        parallel_net = auto_parallel_cell(network)
        train_strategy_filename = (parallel_net._save_strategy_file_path if parallel_net is not None else
                                   get_auto_parallel_context("strategy_ckpt_load_file")) or None
    if train_strategy_filename is None:
        raise ValueError(f"For '{api}', the training strategy file is needed: give 'train_strategy_filename' or set "
                         f"'strategy_ckpt_load_file' in the auto-parallel context.")
    train = SF.layout_map(train_strategy_filename, api)
    devices = _stage_devices(train) * _stage_count(train)
    if devices != len(checkpoint_filenames):
        raise ValueError(f"For 'Load_distributed_checkpoint', the length of 'checkpoint_filenames' should be equal to "
                         f"the device count of training process. But got the length of 'checkpoint_filenames' is "
                         f"{len(checkpoint_filenames)} and the device count is {devices}.")
    rank = get_rank() if rank_id is None else rank_id
    files = dict(enumerate(checkpoint_filenames))
    dst_map = None if predict is None else {n: (rec, [0]) for n, (rec, _) in predict.items()}
    # the predict strategy is of one stage: this rank's place in it
    values = _transform(rank % _stage_devices(dst_map), train, dst_map, files, api)
    param_dict = {}
    for name, value in values.items():
        group = predict.get(name, (None, None))[1] if predict else None
        if group is not None and not isinstance(value, str):
            data = _array(value)
            size = get_group_size(group)
            if data.shape[0] % size:
                raise ValueError(f"For '{api}', the dim 0 ({data.shape[0]}) of parameter '{name}' cannot be split "
                                 f"over the {size} ranks of the optimizer shard group {group}.")
            value = _tensor(np.split(data, size)[get_rank(group)], value)
        key = name_map.get(name, name) if name_map else name
        param_dict[key] = value if isinstance(value, str) else Parameter(value, key)
    load_param_into_net(network, param_dict, strict_load=strict_load)
    return param_dict if return_param_dict else True


def _load_unified(network, directory, predict, dst_dir, rank_id, output_format, name_map, return_param_dict,
                  checkpoint_filenames, train_strategy_filename):
    api = "load_distributed_checkpoint"
    if directory is None:
        raise ValueError(f"For '{api}', 'unified_safetensors_dir' can not be None when format is 'safetensors'.")
    for arg in (checkpoint_filenames, train_strategy_filename):
        if arg is not None:
            raise ValueError(f"For '{api}', {arg} must be None when format is 'safetensors'.")
    whole = {}
    for path in sorted(glob.glob(os.path.join(directory, "*.safetensors"))):
        whole.update(load_checkpoint(path, format="safetensors"))
    if not whole:
        raise ValueError(f"For '{api}', the 'unified_safetensors_dir' {directory} holds no safetensors file.")

    def cut(rank):
        out = {}
        for name, value in whole.items():
            rec = predict.get(name, (None, None))[0] if predict else None
            if rec is not None:
                dst = _layout(rec, tuple(value.shape), name)
                value = _tensor(_array(value)[dst.box(rank % dst.mesh.size)], value)
            key = name_map.get(name, name) if name_map else name
            out[key] = Parameter(value, key)
        return out

    if network is not None:
        if not isinstance(network, Cell):
            raise TypeError(f"For '{api}', the argument 'network' should be a Cell, but got {type(network)}.")
        params = cut(get_rank() if rank_id is None else rank_id)
        load_param_into_net(network, params)
        return params if return_param_dict else True
    if dst_dir is None:
        raise ValueError(f"For '{api}', 'dst_safetensors_dir' can not be None when network is None.")
    ranks = [rank_id] if rank_id is not None else range(
        max((math.prod(int(d) for d in rec.dev_matrix[0].dim) for rec, _ in (predict or {}).values()), default=1))
    for rank in ranks:
        sub = os.path.join(dst_dir, f"rank_{rank}")
        os.makedirs(sub, exist_ok=True)
        save_checkpoint(cut(rank), os.path.join(sub, f"checkpoint_{rank}.{output_format}"), format=output_format)
    return True


def load_segmented_checkpoints(ckpt_file_dir, net=None, strict_load=False, filter_prefix=None, dec_key=None,
                               dec_mode="AES-GCM", specify_prefix=None, choice_func=None):
    """Load every ``*.ckpt`` file of `ckpt_file_dir` (a model saved in segments) into one dict, and into `net`.

    Raises:
        TypeError: `ckpt_file_dir` is not a str.
        ValueError: it is not a directory, or a file is not a valid checkpoint.
    """
    if not isinstance(ckpt_file_dir, str):
        raise TypeError("The ckpt_file_dir should be a str.")
    if not os.path.isdir(ckpt_file_dir):
        raise ValueError(f"The dst_strategy_file: {ckpt_file_dir} doesn't exist. Or it's not a directory")
    parameter_dict = {}
    for path in sorted(glob.glob(os.path.join(ckpt_file_dir, "*.ckpt"))):
        parameter_dict.update(load_checkpoint(path, net, strict_load, filter_prefix, dec_key, dec_mode,
                                              specify_prefix, choice_func))
    return parameter_dict


# ---------------------------------------------------------------- whole parameters as safetensors
def unified_safetensors(src_dir, src_strategy_file, dst_dir, merge_with_redundancy=True, file_suffix=None,
                        max_process_num=64, choice_func=None, split_dst_file=()):
    """Merge the per-rank safetensors of a run (``src_dir/rank_<r>/*.safetensors``) into whole parameters:
    ``dst_dir/part<i>.safetensors`` (at most about 3 GB each), ``param_name_map.json`` (name -> file) and
    ``hyper_param.safetensors`` (values outside the strategy).

    Args:
        src_dir (str): the directory of rank directories.
        src_strategy_file (str): the run's strategy file.
        dst_dir (str): where to write (made when missing).
        merge_with_redundancy (bool): the files hold every slice (False: a slice may be in one rank's file only;
            either way each piece is read from a rank whose file has it). Default: ``True``.
        file_suffix (str): merge only ``*<file_suffix>.safetensors``. Default: ``None``.
        max_process_num (int): accepted for MindSpore's signature. Default: 64.
        choice_func (Callable[[str], Union[bool, str]]): False drops a parameter, a str renames it. Default: None.
        split_dst_file (tuple): (i, n): write only the i-th (from 1) of n shares of the part files. Default: ``()``.

    Raises:
        ValueError: `src_dir` is a file or holds no safetensors, a needed rank is missing, or a bad `split_dst_file`.
    """
    api = "unified_safetensors"
    if not isinstance(src_dir, str) or os.path.isfile(src_dir):
        raise ValueError(f"For '{api}', the 'src_dir' can not be a file.")
    if split_dst_file and (len(split_dst_file) != 2 or not 1 <= split_dst_file[0] <= split_dst_file[1]):
        raise ValueError(f"For '{api}', the 'split_dst_file' should be (current, total) with 1 <= current <= total, "
                         f"but got {split_dst_file}.")
    files = _collect_files(src_dir, "safetensors", api, file_suffix)
    if _collect_files(src_dir, "ckpt", api, file_suffix) and files:
        raise ValueError(f"For '{api}', the 'src_dir' cannot contain both ckpt file and safetensors file "
                         f"simultaneously")
    if not files:
        raise ValueError(f"For '{api}', the 'src_dir' {src_dir} holds no rank_<r>/*.safetensors file.")
    src_map = SF.layout_map(src_strategy_file, api)
    values = _transform(0, src_map, None, files, api)
    os.makedirs(dst_dir, exist_ok=True)
    hyper = {n: v for n, v in values.items() if n not in src_map}
    params = {}
    for name, value in values.items():
        if name in hyper or name.startswith("accu_grads"):
            continue
        choice = choice_func(name) if choice_func is not None else True
        if choice is False:
            continue
        params[choice if isinstance(choice, str) else name] = value
    sizes = {n: v.nbytes for n, v in params.items()}
    parts = max(1, min(len(params), math.ceil(sum(sizes.values()) / (3 << 30))))
    split = [[] for _ in range(parts)]
    for name in sorted(params, key=lambda n: -sizes[n]):  # largest first, into the lightest part
        min(split, key=lambda part: sum(sizes[n] for n in part)).append(name)
    share = range(parts)
    if split_dst_file:
        i, n = split_dst_file
        per, extra = divmod(parts, n)
        start = per * (i - 1) + min(i - 1, extra)
        share = range(start, start + per + (1 if i <= extra else 0))
    if not split_dst_file or split_dst_file[0] == 1:
        if hyper:
            save_checkpoint(hyper, os.path.join(dst_dir, "hyper_param.safetensors"), format="safetensors")
        content = {"metadata": {"total_size": sum(sizes.values())},
                   "weight_map": {n: f"part{i}.safetensors" for i, part in enumerate(split) for n in part}}
        with open(os.path.join(dst_dir, "param_name_map.json"), "w") as f:
            json.dump(content, f, indent=4)
    for i in share:
        save_checkpoint({n: params[n] for n in split[i]}, os.path.join(dst_dir, f"part{i}.safetensors"),
                        format="safetensors")


def get_ckpt_path_with_strategy(cur_ckpt_path, cur_strategy_path):
    """A checkpoint file this rank can restore from: `cur_ckpt_path` when it exists, else the same path with
    ``rank_<r>`` naming another rank that holds the same slice of every parameter (by the strategy file); None
    when there is none.

    Raises:
        TypeError: an argument is not a str.
    """
    api = "get_ckpt_path_with_strategy"
    for arg, value in (("cur_ckpt_path", cur_ckpt_path), ("cur_strategy_path", cur_strategy_path)):
        if not isinstance(value, str):
            raise TypeError(f"For '{api}', the argument '{arg}' should be a str, but got {type(value)}.")
    rank = get_rank()
    if f"rank_{rank}" in cur_ckpt_path and os.path.isfile(cur_ckpt_path):
        return cur_ckpt_path
    layouts = SF.layout_map(cur_strategy_path, api)
    stage_dev = _stage_devices(layouts)
    base, local = rank - rank % stage_dev, rank % stage_dev
    same = set(range(stage_dev))
    for name, (rec, _) in layouts.items():
        if name.startswith(("accu_grads", "inputs")):
            continue
        layout, _ = _pair(name, rec, rec)
        mine = _key(layout.box(local))
        same &= {q for q in range(layout.mesh.size) if _key(layout.box(q)) == mine}
    for q in sorted(same, key=lambda q: (q != local, q)):
        path = re.sub(r"rank_\d+", f"rank_{base + q}", cur_ckpt_path)
        if os.path.isfile(path):
            return path
    return None


def rank_list_for_convert(rank_id, src_strategy_file=None, dst_strategy_file=None):
    """MindSpore's earlier name of `rank_list_for_transform`."""
    return rank_list_for_transform(rank_id, src_strategy_file, dst_strategy_file)


def convert_checkpoint_by_rank(rank_id, checkpoint_files_map, save_checkpoint_file_name, src_strategy_file=None,
                               dst_strategy_file=None):
    """MindSpore's earlier name of `transform_checkpoint_by_rank`."""
    transform_checkpoint_by_rank(rank_id, checkpoint_files_map, save_checkpoint_file_name, src_strategy_file,
                                 dst_strategy_file)


def convert_checkpoints(src_checkpoints_dir, dst_checkpoints_dir, ckpt_prefix, src_strategy_file=None,
                        dst_strategy_file=None):
    """MindSpore's earlier name of `transform_checkpoints`."""
    transform_checkpoints(src_checkpoints_dir, dst_checkpoints_dir, ckpt_prefix, src_strategy_file,
                          dst_strategy_file)
