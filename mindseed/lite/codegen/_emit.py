"""The files of a generated model: `<name>.h`, `<name>.c` (runtime kernels + loader + predict), the weights blob
`<name>.bin` (and optionally `<name>_weights.c`, the same bytes as a const array), `main.c` (a driver that runs
the model on a file or times it) and a Makefile.

The weights blob: a 64-byte header, then each constant as little-endian float32, 64-byte aligned.

    offset  0  magic "MSCGWTS1"           offset 16  payload bytes (uint64)
    offset  8  version 1 (uint32)         offset 24  CRC-32 of the payload (uint32)
    offset 12  number of tensors (uint32) offset 32  model id (16 bytes: which generated model it belongs to)

The C loader checks all of it (size, magic, version, model id, payload size, checksum) before using a byte.
"""
import hashlib
import os
import struct
import zlib

import numpy as np

from mindseed._utils._files import atomic_write

__all__ = ["HEADER_BYTES", "MAGIC", "weights_blob", "write_files"]

MAGIC = b"MSCGWTS1"
HEADER_BYTES = 64
_HERE = os.path.dirname(os.path.abspath(__file__))


def weights_blob(lowered, model_id):
    payload = bytearray(lowered.weight_bytes)
    for off, array in lowered.weights:
        raw = array.tobytes()
        payload[off:off + len(raw)] = raw
    header = MAGIC + struct.pack("<IIQII", 1, len(lowered.weights), len(payload), zlib.crc32(payload), 0)
    header += model_id + bytes(HEADER_BYTES - len(header) - len(model_id))
    return header + bytes(payload)


_RUNTIME = ("runtime.c", "runtime_blocked.c", "runtime_winograd.c")   # the kernels, in the generated source's order


def _c_bytes(data):
    return ",\n".join(",".join(str(b) for b in data[i:i + 32]) for i in range(0, len(data), 32)) or "0"


def _in_params(lowered):
    """The inputs' C parameters: float32 ones as float, int32 ones (indices) as int32_t."""
    return ", ".join(f"const {t} *{n}" for t, n in zip(lowered.in_types, lowered.in_names))


def _shape_comment(kind, k, shape, ctype="float"):
    dtype = "int32" if ctype == "int32_t" else "float32"
    return f"/* {kind} {k}: {dtype} {list(shape)} ({int(np.prod(shape, dtype=np.int64))} values) */"


def _header(name, lowered, total, embed):
    up = name.upper()
    ins = _in_params(lowered)
    outs = ", ".join(f"float *{n}" for n in lowered.out_names)
    sizes = []
    for kind, shapes in (("IN", lowered.in_shapes), ("OUT", lowered.out_shapes)):
        for k, s in enumerate(shapes):
            ctype = lowered.in_types[k] if kind == "IN" else "float"
            sizes += [_shape_comment("input" if kind == "IN" else "output", k, s, ctype),
                      f"#define {up}_{kind}{k}_SIZE {int(np.prod(s, dtype=np.int64))}"]
    embedded = [f"extern const unsigned char {name}_weights_data[];", f"extern const size_t {name}_weights_size;",
                ""] if embed else []
    return "\n".join([
        f"/* {name}: a model compiled to C by mindseed.lite.codegen. Not thread-safe: one model state per process. */",
        f"#ifndef {up}_H", f"#define {up}_H", "", "#include <stddef.h>", "#include <stdint.h>", "",
        "#ifdef __cplusplus",
        'extern "C" {', "#endif", "", *sizes,
        f"#define {up}_WEIGHTS_BYTES {total}", f"#define {up}_ARENA_BYTES {lowered.arena_bytes}", "",
        "/* Load the weights (the .bin file written with this code); 0 on success, else -1 and "
        f"{name}_last_error() says why. */",
        f"int {name}_init(const char *weights_path);",
        "/* The same from memory (used in place when 4-byte aligned, else copied). */",
        f"int {name}_init_from_buffer(const void *data, size_t size);",
        "/* Run the model: no allocation, the activations live in a static arena; 0 on success. */",
        f"int {name}_predict({ins}, {outs});", f"void {name}_free(void);",
        f"const char *{name}_last_error(void);", "", *embedded,
        "#ifdef __cplusplus", "}", "#endif", f"#endif /* {up}_H */", ""])


