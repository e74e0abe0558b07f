"""torch loads on first use (`mindseed._backend._lazy`): `import mindseed` does not import it; the first Tensor or
kernel call does, and then every primitive calls its kernel directly."""
import os
import subprocess
import sys

import numpy as np

from mindseed._backend import _lazy

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _run(code):
    env = dict(os.environ, PYTHONPATH=ROOT, OMP_NUM_THREADS="1")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=ROOT,
                          env=env, check=True).stdout.split()


def test_import_mindseed_leaves_torch_unloaded_until_a_tensor_is_made():
    out = _run("import sys, numpy as np, mindseed as ms\n"
               "from mindseed.ops._prims.core import add_p\n"
               "from mindseed._backend import _lazy\n"
               "print('torch' in sys.modules, _lazy.loaded(), type(add_p.impl).__name__)\n"
               "x = ms.Tensor(np.arange(6.0).reshape(2, 3), ms.float32)\n"
               "print('torch' in sys.modules, _lazy.loaded(), isinstance(add_p.impl, _lazy.Stub))\n"
               "print((x + x).asnumpy().sum(), x.dtype, ms.ops.bessel_i0(x).asnumpy()[0, 1])\n")
    assert out[:3] == ["False", "False", "Stub"]
    assert out[3:6] == ["True", "True", "False"]       # the primitives were rebound to the kernels themselves
    assert float(out[6]) == 30.0 and out[7] == "Float32"
    assert abs(float(out[8]) - 1.2660658) < 1e-6        # a kernel made by a factory (K.bessel("i0")) at load


def test_seeded_streams_made_before_torch_loads_draw_as_after():
    out = _run("import mindseed as ms, sys\n"
               "g = ms.Generator().manual_seed(7)\n"
               "print('torch' in sys.modules)\n"
               "a = ms.mint.rand(3, generator=g).asnumpy()\n"
               "g.manual_seed(7)\n"
               "b = ms.mint.rand(3, generator=g).asnumpy()\n"
               "ms.set_seed(3); c = ms.ops.rand(2).asnumpy(); ms.set_seed(3); d = ms.ops.rand(2).asnumpy()\n"
               "print(bool((a == b).all()), bool((c == d).all()), bool((a != c[0]).all()))\n")
    assert out == ["False", "True", "True", "True"]


def test_stub_and_face():
    from mindseed._backend.kernels import conv as K   # noqa: PLC0415 -- the face under test
    from mindseed._backend import _core, _kernels     # noqa: PLC0415,F401

    _lazy.load()
    stub = _lazy.Stub(K, "_NHWC_MIN_C")
    assert stub.resolve() == _kernels.conv._NHWC_MIN_C
    made = _lazy.Made(lambda n: (lambda x: x * n), (3,), {})
    assert made(np.float64(2.0)) == 6.0 and _lazy.made(lambda n: n + 1, 1) == 2
    old = K._NHWC_MIN_C
    K._NHWC_MIN_C = 5                                   # set on the face: the kernels (its twin) read it
    try:
        assert _kernels.conv._NHWC_MIN_C == 5
    finally:
        K._NHWC_MIN_C = old
    assert _kernels.conv._NHWC_MIN_C == old
    import mindseed._backend as B                       # noqa: PLC0415
    assert B.numel is _core.numel and "from_numpy" in dir(B)


def test_placeholders_made_before_torch_loads_serve_set_inputs_after():
    # Tensor(shape=[3, None, 5]) made first holds a torch-free placeholder; once torch loads it reads as an array
    out = _run("import sys, numpy as np, mindseed as ms\n"
               "from mindseed import nn, ops\n"
               "class Net(nn.Cell):\n"
               "    def construct(self, x, shape):\n"
               "        return ops.Reshape()(x, shape)\n"
               "ms.set_context(mode=ms.GRAPH_MODE)\n"
               "dyn = ms.Tensor(shape=(3, None, 5), dtype=ms.float64)\n"
               "print('torch' in sys.modules)\n"
               "net = Net()\n"
               "net.set_inputs(dyn, ms.Tensor(np.array([1, 2, 3])))\n"
               "x = np.arange(60.0).reshape(3, 4, 5)\n"
               "y = net(ms.Tensor(x), ms.Tensor([2, 6, 5]))\n"
               "print(y.shape, bool((y.asnumpy() == x.reshape(2, 6, 5)).all()), dyn.shape)\n")
    assert out[0] == "False"
    assert "".join(out[1:4]) == "(2,6,5)" and out[4] == "True" and "".join(out[5:]) == "(3,-1,5)"
