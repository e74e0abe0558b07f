"""Dataset callbacks (DSCallback / WaitedDSCallback): the events a map's callbacks see, as MindSpore 2.10 calls
them, and their argument checks."""
import numpy as np
import pytest

import mindseed.dataset as ds
from mindseed.dataset.callback import DSCallback, WaitedDSCallback


class Recorder(DSCallback):
    def __init__(self, step_size=1):
        super().__init__(step_size)
        self.events = []

    def _add(self, name, c):
        self.events.append(f"{name}_{c.cur_epoch_num}_{c.cur_step_num_in_epoch}_{c.cur_step_num}")

    def ds_begin(self, c):
        self._add("begin", c)

    def ds_epoch_begin(self, c):
        self._add("epoch_begin", c)

    def ds_epoch_end(self, c):
        self._add("epoch_end", c)

    def ds_step_begin(self, c):
        self._add("step_begin", c)

    def ds_step_end(self, c):
        self._add("step_end", c)


def _run(data, epochs):
    it = data.create_tuple_iterator(num_epochs=epochs)
    for _ in range(epochs):
        for _ in it:
            pass


def test_events_per_epoch_and_step():
    cb = Recorder()
    data = ds.NumpySlicesDataset([1, 2], shuffle=False).map(operations=lambda x: x, callbacks=cb)
    _run(data, 2)
    assert cb.events == ["begin_0_0_0", "epoch_begin_1_0_0", "step_begin_1_1_1", "step_end_1_1_1",
                         "step_begin_1_2_2", "step_end_1_2_2", "epoch_end_1_2_2", "epoch_begin_2_0_2",
                         "step_begin_2_1_3", "step_end_2_1_3", "step_begin_2_2_4", "step_end_2_2_4",
                         "epoch_end_2_2_4"]


def test_repeat_belongs_to_the_epoch_and_step_size_counts_in_the_epoch():
    cb = Recorder(step_size=2)
    data = ds.NumpySlicesDataset([1, 2, 3], shuffle=False).map(operations=lambda x: x, callbacks=cb).repeat(2)
    _run(data, 1)
    assert cb.events == ["begin_0_0_0", "epoch_begin_1_0_0", "step_begin_1_1_1", "step_end_1_1_1",
                         "step_begin_1_3_3", "step_end_1_3_3", "step_begin_1_5_5", "step_end_1_5_5",
                         "epoch_end_1_6_6"]


def test_getters_do_not_call_callbacks():
    cb = Recorder()
    data = ds.NumpySlicesDataset([1, 2, 3, 4], shuffle=False).map(operations=lambda x: x, callbacks=cb)
    assert data.get_dataset_size() == 4 and data.output_shapes() == [[]]
    assert cb.events == []


def test_callback_checks_and_errors():
    data = ds.NumpySlicesDataset([1, 2], shuffle=False)
    with pytest.raises(TypeError, match="Argument callbacks with value 0 is not of type"):
        data.map(operations=lambda x: x, callbacks=0)
    with pytest.raises(TypeError, match=r"Argument callbacks\[1\] with value 0 is not of type"):
        data.map(operations=lambda x: x, callbacks=[Recorder(), 0])

    class Nothing(DSCallback):
        pass

    with pytest.raises(AttributeError, match="Inheriting Callback class without overriding any methods"):
        _run(data.map(operations=lambda x: x, callbacks=Nothing()), 1)

    class Bad(DSCallback):
        def ds_step_end(self, c):
            raise ValueError("bad step")

    with pytest.raises(RuntimeError, match="(?s)Exception thrown from user defined Python function.*ValueError: "
                                           "bad step"):
        _run(ds.NumpySlicesDataset([1, 2], shuffle=False).map(operations=lambda x: x, callbacks=Bad()), 1)


def test_waited_callback_follows_the_training_steps():
    events = []

    class Waited(WaitedDSCallback):
        def sync_epoch_begin(self, train_run_context, c):
            events.append(f"ds_epoch_begin_{c.cur_epoch_num}_{c.cur_step_num}")

        def sync_step_begin(self, train_run_context, c):
            events.append(f"ds_step_begin_{c.cur_epoch_num}_{c.cur_step_num}")

    cb = Waited()
    data = ds.NumpySlicesDataset([1, 2], shuffle=False).map(operations=lambda x: x, callbacks=cb)
    it = data.create_tuple_iterator(num_epochs=2, output_numpy=True)
    got = []
    for _ in range(2):
        for row in it:
            got.append(int(row[0]))
            events.append("train_step")
            cb.step_end(None)
        cb.epoch_end(None)
    assert got == [1, 2, 1, 2]
    assert events == ["train_step", "ds_step_begin_1_2", "train_step", "ds_epoch_begin_2_2", "ds_step_begin_2_3",
                      "train_step", "ds_step_begin_2_4", "train_step"]
    np.testing.assert_equal(cb.training_ended, False)


def _gen():
    for i in range(24):
        yield (np.array([i]),)


def test_sync_wait_gates_batches_above_a_threaded_map():
    seen = []
    d = ds.GeneratorDataset(_gen, ["x"]).sync_wait("c", callback=seen.append)
    d = d.map(operations=[lambda x: x + 100], input_columns=["x"], num_parallel_workers=2).batch(4)
    firsts = []
    for i, row in enumerate(d.create_tuple_iterator(num_epochs=1, output_numpy=True)):
        firsts.append(int(row[0][0, 0]))
        d.sync_update("c", data=i)
    assert firsts == [100, 104, 108, 112, 116, 120] and seen == [0, 1, 2, 3, 4, 5]


