"""MindSpore's strategy checkpoint files: the layout of every parameter of a sharded network, as protobuf or JSON.

`set_auto_parallel_context(strategy_ckpt_save_file=path)` makes a sharded run write one (a name ending in
``.json`` gives JSON, any other a protobuf `ParallelStrategyMap`); `build_searched_strategy` reads it back, and the
checkpoint transforms (`checkpoint_transform`) use it to tell which part of a parameter each rank's checkpoint holds.

The protobuf messages (MindSpore's node_strategy.proto, proto2, repeated scalars unpacked)::

    ParallelStrategyMap  { current_stage = 1; repeated ParallelStrategyItem parallel_strategy_item = 2;
                           repeated ParallelLayoutItem parallel_layout_item = 3; }
    ParallelStrategyItem { node_name = 1; ParallelStrategys parallel_strategys = 2; }
    ParallelStrategys    { stage = 1; repeated ParallelStrategy parallel_strategy = 2; }   ParallelStrategy { dim = 1 }
    ParallelLayoutItem   { param_name = 1; ParallelLayouts parallel_layouts = 2; }
    ParallelLayouts      { repeated DevMatrix dev_matrix = 1; repeated TensorMap tensor_map = 2;
                           repeated ParamSplitShape param_split_shape = 3; repeated IndicesOffset indices_offset = 4;
                           field = 5; opt_weight_shard_step = 6; opt_weight_shard_size = 7; }
    ParallelGroupMap     { repeated ParallelGroupItem parallel_group_item = 1;
                           ParallelGroupRanks ckpt_restore_rank_list = 2; }
    ParallelGroupItem    { group_name = 1; ParallelGroupRanks parallel_group_ranks = 2; }

A parameter's layout is MindSpore's pair (device matrix, tensor map): the tensor map gives per tensor dim the
device-matrix axis cutting it counted from the right (-1: not cut). With the parallel optimizer, dim 0 is further
cut over `opt_weight_shard_size` of the repeated axes (innermost first, an axis split when only part of it is
needed), minor to its model-parallel cut.
"""
import glob
import json
import math
import os

from mindseed._utils._files import atomic_write
from mindseed.parallel._layout import DeviceMesh, TensorLayout, optimizer_shard_dims
from mindseed.train import _wire as W

__all__ = ["ParallelLayouts", "build_searched_strategy", "merge_pipeline_strategys", "restore_group_info_list",
           "write_strategy_file", "write_group_info_file", "record_of", "tensor_layout", "layout_map"]


class _Dims:
    """One repeated-int message (`DevMatrix`, `TensorMap`, ...): its values in `dim`."""

    __slots__ = ("dim",)

    def __init__(self, dim=()):
        self.dim = list(dim)

    def __repr__(self):
        return f"dim: {self.dim}"


class ParallelLayouts:
    """The layout of one parameter as `build_searched_strategy` returns it, shaped like MindSpore's protobuf
    message: ``layout.dev_matrix[0].dim``, ``layout.tensor_map[0].dim``, ``layout.param_split_shape[0].dim``,
    ``layout.field``, ``layout.opt_weight_shard_step``, ``layout.opt_weight_shard_size``."""

    def __init__(self, dev_matrix, tensor_map, param_split_shape=(), indices_offset=(), field=0,
                 opt_weight_shard_step=0, opt_weight_shard_size=0):
        self.dev_matrix = [_Dims(dev_matrix)]
        self.tensor_map = [_Dims(tensor_map)]
        self.param_split_shape = [_Dims(param_split_shape)]
        self.indices_offset = [_Dims(indices_offset)]
        self.field = int(field)
        self.opt_weight_shard_step = int(opt_weight_shard_step)
        self.opt_weight_shard_size = int(opt_weight_shard_size)

    def __eq__(self, other):
        return isinstance(other, ParallelLayouts) and self._key() == other._key()

    def _key(self):
        return (self.dev_matrix[0].dim, self.tensor_map[0].dim, self.param_split_shape[0].dim, self.field,
                self.opt_weight_shard_step, self.opt_weight_shard_size)

    def __repr__(self):
        return (f"ParallelLayouts(dev_matrix={self.dev_matrix[0].dim}, tensor_map={self.tensor_map[0].dim}, "
                f"param_split_shape={self.param_split_shape[0].dim}, field={self.field}, "
                f"opt_weight_shard_step={self.opt_weight_shard_step}, "
                f"opt_weight_shard_size={self.opt_weight_shard_size})")


