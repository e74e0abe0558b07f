"""An inference graph (the Lite runtime's: weights bound and folded) lowered to the C statements of `predict`.

Every value of the graph is a float32 tensor with a static shape (or int32 indices, or booleans stored as 0 / 1
floats). A value lives in the arena at the offset the memory plan gives its buffer (in-place kernels and reshapes
share their input's buffer), a graph input is the caller's pointer, a constant is a slice of the weights blob
(64-byte aligned). Each node becomes a call of a kernel of `runtime.c` (convolution, matrix product, pooling,
softmax) or an inline loop nest (elementwise operators with broadcasting, transposes, reductions) whose extents and
strides are constants the compiler sees.
"""
import numpy as np

from mindseed import _backend as B
from mindseed.compiler.ir import Const, Var
from mindseed.compiler.passes._util import single_use, uses_of
from mindseed.lite._compile import MemoryPlan, fuse_relu_into
from mindseed.lite.codegen._control import COMPARE, CONTROL, LOGICAL, ControlFlow, drop_invariant_constants
from mindseed.ops._prims.conv import avg_pool_p, conv_p, max_pool_2x2_p, max_pool_p
from mindseed.ops._prims.core import add_inplace_p, add_p, add_relu_p
from mindseed.ops._prims.nn import dense_p

__all__ = ["CodegenError", "Lowered", "SUPPORTED"]

_ALIGN = 64
_WHOLE_COLUMNS_BYTES = 256 * 1024    # a convolution's column matrix up to this size is built whole (see runtime.c)

# elementwise operators: a C expression of the operands a, b (float)
_RELU6 = "fminf(fmaxf({}, 0.0f), 6.0f)"
UNARY = {
    "ReLU": "fmaxf(a, 0.0f)", "ReLUInplace": "fmaxf(a, 0.0f)", "ReLU6": _RELU6.format("a"),
    "Sigmoid": "1.0f / (1.0f + expf(-a))", "Tanh": "tanhf(a)", "Exp": "expf(a)", "Log": "logf(a)", "Neg": "-a",
    "Sqrt": "sqrtf(a)", "Rsqrt": "1.0f / sqrtf(a)", "Abs": "fabsf(a)", "Erf": "erff(a)", "Reciprocal": "1.0f / a",
    "Square": "a * a", "Sin": "sinf(a)", "Cos": "cosf(a)", "HSigmoid": _RELU6.format("a + 3.0f") + " / 6.0f",
    "HSwish": "a * " + _RELU6.format("a + 3.0f") + " / 6.0f", "SiLU": "a / (1.0f + expf(-a))",
    "GeLU": "0.5f * a * (1.0f + erff(a * 0.70710678118654752f))",
}
# 0.5 a (1 + tanh(u)) = a sigmoid(2u): one expf (libm's tanhf is several times slower, and no more accurate here)
_GELU_TANH = "a / (1.0f + expf(-1.5957691216057307f * (a + 0.044715f * a * a * a)))"
BINARY = {
    "Add": "a + b", "AddInplace": "a + b", "AddReLU": "fmaxf(a + b, 0.0f)", "Sub": "a - b", "Mul": "a * b",
    "Div": "a / b", "Maximum": "fmaxf(a, b)", "Minimum": "fminf(a, b)", "Pow": "powf(a, b)",
    **{k: f"({v}) ? 1.0f : 0.0f" for k, v in {**COMPARE, **LOGICAL}.items() if k != "LogicalNot"},
}
UNARY["LogicalNot"] = f"({LOGICAL['LogicalNot']}) ? 1.0f : 0.0f"
# operators whose output is their input's bytes, reinterpreted
VIEWS = ("Reshape", "Identity", "StopGradient", "Contiguous", "Cast")
REDUCE = {"ReduceMean": ("0.0f", "s += {}"), "ReduceSum": ("0.0f", "s += {}"),
          "ReduceMax": ("-INFINITY", "s = ({0} > s || {0} != {0}) ? {0} : s")}


class CodegenError(ValueError):
    """A model the C code generator cannot translate (the message names the file and the node)."""


def _shape(x):
    if isinstance(x, Var):
        return tuple(x.shape)
    if isinstance(x, Const) and B.is_array(x.value):
        return tuple(B.shape_of(x.value))
    return ()


def _numel(shape):
    return int(np.prod(shape, dtype=np.int64))


def _contiguous_strides(shape):
    strides, acc = [], 1
    for d in reversed(shape):
        strides.append(acc)
        acc *= d
    return tuple(reversed(strides))


def _broadcast_strides(shape, out_shape):
    """The strides reading a row-major `shape` broadcast to `out_shape` (0 along broadcast dims)."""
    shape = (1,) * (len(out_shape) - len(shape)) + tuple(shape)
    return tuple(0 if d == 1 and o != 1 else s for d, o, s in zip(shape, out_shape, _contiguous_strides(shape)))


def _collapse(dims, strides):
    """Loop dims and per-operand strides with size-1 dims dropped and mergeable neighbours merged."""
    keep = [i for i, d in enumerate(dims) if d != 1]
    dims = [dims[i] for i in keep]
    strides = [[s[i] for i in keep] for s in strides]
    i = len(dims) - 1
    while i > 0:
        if all(s[i - 1] == s[i] * dims[i] for s in strides):
            dims[i - 1:i + 1] = [dims[i - 1] * dims[i]]
            for s in strides:
                s[i - 1:i + 1] = [s[i]]
        i -= 1
    return dims, strides


