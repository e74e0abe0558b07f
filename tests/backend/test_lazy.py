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


def test_import_puts_the_kernels_library_directory_on_ld_library_path():
    """As `import mindspore` does (code reads os.environ['LD_LIBRARY_PATH'] after it), without loading torch; a
    path already there is kept, and the directory is not added twice."""
    code = ("import os, sys, mindseed\n"
            "paths = os.environ['LD_LIBRARY_PATH'].split(':')\n"
            "print('torch' in sys.modules, paths[0], len(paths))\n"
            "import importlib, mindseed._backend as b\n"
            "b._export_library_path()\n"
            "import torch\n"
            "print(len(os.environ['LD_LIBRARY_PATH'].split(':')), paths[-1] == os.path.join(os.path.dirname("
            "torch.__file__), 'lib'), os.path.isdir(paths[-1]))\n")
    env = dict(os.environ, PYTHONPATH=ROOT, OMP_NUM_THREADS="1", LD_LIBRARY_PATH="/opt/mine")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=ROOT,
                         env=env, check=True).stdout.split()
    assert out == ["False", "/opt/mine", "2", "2", "True", "True"]
    env.pop("LD_LIBRARY_PATH")
    out = subprocess.run([sys.executable, "-c", "import os, mindseed; print(os.environ['LD_LIBRARY_PATH'])"],
                         capture_output=True, text=True, timeout=300, cwd=ROOT, env=env, check=True).stdout.split()
    assert out[0].endswith(os.path.join("torch", "lib"))


def test_placeholders_made_before_torch_loads_become_meta_tensors():
    # set_inputs placeholders and deferred parameters made first keep reading their shapes once torch loads, and a
    # dynamic-shape Cell compiles against such a placeholder (the dynamic-shape tutorial's order of statements)
    out = _run("import sys, numpy as np, mindseed as ms\n"
               "from mindseed import nn\n"
               "t = ms.Tensor(shape=(ms.Symbol(), None), dtype=ms.float32)\n"
               "r = ms.Tensor(shape=None, dtype=ms.int32)\n"
               "with nn.utils.no_init_parameters():\n"
               "    net = nn.Dense(2, 3)\n"
               "print('torch' in sys.modules)\n"
               "ms.ops.ones(1)\n"
               "print(t.shape, t.ndim, r.dtype, net.weight.shape, net.weight.ndim)\n"
               "class Twice(nn.Cell):\n"
               "    def construct(self, x):\n"
               "        return x + x\n"
               "ms.set_context(mode=ms.GRAPH_MODE)\n"
               "c = Twice()\n"
               "c.set_inputs(t)\n"
               "print(c(ms.Tensor(np.ones((2, 3)), ms.float32)).asnumpy().sum(),"
               " c(ms.Tensor(np.ones((4, 5)), ms.float32)).shape)\n")
    assert " ".join(out) == "False (-1, -1) 2 Int32 (3, 2) 2 12.0 (4, 5)"


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
