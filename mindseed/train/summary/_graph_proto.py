"""A compiled graph as MindSpore's summary writes it: `anf_ir.proto`'s ModelProto (package mindspore.irpb), whose
GraphProto a summary Event carries as `graph_def` and MindInsight's graph view reads.

    ModelProto { int64 ir_version = 1; string domain = 2; int64 model_version = 3; GraphProto graph = 4; }
    GraphProto { repeated NodeProto node = 1; string name = 2; repeated ParameterProto parameters = 3;
                 repeated OutputProto outputs = 4; repeated NamedValueProto const_vals = 5; }
    NodeProto { repeated InputProto input = 1; string name = 2; string op_type = 3; string scope = 4;
                repeated AttributeProto attribute = 5; TypeProto output_type = 6; uint64 output_i = 7;
                string full_name = 8; }
    InputProto { string name = 1; EdgeType type = 2; }      ParameterProto { string name = 1; TypeProto type = 2; }
    OutputProto { string name = 1; TypeProto type = 2; }    NamedValueProto { string key = 1; ValueProto value = 2;
                                                                             string full_name = 3; }
    AttributeProto { string name = 1; ValueProto value = 2; }
    ValueProto { DataType dtype = 1; bool bool_val = 2; int64 int_val = 3; double double_val = 6; string str_val = 7;
                 TensorProto tensor_val = 8; repeated ValueProto values = 18; }
    TypeProto { DataType data_type = 1; Tensor tensor_type = 2 { DataType elem_type = 1;
                TensorShapeProto shape = 2 { repeated Dimension dim = 1 { int64 size = 1; } } };
                Sequence sequence_type = 3 { repeated TypeProto elem_types = 1; } }

As MindSpore names them: operator nodes are numbered "1", "2", ... in execution order, each with the scope of the
Cell it ran in ("Default/network-WithLossCell/_backbone-LeNet5/conv1-Conv2d"; gradients under "Gradients/...") and
the full name `<scope>/<op type>-op<k>`; the graph's inputs are parameters "inputs0", "inputs1", ..., the network's
weights parameters under their own names, other operands constants "cst1", "cst2", ....
"""
import numpy as np

from mindseed.compiler.ir import Const, Graph, Var
from mindseed.train import _wire as W

# anf_ir.proto DataType
_DT = {"Bool": 1, "Int8": 2, "Int16": 3, "Int32": 4, "Int64": 5, "UInt8": 6, "UInt16": 7, "UInt32": 8, "UInt64": 9,
       "Float16": 10, "Float32": 11, "Float64": 12, "BFloat16": 11}
DT_STRING, DT_TENSOR, DT_TUPLE, DT_NONE = 13, 14, 31, 34
DT_BOOL, DT_INT64, DT_FLOAT64 = 1, 5, 12
# mindseed primitives under the name of the MindSpore operator they are
_MS_NAMES = {"Convolution": "Conv2D", "ConvBackpropInput": "Conv2DBackpropInput",
             "ConvBackpropFilter": "Conv2DBackpropFilter", "MaxPool2x2": "MaxPool", "MaxPool2x2Grad": "MaxPoolGrad"}


def op_type(prim_name):
    """The MindSpore operator a primitive of the IR is (an in-place kernel is its operator's)."""
    name = _MS_NAMES.get(prim_name, prim_name)
    return name[:-len("Inplace")] if name.endswith("Inplace") and len(name) > len("Inplace") else name


def _type_proto(var):
    shape = getattr(var, "shape", None)
    dtype = getattr(var, "dtype", None)
    if shape is None or dtype is None:
        return W.f_varint(1, DT_NONE)
    dims = b"".join(W.f_bytes(1, W.f_varint(1, d if isinstance(d, int) else -1)) for d in shape)
    tensor = W.f_varint(1, _DT.get(str(dtype), DT_NONE)) + W.f_bytes(2, dims)
    return W.f_varint(1, DT_TENSOR) + W.f_bytes(2, tensor)


def _output_type(outputs):
    if len(outputs) == 1:
        return _type_proto(outputs[0])
    return W.f_varint(1, DT_TUPLE) + W.f_bytes(3, b"".join(W.f_bytes(1, _type_proto(v)) for v in outputs))