def _source(name, lowered, model_id, total, where):
    template = open(os.path.join(_HERE, "model.c.in"), encoding="utf-8").read()
    runtime = "".join(open(os.path.join(_HERE, f), encoding="utf-8").read() for f in _RUNTIME)
    params = _in_params(lowered) + ", " + ", ".join(f"float *{n}" for n in lowered.out_names)
    body = "\n".join("    " + line for line in lowered.body)
    return template.replace("@RUNTIME@", runtime).replace("@BODY@", body).replace("@PARAMS@", params) \
        .replace("@MODEL@", os.path.basename(where).replace("*/", "")).replace("@NAME@", name) \
        .replace("@ARENA_FLOATS@", str(max(1, lowered.arena_bytes // 4))) \
        .replace("@SCRATCH_FLOATS@", str(max(1, lowered.scratch_floats))) \
        .replace("@PAYLOAD@", str(total - HEADER_BYTES)).replace("@NTENSORS@", str(len(lowered.weights))) \
        .replace("@MODEL_ID@", ", ".join(str(b) for b in model_id))


def _driver(name, lowered, embed):
    template = open(os.path.join(_HERE, "main.c.in"), encoding="utf-8").read()
    up = name.upper()
    args = ", ".join([f"in_buf + {o}" if t == "float" else f"(const int32_t *)(in_buf + {o})"
                      for o, t in zip(_offsets(lowered.in_shapes), lowered.in_types)]
                     + [f"out_buf + {o}" for o in _offsets(lowered.out_shapes)])
    n_in = sum(int(np.prod(s, dtype=np.int64)) for s in lowered.in_shapes)
    n_out = sum(int(np.prod(s, dtype=np.int64)) for s in lowered.out_shapes)
    init_embedded = (f"{name}_init_from_buffer({name}_weights_data, {name}_weights_size)" if embed else
                     f'(fprintf(stderr, "{name}_run: this build has no embedded weights\\n"), -1)')
    return template.replace("@NAME@", name).replace("@UP@", up).replace("@ARGS@", args) \
        .replace("@N_IN@", str(max(1, n_in))).replace("@N_OUT@", str(max(1, n_out))) \
        .replace("@INIT_EMBEDDED@", init_embedded)


def _offsets(shapes):
    offs, at = [], 0
    for s in shapes:
        offs.append(at)
        at += int(np.prod(s, dtype=np.int64))
    return offs


def _makefile(name, where, embed):
    objs = f"{name}.o" + (f" {name}_weights.o" if embed else "")
    return f"""# {name}: {os.path.basename(where)} as C, generated by mindseed.lite.codegen.
# `make` builds lib{name}.a (the model) and {name}_run (a driver: {name}_run WEIGHTS IN OUT [REPEATS]).
# Cross-compiling: make CC=... CFLAGS="-O3 -std=c99 ..." (the default tunes for this machine; -ffp-contract=fast
# lets ISO C mode use fused multiply-adds).
CC = gcc
CFLAGS = -O3 -std=c99 -ffp-contract=fast -march=native
LDLIBS = -lm
OBJS = {objs}

all: lib{name}.a {name}_run

%.o: %.c {name}.h
\t$(CC) $(CFLAGS) -c -o $@ $<

lib{name}.a: $(OBJS)
\t$(AR) rcs $@ $(OBJS)

{name}_run: main.c lib{name}.a {name}.h
\t$(CC) $(CFLAGS) -o $@ main.c lib{name}.a $(LDLIBS)

clean:
\trm -f $(OBJS) lib{name}.a {name}_run

.PHONY: all clean
"""


def write_files(out_dir, name, lowered, where, embed=False):
    """Write the model's files into out_dir; {kind: path}."""
    layout = repr((name, lowered.in_shapes, lowered.out_shapes, [(o, a.shape) for o, a in lowered.weights],
                   lowered.body)).encode()
    model_id = hashlib.sha256(layout).digest()[:16]
    blob = weights_blob(lowered, model_id)
    os.makedirs(out_dir, exist_ok=True)
    files = {"header": f"{name}.h", "source": f"{name}.c", "weights": f"{name}.bin", "driver": "main.c",
             "makefile": "Makefile"}
    texts = {"header": _header(name, lowered, len(blob), embed),
             "source": _source(name, lowered, model_id, len(blob), where),
             "driver": _driver(name, lowered, embed), "makefile": _makefile(name, where, embed)}
    if embed:
        files["weights_c"] = f"{name}_weights.c"
        texts["weights_c"] = (f'/* {name}.bin as a const array (mindseed.lite.codegen) */\n#include <stddef.h>\n'
                              f'#include "{name}.h"\n#if defined(__GNUC__)\n__attribute__((aligned(64)))\n#endif\n'
                              f"const unsigned char {name}_weights_data[] = {{\n{_c_bytes(blob)}\n}};\n"
                              f"const size_t {name}_weights_size = {len(blob)};\n")
    paths = {k: os.path.join(out_dir, f) for k, f in files.items()}
    for k, text in texts.items():
        atomic_write(paths[k], text)
    atomic_write(paths["weights"], blob)
    return paths
