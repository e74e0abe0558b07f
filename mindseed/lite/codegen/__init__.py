"""Models as code (MindSpore Lite's micro codegen): a MindIR file compiled to self-contained C99.

    python -m mindseed.lite.codegen model.mindir -o out/ [--name NAME] [--input-shape 1,1,32,32] [--embed-weights]
    cd out && make && ./NAME_run NAME.bin input.bin output.bin

The model is loaded with the checked MindIR loader and compiled as the Lite runtime compiles it
(`lite._compile.inference_graph`: weights bound as constants, batch norms and biases folded into convolutions,
MatMul + bias as Dense, ReLUs fused); the graph's memory plan gives every activation a fixed offset in one static
arena. The generated files (see `_emit`): `NAME.h` (`NAME_init(weights_path)`, `NAME_init_from_buffer(data,
size)`, `NAME_predict(in, out)`, `NAME_free()`, `NAME_last_error()`), `NAME.c` (kernels, loader, predict: no
allocation), `NAME.bin` (the weights, checked when loaded), `main.c` (a driver), a Makefile (gcc -O3), and with
`embed_weights` `NAME_weights.c` (the blob as a const array). Only libc and libm are used.

Control flow (If / While on tensor values) becomes C if / for loops (`_control`). An operator without a C kernel or
a value other than float32, int32 indices and booleans is a `CodegenError` (a ValueError) naming the file and the
node.
"""
import argparse
import os
import re
import sys

import numpy as np

from mindseed.lite.codegen._emit import HEADER_BYTES, MAGIC, write_files
from mindseed.lite.codegen._lower import SUPPORTED, CodegenError, Lowered

__all__ = ["CodegenError", "HEADER_BYTES", "MAGIC", "SUPPORTED", "generate", "main"]


def _load(model_path, input_shapes):
    """The model's inference graph for its (or the given) static input shapes."""
    from mindseed.common.tensor import Tensor  # noqa: PLC0415 -- the framework loads only when generating
    from mindseed.export import load  # noqa: PLC0415
    from mindseed.lite._compile import inference_graph  # noqa: PLC0415
    from mindseed.lite._model import _COMPILE_LOCK  # noqa: PLC0415
    from mindseed.nn import GraphCell  # noqa: PLC0415
    graph = load(model_path)
    specs = graph.input_specs
    if input_shapes is not None and len(input_shapes) != len(specs):
        raise CodegenError(f"mindseed.lite.codegen: model '{model_path}' has {len(specs)} inputs, but "
                           f"{len(input_shapes)} input shapes were given.")
    args, new_specs = [], []
    for k, (name, shape, dtype) in enumerate(specs):
        shape = tuple(input_shapes[k]) if input_shapes is not None else tuple(shape)
        if any(d is None or not isinstance(d, int) or d < 1 for d in shape):
            raise CodegenError(f"mindseed.lite.codegen: model '{model_path}', input '{name}' has shape {shape}: "
                               f"give a static shape (input_shapes / --input-shape).")
        if np.dtype(dtype) not in (np.float32, np.int32):
            raise CodegenError(f"mindseed.lite.codegen: model '{model_path}', input '{name}' is "
                               f"{np.dtype(dtype).name}: the generated C takes float32 and int32 inputs only.")
        args.append(Tensor(np.zeros(shape, dtype)))
        new_specs.append((name, shape, dtype))
    graph.input_specs = new_specs       # as Model.resize: the shapes the graph is traced with
    with _COMPILE_LOCK:
        return inference_graph(GraphCell(graph), args)


def generate(model_path, out_dir, name=None, input_shapes=None, embed_weights=False):
    """Compile the MindIR file `model_path` to C in `out_dir`; {kind: path} of the files written (header, source,
    weights, driver, makefile, and weights_c with `embed_weights`)."""
    if not os.path.isfile(model_path):
        raise FileNotFoundError(f"mindseed.lite.codegen: the model file '{model_path}' does not exist.")
    if name is None:
        name = re.sub(r"\W", "_", os.path.splitext(os.path.basename(model_path))[0]) or "model"
        name = name if not name[0].isdigit() else "m_" + name
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise ValueError(f"mindseed.lite.codegen: the name must be a C identifier, but got {name!r}.")
    lowered = Lowered(_load(model_path, input_shapes), model_path)
    return write_files(out_dir, name, lowered, model_path, embed=embed_weights)


def _shape_arg(text):
    try:
        return tuple(int(d) for d in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"an input shape is comma-separated integers, like 1,3,32,32, but got "
                                         f"{text!r}") from None


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m mindseed.lite.codegen",
                                     description="Compile a MindIR model to self-contained C99 (libc/libm only).")
    parser.add_argument("model", help="the .mindir file")
    parser.add_argument("-o", "--output", required=True, help="the directory to write the C files into")
    parser.add_argument("--name", help="the C prefix of the model's functions (default: the file's name)")
    parser.add_argument("--input-shape", action="append", type=_shape_arg, dest="shapes",
                        help="a static shape for each input, in order (default: the file's)")
    parser.add_argument("--embed-weights", action="store_true",
                        help="also write NAME_weights.c: the weights as a const array in the library")
    args = parser.parse_args(argv)
    try:
        paths = generate(args.model, args.output, args.name, args.shapes, args.embed_weights)
    except (OSError, ValueError) as e:    # CodegenError, MindIRError (a ValueError) and unreadable files
        print(f"error: {e}", file=sys.stderr)
        return 1
    for kind, path in paths.items():
        print(f"{kind:10s} {path}")
    return 0
