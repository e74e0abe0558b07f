"""Reaching the MindSpore ecosystem packages that scripts/ecosystem.sh installs (tests/ecosystem/packages.txt).

Each package lives in its own directory of the cache, `$MINDSEED_ECO_CACHE` (default ~/.cache/mindseed-eco),
as `<name>-<version>`. A test asks for one with `use(name, module)`: the package is imported unmodified,
`import mindspore` resolving to mindseed through `mindseed.compat`, or the test skips, saying how to install it.
`MINDSEED_ECO_ALL=1` turns the long sweeps (every model of a zoo) on.
"""
import importlib
import os
import sys

import pytest

from mindseed import compat

HERE = os.path.dirname(os.path.abspath(__file__))
RUN_ALL = os.environ.get("MINDSEED_ECO_ALL", "") not in ("", "0")


def cache_dir():
    return os.environ.get("MINDSEED_ECO_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "mindseed-eco")


def pinned(name):
    """The version packages.txt pins for `name`."""
    with open(os.path.join(HERE, "packages.txt"), encoding="utf-8") as f:
        for line in f:
            spec = (line.split("#")[0].split() or [""])[0]     # the package; the third-party ones it needs follow
            if spec.split("==")[0] == name:
                return spec.split("==")[1]
    raise KeyError(f"{name} is not pinned in tests/ecosystem/packages.txt")


def package_dir(name):
    return os.path.join(cache_dir(), f"{name}-{pinned(name)}")


def require(name):
    """The directory of the installed ecosystem package `name`, or skip."""
    where = package_dir(name)
    if not os.path.isfile(os.path.join(where, ".installed")):
        pytest.skip(f"{name}=={pinned(name)} is not installed in {where} (run scripts/ecosystem.sh)")
    return where


def use(name, module):
    """Import `module` of the installed ecosystem package `name` under the `mindspore` alias, or skip."""
    where = require(name)
    compat.install()
    if where not in sys.path:
        sys.path.append(where)      # appended: a package's own top-level `tests`/`examples` must not shadow ours
    return importlib.import_module(module)
