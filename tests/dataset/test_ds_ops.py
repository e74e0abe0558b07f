"""Pipeline operations, iterators, getters and ds.config."""
import numpy as np
import pytest

import mindseed as ms
import mindseed.dataset as ds
from mindseed.dataset import transforms, vision


def rows(d):
    return [[np.asarray(x) for x in r] for r in d.create_tuple_iterator(num_epochs=1, output_numpy=True)]


def col(d, k=0):
    return [r[k].tolist() for r in rows(d)]


def abc(n=3):
    return ds.NumpySlicesDataset({"a": np.arange(n), "b": np.arange(n) * 10, "c": np.arange(n) * 100}, shuffle=False)


# ---------------------------------------------------------------------------- map
def test_map_column_placement_follows_mindspore():
    # (expected values recorded from real MindSpore 2.10)
    m = abc().map(lambda b: (b, b + 1), input_columns=["b"], output_columns=["x", "y"])
    assert m.get_col_names() == ["x", "y", "a", "c"] and rows(m)[1] == [10, 11, 1, 100]
    m = abc().map(lambda a, c: a + c, input_columns=["c", "a"], output_columns=["z"])
    assert m.get_col_names() == ["z", "b"] and rows(m)[2] == [202, 20]
    m = abc().map(lambda b: b * 2, input_columns=["b"], output_columns=["z"])
    assert m.get_col_names() == ["a", "z", "c"]
    m = abc().map(lambda a, b: (b, a), input_columns=["a", "b"], output_columns=["b", "a"])
    assert m.get_col_names() == ["b", "a", "c"] and rows(m)[1] == [10, 1, 100]


def test_map_operation_list_default_column_and_transforms():
    d = abc().map([lambda a: a + 1, transforms.TypeCast(ms.float32), lambda a: a * 2])
    out = rows(d)
    # the last transform's `a * 2` is numpy's arithmetic: float32 under numpy 2, float64 under numpy 1's value-based
    # casting of 0-d arrays (MindSpore's own environment)
    assert out[2][0].dtype == (np.ones((), np.float32) * 2).dtype and out[2][0] == 6.0 and out[2][1] == 20


@pytest.mark.parametrize("mp", [False, True])
def test_map_parallel_workers_keep_order_and_values(mp):
    d = ds.NumpySlicesDataset({"x": np.arange(100)}, shuffle=False)
    d = d.map(lambda x: (x * 3, x.astype(np.float32) / 2), input_columns="x", output_columns=["t", "h"],
              num_parallel_workers=2, python_multiprocessing=mp)
    out = rows(d)
    assert [int(r[0]) for r in out] == [3 * i for i in range(100)]
    assert out[7][1] == np.float32(3.5)


def test_map_rejects_bad_arguments():
    with pytest.raises(TypeError):
        abc().map(5)
    with pytest.raises(ValueError):
        abc().map(lambda a: a, input_columns=["a", "a"])
    with pytest.raises(RuntimeError, match="does not exist"):
        abc().map(lambda q: q, input_columns="q").get_col_names()
    with pytest.raises(TypeError):
        abc().map(lambda a: a, column_order=["a"])


# ---------------------------------------------------------------------------- batch
def test_batch_sizes_stacking_and_drop_remainder():
    d = abc(7).batch(3)
    assert d.get_dataset_size() == 3 and d.get_batch_size() == 3
    out = rows(d)
    assert out[0][1].tolist() == [0, 10, 20] and out[2][0].tolist() == [6]
    d = abc(7).batch(3, drop_remainder=True)
    assert d.get_dataset_size() == 2 and len(rows(d)) == 2
    with pytest.raises(ValueError):
        abc().batch(0)
    with pytest.raises(TypeError):
        abc().batch("2")


