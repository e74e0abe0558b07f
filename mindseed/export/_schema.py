"""MindSpore's MindIR schema (package `mind_ir`, proto2), as message classes built at import time.

The schema is declared here as a table (message -> fields) and turned into a `FileDescriptorProto` for
protobuf's message factory: no generated `_pb2` module is committed and no `protoc` is needed. Only the
messages and fields mindseed reads or writes are declared; protobuf skips the others in a file MindSpore
wrote (parallel layouts, quantization, preprocessors), so they cannot change what is loaded.
Field numbers follow MindSpore 2.10's `mind_ir.proto` (mind_ir_version 3).
"""
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

# AttributeProto.AttributeType and TensorProto.DataType values used by mindseed
ATTR_TYPES = {"UNDEFINED": 0, "FLOAT": 1, "UINT8": 2, "INT8": 3, "UINT16": 4, "INT16": 5, "INT32": 6, "INT64": 7,
              "STRING": 8, "BOOL": 9, "FLOAT16": 10, "DOUBLE": 11, "UINT32": 12, "UINT64": 13, "COMPLEX64": 14,
              "COMPLEX128": 15, "BFLOAT16": 16, "TENSOR": 17, "GRAPH": 18, "TENSORS": 19, "TUPLE": 20, "LIST": 21,
              "DICT": 22, "UMONAD": 23, "IOMONAD": 24, "NONE": 25, "PRIMITIVECLOSURE": 26, "FUNCGRAPHCLOSURE": 27,
              "PARTIALCLOSURE": 28, "UNIONFUNCCLOSURE": 29, "CSR_TENSOR": 30, "COO_TENSOR": 31, "ROW_TENSOR": 32,
              "CLASS_TYPE": 33, "NAME_SPACE": 34, "SYMBOL": 35, "TYPE_NULL": 36, "MAP_TENSOR": 37, "FUNCTOR": 38,
              "SCALAR": 39, "SCALAR_GRAPH_HOLDER": 40}
DATA_TYPES = {"UNDEFINED": 0, "FLOAT": 1, "UINT8": 2, "INT8": 3, "UINT16": 4, "INT16": 5, "INT32": 6, "INT64": 7,
              "STRING": 8, "BOOL": 9, "FLOAT16": 10, "DOUBLE": 11, "UINT32": 12, "UINT64": 13, "COMPLEX64": 14,
              "COMPLEX128": 15, "BFLOAT16": 16, "FLOAT64": 17, "QINT4X2": 18}
PRIM_TYPES = {"PRIMITIVE": 1, "PRIMITIVE_FUNCTION": 2}

_F = descriptor_pb2.FieldDescriptorProto
_SCALARS = {"string": _F.TYPE_STRING, "bytes": _F.TYPE_BYTES, "int64": _F.TYPE_INT64, "int32": _F.TYPE_INT32,
            "uint64": _F.TYPE_UINT64, "uint32": _F.TYPE_UINT32, "float": _F.TYPE_FLOAT, "double": _F.TYPE_DOUBLE,
            "bool": _F.TYPE_BOOL}
_LABELS = {"opt": _F.LABEL_OPTIONAL, "rep": _F.LABEL_REPEATED, "req": _F.LABEL_REQUIRED, "oneof": _F.LABEL_OPTIONAL}

