"""The converter's working state: the ONNX graph evaluated once (what is a constant, every run-time value's shape
and dtype), the names of the generated code (variables, layers, constants), the layers of `__init__`, the lines of
`construct`, the weights of the checkpoint, and the writer of the Python file.
"""
import keyword
import re

import numpy as np

from mindseed.common.tensor import Tensor

# names the generated construct must not take for its variables
_RESERVED = {"self", "ms", "nn", "ops", "os"}
# constants up to this many elements are written in the code (floats, integers), larger ones go to the ckpt
_SMALL_CONSTANT = {"f": 4, "i": 16, "u": 16, "b": 16}


def _sanitize(text, default):
    """A Python identifier from an ONNX name: '/t/self_attn/MatMul_output_0' -> 't_self_attn_matmul'."""
    text = re.sub(r"_output_0$", "", text.strip("/"))
    text = re.sub(r"_output_(\d+)$", r"_\1", text)
    text = re.sub(r"[^0-9a-zA-Z_]+", "_", text).strip("_").lower()
    text = re.sub(r"_+", "_", text)
    if not text:
        return default
    if not re.search("[a-zA-Z]", text):
        text = f"{default}_{text}"
    return text + "_" if keyword.iskeyword(text) or text in _RESERVED else text


def float_text(value, dtype=np.float32):
    """A Python float literal that rounds to `value` in `dtype` (the shortest such for float32)."""
    value = float(value)
    if np.isnan(value):
        return "float('nan')"
    if np.isinf(value):
        return "float('inf')" if value > 0 else "-float('inf')"
    text = str(np.float32(value)) if np.dtype(dtype) == np.float32 else repr(value)
    return text if any(c in text for c in ".en") else text + ".0"


def scalar_text(value):
    value = np.asarray(value)
    if value.dtype.kind == "b":
        return str(bool(value))
    if value.dtype.kind in "iu":
        return str(int(value))
    return float_text(value, value.dtype)


def dtype_text(dtype):
    dtype = np.dtype(dtype)
    return "ms.bool_" if dtype.kind == "b" else f"ms.{dtype.name}"


def tuple_text(values):
    values = [int(v) for v in values]
    return f"({values[0]},)" if len(values) == 1 else f"({', '.join(map(str, values))})"


def _nested_text(array):
    if array.ndim == 0:
        return scalar_text(array)
    return "[" + ", ".join(_nested_text(a) for a in array) + "]"


class _SubgraphView:
    """An If branch or Loop body seen as a graph by a child Program (nodes, outputs; the rest from the file)."""

    def __init__(self, root, sub):
        self.root, self.nodes, self.outputs, self.consts = root, sub.nodes, sub.outputs, sub.consts
        self.initializers, self.opset, self.file_name, self.input_specs = root.initializers, root.opset, \
            root.file_name, []

    def error(self, node, message):
        return self.root.error(node, message)

    def run_node(self, node, env):
        self.root.run_node(node, env)


def _subgraph_reads(node):
    """Every value name read inside the sub-graphs of an If/Loop node (and theirs)."""
    names = set()
    for key in ("then_branch", "else_branch", "body"):
        sub = node.attrs.get(key)
        for inner in sub.nodes if sub is not None else ():
            names.update(i for i in inner.inputs if i)
            names |= _subgraph_reads(inner)
        names.update(sub.outputs if sub is not None else ())
    return names


