"""torch loads on first use: the public modules of `_backend` are faces of the modules that import it.

`mindseed._backend` (the package), `_backend.kernels.<family>`, `devices`, `interop`, `inductor` and `widen` are
`Face` modules: the code lives in their private twins (`_core`, `_kernels.<family>`, `_devices`, ...), imported
with torch the first time anything needs a backend value. Until then a face answers a name with a `Stub` (the
kernel families, `widen`: what primitive declarations bind at import, `add_p = Prim("Add", K.add)`) or loads
torch right away (the package and the other faces: their names are read at run time). A Stub called loads torch,
binds itself and calls the kernel; `when_loaded` hooks then replace the stubs their owners hold (the primitive
registry rebinds every `Prim.impl`), so the hot path calls torch's functions with no extra frame. Once loaded, a
face caches each name it hands out, and an attribute set on it (a test's monkeypatch) is set on its twin too,
where the kernels read it.

So `import mindseed` and work on shapes only (the parallel planner's abstract recording, with shape rules) never
import torch.
"""
import importlib
import importlib.util
import sys
import types

_loaded = False
_hooks = []


def loaded():
    """Whether torch (and the backend's modules) are loaded."""
    return _loaded


def load():
    """Import torch and the backend (once), then run the `when_loaded` hooks."""
    global _loaded
    if _loaded:
        return
    importlib.import_module("mindseed._backend._core")
    _loaded = True
    for hook in _hooks:
        hook()


def when_loaded(fn):
    """Run fn() once the backend is loaded (now if it is)."""
    if _loaded:
        fn()
    else:
        _hooks.append(fn)
    return fn


class Stub:
    """A name of a face asked for before torch loaded: calling it loads torch and calls what the name is bound to
    (`resolve()`); any other use reads that too."""

    __slots__ = ("_face", "_name", "_target")

    def __init__(self, face, name):
        self._face, self._name, self._target = face, name, None

    def resolve(self):
        if self._target is None:
            load()
            self._target = getattr(self._face, self._name)
        return self._target

    def __call__(self, *args, **kwargs):
        return (self._target or self.resolve())(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self.resolve(), name)

    def __repr__(self):
        return f"<kernel {self._face.__name__}.{self._name}, bound when torch loads>"


class Made(Stub):
    """The kernel a kernel factory makes (`made`), made when torch loads."""

    __slots__ = ("_factory", "_args", "_kwargs")

    def __init__(self, factory, args, kwargs):
        super().__init__(None, None)
        self._factory, self._args, self._kwargs = factory, args, kwargs

    def resolve(self):
        if self._target is None:
            load()
            self._target = resolve(self._factory)(*self._args, **self._kwargs)
        return self._target

    def __repr__(self):
        return f"<kernel {self._factory!r}{self._args}, made when torch loads>"


def made(factory, *args, **kwargs):
    """`factory(*args, **kwargs)`, a kernel made by a kernel factory (`K.bessel("i0")`): now if torch is loaded,
    else a stub making it when torch loads."""
    if _loaded:
        return resolve(factory)(*args, **kwargs)
    return Made(factory, args, kwargs)


def resolve(x):
    """x itself, or what x is bound to when it is a Stub (which loads torch)."""
    return x.resolve() if isinstance(x, Stub) else x


class Face(types.ModuleType):
    """A module whose names come from its twin (`__twin__`), imported when torch loads."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        d = self.__dict__
        sub = f"{d['__name__']}.{name}"
        if d.get("__path__") is not None and importlib.util.find_spec(sub) is not None:
            return importlib.import_module(sub)      # a submodule (`from mindseed._backend import devices`)
        if not _loaded:
            if d["__stubs__"]:
                return Stub(self, name)
            load()
        value = getattr(importlib.import_module(d["__twin__"]), name)
        d[name] = value
        return value

    def __setattr__(self, name, value):
        super().__setattr__(name, value)
        if _loaded and not name.startswith("__"):
            twin = importlib.import_module(self.__dict__["__twin__"])
            if hasattr(twin, name):
                setattr(twin, name, value)

    def __dir__(self):
        load()
        return sorted(set(self.__dict__) | set(dir(importlib.import_module(self.__dict__["__twin__"]))))


def face(name, twin, stubs=False):
    """Make the module `name` a face of the module `twin` (see `Face`); `stubs`: answer names with Stubs until
    torch loads instead of loading it."""
    module = sys.modules[name]
    module.__dict__["__twin__"] = twin
    module.__dict__["__stubs__"] = stubs
    module.__class__ = Face
