"""The test folders have no __init__.py: pytest imports each test file as a top-level module of its basename, so two
test files (or `_` helper modules) of one name in different folders cannot both be imported in one run."""
import collections
import pathlib

TESTS = pathlib.Path(__file__).parent


def test_test_files_and_helpers_have_unique_basenames():
    seen = collections.defaultdict(list)
    for path in TESTS.rglob("*.py"):
        if path.name in ("__init__.py", "conftest.py") or "__pycache__" in path.parts:
            continue
        if not path.name.startswith(("test_", "_")):   # scripts run on their own (fixture makers), never imported
            continue
        if (path.parent / "__init__.py").exists():   # a package's modules are imported under its name
            continue
        seen[path.name].append(str(path.relative_to(TESTS)))
    clashes = {name: paths for name, paths in seen.items() if len(paths) > 1}
    assert not clashes, f"module basenames used twice under tests/: {clashes}"