class Program:
    """See the module's doc. `graph` is a checked `export._onnx_load.OnnxGraph` with static input shapes; a child
    Program (`parent`) writes an If branch or a Loop body (`sub`), run on `env` and `inputs` {name: value}: it shares
    its parent's names, layers and weights, and its lines become a block of the parent's."""

    def __init__(self, graph, parent=None, sub=None, env=None, inputs=None):
        self.specs = {}                       # run-time values' (shape, numpy dtype)
        self.runtime = []                     # per node: does it compute at run time
        self.consumers = {}                   # value name -> indices of the run-time nodes reading it
        self.lines, self.done = [], set()
        self.hint = "v"                       # a variable's name when its ONNX name has no letter: the operator's
        if parent is None:
            self.graph, self.consts = graph, {}
            self.var, self._locals = {}, set()    # ONNX value -> variable name of construct
            self.layers, self.params, self._attrs, self._const_attrs = [], {}, set(), {}
            self._evaluate()
            return
        self.graph = _SubgraphView(parent.graph, sub)
        self.consts, self.origin = dict(parent.consts), dict(parent.origin)
        self.specs.update(parent.specs)
        self.var, self._locals, self.layers, self.params = parent.var, parent._locals, parent.layers, parent.params
        self._attrs, self._const_attrs = parent._attrs, parent._const_attrs
        self.consts.update(sub.consts)
        env = dict(env)
        env.update(sub.consts)
        for name, value in inputs.items():
            env[name] = value
            self.specs[name] = (tuple(value.shape), value.asnumpy().dtype)
            self.name_var(name)
        self._run_nodes(env)

    # -- analysis --------------------------------------------------------------------------------------------------
    def _evaluate(self):
        """Run the graph once on zeros: shape arithmetic and everything computed from the weights alone become
        constants, every other value gets its shape and dtype."""
        g = self.graph
        self.consts.update(g.initializers)
        self.consts.update(g.consts)
        self.origin = {name: name for name in g.initializers}   # a constant -> the weight it was computed from
        env = dict(self.consts)
        self.hint = "input"
        for name, shape, dtype in g.input_specs:
            env[name] = Tensor(np.zeros(shape, dtype))
            self.specs[name] = (tuple(shape), np.dtype(dtype))
            self.name_var(name)
        self._run_nodes(env)

    def _run_nodes(self, env):
        g = self.graph
        for k, node in enumerate(g.nodes):
            # (an If/Loop body may read run-time values of the graph around it)
            constant = node.op not in ("If", "Loop") and all(not i or i in self.consts for i in node.inputs)
            g.run_node(node, env)
            for out in node.outputs:
                if not out:
                    continue
                value = env[out]
                if constant or isinstance(value, np.ndarray):
                    self.consts[out] = env[out] = np.asarray(value.asnumpy() if isinstance(value, Tensor) else value)
                    sources = {self.origin[i] for i in node.inputs if i in self.origin}
                    if constant and len(sources) == 1:
                        self.origin[out] = sources.pop()
                else:
                    self.specs[out] = (tuple(value.shape), value.asnumpy().dtype)
            self.runtime.append(any(out in self.specs for out in node.outputs))
            if self.runtime[-1]:
                for i in [*node.inputs, *_subgraph_reads(node)]:
                    self.consumers.setdefault(i, []).append(k)
        self.env = env

    def is_const(self, name):
        return name in self.consts

    def shape(self, name):
        return self.consts[name].shape if name in self.consts else self.specs[name][0]

    def dtype(self, name):
        return self.consts[name].dtype if name in self.consts else self.specs[name][1]

    def only_consumer(self, name):
        """The index of the one node reading `name`, if exactly one does and it is not an output of the graph."""
        readers = self.consumers.get(name, [])
        if name in self.graph.outputs or len(readers) != 1 or readers[0] in self.done:
            return None
        return readers[0]

    def node(self, k):
        return self.graph.nodes[k]

    # -- names -----------------------------------------------------------------------------------------------------
    @staticmethod
    def _unique(base, taken):
        name, n = base, 1
        while name in taken:
            name, n = f"{base}_{n}", n + 1
        taken.add(name)
        return name

    def name_var(self, onnx_name):
        if onnx_name not in self.var:
            self.var[onnx_name] = self._unique(_sanitize(onnx_name, self.hint), self._locals)
        return self.var[onnx_name]

    def layer_name(self, node, default, weight=None):
        """A layer's attribute: from its weight's name ('conv1.weight' -> conv1), else the node's scope
        ('/encoder/fc/Gemm' -> encoder_fc), else `default`; an activation (no weight) is `<scope>_<default>`."""
        base = None
        # its own name (torch's Identity of a shared weight), else the name of the weight it was computed from
        for name in (weight, self.origin.get(weight)):
            if name is not None and "::" not in name and "." in name and not name.startswith("/"):
                base = _sanitize(name.rsplit(".", 1)[0], default)
                break
        if base is None:
            parts = node.name.strip("/").split("/")[:-1]
            scope = _sanitize("_".join(parts), "")
            # a weightless layer is named by its scope when that is the layer itself (torch's self.pool), else
            # by the scope it is used in and its kind (a functional relu inside self.block: block_relu)
            own = weight is not None or (parts and len(parts[-1]) >= 3 and parts[-1].lower() in default)
            base = (scope or default) if own else "_".join(p for p in (scope, default) if p)
        return self._unique(base, self._attrs)

    # -- operands --------------------------------------------------------------------------------------------------
    def arg(self, name):
        """An operand as a tensor: a variable, a small constant written out, or a large one kept in the ckpt."""
        if name not in self.consts:
            return self.var[name]
        value = self.consts[name]
        if value.size <= _SMALL_CONSTANT.get(value.dtype.kind, 0):
            return f"ms.Tensor({_nested_text(value)}, {dtype_text(value.dtype)})"
        if name not in self._const_attrs:
            attr = self._unique("const_" + _sanitize(self.origin.get(name, name), "c"), self._attrs)
            self._const_attrs[name] = attr
            self.layers.append((attr, f"ms.Parameter(ops.zeros({tuple_text(value.shape) if value.ndim else '()'}, "
                                      f"{dtype_text(value.dtype)}), name={attr!r}, requires_grad=False)"))
            self.params[attr] = value
        return "self." + self._const_attrs[name]

    def operand(self, name, other):
        """An operand of an elementwise operator with `other`: a one-element constant that broadcasting does not
        widen is a Python number."""
        if name in self.consts and self.consts[name].size == 1 and other not in self.consts and \
                self.consts[name].ndim <= len(self.shape(other)) and \
                self.consts[name].dtype.kind == np.dtype(self.dtype(other)).kind:
            return scalar_text(self.consts[name].reshape(()))
        return self.arg(name)

    # -- output ----------------------------------------------------------------------------------------------------
    def add_layer(self, attr, ctor, params):
        self.layers.append((attr, ctor))
        for suffix, value in params.items():
            self.params[f"{attr}.{suffix}"] = np.asarray(value, order="C")
        return "self." + attr

    def assign(self, outputs, expr):
        """`a = expr` (or `a, b = expr`); an output nothing reads is `_`."""
        self.lines.append(f"{', '.join(self.target(o) for o in outputs)} = {expr}")

    def target(self, output):
        """The variable an output is assigned to: `_` when nothing reads it."""
        return self.name_var(output) if output and (output in self.consumers or output in self.graph.outputs) else "_"

    def alias(self, output, source):
        self.var[output] = self.var[source]

    def result(self):
        outs = [self.arg(o) for o in self.graph.outputs]
        return f"return {', '.join(outs)}"

    def block(self, lines, indent="    "):
        """Lines of a child Program as the body of an `if`/`else`/`while` here (`pass` when there are none)."""
        self.lines.extend(indent + line for line in (lines or ["pass"]))
