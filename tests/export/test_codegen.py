"""Models as C (`python -m mindseed.lite.codegen`): MindIR files exported by mindseed compiled to C99 with the
system gcc -O3, run on inputs written to a file, compared with mindseed; the weights loader's checks; errors."""
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import mindseed as ms
from export import _nets
from mindseed.lite import codegen

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None or shutil.which("make") is None,
                                reason="the generated C is built with the system gcc and make")


@pytest.fixture(scope="module")
def nets():
    return _nets.build(ms, full=True)


def _build(tmp_path, net, xs, name, **kw):
    """Export `net` on inputs `xs`, generate C into tmp_path/name, make it; the output directory."""
    ms.export(net, *[ms.Tensor(x) for x in xs], file_name=str(tmp_path / name))
    out = tmp_path / ("c_" + name)
    paths = codegen.generate(str(tmp_path / (name + ".mindir")), str(out), **kw)
    assert set(paths) >= {"header", "source", "weights", "driver", "makefile"}
    r = subprocess.run(["make", "-s", "-C", str(out)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    return out


def _run(out, name, xs, weights=None, repeats=0):
    """Run the driver on xs (float32, or int32 for integer arrays); (returncode, outputs as one float32 array,
    stdout, stderr)."""
    (out / "in.bin").write_bytes(b"".join(np.ascontiguousarray(x, "<i4" if x.dtype.kind in "iu" else "<f4").tobytes()
                                          for x in xs))
    if (out / "out.bin").exists():
        (out / "out.bin").unlink()
    r = subprocess.run([str(out / f"{name}_run"), str(weights or out / f"{name}.bin"), str(out / "in.bin"),
                        str(out / "out.bin"), str(repeats)], capture_output=True, text=True, timeout=600)
    got = np.fromfile(out / "out.bin", "<f4") if r.returncode == 0 else None
    return r.returncode, got, r.stdout, r.stderr


def _check(got, want):
    flat = np.concatenate([w.ravel() for w in want]).astype(np.float64)
    np.testing.assert_allclose(got, flat, rtol=1e-4, atol=1e-4 * max(1.0, np.abs(flat).max()))


@pytest.mark.parametrize("name,batch", [("lenet5", 1), ("lenet5", 3), ("resnet20", 1), ("resnet20", 2),
                                        ("lenet", 2), ("resblock", 2)])
def test_generated_c_equals_mindseed(tmp_path, nets, name, batch):
    """LeNet-5 (1x32x32) and ResNet-20 (3x32x32, 16/32/64 channels): the C program's outputs are mindseed's."""
    net, x = nets[name]
    x = np.random.RandomState(batch).randn(batch, *x.shape[1:]).astype(np.float32)
    out = _build(tmp_path, net, [x], name)
    rc, got, _, err = _run(out, name, [x])
    assert rc == 0, err
    _check(got, [net(ms.Tensor(x)).asnumpy()])
    # the same program on other data (nothing is left over from the first call)
    y = np.random.RandomState(batch + 10).randn(*x.shape).astype(np.float32)
    rc, got, _, err = _run(out, name, [y])
    assert rc == 0, err
    _check(got, [net(ms.Tensor(y)).asnumpy()])


FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures", "mindir")


@pytest.mark.parametrize("name", ["lenet", "resnet", "mlp"])
def test_files_written_by_mindspore(tmp_path, name):
    """MindIR files exported by MindSpore 2.10 itself (tests/fixtures/mindir): the C gives MindSpore's outputs."""
    with np.load(os.path.join(FIXTURES, "expected.npz"), allow_pickle=False) as f:
        expected = dict(f)
    out = tmp_path / name
    codegen.generate(os.path.join(FIXTURES, name + ".mindir"), str(out))
    assert subprocess.run(["make", "-s", "-C", str(out)], capture_output=True, timeout=600).returncode == 0
    rc, got, _, err = _run(out, name, [expected[name + "_x"]])
    assert rc == 0, err
    _check(got, [expected[k] for k in sorted(expected) if k.startswith(name + "_y")])


def test_arena_is_the_memory_plan_and_predict_does_not_allocate(tmp_path, nets):
    net, x = nets["resnet20"]
    out = _build(tmp_path, net, [x[:1]], "resnet20")
    header = (out / "resnet20.h").read_text()
    source = (out / "resnet20.c").read_text()
    arena = int(header.split("#define RESNET20_ARENA_BYTES ")[1].split()[0])
    # ResNet-20 at batch 1 has ~0.8 MB of activations; two 16x32x32 maps (34x34 with the border) live at once
    assert 2 * 16 * 34 * 34 * 4 <= arena <= 4 * 16 * 34 * 34 * 4
    assert f"static float mscg_arena[{arena // 4}]" in source
    predict = source[source.index("int resnet20_predict("):]
    assert "malloc" not in predict and "free(" not in predict
    # 19 + 2 projections, all in the blocked layout (8 channels a vector, a zero border: padding read in place):
    # the input converted once, the global average pool reads the last block directly; the 17 of stride 1 by
    # Winograd's F(2x2, 3x3), the 2 of stride 2 and the 2 1x1 projections direct
    assert predict.count("mscg_conv3x3_winograd(") == 17 and predict.count("mscg_conv2d_blocked(") == 4
    assert "mscg_conv2d(" not in predict
    assert predict.count("mscg_to_blocked(") == 1 and predict.count("mscg_blocked_mean(") == 1
    assert "mscg_gemm(1, 10, 64," in predict
    # the 9 residual additions (and their ReLUs) run in the epilogue of the convolution before them
    assert "fmaxf(a + b, 0.0f)" not in predict and "+ b" not in predict
    assert sum(call.split(");")[0].rsplit(",", 2)[1].strip() != "0"      # (..., relu, res, scratch)
               for call in predict.split("mscg_conv3x3_winograd(")[1:]) == 9
    assert "BatchNorm" not in predict          # folded into the convolutions


class _ConvPaths(ms.nn.Cell):
    """Convolutions of every C path: stride 1 with rows of 8 (direct: dilated, grouped, 7 and 5 output channels a
    group: blocks of 6 and 4 rows), rows of 15 (the whole column matrix), stride 2 over a column matrix past 256 KB
    (panels), residual additions with and without a ReLU, and a convolution whose output is read twice (no
    fusion)."""

    def __init__(self):
        super().__init__()
        conv = ms.nn.Conv2d
        self.a = conv(3, 7, 3, pad_mode="pad", padding=2, dilation=2, has_bias=True)
        self.b = conv(7, 10, 3, pad_mode="pad", padding=(1, 0, 2, 1), group=1, has_bias=True)
        self.g = conv(10, 10, 3, pad_mode="same", group=2, has_bias=False)
        self.c = conv(10, 10, 1, has_bias=True)
        self.wide = conv(10, 120, 1, has_bias=False)
        self.s2 = conv(120, 5, 3, stride=2, pad_mode="pad", padding=1, has_bias=True)

    def construct(self, x):
        y = ms.ops.relu(self.a(x))                          # (n, 7, 16, 16)
        z = self.b(y)[:, :, :, :16]                         # (n, 10, 16, 16), padding (1, 0, 2, 1) -> 17 columns
        r = ms.ops.relu(self.g(z) + z)                      # residual with ReLU (AddReLU)
        u = self.c(r) + r                                   # residual without ReLU
        p = self.c(u)
        v = self.wide(p + u) * 0.5 + p.sum()                # p read twice: not fused
        return self.s2(v), u


def test_convolution_paths_equal_mindseed(tmp_path):
    net = _nets._det_init(ms, _ConvPaths())
    x = np.random.RandomState(3).randn(2, 3, 16, 16).astype(np.float32)
    out = _build(tmp_path, net, [x], "paths")
    predict = (out / "paths.c").read_text().split("int paths_predict(")[1]
    assert predict.count("mscg_conv2d_packed(") == 6 and predict.count("mscg_conv2d(") == 1
    residual = [call.split(");")[0].rsplit(",", 2)[1].strip() for call in predict.split("mscg_conv2d_packed(")[1:]]
    assert sum(r != "0" for r in residual) == 2
    rc, got, _, err = _run(out, "paths", [x])
    assert rc == 0, err
    _check(got, _nets.outputs(net(ms.Tensor(x))))


class _Blocked(ms.nn.Cell):
    """Convolutions in the blocked layout: channel counts that are not multiples of 8 (3 -> 5 -> 12 -> 20), a
    non-square image whose rows are no multiple of the 6-position tile, stride 2 with and without padding, a 5x5
    kernel padded by 1, identity and projection residuals with and without a ReLU, a value read by a blocked
    convolution and an NCHW operator, and the spatial mean of a blocked value. With `mixed`, z (the sum of two
    convolutions) is also read by an NCHW operator: z and everything before it stay NCHW, the convolution after it
    converts it."""

    def __init__(self, mixed):
        super().__init__()
        self.mixed = mixed
        conv = ms.nn.Conv2d
        self.a = conv(3, 5, 3, pad_mode="pad", padding=1, has_bias=True)
        self.b = conv(5, 5, 3, pad_mode="pad", padding=1, has_bias=False)
        self.s2 = conv(5, 12, 3, stride=2, pad_mode="pad", padding=1, has_bias=True)
        self.proj = conv(5, 12, 1, stride=2, has_bias=False)
        self.k5 = conv(12, 20, 5, pad_mode="pad", padding=1, has_bias=True)
        self.c = conv(20, 20, 3, pad_mode="pad", padding=1, has_bias=True)

    def construct(self, x):
        y = ms.ops.relu(self.a(x))                      # (n, 5, 11, 9)
        y = ms.ops.relu(self.b(y) + y)                  # identity residual + ReLU
        z = self.s2(y) + self.proj(y)                   # projection residual, no ReLU: (n, 12, 6, 5)
        u = ms.ops.relu(self.k5(z))                     # (n, 20, 4, 3)
        v = self.c(u) + u
        return v.mean(axis=(2, 3)), ms.ops.sigmoid(z if self.mixed else x)


@pytest.mark.parametrize("mixed", [False, True])
@pytest.mark.parametrize("size", [(11, 9), (12, 20), (10, 14)])
def test_blocked_convolutions_equal_mindseed(tmp_path, mixed, size):
    """The blocked convolutions; those of 3x3, stride 1, padding 1 with an even output height and width by
    Winograd's F(2x2, 3x3): at 12x20 a, b and c (60 tiles of 2x2: whole chunks of 12; c's 4x8 output: 8 tiles, a
    partial chunk), at 10x14 a and b (35 tiles: a last chunk of 11, register tiles of 6 and 5), at 11x9 none."""
    net = _nets._det_init(ms, _Blocked(mixed))
    x = np.random.RandomState(5).randn(3, 3, *size).astype(np.float32)
    out = _build(tmp_path, net, [x], "blocked")
    predict = (out / "blocked.c").read_text().split("int blocked_predict(")[1]
    winograd = {(11, 9): 0, (12, 20): 1 if mixed else 3, (10, 14): 0 if mixed else 2}[size]
    assert predict.count("mscg_conv3x3_winograd(") == winograd
    assert predict.count("mscg_conv2d_blocked(") == (2 if mixed else 6) - winograd
    assert predict.count("mscg_to_blocked(") == 1 and predict.count("mscg_blocked_mean(") == 1
    # the blocked run goes image by image (its activations sized for one image), converting its input's image n
    assert predict.count("for (long n = 0; n < 3; n++) {") == 1 and "+ n * " in predict.split("mscg_to_blocked(")[1]
    rc, got, _, err = _run(out, "blocked", [x])
    assert rc == 0, err
    _check(got, _nets.outputs(net(ms.Tensor(x))))
    r = subprocess.run(["make", "-s", "-B", "-C", str(out), "CFLAGS=-O2 -std=c99 -DMSCG_SCALAR"], capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    rc, got, _, err = _run(out, "blocked", [x])
    assert rc == 0, err
    _check(got, _nets.outputs(net(ms.Tensor(x))))


class _Zoo(ms.nn.Cell):
    """Pooling of odd sizes, grouped convolution, softmax, unfolded batch norm, broadcasting, slicing,
    concatenation, transposes, activations."""

    def __init__(self):
        super().__init__()
        self.conv = ms.nn.Conv2d(3, 6, 3, stride=2, pad_mode="pad", padding=(1, 0, 2, 1), dilation=1)
        self.dw = ms.nn.Conv2d(6, 6, 3, pad_mode="same", group=3, has_bias=True)
        self.bn = ms.nn.BatchNorm2d(6)
        self.maxpool = ms.nn.MaxPool2d(kernel_size=2, stride=2)
        self.avgpool = ms.nn.AvgPool2d(kernel_size=2, stride=1, pad_mode="valid")
        self.fc = ms.nn.Dense(6 * 2 * 2, 5)
        self.scale = ms.Parameter(ms.Tensor(np.linspace(0.5, 1.5, 6).astype(np.float32).reshape(1, 6, 1, 1)),
                                  name="scale")

    def construct(self, x):
        y = self.conv(x)
        y = self.bn(ms.ops.relu(y)) * self.scale - 0.25
        z = self.dw(ms.ops.sigmoid(y)) + ms.ops.tanh(y)
        p = ms.ops.concat((self.maxpool(z), ms.ops.sqrt(ms.ops.square(self.maxpool(y)) + 1.0)), axis=1)
        q = self.avgpool(p)
        p = q[:, :6] + ms.ops.exp(-ms.ops.abs(q[:, 6:]))
        h = self.fc(p.reshape(p.shape[0], -1))
        t = ms.ops.transpose(p, (0, 2, 3, 1)).mean(axis=(1, 2))
        return ms.ops.softmax(h, axis=-1), ms.ops.gelu(t, approximate="tanh") / 2.0, ms.ops.log_softmax(t, axis=1)


def test_more_operators_and_outputs(tmp_path):
    net = _nets._det_init(ms, _Zoo())
    x = np.random.RandomState(0).randn(2, 3, 15, 13).astype(np.float32)
    out = _build(tmp_path, net, [x], "zoo")
    rc, got, _, err = _run(out, "zoo", [x])
    assert rc == 0, err
    _check(got, _nets.outputs(net(ms.Tensor(x))))


@pytest.mark.parametrize("name", ["gpt", "gpt_w4"])
def test_gpt_equals_mindseed(tmp_path, nets, name):
    """The GPT (int32 token ids -> embedding Gather, LayerNorm, batched MatMul, Softmax, tanh GeLU, Transpose) as C:
    the int32 input is the C function's `const int32_t *`, the logits are mindseed's within 1e-4."""
    net, idx = nets[name]
    out = _build(tmp_path, net, [idx], name)
    assert "const int32_t *in" in (out / f"{name}.h").read_text()
    for seed in (0, 1):
        x = np.random.RandomState(seed).randint(0, net.vocab, size=idx.shape).astype(np.int32)
        x[0, :2] = [-1, -net.vocab]          # negative ids count from the end, as mindseed's Gather
        rc, got, _, err = _run(out, name, [x])
        assert rc == 0, err
        _check(got, [net(ms.Tensor(x)).asnumpy()])


class _Stages(ms.nn.Cell):
    """Two Dense layers on pipeline stages 0 and 1 and a mean squared error: what nn.PipelineCell and
    nn.GradAccumulationCell cut into micro-batches (MicroBatchSlice calls, exported as StridedSlices)."""

    def __init__(self):
        super().__init__()
        self.d1, self.d2 = ms.nn.Dense(4, 6), ms.nn.Dense(6, 3)
        self.d1.pipeline_stage, self.d2.pipeline_stage = 0, 1

    def construct(self, x, y):
        d = self.d2(ms.ops.relu(self.d1(x))) - y
        return (d * d).mean()


@pytest.mark.parametrize("wrap", ["PipelineCell", "GradAccumulationCell", "MicroBatchInterleaved"])
def test_micro_batch_graphs_as_c_and_on_the_lite_runtime(tmp_path, wrap):
    """A pipeline's and a gradient accumulation's forward graph (micro-batch slices of the batch, the losses summed)
    exported to MindIR runs on mindseed.lite and as generated C with mindseed's loss."""
    from mindseed import lite as mslite   # noqa: PLC0415
    net = _nets._det_init(ms, getattr(ms.nn, wrap)(_Stages(), 4 if wrap == "PipelineCell" else 2))
    rng = np.random.RandomState(3)
    x, y = rng.randn(8, 4).astype(np.float32), rng.randn(8, 3).astype(np.float32)
    want = net(ms.Tensor(x), ms.Tensor(y)).asnumpy()
    out = _build(tmp_path, net, [x, y], "micro")
    rc, got, _, err = _run(out, "micro", [x, y])
    assert rc == 0, err
    _check(got, [want])
    context = mslite.Context()
    context.target = ["cpu"]
    model = mslite.Model()
    model.build_from_file(str(tmp_path / "micro.mindir"), mslite.ModelType.MINDIR, context)
    inputs = model.get_inputs()
    for t, a in zip(inputs, (x, y)):
        t.set_data_from_numpy(a)
    np.testing.assert_allclose(model.predict(inputs)[0].get_data_to_numpy(), want, rtol=1e-5, atol=1e-6)


def test_gather_and_layer_norm_variants(tmp_path):
    """Gather along an inner axis with constant indices and an out-of-range id (zeros, as MindSpore's CPU kernel);
    LayerNorm over two trailing axes."""
    class Net(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.ln = ms.nn.LayerNorm((3, 4), begin_norm_axis=1, begin_params_axis=1, epsilon=1e-3)
            self.table = ms.Tensor(np.arange(40, dtype=np.float32).reshape(2, 5, 4) / 7.0)

        def construct(self, x, ids):
            g = ms.ops.gather(self.table, ids, 1) + ms.ops.gather(self.table, ms.Tensor([4, 0, 2], ms.int32), 1)
            return self.ln(x) * 2.0, g

    net = _nets._det_init(ms, Net())
    x = np.random.RandomState(0).randn(2, 3, 4).astype(np.float32) * 3 + 1
    ids = np.array([1, -2, 3], np.int32)
    out = _build(tmp_path, net, [x, ids], "gl")
    rc, got, _, err = _run(out, "gl", [x, ids])
    assert rc == 0, err
    _check(got, _nets.outputs(net(ms.Tensor(x), ms.Tensor(ids))))
    bad = np.array([1, 5, 3], np.int32)       # id 5 of 5: out of range
    rc, got, _, err = _run(out, "gl", [x, bad])
    assert rc == 0, err
    g = got[24:].reshape(2, 3, 4)
    want = _nets.outputs(net(ms.Tensor(x), ms.Tensor(np.array([1, 1, 3], np.int32))))[1]
    np.testing.assert_allclose(g[:, [0, 2]], want[:, [0, 2]], rtol=1e-5)
    table = np.arange(40, dtype=np.float32).reshape(2, 5, 4) / 7.0
    np.testing.assert_allclose(g[:, 1], table[:, 0], rtol=1e-6)    # zeros from id 5, + the constant id 0's row


def test_input_and_output_dtypes_are_checked(tmp_path):
    class Half(ms.nn.Cell):
        def construct(self, x):
            return x * 2

    ms.export(Half(), ms.Tensor(np.ones((2, 3), np.float16)), file_name=str(tmp_path / "half"))
    with pytest.raises(codegen.CodegenError, match=r"half.mindir', input 'x' is float16: the generated C takes "
                                                   r"float32 and int32 inputs only"):
        codegen.generate(str(tmp_path / "half.mindir"), str(tmp_path / "out"))
    ms.export(Half(), ms.Tensor(np.ones((2, 3), np.int32)), file_name=str(tmp_path / "ints"))
    with pytest.raises(codegen.CodegenError, match=r"ints.mindir', node %\d+ \(Mul\): only float32 tensors"):
        codegen.generate(str(tmp_path / "ints.mindir"), str(tmp_path / "out"))
    assert not (tmp_path / "out").exists()


def test_two_inputs_and_embedded_weights(tmp_path, nets):
    class Two(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.a, self.b = ms.nn.Dense(6, 8), ms.nn.Dense(4, 8)

        def construct(self, x, y):
            return ms.ops.relu(self.a(x) + self.b(y)), ms.ops.matmul(x, x.T)

    net = _nets._det_init(ms, Two())
    xs = [np.random.RandomState(1).randn(3, 6).astype(np.float32),
          np.random.RandomState(2).randn(3, 4).astype(np.float32)]
    out = _build(tmp_path, net, xs, "two", embed_weights=True)
    assert "int two_predict(const float *in0, const float *in1, float *out0, float *out1);" in \
        (out / "two.h").read_text()
    rc, got, _, err = _run(out, "two", xs, weights="-")      # the const array compiled in
    assert rc == 0, err
    _check(got, _nets.outputs(net(*[ms.Tensor(x) for x in xs])))


_API_CHECK = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lenet.h"
/* predict before init fails; init_from_buffer from an unaligned copy of the blob gives the file's outputs; after
 * free, predict fails again */
int main(int argc, char **argv)
{
    static float x[LENET_IN0_SIZE], y0[LENET_OUT0_SIZE], y1[LENET_OUT0_SIZE];
    unsigned char *raw = malloc(LENET_WEIGHTS_BYTES + 1);
    FILE *f = fopen(argv[1], "rb");
    int i;
    for (i = 0; i < LENET_IN0_SIZE; i++) x[i] = (float)(i % 13) / 13.0f - 0.5f;
    if (lenet_predict(x, y0) != -1 || strstr(lenet_last_error(), "call lenet_init first") == NULL) return 10;
    if (fread(raw + 1, 1, LENET_WEIGHTS_BYTES, f) != LENET_WEIGHTS_BYTES) return 11;
    fclose(f);
    if (lenet_init(argv[1]) != 0 || lenet_predict(x, y0) != 0) return 12;
    if (lenet_init_from_buffer(raw + 1, LENET_WEIGHTS_BYTES) != 0 || lenet_predict(x, y1) != 0) return 13;
    if (memcmp(y0, y1, sizeof y0) != 0) return 14;
    if (lenet_init_from_buffer(raw + 1, LENET_WEIGHTS_BYTES - 1) != -1) return 15;
    lenet_free();
    if (lenet_predict(x, y1) != -1) return 16;
    free(raw);
    printf("ok %s\n", argc > 2 ? argv[2] : "");
    return 0;
}
"""


def test_c_interface(tmp_path, nets):
    net, x = nets["lenet"]
    out = _build(tmp_path, net, [x[:1]], "lenet")
    (out / "api.c").write_text(_API_CHECK)
    exe = str(out / "api")
    r = subprocess.run(["gcc", "-O2", "-std=c99", "-Wall", "-Wextra", "-Werror", "-o", exe, str(out / "api.c"),
                        str(out / "liblenet.a"), "-lm"], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([exe, str(out / "lenet.bin")], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0 and r.stdout.startswith("ok"), (r.returncode, r.stderr)


def test_generated_code_compiles_cleanly_and_the_scalar_build_agrees(tmp_path, nets):
    """The model's source compiles with -Wall -Wextra as ISO C99 (with the vector code and without: MSCG_SCALAR,
    -pedantic), and the plain-C build computes the same."""
    net, x = nets["resnet20"]
    x = x[:1]
    ms.export(net, ms.Tensor(x), file_name=str(tmp_path / "r"))
    out = tmp_path / "c"
    codegen.generate(str(tmp_path / "r.mindir"), str(out))
    r = subprocess.run(["gcc", "-O1", "-std=c99", "-Wall", "-Wextra", "-Werror", "-c", "-o", str(tmp_path / "r.o"),
                        str(out / "r.c")], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    r = subprocess.run(["make", "-s", "-C", str(out), "CFLAGS=-O2 -std=c99 -DMSCG_SCALAR -Wall -Wextra -Werror "
                        "-pedantic"], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    rc, got, _, err = _run(out, "r", [x])
    assert rc == 0, err
    _check(got, [net(ms.Tensor(x)).asnumpy()])


def test_weights_file_is_checked(tmp_path, nets):
    net, x = nets["lenet"]
    out = _build(tmp_path, net, [x[:1]], "lenet")
    blob = (out / "lenet.bin").read_bytes()
    cases = {
        "truncated.bin": (blob[:-7], "truncated: %d bytes, expected %d" % (len(blob) - 7, len(blob))),
        "short.bin": (blob[:20], "truncated: 20 bytes, shorter than the 64-byte header"),
        "trailing.bin": (blob + b"\0", "expected %d (trailing data)" % len(blob)),
        "magic.bin": (b"XXXX" + blob[4:], "not a mindseed codegen weights file"),
        "corrupt.bin": (blob[:100] + bytes([blob[100] ^ 1]) + blob[101:], "corrupt: the payload's CRC-32"),
        "version.bin": (blob[:8] + b"\x02" + blob[9:], "format version 2"),
    }
    for fname, (data, message) in cases.items():
        (out / fname).write_bytes(data)
        rc, _, _, err = _run(out, "lenet", [x[:1]], weights=out / fname)
        assert rc == 1 and message in err and fname in err, (fname, err)
    rc, _, _, err = _run(out, "lenet", [x[:1]], weights=out / "missing.bin")
    assert rc == 1 and "missing.bin': cannot be opened" in err
    # the weights of another generated model (same sizes, different code) are refused
    (tmp_path / "b2").mkdir()
    other = _build(tmp_path / "b2", net, [x[:2]], "lenet")
    rc, _, _, err = _run(out, "lenet", [x[:1]], weights=other / "lenet.bin")
    assert rc == 1 and "another generated model" in err


def test_unknown_operator_names_the_node(tmp_path):
    class Floor(ms.nn.Cell):
        def construct(self, x):
            return ms.ops.floor(x * 2.0) + 1.0

    ms.export(Floor(), ms.Tensor(np.ones((2, 3), np.float32)), file_name=str(tmp_path / "floor"))
    with pytest.raises(codegen.CodegenError, match=r"floor.mindir', node %\d+ \(Floor\): the operator Floor has no C "
                                                   r"kernel"):
        codegen.generate(str(tmp_path / "floor.mindir"), str(tmp_path / "out"))
    assert not (tmp_path / "out").exists()

    class FloorInBranch(ms.nn.Cell):
        def construct(self, x):
            if x.sum() > 0:
                x = ms.ops.floor(x)
            return x + 1.0

    ms.export(FloorInBranch(), ms.Tensor(np.ones((2, 3), np.float32)), file_name=str(tmp_path / "branch"))
    with pytest.raises(codegen.CodegenError, match=r"branch.mindir', node %\d+ \(Floor\): the operator Floor"):
        codegen.generate(str(tmp_path / "branch.mindir"), str(tmp_path / "out"))


class _Loops(ms.nn.Cell):
    """A bounded while over tensor conditions (an iteration bound given as an input and a logical and), with an if
    inside whose branch reads a weight (carried by MindIR's loop as a constant), a swap of carried values, and an if
    after the loop with a branch returning its operand unchanged."""

    def __init__(self):
        super().__init__()
        self.d = ms.nn.Dense(4, 4)

    def construct(self, x, bound):
        i = bound * 0
        y = x
        while ms.ops.logical_and(i < bound, (y * y).sum() < 100):
            if y.mean() > 0:
                y = ms.ops.tanh(self.d(y)) * 3
            else:
                y = y * 0.5 + 1
            y, x = x + y + 1, y
            i = i + 1
        z = x + y
        if z.max() > 2:
            z = z - 2
        return z, i


def test_control_flow_equals_mindseed(tmp_path):
    """If and While on tensor values as C if / for (;;) (`_control`): outputs equal mindseed's for inputs taking
    each branch and running the loop 0 to `bound` times; MindSpore's own file with an if and a while too."""
    net = _nets._det_init(ms, _Loops())
    x0, b0 = np.zeros((3, 4), np.float32), np.array(1, np.float32)
    out = _build(tmp_path, net, [x0, b0], "loops")
    predict = (out / "loops.c").read_text().split("int loops_predict(")[1]
    assert predict.count("for (;;) {") == 1 and predict.count("break;") == 1 and predict.count("} else {") == 2
    iterations = set()
    for seed, scale, bound in ((0, 1, 5), (1, 1, 0), (2, 10, 3), (3, -2, 7), (4, 0.1, 2), (5, 3, 9)):
        x = (np.random.RandomState(seed).randn(3, 4) * scale).astype(np.float32)
        b = np.array(bound, np.float32)
        rc, got, _, err = _run(out, "loops", [x, b])
        assert rc == 0, err
        want = _nets.outputs(net(ms.Tensor(x), ms.Tensor(b)))
        _check(got, want)
        iterations.add((int(want[1]), bound))
    assert {0} < {i for i, _ in iterations} and any(0 < i < b for i, b in iterations) \
        and any(i == b > 0 for i, b in iterations)
    fixture = tmp_path / "ms_control"
    codegen.generate(os.path.join(FIXTURES, "control.mindir"), str(fixture), name="control")
    r = subprocess.run(["make", "-s", "-C", str(fixture)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    with np.load(os.path.join(FIXTURES, "expected.npz"), allow_pickle=False) as f:
        rc, got, _, err = _run(fixture, "control", [f["control_x"]])
        assert rc == 0, err
        _check(got, [f["control_y0"]])


def test_command_line(tmp_path, nets):
    net, x = nets["resblock"]              # no shape baked into the file: any batch
    ms.export(net, ms.Tensor(x), file_name=str(tmp_path / "resblock"))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    cmd = [sys.executable, "-m", "mindseed.lite.codegen"]
    r = subprocess.run(cmd + [str(tmp_path / "resblock.mindir"), "-o", str(tmp_path / "gen"), "--name", "net1",
                              "--input-shape", "3,4,8,8"], capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stderr
    assert "#define NET1_IN0_SIZE 768" in (tmp_path / "gen" / "net1.h").read_text()     # 3 x 4 x 8 x 8
    out = tmp_path / "gen"
    assert subprocess.run(["make", "-s", "-C", str(out)], capture_output=True, timeout=600).returncode == 0
    y = np.random.RandomState(5).randn(3, 4, 8, 8).astype(np.float32)
    rc, got, _, err = _run(out, "net1", [y])
    assert rc == 0, err
    _check(got, [net(ms.Tensor(y)).asnumpy()])
    (tmp_path / "junk.mindir").write_bytes(b"\x08\x01junk")
    r = subprocess.run(cmd + [str(tmp_path / "junk.mindir"), "-o", str(tmp_path / "gen2")], capture_output=True,
                       text=True, env=env, timeout=600)
    assert r.returncode == 1 and "junk.mindir" in r.stderr and "Traceback" not in r.stderr
    with pytest.raises(ValueError, match="must be a C identifier"):
        codegen.generate(str(tmp_path / "resblock.mindir"), str(tmp_path / "gen3"), name="not-a-name")
