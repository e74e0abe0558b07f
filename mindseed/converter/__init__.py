"""ONNX to MindSpore source (MindSpore's MindConverter): a readable Python file and a checkpoint of the weights.

    python -m mindseed.converter model.onnx -o out/ [--input-shape NAME:1,3,224,224] [--class-name Net]

writes `out/model.py`, a MindSpore `nn.Cell` (it imports only `mindspore`, so it runs on MindSpore 2.10 and, through
`python -m mindseed.compat`, on mindseed), and `out/model.ckpt`, its weights under MindSpore's parameter names
(`create_network()` in the file builds the network and loads them).

How the file is made: the ONNX file is read and checked by `export._onnx_load.read_onnx` (an operator outside its
table is an error naming the file and the node) and run once on zeros, so that shape arithmetic and everything
computed from the weights alone becomes a constant, and every run-time value has a static shape. Then each run-time
node, in the file's order, is either part of a known layer (`_layers.PATTERNS`: Conv -> nn.Conv2d,
BatchNormalization -> nn.BatchNorm2d/1d, Gemm and MatMul (+ Add) by a constant -> nn.Dense, Gather from a constant
table -> nn.Embedding, LayerNormalization -> nn.LayerNorm, LSTM -> nn.LSTM, pools, activations, the erf form of
GELU) created in `__init__` and called in `construct`, or one line of `ops.*` / Python arithmetic (`_ops.EMIT`);
an If is an `if`/`else` block and a Loop a `while` loop (`_control`).
Variables are named after the ONNX values, layers after their weights (torch's `fc1.weight` -> `self.fc1`).
"""
import argparse
import ast
import os
import re
import sys

import numpy as np

from mindseed.common.tensor import Tensor
from mindseed.converter._control import write_if, write_loop
from mindseed.converter._fusions import find_fusions
from mindseed.converter._layers import PATTERNS, gelu_layer, layer_norm_layer
from mindseed.converter._ops import emit
from mindseed.converter._program import Program, dtype_text, tuple_text

__all__ = ["convert", "main"]

_CONTROL = {"If": write_if, "Loop": write_loop}


def _class_name(stem):
    words = re.findall(r"[0-9a-zA-Z]+", stem)
    name = "".join(w[:1].upper() + w[1:] for w in words) or "Network"
    return name if name[0].isalpha() else "Net" + name


def _input_specs(graph, input_shape):
    unknown = set(input_shape) - {s[0] for s in graph.input_specs}
    if unknown:
        raise ValueError(f"For 'converter', 'input_shape' names {sorted(unknown)}, which are not inputs of "
                         f"'{graph.file_name}' (its inputs: {[s[0] for s in graph.input_specs]}).")
    specs = []
    for name, shape, dtype in graph.input_specs:
        shape = tuple(input_shape.get(name, shape))
        if any(d is None or d < 0 for d in shape):
            raise ValueError(f"For 'converter', input '{name}' of '{graph.file_name}' has a dynamic shape "
                             f"{[-1 if d is None else d for d in shape]}: give its size with --input-shape "
                             f"{name}:{','.join('1' if d is None else str(d) for d in shape)}.")
        specs.append((name, shape, dtype))
    return specs


def _build(program):
    nodes = program.graph.nodes

    def gelu(k, x, approximate):
        gelu_layer(program, nodes[k], x, nodes[k].outputs, approximate)

    def layer_norm(k, bound):
        x = bound["x"]
        rank = len(program.shape(x))
        layer_norm_layer(program, nodes[k], x, nodes[k].outputs, rank - 1, program.consts[bound["G"]].reshape(-1),
                         program.consts[bound["B"]].reshape(-1), float(program.consts[bound["E"]].reshape(-1)[0]),
                         bound["G"])

    fusions = find_fusions(program, gelu, layer_norm)
    for k, node in enumerate(nodes):
        if k in program.done or not program.runtime[k]:
            continue
        program.done.add(k)
        program.hint = node.op.lower()
        if k in fusions:
            write, bound = fusions[k]
            write(bound)
        elif node.op in _CONTROL:
            _CONTROL[node.op](program, node, _build)
        elif not any(pattern(program, k) for pattern in PATTERNS.get(node.op, ())):
            emit(program, node)


_CREATE_LOADING = '''def create_network(ckpt_file=CKPT_FILE):
    """The network with the converted weights from `ckpt_file`, in inference mode."""
    net = {class_name}()
    not_loaded, _ = ms.load_param_into_net(net, ms.load_checkpoint(ckpt_file), strict_load=True)
    if not_loaded:
        raise ValueError(f"{{ckpt_file}} has no value for the parameters {{not_loaded}}.")
    net.set_train(False)
    return net
'''
_CREATE_PLAIN = '''def create_network():
    """The network (it has no weights), in inference mode."""
    net = {class_name}()
    net.set_train(False)
    return net
'''


