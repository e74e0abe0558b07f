"""`python -m mindseed.compat` accepts what `python` accepts, and the .pth hook aliases `mindspore` environment-wide.

Each case runs a real interpreter in a subprocess, as a user would.
"""
import os
import select
import subprocess
import sys
import sysconfig
import time

import pytest

from mindseed import compat

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROBE = ("import sys, mindspore, mindseed, mindspore.nn as nn\n"
         "print('version', mindspore.__version__)\n"
         "print('same', mindspore is mindseed and nn.Dense is mindseed.nn.Dense)\n"
         "print('argv', sys.argv[1:])\n"
         "print('name', __name__)\n"
         "print('sum', float(mindspore.ops.sum(mindspore.Tensor([1.5, 2.0, 3.0]))))\n")


def _env(**extra):
    return {**os.environ, "PYTHONPATH": ROOT, "OMP_NUM_THREADS": "1", **extra}


def _compat(args, cwd, stdin=None):
    return subprocess.run([sys.executable, "-m", "mindseed.compat", *args], cwd=cwd, env=_env(), input=stdin,
                          capture_output=True, text=True, timeout=300)


def _probe_lines(out):
    return dict(line.split(" ", 1) for line in out.splitlines() if line.split(" ", 1)[0] in
                ("version", "same", "argv", "name", "sum", "path0", "file"))


def _assert_probe(out, argv):
    got = _probe_lines(out)
    assert got["version"] == compat.MINDSPORE_VERSION == "2.10.0"
    assert got["same"] == "True"
    assert got["argv"] == repr(argv)
    assert got["name"] == "__main__"
    assert float(got["sum"]) == 6.5


def test_dash_c_runs_code_with_arguments(tmp_path):
    r = _compat(["-c", PROBE + "print('path0', repr(sys.path[0]))", "a", "--b=1"], tmp_path)
    assert r.returncode == 0, r.stderr
    _assert_probe(r.stdout, ["a", "--b=1"])
    assert _probe_lines(r.stdout)["path0"] == "''"


def test_importing_a_submodule_keeps_what_its_package_bound_to_that_name(tmp_path):
    # mindspore/parallel/__init__.py binds `shard` to the function of its submodule `shard`
    code = ("import mindspore as ms\nimport mindspore.parallel.shard\nfrom mindspore.parallel.shard import shard\n"
            "print(ms.parallel.shard is ms.shard is shard, callable(ms.parallel.shard))")
    r = _compat(["-c", code], tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["True", "True"]


def test_script_with_arguments_sees_its_own_directory(tmp_path):
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "helper.py").write_text("VALUE = 7\n")
    (tmp_path / "proj" / "train.py").write_text(PROBE + "import helper\nprint('file', helper.VALUE, __file__, "
                                                "sys.argv[0])\n")
    r = _compat(["proj/train.py", "--epochs", "2"], tmp_path)
    assert r.returncode == 0, r.stderr
    _assert_probe(r.stdout, ["--epochs", "2"])
    # as `python proj/train.py`: __file__ absolute, sys.argv[0] as given
    assert _probe_lines(r.stdout)["file"] == f"7 {tmp_path / 'proj' / 'train.py'} proj/train.py"


def test_script_that_changes_directory_still_compiles_its_functions(tmp_path):
    # a relative script path: after os.chdir, jit still reads the function's source (MindSpore parses it)
    (tmp_path / "proj").mkdir()
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "proj" / "train.py").write_text(
        "import os, inspect\nimport mindspore as ms\nos.chdir(os.path.join(os.path.dirname(__file__), '..', "
        "'elsewhere'))\n\n\n@ms.jit\ndef f():\n    a, b = (1, 2, 3)\n    return a + b\n\n\n"
        "print('value', f())\nprint('source', inspect.getsource(f.fn if hasattr(f, 'fn') else f).count('\\n'))\n")
    r = _compat(["proj/train.py"], tmp_path)
    assert r.returncode == 0, r.stderr
    # MindSpore's compiler unpacks by index: the graph gives 3 where Python would raise
    assert "value 3" in r.stdout and "source 4" in r.stdout


def test_dash_m_runs_a_package_module_with_arguments(tmp_path):
    pkg = tmp_path / "suite" / "tools"
    pkg.mkdir(parents=True)
    (tmp_path / "suite" / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "train.py").write_text(PROBE + "print('file', sys.argv[0] == __file__, __spec__.name)\n")
    r = _compat(["-m", "suite.tools.train", "-c", "cfg.yaml"], tmp_path)
    assert r.returncode == 0, r.stderr
    _assert_probe(r.stdout, ["-c", "cfg.yaml"])
    assert _probe_lines(r.stdout)["file"] == "True suite.tools.train"


def test_program_on_stdin_and_inspect_after_dash_c(tmp_path):
    r = _compat([], tmp_path, stdin=PROBE)
    assert r.returncode == 0, r.stderr
    _assert_probe(r.stdout, [])
    r = _compat(["-i", "-c", "import mindspore; x = mindspore.Tensor([2.0]) * 21"], tmp_path,
                stdin="print('answer', float(x[0]))\n")
    assert r.returncode == 0, r.stderr
    assert "answer 42.0" in r.stdout


def test_exit_status_and_errors_as_python(tmp_path):
    r = _compat(["-c", "import sys; sys.exit(3)"], tmp_path)
    assert r.returncode == 3
    r = _compat(["-c", "import mindspore\nraise ValueError('from the script')"], tmp_path)
    assert r.returncode == 1 and "ValueError: from the script" in r.stderr
    assert compat.main(["no_such_script.py"]) == 2
    with pytest.raises(SystemExit, match="unknown option '-Z'"):
        compat.main(["-Z", "x.py"])
    with pytest.raises(SystemExit, match="Argument expected for the -m option"):
        compat.main(["-m"])


