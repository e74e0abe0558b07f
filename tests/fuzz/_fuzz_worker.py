"""The worker of the fuzz suite: runs the calls listed on stdin, one line each, and reports on its protocol pipe.

Before each call it writes ``S <i>``, after it ``R <i> <json outcome>``; the parent (`_fuzz_run`) reads these with a
timeout, so a call that kills the process or never returns is the last one started. The process's own stdout and
stderr go to /dev/null (ops that print), its address space is capped (an allocation too big fails instead of
swapping the machine), and it runs in a scratch directory (ops that write files).
"""
import json
import linecache
import os
import re
import resource
import sys
import traceback
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

_MINDSEED = None
# Python's messages for a call that does not match a signature (a method's wrapper passes its arguments on)
_BINDING = re.compile(r"^[\w.]+\(\) (missing \d+ required|takes \d+|got an unexpected keyword|got multiple values)")


def _deliberate(exc):
    """Whether mindseed raised `exc` on purpose: its innermost frame is a `raise` statement in mindseed's code (a
    message formed for the user), rather than Python or a kernel failing under mindseed's feet."""
    frames = traceback.extract_tb(exc.__traceback__)
    if len(frames) <= 1 or (isinstance(exc, TypeError) and _BINDING.search(str(exc))):
        return True             # the call did not bind: Python's own message naming the function and the argument
    last = frames[-1]
    if not last.filename.startswith(_MINDSEED):
        return False
    line = linecache.getline(last.filename, last.lineno).strip()
    return line.startswith("raise ")


def _outcome(call, fn, args, kwargs, cases):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out = fn(*args, **kwargs)
        except BaseException as exc:  # noqa: BLE001 -- judging every outcome is the point
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                return {"kind": "internal", "detail": f"{type(exc).__name__}: {exc}"}
            text = f"{type(exc).__name__}: {exc}"
            where = traceback.extract_tb(exc.__traceback__)[-1]
            at = f" [{os.path.relpath(where.filename, _MINDSEED)}:{where.lineno}]"
            leak = cases.leaked_torch_text(str(exc))
            if leak:
                return {"kind": "leaked", "detail": text[:300] + at}
            if not isinstance(exc, cases.CLEAN_TYPES) or not _deliberate(exc):
                return {"kind": "internal", "detail": text[:300] + at}
            return {"kind": "error", "detail": text[:120]}
        finally:
            out_warn = [str(w.message) for w in caught]
    for w in out_warn:
        if cases.leaked_torch_text(w):
            return {"kind": "leaked", "detail": "warning: " + w[:300]}
    bad = _empty_result(out)
    if bad:
        return {"kind": "internal", "detail": bad}
    return {"kind": "ok", "detail": ""}


def _empty_result(out, depth=0):
    from mindseed import _backend as B
    from mindseed.common.tensor import Tensor
    if isinstance(out, Tensor) and not isinstance(getattr(out, "_data", None), B.Array):
        return "a Tensor result without data"
    if isinstance(out, (tuple, list)) and depth < 2:
        for o in out:
            bad = _empty_result(o, depth + 1)
            if bad:
                return bad
    return None


def main():
    global _MINDSEED
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.dup2(null, 2)
    os.chdir(sys.argv[1])
    import mindseed
    import _fuzz_cases as cases
    _MINDSEED = os.path.dirname(mindseed.__file__)
    fns = cases.targets()
    bad = cases._bad_inputs()
    with open("/proc/self/statm") as f:
        vsize = int(f.read().split()[0]) * resource.getpagesize()
    cap = vsize + (int(os.environ.get("MINDSEED_FUZZ_MEM_MB", "3072")) << 20)
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    calls = sys.stdin.read().split()
    cases.prepare(calls)
    for i, call in enumerate(calls):
        proto.write(f"S {i}\n")
        try:
            fn, args, kwargs = cases.build(call, fns, bad)
        except Exception as exc:  # noqa: BLE001 -- a call the table cannot build is the table's bug, say so
            res = {"kind": "build", "detail": f"{type(exc).__name__}: {exc}"}
        else:
            res = _outcome(call, fn, args, kwargs, cases)
        proto.write(f"R {i} {json.dumps(res)}\n")
    proto.write("D\n")


if __name__ == "__main__":
    main()