# ---------------------------------------------------------------- TensorLayout <-> (dev_matrix, tensor_map)
def record_of(layout, name="the parameter"):
    """The `ParallelLayouts` of a parameter's `TensorLayout`: its mesh as the device matrix, each dim's axes as a
    tensor-map entry (several axes cutting one dim merge into one device-matrix axis when they are neighbours).

    Raises:
        ValueError: a partial-sum layout, or a dim cut by mesh axes that are not neighbours in order.
    """
    if layout.partial:
        raise ValueError(f"For the strategy file, {name} holds partial sums ({layout}); a parameter's layout must "
                         f"not.")
    groups, owner = [], {}
    for d, axes in enumerate(layout.dims):
        if len(axes) > 1 and list(axes) != list(range(axes[0], axes[0] + len(axes))):
            raise ValueError(f"For the strategy file, dim {d} of {name} is cut by the device-matrix axes {axes}, "
                             f"which are not neighbours in order: MindSpore's tensor map cannot hold it.")
        for a in axes:
            owner[a] = d
    a = 0
    while a < len(layout.mesh.shape):
        run = [a]
        d = owner.get(a)
        while d is not None and a + 1 < len(layout.mesh.shape) and owner.get(a + 1) == d:
            a += 1
            run.append(a)
        groups.append(run)
        a += 1
    dev_matrix = [math.prod(layout.mesh.shape[i] for i in g) for g in groups]
    tensor_map = []
    for axes in layout.dims:
        if not axes:
            tensor_map.append(-1)
        else:
            g = next(i for i, run in enumerate(groups) if axes[0] in run)
            tensor_map.append(len(groups) - 1 - g)
    return ParallelLayouts(dev_matrix, tensor_map)


def tensor_layout(record, shape, name="the parameter"):
    """The `TensorLayout` of a `ParallelLayouts` for a tensor of the global `shape`.

    Raises:
        ValueError: a tensor map of another length than the shape, an entry out of the device matrix, or
            cuts that do not divide the shape.
    """
    dev = [int(x) for x in record.dev_matrix[0].dim] or [1]
    tmap = list(record.tensor_map[0].dim)
    if len(tmap) != len(shape):
        raise ValueError(f"For the strategy file, the tensor map {tmap} of {name} has {len(tmap)} entries, but its "
                         f"shape {tuple(shape)} has {len(shape)} dims.")
    last = len(dev) - 1
    dims = []
    for entry in tmap:
        entry = list(entry) if isinstance(entry, (list, tuple)) else [entry]
        if any(not -1 <= e <= last for e in entry):
            raise ValueError(f"For the strategy file, the tensor map {tmap} of {name} is out of its device matrix "
                             f"{dev}.")
        dims.append(tuple(last - e for e in entry if e != -1))
    mesh_shape = tuple(dev)
    if record.opt_weight_shard_size and record.opt_weight_shard_step and shape:
        mesh_shape, dims = optimizer_shard_dims(mesh_shape, dims, record.opt_weight_shard_size, name)
    return TensorLayout(DeviceMesh(mesh_shape, tuple(f"d{i}" for i in range(len(mesh_shape)))), tuple(shape), dims)


# ---------------------------------------------------------------- writing
def _ints(field, values):
    return b"".join(W.f_varint(field, int(v)) for v in values)


