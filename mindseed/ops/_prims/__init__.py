"""Primitive declarations by family; importing a module registers its primitives and their public rows."""
import importlib
import pkgutil


def load_all():
    """Import every family module, so that each primitive and row is registered (a new file needs no import)."""
    for info in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{info.name}")
