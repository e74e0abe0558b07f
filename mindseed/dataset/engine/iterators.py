"""mindspore.dataset.engine.iterators: the iterators over a pipeline and the registry of those alive
(`ITERATORS_LIST`, weak references) that `_cleanup` releases at exit."""
from mindseed.dataset._engine import ITERATORS_LIST, DictIterator, TupleIterator
from mindseed.dataset._engine import _IteratorBase as Iterator

__all__ = ["Iterator", "DictIterator", "TupleIterator", "ITERATORS_LIST"]

_ITERATOR_CLEANUP = False


def _set_iterator_cleanup():
    global _ITERATOR_CLEANUP
    _ITERATOR_CLEANUP = True


def _unset_iterator_cleanup():
    global _ITERATOR_CLEANUP
    _ITERATOR_CLEANUP = False


def check_iterator_cleanup():
    """Whether the iterators are being cleaned up (set by `_cleanup`, cleared when an iterator is made)."""
    return _ITERATOR_CLEANUP


def _cleanup():
    """Release every iterator alive, newest first."""
    _set_iterator_cleanup()
    for ref in reversed(list(ITERATORS_LIST)):
        itr = ref()
        if itr is not None:
            itr.release()
