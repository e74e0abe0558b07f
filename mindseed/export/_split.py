"""`export_split_mindir`: a MindIR model cut into one model per device for tensor-parallel inference.

MindSpore 2.10 (`SplitDynamicMindIR` in pipeline.cc) loads the file, and for every rank of `device_num` plans
the sharding, writes ``split_net<rank>.mindir`` into the working directory and returns the loaded graph. The
plan here is the row-parallel split: every MatMul whose second input is a 2-D weight with a contraction dim
divisible by `device_num` keeps rank r's 1/device_num of that dim; the rank slices its activations to match
(`StridedSlice`) and the partial products are summed over the world group (`AllReduce`, the group MindSpore
names ``hccl_world_group``). Everything else is replicated, so on every rank the outputs of the
``device_num`` split models run together equal the outputs of the whole model.
"""
import copy
import os

import numpy as np

from mindseed._utils._files import atomic_write
from mindseed.export import _schema as S
from mindseed.export._mindir_format import decode, encode, tensor_from_proto, tensor_proto
from mindseed.export._mindir_load import load_func_graph, read_model

_REF = "REF::"
WORLD_GROUP = "hccl_world_group"


class _Edit:
    """Adds primitives, constants and nodes to one copy of a ModelProto."""

    def __init__(self, model):
        self.model = model
        self.graph = model.graph
        self.names = {n.output[0] for n in self.graph.node if n.output} | {p.name for p in model.primitives}
        self.consts = {}

    def fresh(self, hint):
        i = len(self.names)
        while f"{hint}_split{i}" in self.names:
            i += 1
        self.names.add(f"{hint}_split{i}")
        return f"{hint}_split{i}"

    def prim(self, op, kind, attrs=None):
        name = self.fresh(op)
        p = self.model.primitives.add(name=name, op_type=op, instance_name="", prim_type=S.PRIM_TYPES[kind])
        for k, v in (attrs or {}).items():
            encode(p.attribute.add(name=k), v)
        return name

    def const(self, value):
        key = (type(value).__name__, repr(value))
        if key not in self.consts:
            name = self.consts[key] = self.fresh("ValueNode")
            node = self.graph.node.add(output=[name], name=name, op_type="Constant")
            encode(node.attribute.add(name="value"), value)
        return self.consts[key]

    def node(self, op_ref, inputs):
        name = self.fresh(f"{self.graph.name}:{op_ref.split('_split')[0]}")
        node = S.NodeProto(input=inputs, output=[name], name=name, op_type=_REF + op_ref)
        return name, node


def _constant_values(model):
    values = {}
    for g in [model.graph, *model.functions]:
        for n in g.node:
            if n.op_type == "Constant" and len(n.attribute) == 1:
                values[n.output[0]] = decode(n.attribute[0], f"node '{n.name}'")
    return values


def _row_split_matmuls(model, device_num):
    """[(node index, weight parameter, contraction axis of the weight, transpose_a)] of the main graph's MatMuls
    the row-parallel split applies to."""
    prims = {p.name: p.op_type for p in model.primitives}
    params = {p.name: p for p in model.graph.parameter}
    consts = _constant_values(model)
    found = []
    for i, n in enumerate(model.graph.node):
        if not n.op_type.startswith(_REF) or prims.get(n.op_type[len(_REF):]) != "MatMul" or len(n.input) != 4:
            continue
        weight = params.get(n.input[1])
        if weight is None or len(weight.dims) != 2:
            continue
        transpose_a, transpose_b = bool(consts.get(n.input[2], False)), bool(consts.get(n.input[3], False))
        axis = 1 if transpose_b else 0
        if weight.dims[axis] % device_num == 0:
            found.append((i, weight, axis, transpose_a))
    return found


def split_model(model, folder, device_num, rank_id):
    """A copy of `model` holding rank `rank_id`'s part of the row-parallel split over `device_num` ranks."""
    out = copy.deepcopy(model)
    if device_num == 1:
        return out
    edit = _Edit(out)
    nodes = list(out.graph.node)
    renamed = {}
    slice_prim = edit.prim("StridedSlice", "PRIMITIVE_FUNCTION")
    reduce_prim = edit.prim("AllReduce", "PRIMITIVE", {"op": "sum", "group": WORLD_GROUP, "fusion": 0, "index": 0})
    inserted = {}
    for index, weight, axis, transpose_a in _row_split_matmuls(out, device_num):
        where = f"MindIR file, parameter '{weight.name}'"
        full = tensor_from_proto(weight, where, folder)
        part = full.shape[axis] // device_num
        piece = np.take(full, range(rank_id * part, (rank_id + 1) * part), axis=axis)
        weight.ClearField("external_data")
        weight.ClearField("dims")
        tensor_proto(weight, piece)
        # the activation's matching columns (rows when transposed); the other axis whole (its mask bit set)
        x_axis = 0 if transpose_a else 1
        begin, end = [0, 0], [0, 0]
        begin[x_axis], end[x_axis] = rank_id * part, (rank_id + 1) * part
        mask = 1 << (1 - x_axis)
        matmul = nodes[index]
        sliced, slice_node = edit.node(slice_prim, [matmul.input[0], edit.const(tuple(begin)), edit.const(tuple(end)),
                                                    edit.const((1, 1)), edit.const(mask), edit.const(mask),
                                                    edit.const(0), edit.const(0), edit.const(0)])
        matmul.input[0] = sliced
        reduced, reduce_node = edit.node(reduce_prim, [matmul.output[0]])
        renamed[matmul.output[0]] = reduced
        inserted[index] = (slice_node, reduce_node)
    for n in nodes + [n for g in out.functions for n in g.node]:
        for k, name in enumerate(n.input):
            if name in renamed:
                n.input[k] = renamed[name]
    for o in out.graph.output:
        o.name = renamed.get(o.name, o.name)
    constants = list(out.graph.node)[len(nodes):]
    del out.graph.node[:]
    out.graph.node.extend(constants)
    for i, n in enumerate(nodes):
        before, after = inserted.get(i, (None, None))
        if before is not None:
            out.graph.node.append(before)
        out.graph.node.append(n)
        if after is not None:
            out.graph.node.append(after)
    return out