def test_batch_with_mismatched_shapes_raises_mindspore_message():
    def var():
        for i in range(3):
            yield (np.arange(i + 1),)
    with pytest.raises(RuntimeError, match="Cannot batch tensors with different shapes in column 0"):
        rows(ds.GeneratorDataset(var, ["x"]).batch(3))


def test_batch_per_batch_map_callable_size_and_columns():
    def size(info):
        return info.get_batch_num() + 1

    d = abc(6).batch(size)
    assert [len(r[0]) for r in rows(d)] == [1, 2, 3] and d.get_dataset_size() == 3

    def pbm(a, b, info):
        return [x + info.get_batch_num() for x in a], [y * 0 for y in b]

    d = abc(4).batch(2, per_batch_map=pbm, input_columns=["a", "b"])
    assert [x.tolist() for x in rows(d)[1][:2]] == [[3, 4], [0, 0]]
    d = abc(4).batch(2, per_batch_map=lambda a, info: ([x * 2 for x in a], [x * 3 for x in a]),
                     input_columns=["a"], output_columns=["a2", "a3"], num_parallel_workers=2)
    assert d.get_col_names() == ["a2", "a3", "b", "c"] and rows(d)[1][1].tolist() == [6, 9]
    # output_columns without per_batch_map is ignored, as MindSpore (mindformers passes it so); input_columns is not
    d = abc(4).batch(2, output_columns=["x"])
    assert d.get_col_names() == ["a", "b", "c"] and [r[0].tolist() for r in rows(d)] == [[0, 1], [2, 3]]
    with pytest.raises(ValueError, match="input_columns can be specified only when per_batch_map is set"):
        abc(4).batch(2, input_columns=["a"])


def test_padded_batch_and_bucket_batch_by_length():
    def var():
        for n in (1, 3, 2, 5, 4):
            yield (np.arange(n, dtype=np.int32) + 1,)
    d = ds.GeneratorDataset(var, ["x"]).padded_batch(2, pad_info={"x": ([None], -1)})
    out = col(d)
    assert out == [[[1, -1, -1], [1, 2, 3]], [[1, 2, -1, -1, -1], [1, 2, 3, 4, 5]], [[1, 2, 3, 4]]]
    d = ds.GeneratorDataset(var, ["x"]).padded_batch(2, pad_info={"x": ([6], 0)}, drop_remainder=True)
    assert [np.asarray(v).shape for v in col(d)] == [(2, 6), (2, 6)]
    b = ds.GeneratorDataset(var, ["x"]).bucket_batch_by_length(["x"], [3], [2, 2], pad_info={"x": ([None], 0)})
    got = [np.asarray(v).tolist() for v in col(b)]
    assert got == [[[1, 0], [1, 2]], [[1, 2, 3, 0, 0], [1, 2, 3, 4, 5]], [[1, 2, 3, 4]]]
    b = ds.GeneratorDataset(var, ["x"]).bucket_batch_by_length(["x"], [3, 6], [2, 2, 1], pad_info={"x": ([None], 0)},
                                                                pad_to_bucket_boundary=True, drop_remainder=True)
    assert [np.asarray(v).shape for v in col(b)] == [(2, 2), (2, 5)]
    # the last bucket has no boundary to pad to (MindSpore 2.10 raises a RuntimeError)
    b = ds.GeneratorDataset(var, ["x"]).bucket_batch_by_length(["x"], [3], [2, 2], pad_info={"x": ([None], 0)},
                                                                pad_to_bucket_boundary=True, drop_remainder=True)
    with pytest.raises(RuntimeError, match="last bucket"):
        col(b)