def _source(program, class_name, source_name, ckpt_name):
    g = program.graph
    inputs = [program.var[name] for name, _, _ in g.input_specs]
    doc_inputs = "\n".join(f"    {program.var[n]}: {np.dtype(d).name} {tuple_text(s) if s else '()'}"
                           for n, s, d in g.input_specs)
    examples = ", ".join(f"ops.{'ones' if np.dtype(d).kind == 'f' else 'zeros'}({tuple_text(s) if s else '()'}, "
                         f"{dtype_text(d)})" for _, s, d in g.input_specs)
    init = "".join(f"\n        self.{attr} = {ctor}" for attr, ctor in program.layers)
    body = "\n".join("        " + line for line in program.lines + [program.result()])
    ckpt_line, create = "", _CREATE_PLAIN.format(class_name=class_name)
    if ckpt_name:
        ckpt_line = f"CKPT_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), {ckpt_name!r})\n\n\n"
        create = _CREATE_LOADING.format(class_name=class_name)
    return f'''"""{class_name}: a MindSpore network converted from the ONNX file '{source_name}' (opset {g.opset}{
        f", written by {g.producer}" if g.producer else ""}) by mindseed.converter.

    net = create_network()      # the network{f", its weights loaded from {ckpt_name} next to this file" if ckpt_name
                                                 else " (it has no weights)"}
    out = net({", ".join(inputs)})

Inputs:
{doc_inputs}
"""
{"import os" + chr(10) + chr(10) if ckpt_name else ""}import mindspore as ms
from mindspore import nn, ops


{ckpt_line}class {class_name}(nn.Cell):
    def __init__(self):
        super().__init__(){init}

    def construct(self, {", ".join(inputs)}):
{body}


{create}

if __name__ == "__main__":
    outputs = create_network()({examples})
    for output in outputs if isinstance(outputs, tuple) else (outputs,):
        print(output.shape, output.dtype)
'''


def convert(model_file, output_dir, input_shape=None, class_name=None):
    """Convert the ONNX file `model_file` into `<output_dir>/<name>.py` and `<name>.ckpt` (`name` is the file's
    stem made an identifier); returns the two paths (None for the ckpt of a network without weights).
    `input_shape` {input name: shape} fixes dynamic dims."""
    from mindseed.export._onnx_load import read_onnx  # noqa: PLC0415 -- needs the optional onnx package
    from mindseed.train.serialization import save_checkpoint  # noqa: PLC0415
    if not isinstance(model_file, str) or not os.path.isfile(model_file):
        raise ValueError(f"For 'converter', the model file '{model_file}' does not exist.")
    if not isinstance(output_dir, str) or not output_dir:
        raise ValueError(f"For 'converter', the output directory must be a non-empty str, but got {output_dir!r}.")
    if class_name is not None and not (isinstance(class_name, str) and class_name.isidentifier()):
        raise ValueError(f"For 'converter', 'class_name' must be a Python identifier, but got {class_name!r}.")
    graph = read_onnx(model_file)
    graph.input_specs = _input_specs(graph, dict(input_shape or {}))
    program = Program(graph)
    _build(program)
    stem = re.sub(r"\W+", "_", os.path.splitext(os.path.basename(model_file))[0]).strip("_") or "network"
    stem = stem if stem[0].isalpha() else "net_" + stem
    source = _source(program, class_name or _class_name(stem), os.path.basename(model_file),
                     stem + ".ckpt" if program.params else None)
    ast.parse(source)      # a bug of the converter must not write a file that does not parse
    os.makedirs(output_dir, exist_ok=True)
    py_file, ckpt_file = os.path.join(output_dir, stem + ".py"), os.path.join(output_dir, stem + ".ckpt")
    if program.params:
        save_checkpoint([{"name": name, "data": Tensor(np.asarray(value, order="C"))}
                         for name, value in program.params.items()], ckpt_file)
    else:
        ckpt_file = None
    with open(py_file, "w", encoding="utf-8") as f:
        f.write(source)
    return py_file, ckpt_file


def _shape_arg(text):
    name, sep, dims = text.rpartition(":")
    try:
        if not sep or not name:
            raise ValueError
        return name, tuple(int(d) for d in dims.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected NAME:D1,D2,..., got {text!r}") from None


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m mindseed.converter",
                                     description="Convert an ONNX model into MindSpore Python source and a .ckpt.")
    parser.add_argument("model", help="the .onnx file")
    parser.add_argument("-o", "--output", default=".", help="output directory (default: the current one)")
    parser.add_argument("--input-shape", action="append", type=_shape_arg, default=[], metavar="NAME:D1,D2,...",
                        help="the static shape of an input with dynamic dims (repeatable)")
    parser.add_argument("--class-name", default=None, help="the generated Cell's name (default: from the file name)")
    args = parser.parse_args(argv)
    try:
        py_file, ckpt_file = convert(args.model, args.output, dict(args.input_shape), args.class_name)
    except (ValueError, ImportError) as e:
        print(f"mindseed.converter: error: {e}", file=sys.stderr)
        return 1
    print(f"wrote {py_file}" + (f" and {ckpt_file}" if ckpt_file else " (no weights)"))
    return 0
