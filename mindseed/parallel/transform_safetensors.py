"""MindSpore's `mindspore.parallel.transform_safetensors`: distributed safetensors checkpoints re-cut for another
strategy (`transform_safetensors_by_rank`) or merged whole (`unified_safetensors`), by `checkpoint_transform`'s
machinery (the same as for ``.ckpt`` files)."""
import glob
import os

from mindseed.parallel import _strategy_file as SF
from mindseed.parallel.checkpoint_transform import _check_rank, _stage_devices, _transform, unified_safetensors
from mindseed.train.serialization import save_checkpoint

__all__ = ["transform_safetensors_by_stage", "transform_safetensors_by_rank", "unified_safetensors"]


def transform_safetensors_by_rank(rank_id, safetensor_files_map, save_safetensor_file_name, src_strategy_file=None,
                                  dst_strategy_file=None):
    """Write rank `rank_id`'s safetensors checkpoint under the destination strategy from the source ranks' files.

    Args:
        rank_id (int): the destination rank.
        safetensor_files_map (dict): source rank -> its ``.safetensors`` file (at least those
            `rank_list_for_transform` names).
        save_safetensor_file_name (str): the file to write; must end with ``.safetensors``.
        src_strategy_file (str): the source strategy file (None: parameters whole).
        dst_strategy_file (str): the destination strategy file (None: parameters whole).

    Raises:
        TypeError: a map that is not a dict, a rank that is not an int, a name that is not a str.
        ValueError: a name without ``.safetensors``, a missing directory or file, slices that do not fit.
    """
    api = "transform_safetensors_by_rank"
    if not isinstance(safetensor_files_map, dict):
        raise TypeError("The safetensor_files_map should be a dict.")
    if isinstance(rank_id, bool) or not isinstance(rank_id, int):
        raise TypeError("The rank_id should be a int.")
    if not isinstance(save_safetensor_file_name, str):
        raise TypeError("The save_safetensor_file_name should be a str.")
    save_safetensor_file_name = os.path.abspath(save_safetensor_file_name)
    if not save_safetensor_file_name.endswith(".safetensors"):
        raise ValueError(f"The save_safetensor_file_name {save_safetensor_file_name} should end with .safetensors")
    if dst_strategy_file and os.path.dirname(dst_strategy_file) and \
            not os.path.exists(os.path.dirname(dst_strategy_file)):
        raise ValueError(f"The director of dst_strategy_file: {os.path.dirname(dst_strategy_file)} is not exists.")
    for rank, local_file in safetensor_files_map.items():
        if not os.path.exists(local_file):
            raise ValueError(f"safetensor file {local_file} in rank {rank} not exits: ")
    _check_rank(rank_id, api)
    src_map, dst_map = SF.layout_map(src_strategy_file, api), SF.layout_map(dst_strategy_file, api)
    save_checkpoint(_transform(rank_id, src_map, dst_map, safetensor_files_map, api), save_safetensor_file_name,
                    format="safetensors")


def transform_safetensors_by_stage(src_safetensors_dir, dst_safetensors_dir, ckpt_prefix, src_strategy_file,
                                   dst_strategy_file=None):
    """Re-cut one pipeline stage's safetensors checkpoints for the destination strategy.

    The stage is the source strategy file's (a stage's own file: the stage of its operators); its ranks' files are
    ``src_safetensors_dir/rank_<stage * devices + i>/*.safetensors`` (the last name in order when a rank has
    several). Each rank i of the destination stage gets ``dst_safetensors_dir/rank_<i>/<ckpt_prefix><i>_part<stage>
    .safetensors`` with its slices of the stage's parameters (whole ones without `dst_strategy_file`).

    Raises:
        ValueError: a source strategy file without operators, a missing rank file, an unsafe `ckpt_prefix`.
    """
    api = "transform_safetensors_by_stage"
    _, operators, _ = SF.read_strategy_file(src_strategy_file, api)
    if not operators:
        raise ValueError(f"The strategy file {src_strategy_file} if empty.")
    stage = operators[0][1]
    src_map, dst_map = SF.layout_map(src_strategy_file, api), SF.layout_map(dst_strategy_file, api)
    if dst_map is not None:   # the destination's parameters of this stage only
        dst_map = {name: rec for name, rec in dst_map.items() if name in src_map}
    src_dev = _stage_devices(src_map)
    dst_dev = _stage_devices(dst_map) if dst_map else 1
    files = {}
    for local in range(src_dev):   # the stage's ranks, numbered from 0 in it
        found = sorted(glob.glob(os.path.join(src_safetensors_dir, f"rank_{stage * src_dev + local}",
                                              "*.safetensors")))
        if found:
            files[local] = found[-1]
    prefix = os.path.basename(ckpt_prefix)
    if ".." in prefix or "/" in prefix or "\\" in prefix:
        raise ValueError(f"Invalid ckpt_prefix: {prefix}. Must not contain path traversal characters.")
    for local in range(dst_dev):
        directory = os.path.join(dst_safetensors_dir, f"rank_{local}")
        os.makedirs(directory, exist_ok=True)
        save_checkpoint(_transform(local, src_map, dst_map, files, api),
                        os.path.join(directory, f"{prefix}{local}_part{stage}.safetensors"), format="safetensors")