def _value_proto(v):
    """A constant operand or attribute as a ValueProto."""
    if isinstance(v, Const):
        v = v.value
    if v is None:
        return W.f_varint(1, DT_NONE)
    if isinstance(v, (bool, np.bool_)):
        return W.f_varint(1, DT_BOOL) + W.f_varint(2, int(v))
    if isinstance(v, (int, np.integer)):
        return W.f_varint(1, DT_INT64) + W.f_varint(3, int(v))      # a negative one as its two's complement
    if isinstance(v, (float, np.floating)):
        return W.f_varint(1, DT_FLOAT64) + W.f_double(6, float(v))
    if isinstance(v, str):
        return W.f_varint(1, DT_STRING) + W.f_bytes(7, v)
    if isinstance(v, (tuple, list)):
        return W.f_varint(1, DT_TUPLE) + b"".join(W.f_bytes(18, _value_proto(x)) for x in v)
    shape, dtype = getattr(v, "shape", None), getattr(v, "dtype", None)
    if shape is not None and dtype is not None:     # a tensor: its dims and type (its data is not a graph's)
        body = b"".join(W.f_varint(1, d) for d in shape) + W.f_varint(2, _DT.get(str(dtype), 0))
        return W.f_varint(1, DT_TENSOR) + W.f_bytes(8, body)
    return W.f_varint(1, DT_STRING) + W.f_bytes(7, type(v).__name__)


class _Writer:
    def __init__(self, param_names):
        self.names = {}         # Var id -> the name inputs refer to it by
        self.param_names = param_names
        self.nodes, self.params, self.consts = [], [], []
        self.counts = {}        # (scope, op type) -> operators so far

    def const(self, value, scope):
        key = f"cst{len(self.consts) + 1}"
        self.consts.append(W.f_bytes(1, key) + W.f_bytes(2, _value_proto(value)) + W.f_bytes(3, f"{scope}/{key}"))
        return key

    def operand(self, x, scope):
        if isinstance(x, Var) and x.id in self.names:
            return self.names[x.id]
        return self.const(x, scope)

    def node(self, node):
        scope = getattr(node.loc, "scope", None) or "Default"
        kind = op_type(node.name)
        k = self.counts.get((scope, kind), 0)
        self.counts[scope, kind] = k + 1
        name = str(len(self.nodes) + 1)
        body = b"".join(W.f_bytes(1, W.f_bytes(1, self.operand(x, scope)) + W.f_varint(2, 0)) for x in node.inputs)
        body += W.f_bytes(2, name) + W.f_bytes(3, kind) + W.f_bytes(4, scope)
        for attr, value in node.attrs.items():
            if not isinstance(value, Graph) and not callable(value):
                body += W.f_bytes(5, W.f_bytes(1, attr) + W.f_bytes(2, _value_proto(value)))
        body += W.f_bytes(6, _output_type(node.outputs)) + W.f_bytes(8, f"{scope}/{kind}-op{k}")
        self.nodes.append(body)
        for v in node.outputs:
            self.names[v.id] = name

    def write(self, graph, n_inputs):
        for i, var in enumerate(graph.params):
            name = f"inputs{i}" if i < n_inputs else self.param_names.get(i, f"inputs{i}")
            self.names[var.id] = name
            self.params.append(W.f_bytes(1, name) + W.f_bytes(2, _type_proto(var)))
        for node in graph.nodes:
            self.node(node)
        outputs = b"".join(W.f_bytes(4, W.f_bytes(1, self.operand(v, "Default")) + W.f_bytes(2, _type_proto(v)))
                           for v in graph.outputs)
        return outputs


def graph_model(graph, name, n_inputs, param_names):
    """The serialized ModelProto of the IR `graph` named `name`: its first `n_inputs` parameters are the inputs,
    `param_names` {parameter position: weight name} names the others."""
    w = _Writer(param_names)
    outputs = w.write(graph, n_inputs)
    body = b"".join(W.f_bytes(1, n) for n in w.nodes) + W.f_bytes(2, name)
    body += b"".join(W.f_bytes(3, p) for p in w.params) + outputs + b"".join(W.f_bytes(5, c) for c in w.consts)
    return W.f_varint(1, 1) + W.f_bytes(2, "") + W.f_varint(3, 1) + W.f_bytes(4, body)