def test_bucket_batch_pad_info_none_pads_every_column_and_dict_only_its_columns():
    def var():
        for i in range(1, 5):
            yield (np.arange(i, dtype=np.int32), np.ones(i % 3 + 1, np.float32))
    # values real MindSpore 2.10 printed: no pad_info pads every column to the batch's longest with 0
    b = ds.GeneratorDataset(var, ["a", "b"], shuffle=False).bucket_batch_by_length(
        ["a"], [3], [2, 2], pad_to_bucket_boundary=True)
    got = [[np.asarray(c).tolist() for c in r] for r in rows(b)]
    assert got == [[[[0, 0], [0, 1]], [[1.0, 1.0, 0.0], [1.0, 1.0, 1.0]]],
                   [[[0, 1, 2, 0], [0, 1, 2, 3]], [[1.0, 0.0], [1.0, 1.0]]]]
    # a pad_info pads only the columns it names: "b" is ragged, so batching it fails
    b = ds.GeneratorDataset(var, ["a", "b"], shuffle=False).bucket_batch_by_length(
        ["a"], [3], [2, 2], pad_info={"a": (None, 9)})
    with pytest.raises(RuntimeError, match="different shapes in column 1"):
        rows(b)


def test_padded_batch_is_a_class_of_its_own_and_pads_only_with_pad_info():
    def var():
        for n in (1, 3, 2, 5):
            yield (np.arange(n, dtype=np.int32) + 1,)
    padded = ds.GeneratorDataset(var, ["x"]).padded_batch(2, pad_info={})
    assert isinstance(padded, ds.PaddedBatchDataset) and not isinstance(padded, ds.BatchDataset)
    assert isinstance(ds.GeneratorDataset(var, ["x"]).batch(2), ds.engine.datasets.BatchDataset)
    assert (padded.get_batch_size(), padded.get_dataset_size()) == (2, 2)
    assert col(padded) == [[[1, 0, 0], [1, 2, 3]], [[1, 2, 0, 0, 0], [1, 2, 3, 4, 5]]]
    with pytest.raises(RuntimeError, match="Cannot batch tensors with different shapes in column 0"):
        col(ds.GeneratorDataset(var, ["x"]).padded_batch(2))            # pad_info=None: no padding


def test_vectorised_batch_equals_row_by_row():
    img = np.random.RandomState(0).randint(0, 256, (10, 6, 6, 1)).astype(np.uint8)
    ops = [vision.Rescale(1 / 255.0, 0.0), vision.Normalize(mean=(0.5,), std=(0.25,)), vision.HWC2CHW()]
    fast = ds.NumpySlicesDataset({"image": img}, shuffle=False).map(ops, input_columns="image").batch(4)
    slow = ds.GeneratorDataset(lambda: ((x,) for x in img), ["image"]).map(ops, input_columns="image").batch(4)
    for (f,), (s,) in zip(rows(fast), rows(slow)):
        assert f.dtype == np.float32 and f.shape[1:] == (1, 6, 6)
        np.testing.assert_array_equal(f, s)
    expect = ((img[:4].astype(np.float32) / 255 - 0.5) / 0.25).transpose(0, 3, 1, 2)
    np.testing.assert_allclose(rows(fast)[0][0], expect, rtol=1e-6, atol=1e-6)


# ---------------------------------------------------------------------------- reordering and combining
def test_shuffle_repeat_take_skip():
    ds.config.set_seed(3)
    d = ds.NumpySlicesDataset({"n": np.arange(10)}, shuffle=False).shuffle(10)
    a = col(d)
    ds.config.set_seed(3)
    assert col(d) == a and sorted(a) == list(range(10)) and a != list(range(10))
    small = ds.NumpySlicesDataset({"n": np.arange(10)}, shuffle=False).shuffle(2)
    assert sorted(col(small)) == list(range(10))
    with pytest.raises(ValueError):
        d.shuffle(1)
    r = abc(3).repeat(2)
    assert r.get_dataset_size() == 6 and col(r) == [0, 1, 2, 0, 1, 2] and r.get_repeat_count() == 2
    assert col(abc(5).skip(2)) == [2, 3, 4] and abc(5).skip(2).get_dataset_size() == 3
    assert col(abc(5).take(2)) == [0, 1] and abc(5).take(-1).get_dataset_size() == 5
    assert col(abc(5).skip(1).take(2).repeat(2)) == [1, 2, 1, 2]
    with pytest.raises(ValueError):
        abc().take(0)