def export_split_mindir(file_name, device_num=8, rank_id=0, dynamic=True, sapp=True):
    """Split a MindIR model for tensor-parallel inference on `device_num` devices.

    Writes ``split_net0.mindir`` ... ``split_net<device_num-1>.mindir`` into the working directory (as
    MindSpore does), one per rank: each MatMul with a weight whose contraction dim divides by `device_num` keeps
    the rank's share of the weight, multiplies the matching share of its input and sums the parts with an
    ``AllReduce`` over the world group; all other weights are replicated. Loaded with `load` on every rank of a
    world of `device_num` processes (after `mindspore.communication.init()`), the split models give the outputs
    of the whole model.

    NOTE: MindSpore 2.10 on CPU fails on this API (its strategy planner raises on the loaded graph); mindseed
    plans the row-parallel split itself, so `sapp` (MindSpore's planner switch) and `dynamic` (forced True by
    MindSpore) change nothing, and `rank_id` is kept for MindSpore's signature (every rank's file is written).

    Args:
        file_name (str): the MindIR file (``.mindir``).
        device_num (int): the number of devices to split for. Default: 8.
        rank_id (int): the rank of this process. Default: 0.
        dynamic (bool): whether the model has dynamic shapes. Default: True.
        sapp (bool): whether MindSpore's SAPP planner chooses the split. Default: True.

    Returns:
        FuncGraph, the loaded whole model (run it with `nn.GraphCell`).

    Raises:
        ValueError: `file_name` is not a str, not a ``.mindir`` path or does not exist; `device_num` is not a
            positive int or `rank_id` not in ``[0, device_num)``.
        RuntimeError: the file cannot be loaded (corrupt, truncated or with an operator mindseed cannot run).

    >>> import os, tempfile, numpy as np, mindseed as ms
    >>> os.chdir(tempfile.mkdtemp())
    >>> ms.export(ms.nn.Dense(4, 2), ms.Tensor(np.ones((1, 4), np.float32)), file_name="net")
    >>> graph = ms.export_split_mindir("net.mindir", device_num=2, rank_id=0)
    >>> sorted(f for f in os.listdir(".") if f.startswith("split_net"))
    ['split_net0.mindir', 'split_net1.mindir']
    """
    if not isinstance(file_name, str):
        raise ValueError(f"For 'Split MindIR', the argument 'file_name' must be string, but got {type(file_name)}.")
    if not file_name.endswith(".mindir"):
        raise ValueError("For 'Split MindIR', the argument 'file_name'(MindIR file) should end with '.mindir', "
                         "please input the correct 'file_name'.")
    if not os.path.exists(file_name):
        raise ValueError("For 'Split MindIR', the argument 'file_name'(MindIR file) does not exist, "
                         "please check whether the 'file_name' is correct.")
    if isinstance(device_num, bool) or not isinstance(device_num, int) or device_num < 1:
        raise ValueError(f"For 'Split MindIR', the argument 'device_num' must be a positive int, but got "
                         f"{device_num!r}.")
    if isinstance(rank_id, bool) or not isinstance(rank_id, int) or not 0 <= rank_id < device_num:
        raise ValueError(f"For 'Split MindIR', the argument 'rank_id' must be an int in [0, {device_num}), but got "
                         f"{rank_id!r}.")
    file_name = os.path.realpath(file_name)
    try:
        graph = load_func_graph(file_name)
        model = read_model(file_name, what="export_split_mindir")
    except ValueError as e:
        raise RuntimeError(f"Export and split MindIR failed: {e}") from e
    folder = os.path.dirname(file_name)
    for rank in range(device_num):
        atomic_write(f"split_net{rank}.mindir", split_model(model, folder, device_num, rank).SerializeToString())
    return graph
