"""Python dicts as column values: MindSpore carries them through the pipeline (values converted to arrays, tuples
kept), batches them key by key, and takes rows of dicts from per_batch_map as one dict of lists."""
import numpy as np
import pytest

import mindseed as ms
import mindseed.dataset as ds


def _dicts(n):
    for i in range(n):
        yield {"i": i, "flag": True, "name": "x", "pair": (1, 2), 7: np.array([i, i + 100], np.int32)}


def _rows(d, **kw):
    return list(d.create_tuple_iterator(num_epochs=1, output_numpy=True, **kw))


def test_a_dict_column_keeps_its_keys_with_converted_values():
    (row,) = _rows(ds.GeneratorDataset(lambda: _dicts(1), ["c"]))
    d = row[0]
    assert list(d) == ["i", "flag", "name", "pair", 7]
    assert d["i"].dtype == np.int64 and d["flag"].dtype == np.bool_ and d["name"].dtype.kind == "U"
    assert isinstance(d["pair"], tuple) and [int(x) for x in d["pair"]] == [1, 2]
    np.testing.assert_array_equal(d[7], np.array([0, 100], np.int32))
    (row,) = list(ds.GeneratorDataset(lambda: _dicts(1), ["c"]).create_tuple_iterator(num_epochs=1))
    assert isinstance(row[0]["i"], ms.Tensor) and isinstance(row[0]["pair"][0], ms.Tensor)


def test_map_reads_and_builds_dicts_and_batch_stacks_them_by_key():
    mapped = ds.GeneratorDataset(lambda: _dicts(3), ["c"]).map(lambda d: d["i"] * 10)
    assert [int(r[0]) for r in _rows(mapped)] == [0, 10, 20]
    batched = ds.GeneratorDataset(lambda: _dicts(4), ["c"]).batch(2)
    first = _rows(batched)[0][0]
    np.testing.assert_array_equal(first["i"], [0, 1])
    np.testing.assert_array_equal(first["pair"], [[1, 2], [1, 2]])
    np.testing.assert_array_equal(first[7], np.array([[0, 100], [1, 101]], np.int32))


def test_per_batch_map_rows_of_dicts_and_its_type_rules():
    def square_rows(col, info):
        return ([{"v": x, "sq": x * x} for x in col],)
    d = ds.GeneratorDataset(lambda: iter(range(4)), ["c"]).batch(2, per_batch_map=square_rows)
    out = _rows(d)[1][0]
    assert isinstance(out["sq"], list) and [int(x) for x in out["sq"]] == [4, 9]

    def zipped(fn):
        a = ds.GeneratorDataset(lambda: _dicts(4), ["a"])
        b = ds.GeneratorDataset(lambda: _dicts(4), ["b"])
        return ds.zip((a, b)).batch(2, per_batch_map=fn)
    assert len(_rows(zipped(lambda a, b, info: ({"k": 1}, np.array([1, 2, 3]))))) == 2
    with pytest.raises(RuntimeError, match="mismatched types returned from per_batch_map"):
        _rows(zipped(lambda a, b, info: ({"k": 1}, [1])))
    with pytest.raises(RuntimeError, match="Invalid data, column: b expects: 2 rows returned from 'per_batch_map'"):
        _rows(zipped(lambda a, b, info: (a, np.array([1]))))
