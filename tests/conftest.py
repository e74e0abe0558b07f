import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from hypothesis import HealthCheck, settings  # noqa: E402

# CI machines are shared and noisy: a slow moment while drawing examples is not a failure of the code under test
settings.register_profile("mindseed", suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("mindseed")


@pytest.fixture(autouse=True)
def _fresh_seed():
    import mindseed as ms
    ms.set_seed(0)
    np.random.seed(0)
    yield


@pytest.fixture(autouse=True, scope="session")
def _graph_dumps_parse():
    """Every file save_graphs writes in the suite is Python source (the IR printer's contract)."""
    import ast

    from mindseed.compiler import dump
    write = dump._write

    def checked(path, text):
        ast.parse(text, filename=path)
        write(path, text)
    dump._write = checked
    yield
    dump._write = write