def _layouts_message(rec):
    out = W.f_bytes(1, _ints(1, rec.dev_matrix[0].dim))
    if any(isinstance(e, (list, tuple)) for e in rec.tensor_map[0].dim):
        raise ValueError(f"For the strategy file, the tensor map {rec.tensor_map[0].dim} cuts a dim over several "
                         f"axes: only a '.json' strategy file can hold it.")
    out += W.f_bytes(2, _ints(1, rec.tensor_map[0].dim))
    out += W.f_bytes(3, _ints(1, rec.param_split_shape[0].dim))
    out += W.f_bytes(4, _ints(1, rec.indices_offset[0].dim))
    return out + W.f_varint(5, rec.field) + W.f_varint(6, rec.opt_weight_shard_step) + \
        W.f_varint(7, rec.opt_weight_shard_size)


def write_strategy_file(path, params, operators=(), stage=0):
    """Write MindSpore's strategy file: `params` maps a parameter name to its `TensorLayout` or `ParallelLayouts`;
    `operators` are (node name, strategy tuples) of the sharded operators; `stage` the pipeline stage."""
    records = {n: (r if isinstance(r, ParallelLayouts) else record_of(r, f"parameter '{n}'")) for n, r in
               params.items()}
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    if path.endswith(".json"):
        content = {"current_stage": stage,
                   "parallel_strategy_item": {n: {"stage": stage, "parallel_strategy": [list(s) for s in strategy]}
                                              for n, strategy in operators},
                   "parallel_layout_item": {n: {"dev_matrix": r.dev_matrix[0].dim, "tensor_map": r.tensor_map[0].dim,
                                                "param_split_shape": r.param_split_shape[0].dim,
                                                "indices_offset": r.indices_offset[0].dim, "field": r.field,
                                                "opt_weight_shard_step": r.opt_weight_shard_step,
                                                "opt_weight_shard_size": r.opt_weight_shard_size}
                                            for n, r in records.items()}}
        atomic_write(path, json.dumps(content, indent=1))
        return
    body = W.f_varint(1, stage)
    for node, strategy in operators:
        strategys = W.f_varint(1, stage) + b"".join(W.f_bytes(2, _ints(1, s)) for s in strategy)
        body += W.f_bytes(2, W.f_bytes(1, node) + W.f_bytes(2, strategys))
    for n, r in records.items():
        body += W.f_bytes(3, W.f_bytes(1, n) + W.f_bytes(2, _layouts_message(r)))
    atomic_write(path, body)


def write_group_info_file(path, groups, restore_ranks):
    """Write MindSpore's group information file: `groups` maps a communication group's name to its ranks;
    `restore_ranks` are the ranks whose checkpoints restore this rank."""
    body = b"".join(W.f_bytes(1, W.f_bytes(1, n) + W.f_bytes(2, _ints(1, ranks))) for n, ranks in groups.items())
    atomic_write(path, body + W.f_bytes(2, _ints(1, restore_ranks)))


# ---------------------------------------------------------------- reading
def _read_ints(buf, span, signed=False):
    out = []
    for field, wt, value in W.fields(buf, *span):
        if field != 1:
            continue
        vals = W.packed_varints(buf, value) if wt == W.LEN else [value]
        out.extend(W.as_int64(v) if signed else v for v in vals)
    return out


def _read_layouts(buf, span):
    parts = {1: [], 2: [], 3: [], 4: []}
    scalars = {5: 0, 6: 0, 7: 0}
    for field, wt, value in W.fields(buf, *span):
        if field in parts and wt == W.LEN:
            parts[field].append(_read_ints(buf, value, signed=field != 1))
        elif field in scalars and wt == W.VARINT:
            scalars[field] = W.as_int64(value)
    first = {k: (v[0] if v else []) for k, v in parts.items()}
    return ParallelLayouts(first[1], first[2], first[3], first[4], scalars[5], scalars[6], scalars[7])


def _check_file(path, api):
    if not isinstance(path, str):
        raise TypeError(f"For '{api}', the argument 'strategy_filename' should be string, but got {type(path)}.")
    if not os.path.isfile(path):
        raise ValueError(f"For '{api}', no such strategy file: {path}. Please check whether the "
                         f"'strategy_filename' exists.")
    if os.path.getsize(path) == 0:
        raise ValueError(f"For '{api}', the strategy file {path} should not be empty. Please check whether the "
                         f"'strategy_filename' is correct.")


