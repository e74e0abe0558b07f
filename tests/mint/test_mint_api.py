"""mint's names, signatures and defaults (torch-style: input, dim, keepdim, other), module paths, bad input."""
import ast
import inspect
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from _harness import ErrorSpec, make_error_tests

import mindseed as ms
from mindseed import mint

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MANIFEST = os.path.join(ROOT, "..", "shared", "api", "mindspore-2.10.json")
NAMESPACES = {"mindspore.mint": mint, "mindspore.mint.nn": mint.nn, "mindspore.mint.nn.functional": mint.nn.functional,
              "mindspore.mint.optim": mint.optim, "mindspore.mint.linalg": mint.linalg,
              "mindspore.mint.special": mint.special, "mindspore.mint.distributed": mint.distributed}


def _params(sig):
    """[(name, kind, default source)] of a signature string, annotations and return type dropped."""
    fn = ast.parse(f"def f{sig.split(' -> ')[0]}: pass").body[0].args
    out = []
    n_plain = len(fn.args) - len(fn.defaults)
    for i, a in enumerate(fn.args):
        d = fn.defaults[i - n_plain] if i >= n_plain else None
        out.append((a.arg, "pos", None if d is None else ast.unparse(d)))
    if fn.vararg:
        out.append((fn.vararg.arg, "*", None))
    for a, d in zip(fn.kwonlyargs, fn.kw_defaults):
        out.append((a.arg, "kw", None if d is None else ast.unparse(d)))
    if fn.kwarg:
        out.append((fn.kwarg.arg, "**", None))
    return out


def _manifest():
    if not os.path.exists(MANIFEST):
        pytest.skip("../shared/api (MindSpore 2.10's manifest) is not present in this clone")
    with open(MANIFEST) as f:
        return json.load(f)["namespaces"]


def _our_sig(obj):
    return str(inspect.signature(obj)).replace("mindspore.", "").replace("Int64", "int64")


def test_every_mindspore_mint_name_exists_with_its_kind():
    missing = []
    for ns, entries in ((ns, v["entries"]) for ns, v in _manifest().items() if ns in NAMESPACES):
        for name, e in entries.items():
            obj = getattr(NAMESPACES[ns], name, None)
            kind = "class" if inspect.isclass(obj) else "function" if callable(obj) else None
            if kind != e["kind"]:
                missing.append(f"{ns}.{name}")
    assert not missing, missing


def test_signatures_are_mindspores_where_it_states_one():
    # (*args, **kwargs) in the manifest is an overload dispatcher: ours states the overload it accepts
    differ = []
    for ns, v in _manifest().items():
        if ns not in NAMESPACES:
            continue
        for name, e in v["entries"].items():
            sig = e.get("signature")
            if not sig or sig == "(*args, **kwargs)":
                continue
            want = _params(sig.replace("mindspore.int64", "int64"))
            got = _params(_our_sig(getattr(NAMESPACES[ns], name)))
            if inspect.isclass(getattr(NAMESPACES[ns], name)) and want and want[0][0] == "self":
                want = want[1:]
            if [(n, k) for n, k, _ in got] != [(n, k) for n, k, _ in want] or \
                    [_norm(d) for *_, d in got] != [_norm(d) for *_, d in want]:
                differ.append(f"{ns}.{name}: ours {got} vs {want}")
    assert not differ, "\n".join(differ)


def _norm(default):
    if default is None:
        return None
    try:
        v = ast.literal_eval(default)
        return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else v
    except ValueError:
        return default.split(".")[-1].lower()