def test_repeat_reshuffles_every_pass():
    d = ds.NumpySlicesDataset({"n": np.arange(20)}, shuffle=True).repeat(2)
    out = col(d)
    assert sorted(out[:20]) == list(range(20)) and out[:20] != out[20:]


def test_zip_concat_add_project_rename():
    def a():          # a node feeds one pipeline (MindSpore refuses a node with two consumers)
        return ds.NumpySlicesDataset({"x": np.arange(4)}, shuffle=False)

    def b():
        return ds.NumpySlicesDataset({"y": np.arange(3) * 2}, shuffle=False)

    z = a().zip(b())
    assert z.get_col_names() == ["x", "y"] and z.get_dataset_size() == 3 and rows(z)[2] == [2, 4]
    assert ds.zip((a(), b())).get_dataset_size() == 3
    with pytest.raises(RuntimeError, match="already exists"):
        a().zip(a()).get_col_names()
    c = a() + ds.NumpySlicesDataset({"x": np.arange(2) + 10}, shuffle=False)
    assert col(c) == [0, 1, 2, 3, 10, 11] and c.get_dataset_size() == 6
    with pytest.raises(RuntimeError):
        a().concat(b()).get_col_names()
    p = abc().project(["c", "a"])
    assert p.get_col_names() == ["c", "a"] and rows(p)[1] == [100, 1]
    r = abc().rename(["a", "c"], ["A", "C"])
    assert r.get_col_names() == ["A", "b", "C"]
    with pytest.raises(ValueError):
        abc().rename(["a"], ["x", "y"])


def test_filter_split_flat_map():
    f = abc(10).filter(lambda a: a % 3 == 0, input_columns=["a"])
    assert col(f) == [0, 3, 6, 9] and f.get_dataset_size() == 4
    ds.config.set_seed(1)
    parts = ds.NumpySlicesDataset({"n": np.arange(10)}, shuffle=False).split([0.7, 0.3])
    got = [sorted(col(p)) for p in parts]
    assert [len(g) for g in got] == [7, 3] and sorted(got[0] + got[1]) == list(range(10))
    assert sorted(col(parts[0])) == got[0]  # the same split every epoch
    seq = ds.NumpySlicesDataset({"n": np.arange(5)}, shuffle=False).split([2, 3], randomize=False)
    assert [col(p) for p in seq] == [[0, 1], [2, 3, 4]]
    gen = ds.GeneratorDataset(lambda: ((np.array(i),) for i in range(5)), ["n"]).split([3, 2], randomize=False)
    assert [col(p) for p in gen] == [[0, 1, 2], [3, 4]]
    with pytest.raises(RuntimeError):
        ds.NumpySlicesDataset({"n": np.arange(5)}, shuffle=False).split([2, 2])
    fm = abc(2).project(["a"]).flat_map(lambda a: ds.NumpySlicesDataset({"v": np.arange(int(a) + 1)}, shuffle=False))
    assert col(fm) == [0, 0, 1]


def test_split_orders_as_mindspore():
    # MindSpore 2.10 with seed 1234: the split's RandomSampler (no reshuffle) sits over the dataset's own sampler
    ds.config.set_seed(1234)
    a, b = ds.NumpySlicesDataset(data=list(range(10)), column_names=["c"]).split([0.6, 0.4])
    assert (col(a), col(b)) == ([7, 8, 5, 4, 0, 6], [3, 1, 2, 9])
    a, b = ds.NumpySlicesDataset(data=list(range(10)), column_names=["c"], shuffle=False).split([6, 4])
    assert (col(a), col(b)) == ([5, 3, 0, 8, 2, 7], [1, 6, 4, 9])
    assert col(a) == [5, 3, 0, 8, 2, 7] and a.get_dataset_size() == 6
    tr, ev = ds.NumpySlicesDataset(data=[1, 2, 3, 4, 5, 6], column_names=["c"], shuffle=False).split([4, 2])
    assert (col(tr), col(ev)) == ([6, 4, 1, 5], [3, 2])


