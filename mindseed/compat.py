"""Run unmodified MindSpore code on mindseed: `import mindspore` and `from mindspore.x import y` resolve to
`mindseed` and `mindseed.x`.

    python -m mindseed.compat script.py [args]        # what `python` accepts: a script, -m module, -c code,
    python -m mindseed.compat -m package.module [args]  # `-` or a pipe on stdin, and an interactive session
    python -m mindseed.compat -c "import mindspore; print(mindspore.__version__)"
    python -m mindseed.compat                          # interactive session

    python -m mindseed.compat --install-hook            # every Python of this environment (notebooks, tools
    python -m mindseed.compat --uninstall-hook          # that start Python themselves) gets the alias

Under the alias `mindspore.__version__` is the MindSpore release whose API mindseed implements
(`MINDSPORE_VERSION`), since packages built on MindSpore compare it with their own version tables.

`import mindspore_lite` resolves to `mindseed.lite` (the Lite runtime's Python API).
"""
import code
import importlib
import importlib.abc
import importlib.metadata
import importlib.util
import io
import os
import runpy
import shutil
import sys
import sysconfig
import types
import warnings
import zipfile

__all__ = ["MINDSPORE_VERSION", "install", "install_hook", "uninstall_hook", "main"]

MINDSPORE_VERSION = "2.10.0"

_HOOK_MODULE = "_mindseed_compat_hook"
_HOOK_PTH = "mindseed-compat.pth"
_USAGE = """\
usage: python -m mindseed.compat [option] ... [-c cmd | -m mod | file | -] [arg] ...
       python -m mindseed.compat --install-hook [--target DIR] | --uninstall-hook [--target DIR]
Runs Python as `python` would, with `import mindspore` resolving to mindseed.
  -c cmd  program passed in as a string        -m mod  run a library module as a script
  file    program read from a script file      -       program read from stdin (default; interactive if a tty)
  -i      inspect interactively after running  -q      no banner in interactive mode
  -u      unbuffered stdout and stderr
  --install-hook    write a .pth start-up hook into this environment's site-packages (or --target DIR) so
                    that every Python started there resolves `import mindspore` to mindseed
  --uninstall-hook  remove that hook
"""


# MindSpore's top-level packages and the mindseed packages they resolve to
_ALIASES = (("mindspore_lite", "mindseed.lite"), ("mindspore", "mindseed"))


def _real_name(fullname):
    for alias, real in _ALIASES:
        if fullname == alias or fullname.startswith(alias + "."):
            return real + fullname[len(alias):]
    return None


def _alias_loaded_submodules(real, alias):
    """Register the already imported submodules of `real` under `alias` too.

    A later `import alias.sub` then finds them in `sys.modules`, as it would in MindSpore, where the package's
    `__init__` imported them; otherwise the import system would load the alias afresh and set `alias.sub` to the
    module, replacing what `__init__` bound to that name (`mindspore.parallel.shard`, the function)."""
    prefix = real + "."
    for name, module in list(sys.modules.items()):
        if name.startswith(prefix) and module is not None:
            alias_name = alias + name[len(real):]
            if sys.modules.setdefault(alias_name, module) is module:
                _name_missing_attributes(module, alias_name)


def _name_missing_attributes(module, alias_name):
    """A missing attribute of the module is reported under its MindSpore name (`module 'mindspore.nn' has no
    attribute 'DenseQuant'`), as MindSpore's own module reports it: a module `__getattr__` (PEP 562) for plain
    modules; a lazy module's own `__getattr__` still answers first."""
    if type(module) is not types.ModuleType or getattr(module.__dict__.get("__getattr__"), "_names_alias", False):
        return
    own = module.__dict__.get("__getattr__")

    def __getattr__(name):
        if own is not None:
            try:
                return own(name)
            except AttributeError:
                pass
        raise AttributeError(f"module '{alias_name}' has no attribute '{name}'", name=name, obj=module)
    __getattr__._names_alias = True
    module.__getattr__ = __getattr__