def test_parse_stops_at_the_program_like_python():
    assert compat._parse(["-u", "s.py", "-i"])[:2] == ("file", ["s.py", "-i"])
    assert compat._parse(["-iq", "-mpkg.mod", "-c", "x"])[:2] == ("m", ["pkg.mod", "-c", "x"])
    assert compat._parse(["-c", "pass", "-m"])[:2] == ("c", ["pass", "-m"])
    what, args, opts = compat._parse(["-i"])
    assert (what, args, opts["i"]) == ("stdin", [], True)


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="no pseudo-terminal on this platform")
def test_no_arguments_on_a_terminal_is_an_interactive_session(tmp_path):
    master, slave = os.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "mindseed.compat"], cwd=tmp_path, env=_env(TERM="dumb"),
                            stdin=slave, stdout=slave, stderr=slave, close_fds=True)
    os.close(slave)
    out = b""
    sent = False
    deadline = time.time() + 300
    try:
        while time.time() < deadline:
            ready, _, _ = select.select([master], [], [], 1.0)
            if ready:
                try:
                    chunk = os.read(master, 4096)
                except OSError:       # the child closed the terminal
                    break
                if not chunk:
                    break
                out += chunk
            if not sent and b">>> " in out:
                os.write(master, b"import mindspore\nprint('v' + mindspore.__version__, 6 * 7)\nexit()\n")
                sent = True
            if proc.poll() is not None and not ready:
                break
    finally:
        proc.kill() if proc.poll() is None else None
        proc.wait()
        os.close(master)
    text = out.decode(errors="replace")
    assert "mindseed.compat" in text and "MindSpore 2.10.0" in text      # the banner
    assert "v2.10.0 42" in text
    assert proc.returncode == 0


def test_install_hook_aliases_mindspore_for_every_python_of_a_virtualenv(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    py = str(venv / "bin" / "python")
    # the new environment sees mindseed and its dependencies through PYTHONPATH, as an installed copy would
    env = _env(PYTHONPATH=os.pathsep.join([ROOT, sysconfig.get_paths()["purelib"]]))

    def run(*args, **kw):
        return subprocess.run([py, *args], env=env, capture_output=True, text=True, timeout=300, cwd=tmp_path, **kw)

    r = run("-m", "mindseed.compat", "--install-hook")
    assert r.returncode == 0, r.stderr
    site_dir = run("-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").stdout.strip()
    assert os.path.isfile(os.path.join(site_dir, "mindseed-compat.pth")), r.stdout
    # start-up stays cheap: mindseed (and torch) load at the first `import mindspore`, not before
    r = run("-c", "import sys; print(sorted(m for m in ('mindseed', 'torch') if m in sys.modules))")
    assert r.stdout.strip() == "[]", r.stderr
    r = run("-c", PROBE, "x")
    assert r.returncode == 0, r.stderr
    _assert_probe(r.stdout, ["x"])
    r = run("-m", "mindseed.compat", "--uninstall-hook")
    assert r.returncode == 0 and "removed" in r.stdout, r.stderr
    assert not os.listdir(site_dir) or "mindseed-compat.pth" not in os.listdir(site_dir)
    r = run("-c", "import mindspore")
    assert r.returncode == 1 and "No module named 'mindspore'" in r.stderr


def test_classes_print_mindspores_module_paths_under_compat(tmp_path):
    # (Cell's metaclass stays `type`, as MindSpore's: packages derive from abc.ABC and Cell together)
    code = ("import abc\nimport mindspore as ms\nfrom mindspore import nn, ops\nx = ms.Tensor([1.0])\n"
            "print(type(x)); print(type(ops.Primitive('P'))); print(f'but got {type(x)}.')\n"
            "class Q(abc.ABC, nn.Cell):\n    pass\nprint(type(Q).__name__)")
    r = _compat(["-c", code], tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["<class 'mindspore.common.tensor.Tensor'>",
                                     "<class 'mindspore.ops.operations._base.Primitive'>",
                                     "but got <class 'mindspore.common.tensor.Tensor'>.", "ABCMeta"]


def test_classes_print_their_own_module_without_compat(tmp_path):
    r = subprocess.run([sys.executable, "-c", "import mindseed as ms; print(type(ms.Tensor([1.0])))"], cwd=tmp_path,
                       env=_env(), capture_output=True, text=True, timeout=300)
    assert r.stdout.strip() == "<class 'mindseed.common.tensor.Tensor'>", r.stderr


def test_missing_attributes_are_reported_under_mindspores_module_names(tmp_path):
    """`module 'mindspore.nn' has no attribute 'DenseQuant'`, as MindSpore's module says it (examples written for
    older releases print this); hasattr / getattr with a default are unchanged."""
    code = ("import mindspore as ms\nimport mindspore.nn as nn\n"
            "for m, a in ((nn, 'DenseQuant'), (ms, 'Foo'), (ms.ops, 'Bar')):\n"
            "    try:\n        getattr(m, a)\n    except AttributeError as e:\n        print(e, e.name, e.obj is m)\n"
            "print(hasattr(nn, 'Dense'), hasattr(nn, 'Nope'), getattr(ms, 'zz', 3))")
    r = _compat(["-c", code], tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["module 'mindspore.nn' has no attribute 'DenseQuant' DenseQuant True",
                                     "module 'mindspore' has no attribute 'Foo' Foo True",
                                     "module 'mindspore.ops' has no attribute 'Bar' Bar True",
                                     "True False 3"]