def _round16(n):
    return (n + 15) // 16 * 16


def _fnum(v):
    """A float32 C literal."""
    v = float(np.float32(v))
    if np.isnan(v):
        return "NAN"
    if np.isinf(v):
        return "INFINITY" if v > 0 else "-INFINITY"
    return f"{v!r}f"


SUPPORTED = sorted(set(UNARY) | set(BINARY) | set(VIEWS) | set(REDUCE) | {
    "Convolution", "Dense", "MatMul", "MaxPool2x2", "MaxPoolWithArgmaxV2", "AvgPool3D", "AdaptiveAvgPool",
    "Softmax", "LogSoftmax", "Transpose", "Concat", "BatchNormInference", "Getitem", "Gather", "LayerNorm",
    *CONTROL})
# operators that read int32 values (besides the views, which keep their input's dtype): {name: its int32 operand}
INT32_OPERAND = {"Gather": 1}


class Lowered(ControlFlow):
    """`body` (C statements of predict), `weights` (the blob's float32 arrays with their byte offsets),
    `arena_bytes`, `scratch_floats`, the plan, and the inputs' / outputs' C names and shapes. Control flow: see
    `_control`."""

    def __init__(self, graph, where):
        self.where = where
        drop_invariant_constants(graph)
        self._check_nodes(graph)
        for o in graph.outputs:
            if isinstance(o, Var) and str(o.dtype) != "Float32":
                raise CodegenError(f"mindseed.lite.codegen: model '{where}': the generated C returns float32 outputs "
                                   f"only, but an output is {o.type_str()}")
        fuse_relu_into(graph, (conv_p, dense_p, max_pool_2x2_p, max_pool_p, avg_pool_p, add_p))
        fuse_residual(graph)
        self.graph = graph
        self.uses = _all_uses(graph)
        self.alias, self.extra_bytes, self._views, self._shape_of = {}, 0, _view_prims(), _shape
        self.blocked = blocked_values(graph)
        self.image_loops, self.per_image = _image_loops(graph, self.blocked)
        sizes = {v.id: _blocked_floats(v.shape) * 4 for n in graph.nodes for v in n.outputs if v.id in self.blocked}
        sizes.update({vid: sizes[vid] // _shape(v)[0] for vid, v in self.per_image.items()})
        self.plan = MemoryPlan(graph, views=[p for p in _view_prims()], sizes=sizes, loops=self.image_loops)
        self.offset = {b[0]: b[1] for b in self.plan.buffers}
        self.in_names = _names("in", len(graph.params))
        self.out_names = _names("out", len(graph.outputs))
        self.params = {p.id: n for p, n in zip(graph.params, self.in_names)}
        self.in_shapes = [_shape(p) for p in graph.params]
        self.in_types = ["int32_t" if str(p.dtype) == "Int32" else "float" for p in graph.params]
        self.out_shapes = [_shape(o) for o in graph.outputs]
        self.weights, self.weight_bytes, self._const_at = [], 0, {}
        self.scratch_floats = 0
        self.body = []
        starts, ends, self.in_loop = {a for a, _ in self.image_loops}, {b for _, b in self.image_loops}, False
        for i, node in enumerate(graph.nodes):
            self.node = node
            if i in starts:
                self.emit(f"for (long n = 0; n < {_shape(node.outputs[0])[0]}; n++) {{")
                self.in_loop = True
            self._lower_node(node)
            if i in ends:
                self.emit("}")
                self.in_loop = False
        for k, o in enumerate(graph.outputs):
            self._copy(self.ptr(o), self.out_names[k], _numel(_shape(o)))
        self.arena_bytes = self.plan.peak_bytes + self.extra_bytes     # sub-graph values past the plan (_control)

    def _lower_node(self, node):
        getattr(self, "_" + _HANDLER.get(node.prim.name, "elementwise"))(node)

    # ------------------------------------------------------------------ checks and errors
    def error(self, node, what):
        # (the node's source line is where the loaded graph was traced, not a line of the model: not shown)
        return CodegenError(f"mindseed.lite.codegen: model '{self.where}', node {node.outputs[0]!r} "
                            f"({node.prim.name}): {what}")

    def _check_nodes(self, graph):
        for node in graph.nodes:
            self._check_node(node)
            for g in node.subgraphs():
                self._check_nodes(g)

    def _check_node(self, node):
        if node.prim.name not in SUPPORTED:
            raise self.error(node, f"the operator {node.prim.name} has no C kernel (supported: "
                                   f"{', '.join(SUPPORTED)})")
        outs = node.outputs[:1] if node.prim.name == "MaxPoolWithArgmaxV2" else node.outputs
        name = node.prim.name
        for k, v in [(k, x) for k, x in enumerate(node.inputs) if isinstance(x, Var)] + [(None, o) for o in outs]:
            int32 = str(v.dtype) == "Int32" and (INT32_OPERAND.get(name) == k or name in VIEWS and name != "Cast"
                                                 or name in CONTROL)
            # booleans (stored as 0 / 1 floats): results of comparisons, operands of logical operators, conditions
            boolean = str(v.dtype) == "Bool" and (name in COMPARE and k is None or name in LOGICAL or name in CONTROL
                                                  or name in VIEWS and not (name == "Cast" and k is None))
            if not (int32 or boolean) and str(v.dtype) != "Float32" or v.shape is None or any(
                    not isinstance(d, int) for d in v.shape):
                raise self.error(node, f"only float32 tensors (int32 indices of Gather, booleans of comparisons) of "
                                       f"static shape are supported, but a value is {v.type_str()}")

    # ------------------------------------------------------------------ operands
    def ptr(self, x):
        """The C expression of a pointer to x's first element."""
        if isinstance(x, Var):
            if x.id in self.alias:
                return self.alias[x.id]
            if x.id in self.params:
                return self.params[x.id]
            return f"(A + {self.offset[self.plan.owner[x.id]] // 4})"
        return f"(W + {self.const(x) // 4})"

    def const(self, x, array=None):
        """The byte offset in the weights blob of a constant operand (or of `array`, a value computed from it)."""
        if array is None:
            v = x.value if isinstance(x, Const) else x
            array = B.to_numpy(v) if B.is_array(v) else np.asarray(v)
            if array.dtype.kind not in "fiub":
                raise self.error(self.node, f"a constant of dtype {array.dtype} has no C translation")
            key = id(v)
        else:
            key = None
        if key is not None and key in self._const_at:
            return self._const_at[key]
        array = np.ascontiguousarray(array, dtype="<f4")
        off = self.weight_bytes
        self.weights.append((off, array))
        self.weight_bytes = (off + array.nbytes + _ALIGN - 1) // _ALIGN * _ALIGN
        if key is not None:
            self._const_at[key] = off
        return off

    def operand(self, x):
        """(C pointer expression or a literal, shape) of an elementwise operand."""
        if isinstance(x, (Var, Const)) and (isinstance(x, Var) or B.is_array(x.value)):
            return self.ptr(x), _shape(x)
        v = x.value if isinstance(x, Const) else x
        if isinstance(v, (bool, int, float, np.number)):
            return _fnum(v), None
        raise self.error(self.node, f"an operand {v!r} has no C translation")

    def image(self, x, blocked=None):
        """(batch, pointer) of a blocked kernel's operand: in a loop over the images, image n of x (the buffer itself
        when it holds one image)."""
        shape = _shape(x)
        if not self.in_loop:
            return shape[0], self.ptr(x)
        if x.id in self.per_image:
            return 1, self.ptr(x)
        blocked = x.id in self.blocked if blocked is None else blocked
        return 1, f"({self.ptr(x)} + n * {(_blocked_floats(shape) if blocked else _numel(shape)) // shape[0]})"

    def emit(self, *lines):
        self.body.extend(lines)

    def _copy(self, src, dst, n):
        if src != dst:
            self.emit(f"memcpy({dst}, {src}, {n} * sizeof(float));")

    # ------------------------------------------------------------------ loop nests
    def loops(self, out, dims, operands, expr, out_strides=None):
        """y[...] = expr over `dims`; operands [(pointer or literal, strides or None)] read as a, b, c, ..."""
        y = self.ptr(out)
        out_strides = out_strides or _contiguous_strides(dims)
        arrays = [(p, s) for p, s in operands if s is not None]
        ld, strides = _collapse(list(dims), [list(out_strides)] + [list(s) for _, s in arrays])
        idx = [f"i{k}" for k in range(len(ld))]

        def at(ptr, s):
            terms = [f"{i} * {st}" if st != 1 else i for i, st in zip(idx, s) if st]
            return f"{ptr}[{' + '.join(terms) or '0'}]"
        values = iter(at(p, s) for (p, _), s in zip(arrays, strides[1:]))
        names = "abcd"
        decl = "; ".join(f"const float {names[k]} = {next(values) if s is not None else p}"
                         for k, (p, s) in enumerate(operands))
        lines = [f"for (long {i} = 0; {i} < {d}; {i}++)" for i, d in zip(idx, ld)]
        self.emit("{", *lines, f"    {{ {decl}; {at(y, strides[0])} = {expr}; }}", "}")

    def _elementwise(self, node):
        out = node.outputs[0]
        name = node.prim.name
        expr = UNARY.get(name) or BINARY[name]
        if name == "GeLU" and node.attrs.get("approximate") in ("tanh", True):
            expr = _GELU_TANH
        if node.attrs.get("relu"):
            expr = f"fmaxf({expr}, 0.0f)"
        ops = [self.operand(x) for x in node.inputs]
        self.loops(out, out.shape, [(p, None if s is None else _broadcast_strides(s, out.shape)) for p, s in ops],
                   expr)

    def _view(self, node):
        self._copy(self.ptr(node.inputs[0]), self.ptr(node.outputs[0]), _numel(node.outputs[0].shape))

    def _transpose(self, node):
        x, out = node.inputs[0], node.outputs[0]
        perm = [p % len(x.shape) for p in node.attrs["perm"]]
        src = _contiguous_strides(_shape(x))
        self.loops(out, out.shape, [(self.ptr(x), tuple(src[p] for p in perm))], "a")

    def _getitem(self, node):
        """A basic index (ints, slices of any step, None, Ellipsis): a strided read of x."""
        x, out = node.inputs[0], node.outputs[0]
        index = node.attrs["index"]
        index = index if isinstance(index, tuple) else (index,)
        shape, st = _shape(x), _contiguous_strides(_shape(x))
        if sum(p is Ellipsis for p in index) > 1 or not all(
                p is None or p is Ellipsis or isinstance(p, slice) or isinstance(p, int) and not isinstance(p, bool)
                for p in index):
            raise self.error(node, f"only basic indexing (ints, slices, None, ...) has a C translation, but got "
                                   f"{index!r}")
        used = sum(1 for p in index if p is not None and p is not Ellipsis)
        if Ellipsis in index:
            k = index.index(Ellipsis)
            index = index[:k] + (slice(None),) * (len(shape) - used) + index[k + 1:]
        index = index + (slice(None),) * (len(shape) - used - sum(p is Ellipsis for p in index))
        dims, strides, start, d = [], [], 0, 0
        for p in index:
            if p is None:
                dims.append(1)
                strides.append(0)
                continue
            if isinstance(p, slice):
                lo, hi, step = p.indices(shape[d])
                dims.append(len(range(lo, hi, step)))
                strides.append(st[d] * step)
                start += lo * st[d]
            else:
                start += (p % shape[d]) * st[d]
            d += 1
        if tuple(dims) != tuple(out.shape):
            raise self.error(node, f"the index {index!r} of a {shape} value gives {dims}, not {list(out.shape)}")
        self.loops(out, out.shape, [(f"({self.ptr(x)} + {start})", tuple(strides))], "a")

    def _batch_norm(self, node):
        x, out = node.inputs[0], node.outputs[0]
        gamma, beta, mean, var = (self._weight(node, v, "batch norm statistics").astype(np.float64).reshape(-1)
                                  for v in node.inputs[1:5])
        scale = gamma / np.sqrt(var + float(node.attrs["eps"]))
        shift = beta - mean * scale
        c = x.shape[1]
        bshape = (1, c) + (1,) * (len(x.shape) - 2)
        s_off, t_off = self.const(None, scale), self.const(None, shift)
        st = _broadcast_strides(bshape, out.shape)
        self.loops(out, out.shape, [(self.ptr(x), _broadcast_strides(x.shape, out.shape)),
                                    (f"(W + {s_off // 4})", st), (f"(W + {t_off // 4})", st)], "a * b + c")

    def _reduce(self, node):
        x, out = node.inputs[0], node.outputs[0]
        if isinstance(x, Var) and x.id in self.blocked:     # the mean over H and W (`blocked_values`)
            _, c, h, w = x.shape
            n, xb = self.image(x)
            self.emit(f"mscg_blocked_mean({xb}, {n}, {c}, {h}, {w}, {_blocks(c)}, {_BORDER}, "
                      f"{self.image(out, False)[1]});")
            return
        shape = _shape(x)
        axis = node.attrs.get("axis")
        axes = sorted({a % len(shape) for a in (range(len(shape)) if axis in (None, ()) else
                                                 (axis if isinstance(axis, (tuple, list)) else (axis,)))})
        kept = [d for d in range(len(shape)) if d not in axes]
        st = _contiguous_strides(shape)
        init, step = REDUCE[node.prim.name]
        count = _numel([shape[a] for a in axes])
        scale = f" * {_fnum(1.0 / count)}" if node.prim.name == "ReduceMean" and count else ""
        ko, ro = [f"o{k}" for k in range(len(kept))], [f"r{k}" for k in range(len(axes))]
        out_st = _contiguous_strides([shape[d] for d in kept])
        xi = " + ".join([f"{i} * {st[d]}" for i, d in zip(ko, kept)] + [f"{i} * {st[d]}" for i, d in zip(ro, axes)])
        yi = " + ".join(f"{i} * {s}" for i, s in zip(ko, out_st)) or "0"
        self.emit("{", *[f"for (long {i} = 0; {i} < {shape[d]}; {i}++)" for i, d in zip(ko, kept)], "{",
                  f"    float s = {init};",
                  *[f"    for (long {i} = 0; {i} < {shape[d]}; {i}++)" for i, d in zip(ro, axes)],
                  "        " + step.format(f"{self.ptr(x)}[{xi or '0'}]") + ";",
                  f"    {self.ptr(out)}[{yi}] = s{scale};", "}", "}")

    def _concat(self, node):
        out = node.outputs[0]
        axis = node.attrs.get("axis", 0) % len(out.shape)
        outer = _numel(out.shape[:axis])
        inner = _numel(out.shape[axis + 1:])
        y, at = self.ptr(out), 0
        for x in node.inputs:
            n = _shape(x)[axis] * inner
            self.emit(f"for (long o = 0; o < {outer}; o++) memcpy({y} + o * {out.shape[axis] * inner} + {at}, "
                      f"{self.ptr(x)} + o * {n}, {n} * sizeof(float));")
            at += n

    def _gather(self, node):
        """Gather along `axis` (batch_dims 0): negative indices count from the end, an index out of range gives zeros
        (as MindSpore's CPU kernel)."""
        x, idx, out = node.inputs[0], node.inputs[1], node.outputs[0]
        axis, shape = node.attrs.get("axis", 0), _shape(x)
        if node.attrs.get("batch_dims", 0) != 0 or not isinstance(axis, int):
            raise self.error(node, f"only Gather with an int axis and batch_dims 0 has a C translation, but got axis "
                                   f"{axis!r}, batch_dims {node.attrs.get('batch_dims')!r}")
        axis %= len(shape)
        outer, dim, inner = _numel(shape[:axis]), shape[axis], _numel(shape[axis + 1:])
        ni = _numel(_shape(idx))
        read = f"((const int32_t *){self.ptr(idx)})[i]" if isinstance(idx, Var) else f"(long){self.ptr(idx)}[i]"
        self.emit("for (long i = 0; i < %d; i++) {" % ni, f"    long k = {read};", f"    k += k < 0 ? {dim} : 0;",
                  f"    for (long o = 0; o < {outer}; o++) {{",
                  f"        float *y = {self.ptr(out)} + (o * {ni} + i) * {inner};",
                  f"        if (k < 0 || k >= {dim}) memset(y, 0, {inner} * sizeof(float));",
                  f"        else memcpy(y, {self.ptr(x)} + (o * {dim} + k) * {inner}, {inner} * sizeof(float));",
                  "    }", "}")

    def _layer_norm(self, node):
        x, gamma, beta = node.inputs[:3]
        k = len(node.attrs["normalized_shape"])
        shape = _shape(x)
        inner = _numel(shape[len(shape) - k:])
        stats = [self.ptr(o) if any(u is not None for u in self.uses.get(o.id, ())) else "0"
                 for o in node.outputs[1:3]]
        self.emit(f"mscg_layer_norm({self.ptr(x)}, {_numel(shape) // max(inner, 1)}, {inner}, "
                  f"{self._bias(node, gamma)}, {self._bias(node, beta)}, {_fnum(node.attrs['eps'])}, "
                  f"{self.ptr(node.outputs[0])}, {stats[0]}, {stats[1]});")

    def _softmax(self, node):
        x, out = node.inputs[0], node.outputs[0]
        axis = node.attrs["axis"]
        axis = axis[0] if isinstance(axis, (tuple, list)) and len(axis) == 1 else axis
        if not isinstance(axis, int):
            raise self.error(node, f"softmax over several axes {axis} has no C translation")
        shape = _shape(x)
        axis %= len(shape)
        self.emit(f"mscg_softmax({self.ptr(x)}, {self.ptr(out)}, {_numel(shape[:axis])}, {shape[axis]}, "
                  f"{_numel(shape[axis + 1:])}, {int(node.prim.name == 'LogSoftmax')});")

    # ------------------------------------------------------------------ heavy kernels
    def _weight(self, node, x, what):
        if not isinstance(x, Const) or not B.is_array(x.value):
            raise self.error(node, f"the {what} must be a constant (weights computed at run time have no C "
                                   f"translation)")
        return B.to_numpy(x.value)

    def _bias(self, node, b, pad=False):
        """A pointer to the bias (padded with zeros to 16 values with `pad`), or 0 without one."""
        if b is None or isinstance(b, Const) and b.value is None:
            return "0"
        v = self._weight(node, b, "bias").reshape(-1)
        return f"(W + {self.const(None, np.pad(v, (0, _round16(v.size) - v.size)) if pad else v) // 4})"

    def _conv(self, node):
        x, w, out = node.inputs[0], node.inputs[1], node.outputs[0]
        wa = self._weight(node, w, "convolution weight")
        if out.id in self.blocked:
            self._conv_blocked(node, x, wa, out)
            return
        if len(x.shape) != 4:
            raise self.error(node, f"only 2-d convolutions have a C kernel, but the input is {x.type_str()}")
        a = node.attrs
        n, c, h, wd = x.shape
        o, cg, kh, kw = wa.shape
        oh, ow = out.shape[2:]
        (sh, sw), (dh, dw), (pt, _, pl, _) = a["stride"], a["dilation"], a["pads"]
        k = cg * kh * kw
        bias = self._bias(node, node.inputs[2] if len(node.inputs) > 2 else None)
        geometry = f"{o}, {kh}, {kw}, {sh}, {sw}, {pt}, {pl}, {dh}, {dw}, {a['groups']}, {self.ptr(out)}, {oh}, {ow}"
        relu = int(bool(a.get("relu")))
        res = node.inputs[3] if len(node.inputs) > 3 else None
        # stride 1 with output rows a multiple of 8: the weight packed in blocks of output channels times the padded
        # input read in place; else the whole column matrix (and a packed panel) when it fits L2 comfortably; else
        # one panel of the column matrix at a time times the packed weight
        direct = sh == 1 and sw == 1 and ow % 8 == 0
        whole = k * oh * ow * 4 <= _WHOLE_COLUMNS_BYTES and res is None and not direct
        padded = cg * (oh + (kh - 1) * dh) * (ow + (kw - 1) * dw) if direct else 0
        self.scratch_floats = max(self.scratch_floats, (k * oh * ow if whole else 0) + 16 * k, padded)
        if whole:
            self.emit(f"mscg_conv2d({self.ptr(x)}, {n}, {c}, {h}, {wd}, (W + {self.const(w) // 4}), {bias}, "
                      f"{geometry}, {relu}, 1, S);")
            return
        packed = self.const(None, _conv_blocks(wa.reshape(a["groups"], o // a["groups"], k)))
        self.emit(f"mscg_conv2d_packed({self.ptr(x)}, {n}, {c}, {h}, {wd}, (W + {packed // 4}), {bias}, {geometry}, "
                  f"{relu}, {self.ptr(res) if res is not None else 0}, S);")

    def _conv_blocked(self, node, x, wa, out):
        """A convolution in the blocked layout (`blocked_values`): its input converted into it first unless it
        already is; the weight packed as mscg_conv2d_blocked reads it."""
        _, c, h, wd = x.shape
        o, _, kh, kw = wa.shape
        a = node.attrs
        pt, pl = a["pads"][0], a["pads"][2]
        n, xb = self.image(x)
        used = 0        # scratch floats holding the converted input
        if x.id in self.blocked:
            icb = _blocks(c)
        else:
            icb = (c + 7) // 8
            used = n * icb * (h + 2 * _BORDER) * (wd + 2 * _BORDER) * 8
            self.scratch_floats = max(self.scratch_floats, used)
            self.emit(f"mscg_to_blocked({xb}, {n}, {c}, {h}, {wd}, {icb}, {_BORDER}, S);")
            xb = "S"
        ocb = _blocks(o)
        packed = np.zeros((ocb * 8, icb * 8, kh, kw), np.float64 if _winograd(node) else np.float32)
        packed[:o, :c] = wa
        bias = np.zeros(ocb * 8, np.float32)
        b = node.inputs[2] if len(node.inputs) > 2 else None
        if b is not None and not (isinstance(b, Const) and b.value is None):
            bias[:o] = self._weight(node, b, "bias").reshape(-1)
        res = node.inputs[3] if len(node.inputs) > 3 else None
        tail = f"{int(bool(a.get('relu')))}, {self.image(res)[1] if res is not None else 0}"
        if _winograd(node):
            self.scratch_floats = max(self.scratch_floats, used + _WG_SCRATCH(icb, ocb))
            self.emit(f"mscg_conv3x3_winograd({xb}, {n}, {icb}, {h}, {wd}, "
                      f"(W + {self.const(None, _winograd_weight(packed)) // 4}), (W + {self.const(None, bias) // 4}), "
                      f"{ocb}, {_BORDER}, {self.image(out)[1]}, {tail}, S + {used});")
            return
        packed = packed.reshape(ocb // 2, 2, 8, icb, 8, kh, kw).transpose(0, 3, 5, 6, 4, 1, 2)
        self.emit(f"mscg_conv2d_blocked({xb}, {n}, {icb}, {h}, {wd}, (W + {self.const(None, packed) // 4}), "
                  f"(W + {self.const(None, bias) // 4}), {ocb}, {kh}, {kw}, {a['stride'][0]}, {pt}, {pl}, {_BORDER}, "
                  f"{self.image(out)[1]}, {out.shape[2]}, {out.shape[3]}, {tail});")

    def _gemm(self, m, n, k, a, b, y, bias_col="0", relu=False, packed=False):
        """y = a b (+ bias_col) [ReLU]; b a constant packed in panels (`_packed`) or a value packed at run time."""
        if not packed:
            self.scratch_floats = max(self.scratch_floats, 16 * k)
        self.emit(f"mscg_gemm({m}, {n}, {k}, {a}, {k}, {b}, {n}, {int(packed)}, S, {y}, {n}, 0, {bias_col}, "
                  f"{int(bool(relu))});")

    def _packed(self, matrix):
        """A constant (K, N) right-hand side stored as the product reads it: panels of 16 columns, each K rows of 16
        (zeros past N); a pointer to it."""
        k, n = matrix.shape
        padded = np.zeros((k, _round16(n)), np.float32)
        padded[:, :n] = matrix
        panels = padded.reshape(k, -1, 16).transpose(1, 0, 2)
        return f"(W + {self.const(None, panels) // 4})"

    def _dense(self, node):
        x, w, out = node.inputs[0], node.inputs[1], node.outputs[0]
        wa = self._weight(node, w, "dense weight")          # (out, in): stored (in, out), the rows B reads
        n_out, n_in = wa.shape
        bias = self._bias(node, node.inputs[2] if len(node.inputs) > 2 else None, pad=True)
        self._gemm(_numel(x.shape) // n_in, n_out, n_in, self.ptr(x), self._packed(wa.T), self.ptr(out), bias,
                   node.attrs.get("relu"), packed=True)

    def _matmul(self, node):
        """A matrix product; with more than 2 dims a batch of them (batch dims broadcast, as numpy's matmul)."""
        x, w, out = node.inputs[0], node.inputs[1], node.outputs[0]
        ta, tb = node.attrs.get("transpose_a"), node.attrs.get("transpose_b")
        sx, sw = _shape(x), _shape(w)
        if len(sx) < 2 or len(sw) < 2 or ta or (tb and (not isinstance(w, Const) or len(sw) != 2)):
            raise self.error(node, f"only MatMul of operands with 2 or more dims, without transposed computed or "
                                   f"batched operands, has a C kernel, but got {sx} x {sw} (transpose_a={bool(ta)}, "
                                   f"transpose_b={bool(tb)})")
        m, k, n = sx[-2], sx[-1], out.shape[-1]
        if len(sw) == 2 and isinstance(w, Const):   # one constant right-hand side: the rows of x are one matrix
            wa = self._weight(node, w, "operand")
            self._gemm(_numel(sx) // k, n, k, self.ptr(x), self._packed(wa.T if tb else wa), self.ptr(out),
                       packed=True)
            return
        batch = tuple(out.shape[:-2])
        if not batch:
            self._gemm(m, n, k, self.ptr(x), self.ptr(w), self.ptr(out))
            return
        xs = _broadcast_strides(tuple(sx[:-2]) + (1,), batch + (1,))[:-1]
        ws = _broadcast_strides(tuple(sw[:-2]) + (1,), batch + (1,))[:-1]
        walk = []
        for d in reversed(range(len(batch))):
            walk.append(f"    xo += r % {batch[d]} * {xs[d] * m * k}; wo += r % {batch[d]} * {ws[d] * k * n}; "
                        f"r /= {batch[d]};")
        self.emit(f"for (long b = 0; b < {_numel(batch)}; b++) {{", "    long r = b, xo = 0, wo = 0;", *walk)
        self.body.append("    ")
        self._gemm(m, n, k, f"({self.ptr(x)} + xo)", f"({self.ptr(w)} + wo)", f"({self.ptr(out)} + b * {m * n})")
        self.body[-2:] = [self.body[-2] + self.body[-1]]
        self.emit("}")

    def _pool_args(self, node):
        x, out = node.inputs[0], node.outputs[0]
        if len(x.shape) != 4:
            raise self.error(node, f"only 2-d pooling has a C kernel, but the input is {x.type_str()}")
        return x, out, x.shape[0] * x.shape[1], x.shape[2], x.shape[3], out.shape[2], out.shape[3]

    def _maxpool2x2(self, node):
        x, out, planes, h, w, oh, ow = self._pool_args(node)
        self.emit(f"mscg_maxpool2x2({self.ptr(x)}, {planes}, {h}, {w}, {self.ptr(out)}, {oh}, {ow}, "
                  f"{int(bool(node.attrs.get('relu')))});")

    def _pool(self, node):
        x, out, planes, h, w, oh, ow = self._pool_args(node)
        a = node.attrs
        if len(a["kernel"]) != 2:
            raise self.error(node, f"only 2-d pooling has a C kernel, but the window is {a['kernel']}")
        is_max = node.prim.name == "MaxPoolWithArgmaxV2"
        if is_max and any(u is not None for u in self.uses.get(node.outputs[1].id, ())):
            raise self.error(node, "the argmax output of max pooling has no C translation")
        (kh, kw), (sh, sw), (pt, pb, pl, pr) = a["kernel"], a["stride"], a["pads"]
        dh, dw = a.get("dilation", (1, 1))
        self.emit(f"mscg_pool2d({self.ptr(x)}, {planes}, {h}, {w}, {self.ptr(out)}, {oh}, {ow}, {kh}, {kw}, {sh}, "
                  f"{sw}, {pt}, {pl}, {pb}, {pr}, {dh}, {dw}, {int(not is_max)}, "
                  f"{int(bool(a.get('count_include_pad')))}, {int(a.get('divisor_override') or 0)}, "
                  f"{int(bool(a.get('relu')))});")

    def _adaptive(self, node):
        x, out, planes, h, w, oh, ow = self._pool_args(node)
        self.emit(f"mscg_adaptive_avgpool2d({self.ptr(x)}, {planes}, {h}, {w}, {self.ptr(out)}, {oh}, {ow});")


_HANDLER = dict({v: "view" for v in VIEWS}, **{r: "reduce" for r in REDUCE}, Transpose="transpose", Getitem="getitem",
                BatchNormInference="batch_norm", Concat="concat", Gather="gather", LayerNorm="layer_norm",
                Softmax="softmax", LogSoftmax="softmax",
                Convolution="conv", Dense="dense", MatMul="matmul", MaxPool2x2="maxpool2x2",
                MaxPoolWithArgmaxV2="pool", AvgPool3D="pool", AdaptiveAvgPool="adaptive", If="if", While="while")


def _conv_blocks(w):
    """A convolution's weight (groups, og, K) as mscg_conv2d_packed reads it: per group, blocks of 6 output channels
    (the last of 4 when at most 4 remain), each stored K x R with zero rows past the group's channels."""
    groups, og, k = w.shape
    blocks = []
    for g in range(groups):
        for o in range(0, og, 6):
            rows = min(6, og - o)
            block = np.zeros((k, 6 if rows > 4 else 4), np.float32)
            block[:, :rows] = w[g, o:o + rows].T
            blocks.append(block.reshape(-1))
    return np.concatenate(blocks)


# ------------------------------------------------------------------ the blocked layout (see runtime_blocked.c)
_BORDER = 1     # the zero border around each image of a blocked value: convolutions padded by up to 1 read in place


def _blocks(c):
    """The blocks of 8 channels a blocked value of c channels is stored in (an even count: the kernel computes
    output channels two blocks at a time)."""
    return (c + 15) // 16 * 2


def _blocked_floats(shape):
    n, c, h, w = shape
    return n * _blocks(c) * (h + 2 * _BORDER) * (w + 2 * _BORDER) * 8


def _blocked_conv(node):
    """A convolution the blocked kernel computes: 2-d, one group, no dilation, equal strides, paddings <= the
    border, a constant weight."""
    a = node.attrs
    return node.prim is conv_p and len(node.outputs) == 1 and len(node.outputs[0].shape or ()) == 4 \
        and a["groups"] == 1 and tuple(a["dilation"]) == (1, 1) and a["stride"][0] == a["stride"][1] \
        and all(0 <= p <= _BORDER for p in a["pads"]) and isinstance(node.inputs[1], Const)


# Winograd F(2x2, 3x3) (runtime_winograd.c): the weight's transform G g G^T, the scratch of MSCG_WG_SCRATCH
_WG_G = np.array([[1, 0, 0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0, 0, 1]])


def _WG_SCRATCH(icb, ocb):  # noqa: N802 -- the C macro's name
    return 16 * 12 * 8 * (icb + ocb)


def _winograd(node):
    """A blocked convolution computed by Winograd's F(2x2, 3x3): 3x3, stride 1, padding 1 on every side, an even
    output height and width."""
    a, (h, w) = node.attrs, node.outputs[0].shape[2:]
    return _shape(node.inputs[1])[2:] == (3, 3) and tuple(a["stride"]) == (1, 1) \
        and tuple(a["pads"]) == (1, 1, 1, 1) and h % 2 == 0 and w % 2 == 0


def _winograd_weight(g):
    """(OC, IC, 3, 3) padded to blocks (float64) -> U = G g G^T as mscg_conv3x3_winograd reads it: [16 positions of
    the 4x4 transform][OC/16 pairs of blocks][IC][16 output channels], rounded to float32 once."""
    oc, ic = g.shape[:2]
    u = np.einsum("ai,ocij,bj->abco", _WG_G, g, _WG_G).reshape(16, ic, oc // 16, 16)
    return u.transpose(0, 2, 1, 3).astype(np.float32)


def _spatial_mean(node):
    x = node.inputs[0] if node.inputs else None
    if node.prim.name != "ReduceMean" or not isinstance(x, Var) or len(x.shape or ()) != 4:
        return False
    axis = node.attrs.get("axis")
    return {a % 4 for a in (axis if isinstance(axis, (tuple, list)) else (axis,)) if a is not None} == {2, 3}


def blocked_values(graph):
    """The ids of the values stored in the blocked layout (NCHW8c with a zero border, runtime_blocked.c): outputs of
    convolutions `_blocked_conv` accepts whose every reader is such a convolution (its input, or the residual
    operand of one whose output is blocked too) or a mean over H and W; not graph outputs. Everything else stays
    NCHW; a blocked convolution whose input is NCHW converts it first."""
    convs = {n.outputs[0].id: n for n in graph.nodes if _blocked_conv(n)}
    readers = {}
    for n in graph.nodes:
        for k, x in enumerate(n.inputs):
            if isinstance(x, Var):
                readers.setdefault(x.id, []).append((n, k))
    blocked = set(convs) - {o.id for o in graph.outputs if isinstance(o, Var)}
    changed = True
    while changed:
        changed = False
        for vid in sorted(blocked):
            res = convs[vid].inputs[3] if len(convs[vid].inputs) > 3 else None
            ok = res is None or isinstance(res, Var) and res.id in blocked
            for n, k in readers.get(vid, ()):
                if not (n.prim is conv_p and k in (0, 3) and n.outputs[0].id in blocked
                        or k == 0 and _spatial_mean(n)):
                    ok = False
            if not ok:
                blocked.discard(vid)
                changed = True
    return blocked


def _image_loops(graph, blocked):
    """The runs of consecutive nodes that are blocked convolutions or means of blocked values (2 or more, batch > 1):
    each runs image by image (a loop over the batch around the run), so that one image's activations stay in the
    L2 cache from layer to layer. [(first, last) node index], and {var id: var} of the values that live in one run
    only, whose buffers hold one image."""
    def member(node):
        return node.outputs[0].id in blocked or _spatial_mean(node) and node.inputs[0].id in blocked
    loops, i, nodes = [], 0, graph.nodes
    while i < len(nodes):
        j = i
        while j < len(nodes) and member(nodes[j]):
            j += 1
        if j - i >= 2 and nodes[i].outputs[0].shape[0] > 1:
            loops.append((i, j - 1))
        i = max(j, i + 1)
    readers = uses_of(graph)
    outputs = {o.id for o in graph.outputs if isinstance(o, Var)}
    per_image = {}
    for a, b in loops:
        run = {id(n) for n in nodes[a:b + 1]}
        for n in nodes[a:b + 1]:
            v = n.outputs[0]
            if v.id in blocked and v.id not in outputs and all(id(u) in run for u in readers.get(v.id, ())):
                per_image[v.id] = v
    return loops, per_image


def fuse_residual(graph):
    """An addition (Add, AddInplace or AddReLU) of a convolution's output (read by nothing else; no ReLU of its own)
    and another value of the same shape runs in the convolution's epilogue: the convolution moves to the addition's
    place, reads the other value as a fourth input and takes the addition's ReLU and output."""
    uses = uses_of(graph)
    producer = {n.outputs[0].id: n for n in graph.nodes if n.prim is conv_p and len(n.outputs) == 1}
    drop, moved = set(), {}
    for node in graph.nodes:
        if node.prim not in (add_p, add_inplace_p, add_relu_p) or len(node.inputs) != 2 \
                or not all(isinstance(v, Var) for v in node.inputs):
            continue
        out = node.outputs[0]
        for k, v in enumerate(node.inputs):
            conv, other = producer.get(v.id), node.inputs[1 - k]
            if conv is None or id(conv) in drop or conv.attrs.get("relu") or len(conv.inputs) > 3 \
                    or not single_use(v, uses) or tuple(other.shape) != tuple(out.shape) \
                    or tuple(v.shape) != tuple(out.shape) or other.dtype != out.dtype or other is v:
                continue
            bias = conv.inputs[2] if len(conv.inputs) > 2 else Const(None)
            conv.inputs = [conv.inputs[0], conv.inputs[1], bias, other]
            conv.attrs = dict(conv.attrs, relu=node.prim is add_relu_p or bool(node.attrs.get("relu")))
            conv.outputs = node.outputs
            drop.add(id(conv))
            moved[id(node)] = conv
            break
    graph.nodes = [moved.get(id(n), n) for n in graph.nodes if id(n) not in drop]


def _all_uses(graph):
    """uses_of over the graph and its sub-graphs (recursively); a sub-graph's output counts as read (by the If or
    While that returns it)."""
    uses = uses_of(graph)
    for node in graph.nodes:
        for g in node.subgraphs():
            for vid, readers in _all_uses(g).items():
                uses.setdefault(vid, []).extend(r if r is not None else node for r in readers)
    return uses


def _names(stem, n):
    return [stem] if n == 1 else [f"{stem}{k}" for k in range(n)]


def _view_prims():
    from mindseed.ops._registry import registry  # noqa: PLC0415
    return [registry[v] for v in VIEWS if v in registry]