class _AliasFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds `mindspore[.x]` (`mindspore_lite[.x]`) by importing `mindseed[.x]` (`mindseed.lite[.x]`) and
    registering it under both names."""

    def find_spec(self, fullname, path=None, target=None):
        real = _real_name(fullname)
        if real is None or importlib.util.find_spec(real) is None:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        real = _real_name(spec.name)
        module = importlib.import_module(real)
        if real == "mindseed":
            module.__version__ = MINDSPORE_VERSION
        _name_missing_attributes(module, spec.name)
        _alias_loaded_submodules(real, spec.name)
        return module

    def exec_module(self, module):
        pass


def install(position=0):
    """Make `mindspore` importable as an alias of mindseed in this process; returns the finder."""
    for f in sys.meta_path:
        if type(f).__name__ == "_AliasFinder":       # also one installed by another copy of this module
            return f
    finder = _AliasFinder()
    sys.meta_path.insert(position, finder)
    return finder


def _site_dir(target):
    return os.path.abspath(target) if target else sysconfig.get_paths()["purelib"]


def install_hook(target=None):
    """Write the start-up hook into `target` (default: this interpreter's site-packages); returns the .pth path.

    Every Python that processes that directory as a site directory (the environment's own interpreter) then
    resolves `import mindspore` to mindseed, without importing mindseed until `mindspore` is imported.
    """
    site_dir = _site_dir(target)
    os.makedirs(site_dir, exist_ok=True)
    try:
        real = importlib.metadata.distribution("mindspore")
    except importlib.metadata.PackageNotFoundError:
        real = None
    if real is not None:
        warnings.warn(f"mindseed.compat: MindSpore {real.version} is installed in this environment; the hook "
                      "makes `import mindspore` resolve to mindseed instead", stacklevel=2)
    shutil.copyfile(os.path.join(os.path.dirname(os.path.abspath(__file__)), "_compat_hook.py"),
                    os.path.join(site_dir, _HOOK_MODULE + ".py"))
    pth = os.path.join(site_dir, _HOOK_PTH)
    with open(pth, "w", encoding="utf-8") as f:
        f.write(f"import {_HOOK_MODULE}\n")
    return pth


def uninstall_hook(target=None):
    """Remove the start-up hook from `target` (default: this interpreter's site-packages); returns what was removed."""
    site_dir = _site_dir(target)
    removed = []
    for name in (_HOOK_PTH, _HOOK_MODULE + ".py"):
        path = os.path.join(site_dir, name)
        if os.path.exists(path):
            os.remove(path)
            removed.append(path)
    return removed


def _main_module():
    """A fresh `__main__` module, as the interpreter makes for `-c` or stdin (pickling by `__main__` names works)."""
    module = types.ModuleType("__main__")
    module.__builtins__ = __builtins__
    sys.modules["__main__"] = module
    return module.__dict__


def _run_source(source, filename):
    namespace = _main_module()
    exec(compile(source, filename, "exec"), namespace)
    return namespace


def _run_file(script):
    """Run a script as `python script.py` does: its __file__ and its code's file name are absolute (a script that
    changes directory still finds its own source: inspect.getsource, tracebacks), sys.argv[0] is left as given.
    A directory or zip with __main__.py goes through runpy."""
    path = os.path.abspath(script)
    if not os.path.isfile(path) or zipfile.is_zipfile(path):
        return runpy.run_path(script, run_name="__main__")
    with io.open_code(path) as f:
        code_obj = compile(f.read(), path, "exec")
    namespace = _main_module()
    namespace.update(__file__=path, __cached__=None)
    exec(code_obj, namespace)  # noqa: S102 -- the user's script, as the interpreter would run it
    return namespace


def _interact(namespace, quiet):
    try:
        import readline  # noqa: F401  (line editing and history, where the platform has it)
    except ImportError:
        pass
    banner = "" if quiet else (f"Python {sys.version} on {sys.platform}\nmindseed.compat: `import mindspore` "
                               f"resolves to mindseed (MindSpore {MINDSPORE_VERSION} API)")
    sys.ps1, sys.ps2 = getattr(sys, "ps1", ">>> "), getattr(sys, "ps2", "... ")
    code.interact(banner=banner, local=namespace, exitmsg="")


def _parse(argv):
    """Python's own command line: options, then what to run ('c', 'm', 'file' or 'stdin') and its arguments."""
    opts = {"i": False, "q": False, "u": False, "target": None}
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg in ("--install-hook", "--uninstall-hook"):
            rest = argv[i + 1:]
            if rest[:1] == ["--target"] and len(rest) == 2:
                opts["target"] = rest[1]
            elif rest:
                raise SystemExit(f"mindseed.compat: {arg} takes only '--target DIR', got {rest}")
            return arg[2:], None, opts
        if arg in ("-h", "--help", "-?"):
            return "help", None, opts
        if arg == "-" or not arg.startswith("-"):
            return ("stdin" if arg == "-" else "file"), argv[i:], opts
        flag, value = arg[1], arg[2:]
        if flag in "cm":
            if not value:
                i += 1
                if i == len(argv):
                    raise SystemExit(f"Argument expected for the -{flag} option\n{_USAGE}")
                value = argv[i]
            return flag, [value] + argv[i + 1:], opts
        elif flag in "iqu" and all(c in "iqu" for c in arg[1:]):
            for c in arg[1:]:
                opts[c] = True
        else:
            raise SystemExit(f"mindseed.compat: unknown option {arg!r}\n{_USAGE}")
        i += 1
    return "stdin", [], opts


def _ensure_mindseed_importable():
    # the caller's sys.path[0] is replaced as python does for a script; mindseed must stay findable
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if root not in sys.path:
        sys.path.append(root)


def main(argv=None):
    """Entry point of `python -m mindseed.compat`: returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    what, args, opts = _parse(argv)
    if what == "help":
        print(_USAGE, end="")
        return 0
    if what in ("install-hook", "uninstall-hook"):
        if what == "install-hook":
            print(f"mindseed.compat: hook installed: {install_hook(opts['target'])}")
        else:
            removed = uninstall_hook(opts["target"])
            print(f"mindseed.compat: removed {', '.join(removed)}" if removed else
                  f"mindseed.compat: no hook in {_site_dir(opts['target'])}")
        return 0
    if opts["u"]:
        sys.stdout.reconfigure(write_through=True)
        sys.stderr.reconfigure(write_through=True)
    _ensure_mindseed_importable()
    install()
    namespace = None
    interactive_stdin = what == "stdin" and (not args or args == ["-"]) and sys.stdin.isatty()
    if what == "file":
        script = args[0]
        if not os.path.exists(script):
            print(f"mindseed.compat: can't open file {script!r}: no such file or directory", file=sys.stderr)
            return 2
        sys.argv = args
        sys.path[0] = os.path.dirname(os.path.abspath(script))
        namespace = _run_file(script)
    elif what == "m":
        sys.argv = args
        sys.path[0] = os.getcwd()
        runpy.run_module(args[0], run_name="__main__", alter_sys=True)
        namespace = sys.modules["__main__"].__dict__
    elif what == "c":
        sys.argv = ["-c"] + args[1:]
        sys.path[0] = ""
        namespace = _run_source(args[0], "<string>")
    elif interactive_stdin:
        sys.argv = args or [""]
        sys.path[0] = ""
        _interact(_main_module(), opts["q"])
        return 0
    else:
        sys.argv = args or [""]
        sys.path[0] = ""
        namespace = _run_source(sys.stdin.read(), "<stdin>")
    if opts["i"]:
        _interact(namespace, True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