def test_sync_wait_gates_until_update():
    seen = []
    d = ds.NumpySlicesDataset({"n": np.arange(6)}, shuffle=False).sync_wait("go", callback=seen.append).batch(2)
    out = []
    for i, r in enumerate(d.create_dict_iterator(num_epochs=1, output_numpy=True)):
        out.append(r["n"].tolist())
        d.sync_update("go", data=i)
    assert out == [[0, 1], [2, 3], [4, 5]] and seen == [0, 1, 2]
    with pytest.raises(RuntimeError):
        d.sync_update("nope")


# ---------------------------------------------------------------------------- iterators and getters
def test_iterators_epochs_numpy_and_tensors():
    d = abc(3)
    it = d.create_tuple_iterator(num_epochs=2)
    e1 = [int(r[0].asnumpy()) for r in it]
    e2 = [int(r[0].asnumpy()) for r in it]
    assert e1 == e2 == [0, 1, 2] and list(it) == []
    r = next(d.create_dict_iterator(output_numpy=False))
    assert isinstance(r["a"], ms.Tensor) and r["a"].dtype == ms.int64
    r = next(d.create_dict_iterator(output_numpy=True, do_copy=False))
    assert isinstance(r["a"], np.ndarray)
    t = next(d.create_tuple_iterator(columns=["c", "a"], output_numpy=True))
    assert [int(x) for x in t] == [0, 0]
    assert [int(r[1].asnumpy()) for r in d] == [0, 10, 20]
    with pytest.raises(ValueError):
        d.create_tuple_iterator(num_epochs=0)
    with pytest.raises(ValueError):
        d.create_tuple_iterator(columns=["zz"])


def test_output_shapes_types_sizes_and_reset():
    d = ds.NumpySlicesDataset({"img": np.zeros((5, 4, 3), np.uint8), "s": np.array(list("abcde"))},
                              shuffle=False).batch(2)
    assert d.output_shapes() == [[2, 4, 3], [2]]
    assert d.output_types()[0] == np.uint8 and d.output_types()[1].kind == "U"
    assert d.get_dataset_size() == 3 and len(d) == 3
    d.reset()
    assert d.get_dataset_size() == 3


def test_config_get_set():
    old = ds.config.get_num_parallel_workers()
    ds.config.set_num_parallel_workers(1)
    assert ds.config.get_num_parallel_workers() == 1
    ds.config.set_num_parallel_workers(old)
    ds.config.set_prefetch_size(8)
    assert ds.config.get_prefetch_size() == 8
    ds.config.set_prefetch_size(16)
    ds.config.set_seed(123)
    assert ds.config.get_seed() == 123
    ms.set_seed(9)
    assert ds.config.get_seed() == 9
    for bad in (-1, 1.5, True):
        with pytest.raises((TypeError, ValueError)):
            ds.config.set_seed(bad)
    with pytest.raises(ValueError):
        ds.config.set_num_parallel_workers(0)
    with pytest.raises(TypeError):
        ds.config.set_prefetch_size("8")


def test_save_to_mindrecord_roundtrip(tmp_path):
    d = ds.NumpySlicesDataset({"v": np.arange(6, dtype=np.int64).reshape(3, 2), "f": np.array([0.5, 1.5, 2.5])},
                              shuffle=False)
    path = str(tmp_path / "saved.mindrecord")
    d.save(path)
    back = ds.MindDataset(path, shuffle=False)
    assert sorted(back.get_col_names()) == ["f", "v"]
    out = list(back.create_dict_iterator(output_numpy=True))
    assert out[1]["v"].tolist() == [2, 3] and float(out[2]["f"]) == 2.5 and out[0]["f"].dtype == np.float64