def read_strategy_file(path, api="build_searched_strategy"):
    """(layouts: name -> ParallelLayouts, operators: [(node name, stage, strategy)], current stage) of a file."""
    _check_file(path, api)
    if path.endswith(".json"):
        try:
            with open(path) as f:
                content = json.load(f)
            layouts = {n: ParallelLayouts(item["dev_matrix"], item["tensor_map"], item.get("param_split_shape", ()),
                                          item.get("indices_offset", ()), item.get("field", 0),
                                          item.get("opt_weight_shard_step", 0), item.get("opt_weight_shard_size", 0))
                       for n, item in (content.get("parallel_layout_item") or {}).items()}
            ops = [(n, item.get("stage", 0), item.get("parallel_strategy", []))
                   for n, item in (content.get("parallel_strategy_item") or {}).items()]
            stage = content.get("current_stage", 0)
        except (ValueError, KeyError, TypeError, AttributeError) as e:
            raise ValueError(f"For '{api}', the strategy file {path} is not a valid JSON strategy file: {e}.") from e
        return layouts, ops, stage
    with open(path, "rb") as f:
        buf = f.read()
    layouts, ops, stage = {}, [], 0
    try:
        for field, wt, value in W.fields(buf):
            if field == 1 and wt == W.VARINT:
                stage = value
            elif field == 2 and wt == W.LEN:
                node, item_stage, strategy = "", 0, []
                for f2, wt2, v2 in W.fields(buf, *value):
                    if f2 == 1 and wt2 == W.LEN:
                        node = bytes(buf[v2[0]:v2[1]]).decode("utf-8")
                    elif f2 == 2 and wt2 == W.LEN:
                        for f3, wt3, v3 in W.fields(buf, *v2):
                            if f3 == 1 and wt3 == W.VARINT:
                                item_stage = v3
                            elif f3 == 2 and wt3 == W.LEN:
                                strategy.append(_read_ints(buf, v3))
                ops.append((node, item_stage, strategy))
            elif field == 3 and wt == W.LEN:
                name, layout = None, None
                for f2, wt2, v2 in W.fields(buf, *value):
                    if f2 == 1 and wt2 == W.LEN:
                        name = bytes(buf[v2[0]:v2[1]]).decode("utf-8")
                    elif f2 == 2 and wt2 == W.LEN:
                        layout = _read_layouts(buf, v2)
                if name is None or layout is None:
                    raise W.DecodeError("a layout item without a name or a layout")
                layouts[name] = layout
    except (W.DecodeError, UnicodeDecodeError) as e:
        raise TypeError(f"For '{api}', the strategy file {path} cannot be parsed ({e}): the strategy file type "
                        f"should be one of json or protobuf. When the file name extension is not '.json', the "
                        f"file is considered as a protobuf file.") from e
    return layouts, ops, stage


def build_searched_strategy(strategy_filename):
    """The layout of every parameter in a strategy file, for distributed inference and checkpoint transforms.

    Args:
        strategy_filename (str): a strategy file written under `strategy_ckpt_save_file` (protobuf, or JSON when
            the name ends in ``.json``).

    Returns:
        dict: parameter name -> `ParallelLayouts` (``layout.dev_matrix[0].dim``, ``layout.tensor_map[0].dim``, ...).

    Raises:
        TypeError: `strategy_filename` is not a str, or the file is not a strategy file.
        ValueError: the file does not exist, is empty or holds no parameter.
    """
    layouts, _, _ = read_strategy_file(strategy_filename)
    if not layouts:
        raise ValueError(f"For 'build_searched_strategy', the strategy file {strategy_filename} has no sliced "
                         f"parameter, please check whether the 'strategy_filename' is correct.")
    return layouts


