"""Start-up hook that makes `import mindspore` resolve to mindseed in every Python process of an environment.

`python -m mindseed.compat --install-hook` copies this file into the environment's site-packages as
`_mindseed_compat_hook.py`, next to a `mindseed-compat.pth` whose one line imports it; `site` runs that line at
every interpreter start. Importing mindseed costs seconds (it imports torch), so nothing is imported here: a
finder waits for the first `import mindspore[...]`, then imports `mindseed.compat`, installs its alias finder in
its own place and hands it the lookup. Only this standard-library file is loaded at start-up.
"""
import importlib
import importlib.abc
import sys


class _LazyMindsporeFinder(importlib.abc.MetaPathFinder):
    """Replaced by `mindseed.compat`'s alias finder at the first lookup of a `mindspore` module."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname.split(".")[0] != "mindspore":
            return None
        try:
            compat = importlib.import_module("mindseed.compat")
        except ImportError:       # mindseed was removed from the environment: `mindspore` is simply not found
            return None
        where = sys.meta_path.index(self) if self in sys.meta_path else 0
        finder = compat.install(position=where)
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        return finder.find_spec(fullname, path, target)


if not any(type(f).__name__ in ("_LazyMindsporeFinder", "_AliasFinder") for f in sys.meta_path):
    sys.meta_path.insert(0, _LazyMindsporeFinder())