def test_map_callbacks_see_epochs_and_steps():
    events = []

    class Log(ds.DSCallback):
        def ds_begin(self, c):
            events.append(("begin", c.cur_epoch_num))

        def ds_epoch_begin(self, c):
            events.append(("epoch", c.cur_epoch_num))

        def ds_step_begin(self, c):
            events.append(("step", c.cur_epoch_num, c.cur_step_num_in_epoch, c.cur_step_num))

        def ds_epoch_end(self, c):
            events.append(("end", c.cur_epoch_num))

    d = abc(3).map(lambda a: a, input_columns="a", callbacks=Log(step_size=2))
    it = d.create_tuple_iterator(num_epochs=2)
    for _ in range(2):
        for _ in it:
            pass
    assert events == [("begin", 0), ("epoch", 1), ("step", 1, 1, 1), ("step", 1, 3, 3), ("end", 1),
                      ("epoch", 2), ("step", 2, 1, 4), ("step", 2, 3, 6), ("end", 2)]  # (MindSpore 2.10's)
    with pytest.raises(TypeError):
        abc().map(lambda a: a, callbacks=[object()])

    from mindseed.dataset.callback import DSCallback, WaitedDSCallback     # MindSpore's module of them
    assert DSCallback is ds.DSCallback and WaitedDSCallback is ds.WaitedDSCallback


def test_shuffle_buffer_size_keyword_and_map_max_rowsize():
    def base():       # a node feeds one pipeline (MindSpore refuses a node with two consumers)
        return ds.NumpySlicesDataset({"n": np.arange(50)}, shuffle=False)

    ds.config.set_seed(5)
    a = col(base().shuffle(buffer_size=4))
    ds.config.set_seed(5)
    b = col(base().shuffle(4))
    assert a == b and sorted(a) == list(range(50)) and a != list(range(50))
    # a buffer of 4 rows: row k leaves no earlier than position k - 3 (it must first enter the buffer)
    assert all(pos >= n - 3 for pos, n in enumerate(a))
    with pytest.raises(TypeError):
        base().shuffle(buffer_size="4")
    for mp in (False, True):
        m = base().map(lambda n: n * 2, input_columns="n", num_parallel_workers=2, python_multiprocessing=mp,
                     max_rowsize=[1, 2])
        assert col(m) == [2 * k for k in range(50)]
    assert col(base().map(lambda n: n + 1, input_columns="n", max_rowsize=16))[:3] == [1, 2, 3]
    with pytest.raises(TypeError, match="max_rowsize"):
        base().map(lambda n: n, input_columns="n", max_rowsize="big")


def test_padded_batch_truncates_where_the_pad_shape_is_smaller():
    def gen():
        for i in range(2):
            yield (np.array([[i + 100, i + 1], [i + 200, i + 2]]),)
    grow = ds.GeneratorDataset(gen, ["c"]).padded_batch(2, pad_info={"c": ([1, 3], -2)})
    assert [r[0].tolist() for r in grow.create_tuple_iterator(output_numpy=True)] == \
        [[[[100, 1, -2]], [[101, 2, -2]]]]
    cut = ds.GeneratorDataset(gen, ["c"]).padded_batch(2, pad_info={"c": ([1, 1], -2)})
    assert [r[0].tolist() for r in cut.create_tuple_iterator(output_numpy=True)] == [[[[100]], [[101]]]]