def layout_map(strategy_file, api):
    """{parameter name: (ParallelLayouts, [pipeline stages])} of a file, None for no file. A merged pipeline
    file names parameters ``"<stage>-<name>"``; a parameter in several stages keeps the lowest stage's layout."""
    if strategy_file is None:
        return None
    if not isinstance(strategy_file, str):
        raise TypeError(f"For '{api}', the strategy file should be a str, but got {type(strategy_file)}.")
    layouts, _, _ = read_strategy_file(strategy_file, api)
    if not layouts:
        raise ValueError(f"For '{api}', the strategy file {strategy_file} has no sliced parameter.")
    out = {}
    for key, rec in layouts.items():
        prefix, _, rest = key.partition("-")
        stage, name = (int(prefix), rest) if rest and prefix.isdigit() else (0, key)
        if name in out:
            old, stages = out[name]
            out[name] = (rec if stage < min(stages) else old, sorted(stages + [stage]))
        else:
            out[name] = (rec, [stage])
    return out


def merge_pipeline_strategys(src_strategy_dirs, dst_strategy_file):
    """Merge the strategy files of all pipeline stages (``*.ckpt`` or ``*.json`` in `src_strategy_dirs`) into one:
    each parameter is named ``"<stage>-<name>"``, one stage per file (the first file of a stage wins).

    Raises:
        NotADirectoryError: `src_strategy_dirs` is not a directory.
        ValueError: the directory mixes protobuf and JSON files, holds none, or a file has no strategy.
    """
    if not isinstance(src_strategy_dirs, str) or not os.path.isdir(src_strategy_dirs):
        raise NotADirectoryError(f"src_strategy_dirs {src_strategy_dirs} is not a directory.")
    proto = sorted(glob.glob(os.path.join(src_strategy_dirs, "*.ckpt")))
    js = sorted(glob.glob(os.path.join(src_strategy_dirs, "*.json")))
    if proto and js:
        raise ValueError("The strategys format should be all '.ckpt' or all '.json'")
    if not proto and not js:
        raise ValueError(f"For 'merge_pipeline_strategys', the directory {src_strategy_dirs} holds no strategy "
                         f"file ('*.ckpt' or '*.json').")
    params, operators, seen = {}, [], set()
    for path in proto or js:
        layouts, ops, _ = read_strategy_file(path, "merge_pipeline_strategys")
        if not layouts or not ops:
            raise ValueError(f"The strategy file {path} is empty")
        stage = ops[0][1]
        if stage in seen:
            continue
        seen.add(stage)
        params.update({f"{stage}-{n}": r for n, r in layouts.items()})
        operators.extend((n, s) for n, _, s in ops)
    directory = os.path.dirname(os.path.abspath(dst_strategy_file))
    os.makedirs(directory, exist_ok=True)
    write_strategy_file(dst_strategy_file, params, operators, stage=1)


def restore_group_info_list(group_info_file_name):
    """The ranks whose checkpoints restore this rank, from a group information file.

    Raises:
        TypeError: `group_info_file_name` is not a str.
        ValueError: the file does not exist, is empty, is not a group information file or has no restore list.
    """
    if not isinstance(group_info_file_name, str):
        raise TypeError(f"For 'restore_group_info_list', the argument 'group_info_file_name' should be str, but got "
                        f"{type(group_info_file_name)}.")
    if not os.path.isfile(group_info_file_name):
        raise ValueError(f"For 'restore_group_info_list', no such group information file: {group_info_file_name}.")
    if os.path.getsize(group_info_file_name) == 0:
        raise ValueError("For 'restore_group_info_list', the group information file should not be empty.")
    with open(group_info_file_name, "rb") as f:
        buf = f.read()
    ranks = None
    try:
        for field, wt, value in W.fields(buf):
            if field == 2 and wt == W.LEN:
                ranks = _read_ints(buf, value)
    except W.DecodeError as e:
        raise ValueError(f"For 'restore_group_info_list', the file {group_info_file_name} is not a group "
                         f"information file: {e}.") from e
    if not ranks:
        raise ValueError("For 'restore_group_info_list', the group information file has no restore rank list.")
    return ranks
