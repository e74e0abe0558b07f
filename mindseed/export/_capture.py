"""A network traced into the compiler's IR for export, with its weights named as in its checkpoint.

The trace is the one `@ms.jit` makes, followed only by the passes that keep the traced primitives
(`passes.PORTABLE`: no fused or in-place kernels), so every node is a primitive an exporter can name in
MindSpore's or ONNX's operator set.
"""
import numpy as np

from mindseed import _backend as B
from mindseed.common import dtype as mstype
from mindseed.common.parameter import Parameter
from mindseed.common.tensor import Tensor
from mindseed.compiler import passes
from mindseed.compiler.jit import trace_graph, trace_graph_dynamic

_NP_OF = {"Float32": np.float32, "Float64": np.float64, "Float16": np.float16, "Int8": np.int8, "Int16": np.int16,
          "Int32": np.int32, "Int64": np.int64, "UInt8": np.uint8, "UInt16": np.uint16, "UInt32": np.uint32,
          "UInt64": np.uint64, "Bool": np.bool_}


def np_dtype(name, what="export"):
    """numpy dtype of an IR dtype name ('Float32')."""
    dt = _NP_OF.get(str(name))
    if dt is None:
        raise TypeError(f"For '{what}', the dtype {name} has no exported form.")
    return dt


def as_numpy(value):
    """A constant operand (backend tensor, Tensor or numpy array) as a numpy array."""
    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, Tensor):
        return value.asnumpy()
    return Tensor._from_raw(value).asnumpy()


class Captured:
    """graph: the IR; inputs: its input Vars; weights: [(name, Var, numpy array)] the network's Parameters;
    constants: [(Var, numpy array)] other tensors the graph read; outputs: the output Vars (a tuple result when
    `tuple_output`)."""

    def __init__(self, graph, inputs, weights, constants, tuple_output, name, dims=()):
        self.graph, self.inputs, self.weights, self.constants = graph, inputs, weights, constants
        self.outputs = graph.outputs
        self.tuple_output = tuple_output
        self.name = name
        self.dims = dims        # dynamic dims: the k-th `Sym` of the graph is dim j of input i, dims[k] = (i, j)


# The sizes a dynamic dim takes in the traces that are unified into one graph (one triple per dynamic dim, in
# order). Three sizes, so that a number the code derives from a size is fitted on two and checked on the third; a
# batch dim (dim 0) takes small sizes that tell `n // 2` from `n / 2`, other dims (images' height and width) multiples
# of 16, on which halving by strided convolutions and poolings stays exact. Triples of different dims are no affine
# function of each other, so the fit cannot take one dim for another.
_BATCH_SIZES = ((3, 5, 8), (4, 7, 13), (5, 6, 11), (6, 11, 12))
_OTHER_SIZES = ((16, 32, 64), (16, 48, 80), (32, 48, 112), (48, 64, 176))


def _is_placeholder(x):
    return isinstance(x, Tensor) and B.is_meta(x._data)


def _samples(inputs, what):
    """Three lists of example inputs for placeholders with dynamic dims (Tensor(shape=[None, 3], ...)): ones for
    floating inputs, zeros for the others (valid indices), the dynamic dims at the sizes above."""
    batch, other = iter(_BATCH_SIZES), iter(_OTHER_SIZES)
    plans = []
    for i, x in enumerate(inputs):
        if not _is_placeholder(x):
            plans.append(None)
            continue
        if not x.shape:
            raise ValueError(f"For '{what}', input {i} is a placeholder of unknown rank (Tensor(shape=None)): export "
                             f"needs its rank; give its shape with None for the dynamic dims.")
        try:
            plans.append([(3 * (d,) if d > 0 else next(batch if j == 0 else other)) for j, d in enumerate(x.shape)])
        except StopIteration:
            raise ValueError(f"For '{what}', at most {len(_BATCH_SIZES)} dynamic batch dims and {len(_OTHER_SIZES)} "
                             f"other dynamic dims can be exported.") from None
    samples = []
    for k in range(3):
        args = []
        for x, plan in zip(inputs, plans):
            if plan is None:
                args.append(x)
                continue
            shape = tuple(sizes[k] for sizes in plan)
            fill = np.ones if x.dtype in mstype.float_type else np.zeros
            args.append(Tensor(fill(shape, np.float32)).astype(x.dtype))
        samples.append(args)
    return samples


def capture(net, inputs, what="export"):
    """Trace `net` (a Cell) on `inputs` (Tensors) into a Captured graph."""
    for i, x in enumerate(inputs):
        if not isinstance(x, Tensor):
            raise TypeError(f"For '{what}', the inputs must be Tensors, but input {i} is {type(x).__name__}.")
    names = {id(p): name for name, p in net.parameters_and_names()} if hasattr(net, "parameters_and_names") else {}
    was_training = getattr(net, "training", False)
    if hasattr(net, "set_train"):
        net.set_train(False)
    dims = ()
    try:
        if any(_is_placeholder(x) for x in inputs):
            entry = trace_graph_dynamic(net, inputs, _samples(inputs, what), pipeline=passes.PORTABLE)
            if entry is None:
                raise ValueError(f"For '{what}', the network's graph depends on the sizes of its dynamic input dims "
                                 f"(Tensor(shape=[None, ...])) beyond what one graph can hold (the code compares a "
                                 f"size, or computes a number that is no linear function of one): export it with "
                                 f"static shapes.")
            dims = tuple(entry.dims)
        else:
            entry = trace_graph(net, inputs, pipeline=passes.PORTABLE)
    finally:
        if hasattr(net, "set_train") and was_training:
            net.set_train(True)
    graph = entry.graph
    n_in = len(inputs) if entry.in_keep is None else len(entry.in_keep)
    captured = entry.captured
    in_vars, extra = graph.params[:n_in], graph.params[n_in:]
    weights, constants = [], []
    for (t, _), var in zip(captured, extra):
        if isinstance(t, Parameter):
            name = names.get(id(t))
            if name is None:
                raise ValueError("There's a mindspore.Parameter that wasn't created in nn.Cell, and mindspore.export() "
                                 f"does not support exporting such Parameters. The parameter name is: {t.name}")
            weights.append((name, var, t.asnumpy()))
        else:
            constants.append((var, t.asnumpy()))
    if len(in_vars) != len(inputs):
        raise ValueError(f"For '{what}', every input must be used by the network, but {len(inputs) - len(in_vars)} "
                         f"of the {len(inputs)} inputs are not read.")
    if not graph.outputs:
        raise ValueError(f"For '{what}', the network must return Tensors, but it returned {entry.out_tmpl[1]!r}.")
    tuple_output = entry.out_tmpl[0] != "T"     # ("T", 0): one tensor; else a tuple/list of them
    return Captured(graph, in_vars, weights, constants, tuple_output, type(net).__name__, dims)
