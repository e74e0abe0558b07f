"""MindSpore's operators as they appear in a MindIR file, and how a loaded graph runs each one on mindseed.

MindSpore 2.10 writes two kinds of operator nodes. A `PRIMITIVE` keeps its settings as attributes of the
primitive (Conv2D's `stride`, `pad_list`, ...) and takes only tensors as inputs; a `PRIMITIVE_FUNCTION`
takes every argument as an input, settings included, in the order of the operator's definition (MatMul:
x, y, transpose_a, transpose_b). `OPS` maps each operator name mindseed knows to its kind and a runner
`fn(args, attrs)` built from mindseed's MindSpore-compatible primitives; the exporter writes the same
forms, so one table serves files from MindSpore and from mindseed. A name missing here is an operator
mindseed cannot run: loading names it with the file and the node.
"""
import operator

from mindseed import ops as O
from mindseed.common import dtype as mstype

PRIMITIVE, FUNCTION = "PRIMITIVE", "PRIMITIVE_FUNCTION"

# MindSpore's TypeId numbers (a Cast's dtype argument, an Argmax's output type)
TYPE_IDS = {30: mstype.bool_, 32: mstype.int8, 33: mstype.int16, 34: mstype.int32, 35: mstype.int64,
            37: mstype.uint8, 38: mstype.uint16, 39: mstype.uint32, 40: mstype.uint64, 42: mstype.float16,
            43: mstype.float32, 44: mstype.float64, 45: mstype.bfloat16}
TYPE_ID_OF = {str(v): k for k, v in TYPE_IDS.items()}
# MindSpore's PadMode enum, as an AvgPool function argument
PAD_MODES = {0: "PAD", 1: "SAME", 2: "VALID"}
PAD_MODE_ID = {v: k for k, v in PAD_MODES.items()}

OPS = {}


def _op(name, kind=FUNCTION):
    def register(fn):
        OPS[name] = (kind, fn)
        return fn
    return register


def _unary(name, prim):
    OPS[name] = (FUNCTION, lambda a, _attrs: prim()(a[0]))


def _binary(name, prim):
    OPS[name] = (FUNCTION, lambda a, _attrs: prim()(a[0], a[1]))


for _n in ("ReLU", "ReLU6", "Sigmoid", "Tanh", "Exp", "Log", "Sqrt", "Rsqrt", "Abs", "Neg", "Erf", "Square", "Flatten",
           "Reciprocal", "Sin", "Cos", "Floor", "LogicalNot", "OnesLike", "ZerosLike"):
    _unary(_n, getattr(O, _n))
for _n in ("Add", "Sub", "Mul", "Div", "RealDiv", "Maximum", "Minimum", "Greater", "GreaterEqual", "Less",
           "LessEqual", "Equal", "NotEqual", "Pow", "LogicalAnd", "LogicalOr", "FloorDiv"):
    _binary(_n, getattr(O, _n))
# a tensor with a Python number (MindSpore 2.x's `x * 2`, `x.sum() < 100`)
for _n, _prim in (("Muls", O.Mul), ("Adds", O.Add), ("SubScalar", O.Sub), ("DivScalar", O.Div), ("Divs", O.Div),
                  ("LessScalar", O.Less), ("GreaterScalar", O.Greater), ("LessEqualScalar", O.LessEqual),
                  ("GreaterEqualScalar", O.GreaterEqual), ("EqualScalar", O.Equal)):
    _binary(_n, _prim)


@_op("GeLU")
def _gelu(a, _attrs):
    return O.GeLU()(a[0])


@_op("SiLU")
def _silu(a, _attrs):
    return a[0] * O.Sigmoid()(a[0])


@_op("MatMul")
def _matmul(a, _attrs):
    return O.MatMul(bool(a[2]) if len(a) > 2 else False, bool(a[3]) if len(a) > 3 else False)(a[0], a[1])


@_op("MatMulExt")
def _matmul_ext(a, _attrs):
    return O.matmul(a[0], a[1])


@_op("BatchMatMul")
def _batch_matmul(a, _attrs):
    return O.BatchMatMul(bool(a[2]), bool(a[3]))(a[0], a[1])


@_op("BiasAdd")
def _bias_add(a, _attrs):
    return O.BiasAdd()(a[0], a[1])


@_op("Conv2D", PRIMITIVE)
def _conv2d(a, attrs):
    pad = attrs.get("pad_list") if attrs.get("pad_mode", "valid").lower() == "pad" else attrs.get("pad", 0)
    return O.Conv2D(attrs["out_channel"], attrs["kernel_size"], attrs.get("mode", 1), attrs.get("pad_mode", "valid"),
                    pad or 0, attrs.get("stride", 1), attrs.get("dilation", 1), attrs.get("group", 1))(a[0], a[1])


@_op("MaxPool", PRIMITIVE)
def _max_pool(a, attrs):
    return O.MaxPool(attrs["kernel_size"], attrs["strides"], attrs.get("pad_mode", "VALID"))(a[0])


@_op("AvgPool")
def _avg_pool(a, _attrs):
    return O.AvgPool(a[1], a[2], PAD_MODES[int(a[3])])(a[0])


