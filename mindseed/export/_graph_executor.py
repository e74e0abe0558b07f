"""mindspore.common.api._cell_graph_executor (placed there by `mindseed._registration`): the executor that
compiles a Cell's graph and keeps it under a phase
key, as tools built on MindSpore call it directly — `compile(net, *inputs, phase=...)` then
`_get_func_graph_proto(net, key, 'mind_ir')` for the serialized MindIR (or 'onnx_ir' for ONNX) of that graph.

The graph is mindseed's trace of the network on the inputs in inference mode, the one `mindspore.export` writes,
in the form MindSpore's compiler holds before its conversion passes: every read of a weight goes through a
`Load(weight, U)` node (the analyses of tools like Golden Stick's UniPruner name operators by the weights they
load).
"""
from mindseed.common.tensor import Tensor

__all__ = ["_CellGraphExecutor", "_cell_graph_executor"]


class _CellGraphExecutor:
    """Compiles Cells into graphs kept under phase keys (see the module docstring)."""

    def __init__(self):
        self._graphs = {}

    def compile(self, obj, *args, phase="predict", do_convert=True, jit_config_dict=None, **kwargs):
        """Compile `obj` on `args` in its current (train or eval) mode — what cannot compile raises here, as in
        MindSpore — and keep it under the returned key (returns (key, True)); the serializable inference graph
        `_get_func_graph_proto` gives is traced from it when first asked for. In (semi-)auto-parallel mode the
        operators' `shard` strategies are checked on `device_num` devices (a RuntimeError for one that cannot
        run)."""
        from mindseed.compiler.jit import trace_graph  # noqa: PLC0415  (loaded on first use)
        from mindseed.parallel._compile_check import check_strategies  # noqa: PLC0415
        if hasattr(obj, "check_names"):
            obj.check_names()
        # tracing runs the construct once: the parameters it updates (an optimizer's step) are put back, as
        # MindSpore's compile leaves the network's state alone
        saved = [(p, p.value().copy()) for p in obj.get_parameters()] if hasattr(obj, "get_parameters") else []
        try:
            trace_graph(obj, args)
        finally:
            for p, value in saved:
                p.set_data(value)
        check_strategies(obj, args)
        key = f"{phase}.{id(obj)}"
        self._graphs[key] = (obj, tuple(a for a in args if isinstance(a, Tensor)))
        return key, True

    def has_compiled(self, phase="predict"):
        return any(key.startswith(f"{phase}.") for key in self._graphs)

    def _get_func_graph_proto(self, obj, exec_id, ir_type="onnx_ir", use_prefix=False, incremental=False):
        """The serialized graph kept under `exec_id`: ``'mind_ir'`` (MindIR ModelProto) or ``'onnx_ir'``."""
        if exec_id not in self._graphs:
            raise ValueError(f"For '_get_func_graph_proto', no graph was compiled under {exec_id!r}; call "
                             f"compile(net, *inputs, phase=...) first.")
        captured = self._graphs[exec_id]
        if isinstance(captured, tuple):
            from mindseed.export._capture import capture  # noqa: PLC0415
            captured = self._graphs[exec_id] = capture(*captured, what="_cell_graph_executor.compile")
        if ir_type == "mind_ir":
            from mindseed.export._mindir_save import mindir_model  # noqa: PLC0415
            return _with_loads(mindir_model(captured).SerializeToString())
        if ir_type == "onnx_ir":
            from mindseed.export._onnx import onnx_bytes  # noqa: PLC0415
            return onnx_bytes(captured)
        raise ValueError(f"For '_get_func_graph_proto', 'ir_type' must be 'mind_ir' or 'onnx_ir', but got "
                         f"{ir_type!r}.")

    def get_optimize_graph_proto(self, obj):
        """The serialized graph (`anf_ir` ModelProto, what a summary's graph event holds) of the graph `obj` (a
        Cell) last compiled in GRAPH_MODE, or None when it has not been (PyNative mode runs no graph)."""
        compiled = getattr(obj, "__dict__", {}).get("_ms_compiled")
        entries = [e for e in compiled.cache.values() if e.graph is not None] if compiled is not None else []
        if not entries:
            return None
        entry = entries[-1]
        entry = entry.general if entry.general is not None else entry
        from mindseed.train.summary._graph_proto import graph_model  # noqa: PLC0415  (the train layer, on use)
        names = {id(p): name for name, p in obj.parameters_and_names()}
        n_inputs = len(entry.graph.params) - len(entry.captured)
        weights = {n_inputs + i: names[id(t)] for i, (t, _) in enumerate(entry.captured) if id(t) in names}
        return graph_model(entry.graph, f"{type(obj).__name__}_construct", n_inputs, weights)

    def del_net_res(self, obj, net_id=None):
        """Forget the graphs compiled from `obj`."""
        for key in [k for k in self._graphs if k.endswith(f".{id(obj)}")]:
            del self._graphs[key]

    def __call__(self, obj, *args, phase="predict"):
        return obj(*args)


_cell_graph_executor = _CellGraphExecutor()


def _with_loads(data):
    """The serialized MindIR `data` with each operator input that is a weight read through a Load node."""
    from mindseed.export import _schema as S  # noqa: PLC0415
    model = S.ModelProto()
    model.ParseFromString(data)
    graph = model.graph
    weights = {p.name for p in graph.parameter}
    monad = next((n.output[0] for n in graph.node if n.op_type == "Constant"), None)   # the writer's first: U
    prim = f"Load:{len(model.primitives) + 1}"
    model.primitives.add(name=prim, op_type="Load", instance_name="", prim_type=S.PRIM_TYPES["PRIMITIVE"])
    nodes, count = [], 0
    for node in graph.node:
        for i, name in enumerate(node.input):
            if name in weights:
                count += 1
                load = S.NodeProto(name=f"{graph.name}:Load_{count}", op_type=f"REF::{prim}",
                                   input=[name] + ([monad] if monad else []), output=[f"{graph.name}:Load_{count}"])
                nodes.append(load)
                node.input[i] = load.output[0]
        nodes.append(node)
    # operators named by scope as MindSpore names them (`Default/Conv2D-op3`): names of the form `<op>_<n>` would
    # collide with the names tools give nodes by their position
    renamed = {}
    for k, node in enumerate(nodes):
        if node.op_type.startswith("REF::"):
            op = node.op_type[5:].rsplit(":", 1)[0]
            renamed[node.output[0]] = f"{graph.name}:Default/{op}-op{k}"
    copied = []
    for node in nodes:
        node = S.NodeProto.FromString(node.SerializeToString())
        node.input[:] = [renamed.get(i, i) for i in node.input]
        node.output[:] = [renamed.get(o, o) for o in node.output]
        node.name = renamed.get(node.name, node.name)
        copied.append(node)
    for out in graph.output:
        out.name = renamed.get(out.name, out.name)
    del graph.node[:]
    graph.node.extend(copied)
    return model.SerializeToString()


def get_func_graph_proto(cell):
    """`Cell.get_func_graph_proto()`: the serialized graph (`anf_ir` ModelProto) the Cell compiled in GRAPH_MODE, or
    None when it compiled none (PyNative mode)."""
    return _cell_graph_executor.get_optimize_graph_proto(cell)
