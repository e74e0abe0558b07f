"""The top level's deferred part, seen from the lower layers.

`import mindseed` loads the core (Tensor, Parameter, ops, nn, autodiff, the compiler, communication, parallel) and
defers the rest (dataset, train, export, mint, numpy, ...) until one of its names is first read: the package's
`_complete()` loads it and runs the registrations that put higher layers' names into lower namespaces
(`mindseed._registration.complete`). A lower namespace that receives such names (`ops.all_gather`, `nn.metrics`,
`common.api._cell_graph_executor`, ...) answers a missing name with `missing`, which completes the top level and
looks again; `DeferredModules` does the same for the modules the registrations make (`import mindseed.nn.metrics`).
"""
import importlib.abc
import importlib.util
import sys
import types


def complete():
    """Load the top level's deferred part; True when this call loaded it (False once loaded, or while loading)."""
    top = sys.modules.get("mindseed")
    fn = None if top is None else top.__dict__.get("_complete")
    return bool(fn is not None and fn())


def missing(module_name, name):
    """The body of a lower namespace's `__getattr__`: `name` once the deferred part is loaded, else the usual
    AttributeError. Dunder names (looked up by tools: `__path__`, `__wrapped__`, ...) never load it."""
    if not (name.startswith("__") and name.endswith("__")):
        complete()
        namespace = sys.modules[module_name].__dict__
        if name in namespace:
            return namespace[name]
    raise AttributeError(f"module '{module_name}' has no attribute '{name}'")


def listing(module_name):
    """The body of a lower namespace's `__dir__`: its names once the deferred part is loaded (`dir(mindspore.nn)`
    lists `Accuracy` as in MindSpore)."""
    complete()
    return sorted(sys.modules[module_name].__dict__)


class _Loaded(importlib.abc.Loader):
    """Hands out the module the registrations put in sys.modules."""

    def create_module(self, spec):
        return sys.modules[spec.name]

    def exec_module(self, module):
        pass


def made_module(name, doc):
    """A module no file holds (`name` in sys.modules is what the registrations set), with a spec and a loader, so
    that the import system and `importlib.util.find_spec` (which `mindseed.compat`'s alias asks) take it as imported."""
    module = types.ModuleType(name, doc)
    module.__spec__ = importlib.util.spec_from_loader(name, _Loaded())
    return module


class DeferredModules(importlib.abc.MetaPathFinder):
    """Finds the modules `names` that the deferred registrations make (no file holds them) by loading the deferred
    part."""

    def __init__(self, names):
        self.names = frozenset(names)

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in self.names:
            return None
        complete()
        if fullname not in sys.modules:
            return None
        return importlib.util.spec_from_loader(fullname, _Loaded())