def test_two_gates_both_count_in_batches():
    d = ds.GeneratorDataset(_gen, ["x"]).sync_wait("a").map(operations=lambda x: x, input_columns=["x"])
    d = d.sync_wait("b", num_batch=2).batch(6)
    n = 0
    for _ in d.create_tuple_iterator(num_epochs=1, output_numpy=True):
        n += 1
        d.sync_update("a")
        if n % 2 == 0:
            d.sync_update("b")
    assert n == 4


def test_sync_wait_checks():
    d = ds.GeneratorDataset(_gen, ["x"])
    with pytest.raises(ValueError, match="num_batch need to be greater than 0."):
        d.sync_wait("c", num_batch=-1)
    with pytest.raises(TypeError, match=r"is not of type \[<class 'int'>\]"):
        d.sync_wait("c", num_batch="1")
    g = d.sync_wait("c").map(operations=lambda x: x, input_columns=["x"])
    with pytest.raises(RuntimeError, match="Condition name is already in use."):
        g.sync_wait("c")
    with pytest.raises(RuntimeError, match="No shuffle after sync operators."):
        g.shuffle(4)
    with pytest.raises(RuntimeError, match="Condition name not found."):
        g.sync_update("other")
    with pytest.raises(RuntimeError, match="Sync_update batch size can only be positive integer, got: -1."):
        g.sync_update("c", num_batch=-1)
    # both errors open every gate: the rest of the epoch runs through
    assert len(list(g.create_tuple_iterator(num_epochs=1))) == 24


def test_sync_wait_opens_after_the_timeout():
    old = ds.config.get_callback_timeout()
    ds.config.set_callback_timeout(1)
    try:
        d = ds.GeneratorDataset(_gen, ["x"]).sync_wait("c")
        assert len(list(d.create_tuple_iterator(num_epochs=1))) == 24  # warns once, then lets everything pass
    finally:
        ds.config.set_callback_timeout(old)


def test_input_indexs_is_inherited_from_the_first_child_that_sets_it():
    a = ds.NumpySlicesDataset([1, 2, 3], column_names=["c"])
    assert a.input_indexs == ()
    a.input_indexs = (1, 0)
    b = ds.NumpySlicesDataset([4], column_names=["c"]).shuffle(2)
    assert b.shuffle(2).input_indexs == ()
    b.input_indexs = 7
    assert a.shuffle(2).project(["c"]).input_indexs == (1, 0)
    assert (a + b).input_indexs == (1, 0) and (b.project(["c"]) + a).input_indexs == 7


def test_bucket_batch_by_length_checks_and_empty_pad_info():
    def seq():
        for i in range(6):
            yield (np.arange(i + 1),)

    d = ds.GeneratorDataset(seq, ["c"])
    out = [r[0].tolist() for r in d.bucket_batch_by_length(["c"], [3], [2, 4], None, {})
           .create_tuple_iterator(num_epochs=1, output_numpy=True)]
    assert out == [[[0, 0], [0, 1]], [[0, 1, 2, 0, 0, 0], [0, 1, 2, 3, 0, 0], [0, 1, 2, 3, 4, 0],
                                      [0, 1, 2, 3, 4, 5]]]
    with pytest.raises(ValueError, match="bucket_boundaries cannot be empty."):
        d.bucket_batch_by_length(["c"], [], [1])
    with pytest.raises(TypeError, match=r"Argument column_names\[0\] with value 1 is not of type \[<class 'str'>\]"):
        d.bucket_batch_by_length([1], [1], [1, 1])
    with pytest.raises(ValueError, match="bucket_batch_sizes should be a list of positive numbers."):
        d.bucket_batch_by_length(["c"], [1], [1, 0])
    with pytest.raises(TypeError, match="element_length_function object is not callable."):
        d.bucket_batch_by_length(["c"], [1], [1, 1], 3)
    bad = ds.GeneratorDataset(seq, ["c"]).bucket_batch_by_length(["x"], [1], [1, 1], lambda x: 1)
    with pytest.raises(RuntimeError, match="input column name: x doesn't exist in the dataset columns."):
        list(bad.create_tuple_iterator(num_epochs=1))


def test_output_shapes_estimate_marks_varying_dimensions():
    def gen():
        for i in range(3, 6):
            yield (np.ones((2, i)), np.ones((i, i, 3)), np.array(i))

    d = ds.GeneratorDataset(gen, ["a", "b", "c"], shuffle=False)
    assert d.output_shapes() == [[2, 3], [3, 3, 3], []]
    assert d.output_shapes(estimate=True) == [[2, None], [None, None, 3], []]
    with pytest.raises(TypeError, match="Argument estimate with value 1 is not of type"):
        d.output_shapes(estimate=1)

    def ragged():
        yield (np.ones(2),)
        yield (np.ones((2, 3)),)

    with pytest.raises(RuntimeError, match="Inconsistent shapes, expect same shape for each data row, last data row: "
                                           "<2,3>, current data row: <2>"):
        ds.GeneratorDataset(ragged, ["a"]).output_shapes(estimate=True)