@pytest.mark.parametrize("fn, params", [
    (mint.sum, "(input, dim=None, keepdim=False, *, dtype=None)"),
    (mint.mean, "(input, dim=None, keepdim=False, *, dtype=None)"),
    (mint.all, "(input, dim=None, keepdim=False)"),
    (mint.amax, "(input, dim=(), keepdim=False)"),
    (mint.argsort, "(input, dim=-1, descending=False, stable=False)"),
    (mint.std, "(input, dim=None, *, correction=1, keepdim=False)"),
    (mint.sort, "(input, *, dim=-1, descending=False, stable=False)"),
    (mint.cat, "(tensors, dim=0)"),
    (mint.topk, "(input, k, dim=-1, largest=True, sorted=True)"),
    (mint.gather, "(input, dim, index)"),
    (mint.transpose, "(input, dim0, dim1)"),
    (mint.nn.functional.softmax, "(input, dim=None, dtype=None)"),
    (mint.nn.functional.leaky_relu, "(input, negative_slope=0.01)"),
    (mint.nn.functional.smooth_l1_loss, "(input, target, reduction='mean', beta=1.0)"),
    (mint.nn.Conv2d, "(in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True, "
                     "padding_mode='zeros', dtype=None)"),
    (mint.nn.BatchNorm2d, "(num_features, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True, "
                          "dtype=None)"),
    (mint.distributed.all_reduce, "(tensor, op='sum', group=None, async_op=False)"),
])
def test_torch_style_defaults(fn, params):
    assert str(inspect.signature(fn)) == params


def test_keepdim_and_dim_defaults_change_results_as_stated():
    x = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert mint.sum(x).shape == () and mint.sum(x, 1).shape == (2,) and mint.sum(x, 1, True).shape == (2, 1)
    assert mint.amax(x).shape == () and mint.argmin(x).shape == ()
    np.testing.assert_allclose(mint.std(x).asnumpy(), np.arange(6).std(ddof=1), rtol=1e-6)


def test_names_are_the_ops_where_the_signature_is_the_same():
    assert mint.abs is ms.ops.abs and mint.matmul is ms.ops.matmul and mint.special.erfc is ms.ops.erfc
    assert mint.nn.Linear is ms.nn.Linear and mint.nn.F is mint.nn.functional and mint.functional is mint.nn.functional


