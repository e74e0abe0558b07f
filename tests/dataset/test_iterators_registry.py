"""mindspore.dataset.engine.iterators: ITERATORS_LIST holds weak references to the iterators alive; an iterator
leaves it when deleted, stopped or released, and `_cleanup` releases them all."""
import numpy as np

import mindseed.dataset as ds
from mindseed.dataset.engine import iterators as it


def _data():
    return ds.GeneratorDataset(lambda: ((np.array([i]),) for i in range(3)), ["a"])


def test_iterators_list_follows_live_iterators_and_cleanup_releases_them():
    it.ITERATORS_LIST.clear()
    data = _data()
    first, second = data.create_tuple_iterator(num_epochs=1), data.create_dict_iterator(num_epochs=1)
    assert len(it.ITERATORS_LIST) == 2 and all(ref() is not None for ref in it.ITERATORS_LIST)
    del first
    assert len(it.ITERATORS_LIST) == 1 and it.ITERATORS_LIST[0]() is second
    assert int(next(second)["a"].asnumpy()[0]) == 0
    it._cleanup()
    assert it.ITERATORS_LIST == [] and it.check_iterator_cleanup()
    rows = list(second)
    assert rows == []                  # released: nothing more
    it._unset_iterator_cleanup()
    assert not it.check_iterator_cleanup()
    third = data.create_tuple_iterator(num_epochs=1, output_numpy=True)
    assert [int(r[0][0]) for r in third] == [0, 1, 2]
