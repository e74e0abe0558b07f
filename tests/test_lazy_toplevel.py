"""`import mindseed` loads the core and defers the rest (`mindseed._deferred`) until one of its names is read; every
name stays where it was (checked in fresh processes, since this one has long loaded everything)."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFERRED = ("mindseed.dataset", "mindseed.train", "mindseed.export", "mindseed.mint", "mindseed.numpy",
            "mindseed.mindrecord", "mindseed.profiler", "mindseed.rewrite", "mindseed.safeguard", "mindseed.onnx")


def _run(code):
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600, cwd=ROOT,
                          env=dict(os.environ, PYTHONPATH=ROOT, OMP_NUM_THREADS="1"))
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_planner_command_imports_no_torch_and_no_deferred_package():
    out = _run("import runpy, sys\n"
               "sys.argv = ['plan', '--demo', 'gpt', '--devices', '1024', '--mesh', '8x128']\n"
               "try:\n"
               "    runpy.run_module('mindseed.parallel.plan', run_name='__main__', alter_sys=True)\n"
               "except SystemExit as e:\n"
               "    assert e.code == 0, e.code\n"
               f"print('loaded:', sorted(m for m in sys.modules if m == 'torch' or m.startswith({DEFERRED!r})))\n")
    assert "(49 collectives, 5753186 B sent)" in out          # the plan of docs/parallel.md
    assert out.strip().splitlines()[-1] == "loaded: []"


def test_the_core_is_usable_before_the_rest_loads():
    out = _run("import sys\nimport numpy as np\nimport mindseed as ms\n"
               f"print(sorted(m for m in sys.modules if m.startswith({DEFERRED!r})))\n"
               "x = ms.Tensor(np.array([1.0, 2.0, 3.0], np.float32))\n"
               "print(ms.grad(lambda v: (v * v).sum())(x).asnumpy().tolist(), ms.ops.relu(x - 2).asnumpy().tolist())\n"
               "print(ms.nn.Dense(3, 2)(x.reshape(1, 3)).shape)\n"
               f"print(sorted(m for m in sys.modules if m.startswith({DEFERRED!r})))\n")
    lines = out.strip().splitlines()
    assert lines == ["[]", "[2.0, 4.0, 6.0] [0.0, 0.0, 1.0]", "(1, 2)", "[]"]


def test_a_deferred_name_loads_the_rest_with_every_registration():
    out = _run("import sys\nimport mindseed as ms\n"
               "from mindseed import Model, dataset\n"            # a train name and a package, by `from ... import`
               "assert 'mindseed.train' in sys.modules and dataset.GeneratorDataset is ms.dataset.GeneratorDataset\n"
               "assert Model is ms.train.Model and 'Model' in ms.__all__ and 'dataset' not in ms.__all__\n"
               "from mindseed.mint.distributed import distributed as md\n"
               "assert ms.ops.all_gather is md.all_gather and ms.ops.communication.all_gather is md.all_gather\n"
               "assert ms.nn.Accuracy is ms.train.metrics.Accuracy and ms.train.export is ms.export\n"
               "assert ms.common.load_mindir is ms.load_mindir\n"
               "assert ms.common.api._cell_graph_executor is not None\n"
               "print(ms.numpy.arange(3).asnumpy().tolist())\n"
               "try:\n    ms.no_such_name\nexcept AttributeError as e:\n    print(e)\n")
    assert out.strip().splitlines() == ["[0, 1, 2]", "module 'mindseed' has no attribute 'no_such_name'"]


def test_lower_namespaces_and_made_modules_load_the_rest_on_first_use():
    out = _run("import sys\nimport numpy as np\nimport mindseed\n"
               "from mindseed import ops\n"
               "x = mindseed.Tensor(np.array([[1.0, 5.0], [7.0, 2.0]], np.float32))\n"
               "print(ops.auto_generate.argmax_ext(x, 1).asnumpy().tolist())\n"   # mint's form
               "assert 'mindseed.mint' in sys.modules\n")
    assert out.strip() == "[1, 0]"
    out = _run("import sys\nimport mindseed.nn.metrics as m\n"   # a module the registrations make, imported first
               "import mindseed.ops.function.comm_func as c\n"
               "import mindseed\n"
               "assert m.Accuracy is mindseed.train.Accuracy and c.all_reduce is mindseed.ops.all_reduce\n"
               "from mindseed.nn import Top1CategoricalAccuracy\n"
               "print(Top1CategoricalAccuracy.__module__)\n")
    assert out.strip().startswith("mindseed.train.metrics")


def test_from_mindseed_import_star_and_dir_see_every_name():
    out = _run("import mindseed\nnames = {}\nexec('from mindseed import *', names)\n"
               "assert set(mindseed.__all__) <= set(names)\n"
               "assert {'Model', 'Tensor', 'export', 'Profiler'} <= set(names)\n"
               "assert 'dataset' in dir(mindseed) and 'merge_sliced_parameter' in dir(mindseed.parallel)\n"
               "print(len(mindseed.__all__) > 200)\n")
    assert out.strip() == "True"


def test_under_the_compat_alias_a_made_module_imports_first():
    """`import mindspore.<module>` of a module the deferred registrations make (no file holds it), as the first thing
    after `import mindspore`: the alias finds it (it has a spec)."""
    for module, name in (("nn.metrics", "Accuracy"), ("common.recompute", "recompute"),
                         ("ops.function.comm_func", "all_reduce")):
        done = subprocess.run([sys.executable, "-m", "mindseed.compat", "-c",
                               f"import mindspore\nfrom mindspore.{module} import {name}\nprint({name}.__name__)"],
                              capture_output=True, text=True, timeout=600, cwd=ROOT,
                              env=dict(os.environ, PYTHONPATH=ROOT, OMP_NUM_THREADS="1"))
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == name


def test_threads_reading_deferred_names_at_once_all_get_them():
    out = _run("import threading\nimport mindseed as ms\nfound, errors = [], []\n"
               "def read(name):\n"
               "    try:\n        found.append(getattr(ms, name).__name__)\n"
               "    except AttributeError as e:\n        errors.append(str(e))\n"
               "names = ('Model', 'SummaryRecord', 'export') * 4\n"
               "threads = [threading.Thread(target=read, args=(n,)) for n in names]\n"
               "for t in threads:\n    t.start()\nfor t in threads:\n    t.join()\n"
               "print(sorted(set(found)), errors)\n")
    assert out.strip() == "['Model', 'SummaryRecord', 'export'] []"


def test_a_submodule_importing_its_own_package_by_attribute_imports_first():
    """`import mindseed.runtime as rt` as the first import: runtime's own modules read `mindseed.runtime` while it
    is still loading, which must not load the deferred part (it imports from runtime)."""
    for first in ("import mindseed.runtime as rt", "import mindseed.hal as rt", "import mindseed.profiler as rt"):
        out = _run(f"{first}\nimport mindseed\nprint(rt.__name__, mindseed.Tensor.__name__)")
        assert out.split() == [first.split()[1], "Tensor"]