@_op("BatchNorm")
def _batch_norm(a, _attrs):
    return O.BatchNorm(bool(a[5]), float(a[6]), float(a[7]))(*a[:5])


@_op("Softmax")
def _softmax(a, _attrs):
    return O.Softmax(a[1])(a[0])


@_op("LogSoftmax")
def _log_softmax(a, _attrs):
    return O.LogSoftmax(a[1])(a[0])


def _reduce(name, prim):
    OPS[name] = (FUNCTION, lambda a, _attrs: prim(bool(a[2]))(a[0], () if a[1] is None else a[1]))


for _n in ("ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd"):
    _reduce(_n, getattr(O, _n))


@_op("SumExt")
def _sum_ext(a, _attrs):
    x = a[0] if len(a) < 4 or a[3] is None else O.Cast()(a[0], TYPE_IDS[int(a[3])])
    return O.ReduceSum(bool(a[2]))(x, () if a[1] is None else a[1])


@_op("Reshape")
def _reshape(a, _attrs):
    return O.Reshape()(a[0], tuple(a[1]))


@_op("Transpose")
def _transpose(a, _attrs):
    return O.Transpose()(a[0], tuple(a[1]))


@_op("ExpandDims")
def _expand_dims(a, _attrs):
    return O.ExpandDims()(a[0], int(a[1]))


@_op("Squeeze")
def _squeeze(a, _attrs):
    return O.Squeeze(tuple(a[1]))(a[0])


@_op("Concat")
def _concat(a, _attrs):
    return O.Concat(int(a[1]))(tuple(a[0]))


@_op("Stack", PRIMITIVE)
def _stack(a, attrs):
    return O.Stack(attrs.get("axis", 0))(tuple(a[0]))


@_op("StridedSlice")
def _strided_slice(a, _attrs):
    return O.StridedSlice(*(int(m) for m in a[4:9]))(a[0], tuple(a[1]), tuple(a[2]), tuple(a[3]))


@_op("AllReduce", PRIMITIVE)
def _all_reduce(a, attrs):
    return O.AllReduce(attrs.get("op", "sum"), attrs.get("group", "hccl_world_group"))(a[0])


@_op("Cast")
def _cast(a, _attrs):
    return O.Cast()(a[0], TYPE_IDS[int(a[1])])


@_op("ArgMaxWithValue")
def _argmax_with_value(a, _attrs):
    return O.ArgMaxWithValue(int(a[1]), bool(a[2]))(a[0])


@_op("Argmax")
def _argmax(a, _attrs):
    return O.Argmax(int(a[1]), TYPE_IDS[int(a[2])])(a[0])


@_op("Gather")
def _gather(a, _attrs):
    return O.Gather(int(a[3]) if len(a) > 3 else 0)(a[0], a[1], int(a[2]))


@_op("LayerNorm")
def _layer_norm(a, _attrs):
    # files may count the begin axes from the end (MindSpore runs those from a MindIR; its PyNative op does not)
    rank = a[0].ndim
    bna, bpa = (int(v) + rank if int(v) < -1 else int(v) for v in (a[3], a[4]))
    return O.LayerNorm(bna, bpa, float(a[5]))(a[0], a[1], a[2])


@_op("Select")
def _select(a, _attrs):
    return O.Select()(a[0], a[1], a[2])


# ---------------------------------------------------------------- sizes of dynamic dims (`x.shape[0] * 3`)
@_op("Shape")
def _shape(a, _attrs):
    return tuple(a[0].shape)


for _n, _f in (("ScalarAdd", operator.add), ("ScalarSub", operator.sub), ("ScalarMul", operator.mul),
               ("ScalarDiv", operator.truediv), ("ScalarFloorDiv", operator.floordiv), ("ScalarMod", operator.mod)):
    OPS[_n] = (FUNCTION, lambda a, _attrs, f=_f: f(a[0], a[1]))


def _dtype_arg(a):
    """The optional dtype argument (a TypeId) after the first, float32 when absent."""
    return TYPE_IDS[int(a[1])] if len(a) > 1 and a[1] is not None else mstype.float32


@_op("ScalarToTensor")
def _scalar_to_tensor(a, _attrs):
    return O.ScalarToTensor()(a[0], _dtype_arg(a))


@_op("Zeros")
def _zeros(a, _attrs):
    return O.zeros(tuple(a[0]), _dtype_arg(a))


@_op("Ones")
def _ones(a, _attrs):
    return O.ones(tuple(a[0]), _dtype_arg(a))


# ---------------------------------------------------------------- graph plumbing
@_op("MakeTuple", PRIMITIVE)
def _make_tuple(a, _attrs):
    return tuple(a)


OPS["make_list"] = OPS["MakeTuple"]


@_op("TupleGetItem", PRIMITIVE)
def _tuple_get_item(a, _attrs):
    return a[0][int(a[1])]


@_op("Load", PRIMITIVE)
def _load(a, _attrs):
    return a[0]


@_op("Depend", PRIMITIVE)
def _depend(a, _attrs):
    return a[0]


@_op("UpdateState", PRIMITIVE)
def _update_state(a, _attrs):
    return None