def test_module_paths_and_the_mindspore_alias():
    import importlib
    assert importlib.import_module("mindseed.mint.nn.functional") is mint.nn.functional
    assert importlib.import_module("mindseed.mint.distributed.distributed").all_reduce is mint.distributed.all_reduce
    assert importlib.import_module("mindseed.mint.optim.adamw").AdamW is mint.optim.AdamW
    assert ms.mint is mint
    script = ("import mindspore\nfrom mindspore import mint\nimport mindspore.mint.nn.functional as F\n"
              "from mindspore.mint.nn import Linear\nfrom mindspore.mint.optim import AdamW\n"
              "from mindspore.mint.distributed import all_reduce\n"
              "x = mindspore.Tensor([[1.0, -2.0]])\nprint(F.relu(x).asnumpy().tolist(), mint.sum(x, dim=1).asnumpy())\n"
              "print(type(Linear(2, 1)).__module__, AdamW.__module__, all_reduce.__module__)\n")
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    path = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"mint_compat_{os.getpid()}.py")
    with open(path, "w") as f:
        f.write(script)
    try:
        out = subprocess.run([sys.executable, "-m", "mindseed.compat", path], env=env, capture_output=True, text=True,
                             timeout=120)
    finally:
        os.remove(path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["[[1.0, 0.0]] [-1.]",
                                       "mindseed.nn.layer.basic mindseed.mint.optim.adamw "
                                       "mindseed.mint.distributed.distributed"]


# ---------------------------------------------------------------- bad input
X = ms.Tensor(np.ones((2, 3), np.float32))
test_bad_input = make_error_tests([
    ErrorSpec("max-list", lambda: mint.max([1.0, 2.0]), TypeError, "For 'mint.max', the 'input' must be a Tensor"),
    ErrorSpec("max-float-dim", lambda: mint.max(X, 1.5), TypeError, "For 'mint.max', the 'dim' must be an int"),
    ErrorSpec("max-extra", lambda: mint.max(X, X, True), TypeError, "For 'mint.max'"),
    ErrorSpec("mean-list", lambda: mint.mean([1.0]), TypeError, "For 'mint.mean', the 'input' must be a Tensor"),
    ErrorSpec("norm-p", lambda: mint.norm(X, "bad"), ValueError, "For 'mint.norm', the 'p' must be"),
    ErrorSpec("diag-3d", lambda: mint.diag(ms.Tensor(np.ones((2, 2, 2)))), ValueError, "must be 1-D or 2-D"),
    ErrorSpec("vdot-2d", lambda: mint.vdot(X, X), ValueError, "For 'mint.vdot', the 'input' must be 1-D"),
    ErrorSpec("dot-2d", lambda: mint.dot(X, X), ValueError, "For 'mint.dot', the 'input' must be 1-D"),
    ErrorSpec("dot-dtypes", lambda: mint.dot(ms.tensor([1.0]), ms.tensor([1], ms.int32)), TypeError,
              "For 'mint.dot', 'input' and 'other' must have one dtype"),
    ErrorSpec("where-half", lambda: mint.where(X > 0, X), TypeError, "For 'mint.where'"),
    ErrorSpec("cdist-mode", lambda: mint.cdist(X, X, compute_mode="fast"), ValueError, "'compute_mode'"),
    ErrorSpec("conv2d-padding", lambda: mint.conv2d(ms.Tensor(np.ones((1, 1, 4, 4))), ms.Tensor(np.ones((1, 1, 3, 3))),
                                                    padding="full"), ValueError, "'same' or 'valid'"),
    ErrorSpec("zeros-size", lambda: mint.zeros("3"), TypeError, "For 'mint.zeros', the 'size'"),
    ErrorSpec("randint-args", lambda: mint.randint(1, 2, 3, 4), TypeError, "For 'mint.randint'"),
    ErrorSpec("randperm-n", lambda: mint.randperm(-1), ValueError, "For 'mint.randperm'"),
    ErrorSpec("normal-size", lambda: mint.normal(0.0, 1.0), TypeError, "'size' is required"),
    ErrorSpec("multinomial-n", lambda: mint.multinomial(ms.Tensor(np.ones(2, np.float32)), 3), ValueError,
              "exceeds the 2 categories"),
    ErrorSpec("kl_div-reduction", lambda: mint.nn.functional.kl_div(X, X, "avg"), ValueError, "'reduction'"),
    ErrorSpec("one_hot-float", lambda: mint.nn.functional.one_hot(X), TypeError, "must be of an int type"),
    ErrorSpec("conv-groups", lambda: mint.nn.Conv2d(3, 4, 3, groups=2), ValueError, "divisible by 'groups'"),
    ErrorSpec("conv-padding_mode", lambda: mint.nn.Conv2d(3, 4, 3, padding_mode="wrap"), ValueError,
              "'padding_mode'"),
    ErrorSpec("batchnorm-rank", lambda: mint.nn.BatchNorm2d(3)(X), ValueError,
              "For 'BatchNorm2d', the 'input' must be 4-D"),
    ErrorSpec("batchnorm-momentum", lambda: mint.nn.BatchNorm1d(3, momentum=2.0), ValueError, "'momentum'"),
    ErrorSpec("embedding-padding", lambda: mint.nn.Embedding(3, 2, padding_idx=5), ValueError, "'padding_idx'"),
    ErrorSpec("groupnorm-groups", lambda: mint.nn.GroupNorm(4, 6), ValueError, "divisible by 'num_groups'"),
    ErrorSpec("upsample-both", lambda: mint.nn.UpsamplingNearest2d()(ms.Tensor(np.ones((1, 1, 2, 2)))), ValueError,
              "exactly one of 'size' and 'scale_factor'"),
    ErrorSpec("all_reduce-uninit", lambda: mint.distributed.all_reduce(X), RuntimeError, "not initialized"),
])