def test_int64_arrays_out_of_the_pipeline_print_their_dtype():
    # MindSpore's C++ tensors come out as long long arrays: numpy's repr names their dtype (MindSpore 2.10 prints
    # {'a': array([1, 2], dtype=int64)}); int32/float64 arrays print as usual
    from mindseed.dataset import text, transforms
    d = ds.NumpySlicesDataset({"a": np.array([[1, 2]]), "b": np.array([1], np.int32), "c": np.array([1.5])},
                              shuffle=False)
    row = next(d.create_dict_iterator(output_numpy=True))
    assert repr(row) == "{'a': array([1, 2], dtype=int64), 'b': array(1, dtype=int32), 'c': array(1.5)}"
    assert row["a"].dtype == np.int64 and row["a"].tolist() == [1, 2]
    assert repr(transforms.Fill(0)(np.array([1, 2]))) == "array([0, 0], dtype=int64)"
    pair = text.TruncateSequencePair(4)(np.array([1, 2, 3]), np.array([4, 5, 6, 7]))
    assert repr(pair) == "(array([1, 2], dtype=int64), array([4, 5], dtype=int64))"


def test_a_node_with_two_consumers_is_not_a_tree():
    # MindSpore counts every operation ever applied to a node (referenced or not); one refused by its argument
    # checks is not counted, and the node itself (the root of its own pipeline) still runs
    src = ds.NumpySlicesDataset({"x": np.arange(4)}, shuffle=False)
    one, two = src.map(lambda x: x + 1), src.map(lambda x: x * 2)
    for node in (one, two, one.zip(two.rename("x", "y"))):
        with pytest.raises(ValueError, match=r"^The data pipeline is not a tree \(i.e., one node has 2 consumers\)$"):
            node.create_tuple_iterator()
    with pytest.raises(ValueError, match="not a tree"):
        one.get_dataset_size()
    assert col(src) == [0, 1, 2, 3]
    src = ds.NumpySlicesDataset({"x": np.arange(4)}, shuffle=False)
    src.batch(2)                                    # dropped at once, still a consumer
    with pytest.raises(ValueError, match="not a tree"):
        src.repeat(2).get_col_names()
    src = ds.NumpySlicesDataset({"x": np.arange(4)}, shuffle=False)
    with pytest.raises(TypeError):
        src.batch("2")                              # refused: not a consumer
    assert col(src.batch(2)) == [[0, 1], [2, 3]]


def _three_cols():
    for i in range(2):
        yield np.array([i]), np.array([100 + i]), np.array([200 + i])


@pytest.mark.parametrize("ins, outs, names, row0", [
    # oracle (MindSpore 2.10): same counts -> in place, the output hides an untouched column of its name
    (["col1"], ["col2"], ["col2", "col3"], [1000, 200]),
    (["col1", "col3"], ["col3", "col1"], ["col3", "col2", "col1"], [1000, 100, 2000]),
    (["col1", "col3"], ["col2", "x"], ["col2", "x"], [1000, 2000]),
    # other counts -> outputs first, an untouched column hides the output of its name
    (["col2"], ["a", "col1", "b"], ["a", "b", "col1", "col3"], [1000, 3000, 0, 200]),
])
def test_map_output_name_reusing_an_untouched_column(ins, outs, names, row0):
    n = len(outs)
    d = ds.GeneratorDataset(_three_cols, ["col1", "col2", "col3"])
    d = d.map(lambda *x: tuple(np.array([1000 * (k + 1)]) for k in range(n)) if n > 1 else np.array([1000]),
              input_columns=ins, output_columns=outs)
    assert d.get_col_names() == names
    rows = list(d.create_tuple_iterator(output_numpy=True))
    assert [int(v[0]) for v in rows[0]] == row0
    hidden = len(names) < (3 if len(ins) == len(outs) else n + 3 - len(ins))
    old = ds.config.get_debug_mode()
    ds.config.set_debug_mode(True)
    try:
        if hidden:   # the pull-based debug mode cannot place the columns
            with pytest.raises(RuntimeError, match="Invalid column id encountered"):
                list(d.create_tuple_iterator(output_numpy=True))
        else:
            assert [int(v[0]) for v in next(d.create_tuple_iterator(output_numpy=True))] == row0
    finally:
        ds.config.set_debug_mode(old)