# message -> [(label, type, name, number)]; a type that is not a scalar names a message (or ".enum:" an enum)
_MESSAGES = {
    "AttributeProto": [
        ("opt", "string", "name", 1), ("opt", "float", "f", 2), ("opt", "int64", "i", 3), ("opt", "double", "d", 4),
        ("opt", "bytes", "s", 5), ("opt", "TensorProto", "t", 6), ("opt", "GraphProto", "g", 7),
        ("rep", "float", "floats", 8), ("rep", "double", "doubles", 9), ("rep", "int64", "ints", 10),
        ("rep", "bytes", "strings", 11), ("rep", "TensorProto", "tensors", 12), ("rep", "GraphProto", "graphs", 13),
        ("opt", "string", "doc_string", 14), ("opt", "string", "ref_attr_name", 15),
        ("opt", "enum:AttributeProto.AttributeType", "type", 16), ("rep", "AttributeProto", "values", 17),
        ("opt", "AttributeProto.SeqInfoProto", "seq_info", 18)],
    "AttributeProto.SeqInfoProto": [("opt", "bool", "is_dyn_len", 1),
                                    ("opt", "AttributeProto", "tuple_elem_item", 2)],
    "ValueInfoProto": [("opt", "string", "name", 1), ("rep", "TensorProto", "tensor", 2),
                       ("opt", "string", "doc_string", 3), ("opt", "string", "denotation", 4),
                       ("opt", "AttributeProto", "attr_info", 5)],
    "NodeProto": [("rep", "string", "input", 1), ("rep", "string", "output", 2), ("opt", "string", "name", 3),
                  ("opt", "string", "op_type", 4), ("rep", "AttributeProto", "attribute", 5),
                  ("opt", "string", "doc_string", 6), ("opt", "string", "domain", 7),
                  ("rep", "AttributeProto", "node_attr", 8), ("rep", "AttributeProto", "primal_attr", 9)],
    "ModelProto": [("opt", "string", "ir_version", 1), ("opt", "string", "producer_name", 2),
                   ("opt", "string", "producer_version", 3), ("opt", "string", "domain", 4),
                   ("opt", "string", "model_version", 5), ("opt", "string", "doc_string", 6),
                   ("opt", "GraphProto", "graph", 7), ("rep", "GraphProto", "functions", 8),
                   ("opt", "bool", "little_endian", 10), ("rep", "PrimitiveProto", "primitives", 12),
                   ("opt", "int64", "mind_ir_version", 13)],
    "GraphProto": [("rep", "NodeProto", "node", 1), ("opt", "string", "name", 2),
                   ("rep", "TensorProto", "parameter", 3), ("opt", "string", "doc_string", 4),
                   ("rep", "ValueInfoProto", "input", 5), ("rep", "ValueInfoProto", "output", 6),
                   ("opt", "string", "bprop_hash", 7), ("rep", "AttributeProto", "attribute", 8)],
    "TensorProto": [("rep", "int64", "dims", 1), ("opt", "int32", "data_type", 2), ("rep", "float", "float_data", 3),
                    ("rep", "int32", "int32_data", 4), ("rep", "bytes", "string_data", 5),
                    ("rep", "int64", "int64_data", 6), ("opt", "string", "name", 7), ("opt", "string", "doc_string", 8),
                    ("opt", "bytes", "raw_data", 9), ("rep", "double", "double_data", 10),
                    ("rep", "uint64", "uint64_data", 11),
                    ("opt", "TensorProto.ExternalDataProto", "external_data", 12), ("opt", "string", "ref_key", 13)],
    "TensorProto.ExternalDataProto": [("opt", "string", "location", 1), ("opt", "int64", "offset", 2),
                                      ("opt", "int64", "length", 3)],
    "PrimitiveProto": [("opt", "string", "name", 1), ("opt", "string", "op_type", 2),
                       ("rep", "AttributeProto", "attribute", 3), ("opt", "string", "instance_name", 4),
                       ("opt", "enum:PrimitiveProto.PrimType", "prim_type", 5)],
}
_ENUMS = {"AttributeProto.AttributeType": ATTR_TYPES, "PrimitiveProto.PrimType": PRIM_TYPES}


def build_classes(file_name, package, messages, enums=None, map_entries=(), syntax="proto2"):
    """Message classes of a schema declared as a table, built through protobuf's message factory.

    `messages` maps a (dotted, for nested) message name to [(label, type, name, number)]: label "opt", "rep",
    "req" or "oneof:<name>" (an optional field of that oneof); type a scalar of `_SCALARS`, a message name or
    "enum:" an enum name of `enums` (name -> {value: number}). The nested messages named in `map_entries` are map
    entries ({"key", "value"}), so their fields act as dicts.
    Returns {message name: class}.
    """
    fd = descriptor_pb2.FileDescriptorProto(name=file_name, package=package, syntax=syntax)
    protos = {}
    for full in sorted(messages, key=lambda n: n.count(".")):
        outer, _, inner = full.rpartition(".")
        parent = protos[outer].nested_type if outer else fd.message_type
        protos[full] = parent.add(name=inner)
        if full in map_entries:
            protos[full].options.map_entry = True
    for full, values in (enums or {}).items():
        outer, _, inner = full.rpartition(".")
        enum = protos[outer].enum_type.add(name=inner) if outer else fd.enum_type.add(name=inner)
        for name, number in values.items():
            enum.value.add(name=name, number=number)
    for full, fields in messages.items():
        oneofs = {}
        for label, typ, name, number in fields:
            f = protos[full].field.add(name=name, number=number, label=_LABELS[label.partition(":")[0]])
            if label.startswith("oneof:"):
                if label not in oneofs:
                    oneofs[label] = len(protos[full].oneof_decl)
                    protos[full].oneof_decl.add(name=label[6:])
                f.oneof_index = oneofs[label]
            if typ in _SCALARS:
                f.type = _SCALARS[typ]
            elif typ.startswith("enum:"):
                f.type, f.type_name = _F.TYPE_ENUM, f".{package}.{typ[5:]}"
            else:
                f.type, f.type_name = _F.TYPE_MESSAGE, f".{package}.{typ}"
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fd)
    return {name: message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{package}.{name}"))
            for name in messages}


_CLASSES = build_classes("mindseed_mind_ir.proto", "mind_ir", _MESSAGES, _ENUMS)
ModelProto = _CLASSES["ModelProto"]
GraphProto = _CLASSES["GraphProto"]
NodeProto = _CLASSES["NodeProto"]
TensorProto = _CLASSES["TensorProto"]
AttributeProto = _CLASSES["AttributeProto"]
