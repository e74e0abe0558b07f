"""Helpers shared by the graph-mode tests."""
import contextlib
import warnings

import mindseed as ms


def no_fallback(fn, *args):
    """fn(*args) with warnings as errors: an interpreter fallback (which warns) fails the test."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return fn(*args)


@contextlib.contextmanager
def graph_mode():
    """GRAPH_MODE for the block, PYNATIVE_MODE again after it."""
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        yield
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
