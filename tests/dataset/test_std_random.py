"""Samplers and the shuffle op draw MindSpore's C++ random streams: with a seed set, rows come in MindSpore's order.

Expected orders were printed by MindSpore 2.10 (CPU) for the same pipelines.
"""
import numpy as np
import pytest

import mindseed as ms
import mindseed.dataset as ds
from mindseed.dataset import _std_random as R


def _order(d, num_epochs=1):
    it = d.create_tuple_iterator(output_numpy=True, num_epochs=num_epochs)
    return [[int(r[0]) for r in it] for _ in range(num_epochs)]


@pytest.fixture(autouse=True)
def _seed0():
    ds.config.set_seed(0)
    yield


def test_generators_match_the_cpp_standard():
    # [rand.predef]: the 10000th output of a default-constructed mt19937_64 is 9981545732273789042
    g = R.Mt64(5489)
    first = g()
    for _ in range(9998):
        g()
    assert (first, g()) == (14514284786278117030, 9981545732273789042)
    # std::mt19937(seed) is numpy's legacy-seeded MT19937: libstdc++'s std::shuffle and uniform_int_distribution
    assert R.shuffle(np.arange(12), 1).tolist() == [9, 10, 2, 5, 11, 4, 6, 3, 1, 8, 0, 7]
    assert R.shuffle([0, 2, 4, 6, 8], 3).tolist() == [6, 8, 0, 4, 2]
    assert R.uniform_ints(0, 10, 6).tolist() == [5, 5, 7, 8, 6, 8]


def test_random_sampler_epochs_reshuffle_the_previous_order():
    d = ds.GeneratorDataset([(np.int32(i),) for i in range(10)], ["v"], shuffle=True)
    assert _order(d) == [[0, 2, 1, 5, 9, 8, 4, 7, 6, 3]]
    assert _order(d, 2) == [[0, 2, 1, 5, 9, 8, 4, 7, 6, 3], [3, 0, 1, 8, 7, 9, 4, 5, 2, 6]]
    # a repeat is one more pass over the source, as an epoch is
    assert _order(ds.NumpySlicesDataset(np.arange(6), shuffle=True).repeat(2)) == [[0, 2, 1, 5, 3, 4,
                                                                                  2, 0, 1, 4, 5, 3]]


def test_set_seed_of_mindspore_seeds_the_pipeline():
    ms.set_seed(0)
    assert _order(ds.NumpySlicesDataset(np.arange(10), shuffle=True)) == [[0, 2, 1, 5, 9, 8, 4, 7, 6, 3]]


def test_num_samples_with_shuffle_draws_with_replacement():
    src = [(np.int32(i),) for i in range(10)]
    assert _order(ds.GeneratorDataset(src, ["v"], num_samples=5)) == [[5, 5, 7, 8, 6]]
    # never more than the source has rows
    assert _order(ds.NumpySlicesDataset(np.arange(10), shuffle=True, num_samples=12)) == [[5, 5, 7, 8, 6, 8, 5, 8,
                                                                                           4, 6]]
    d = ds.NumpySlicesDataset(np.arange(10), sampler=ds.RandomSampler(replacement=True, num_samples=6))
    assert _order(d, 2) == [[5, 5, 7, 8, 6, 8], [4, 9, 7, 9, 0, 1]]
    assert ds.GeneratorDataset(src, ["v"], sampler=ds.RandomSampler(replacement=True, num_samples=20)) \
        .get_dataset_size() == 10


def test_subset_random_sampler_reshuffles_with_the_same_seed():
    d = ds.NumpySlicesDataset(np.arange(6), sampler=ds.SubsetRandomSampler([0, 1, 2, 3, 4, 5])).repeat(2)
    assert _order(d) == [[0, 2, 1, 5, 3, 4, 0, 1, 2, 4, 5, 3]]
    ds.config.set_seed(3)
    assert _order(ds.NumpySlicesDataset(np.arange(12), sampler=ds.SubsetRandomSampler([0, 2, 4, 6, 8]))) == \
        [[6, 8, 0, 4, 2]]


def test_distributed_sampler_shuffles_with_the_seed_it_was_made_with():
    d = ds.NumpySlicesDataset(np.arange(10), sampler=ds.DistributedSampler(2, 0, shuffle=True))
    ds.config.set_seed(7)       # too late: the sampler took seed 0
    assert _order(d) == [[9, 2, 7, 6, 1]]
    assert _order(d, 2) == [[9, 2, 7, 6, 1], [4, 5, 1, 6, 3]]
    ds.config.set_seed(0)
    assert _order(ds.NumpySlicesDataset(np.arange(10), num_shards=2, shard_id=1, shuffle=True)) == [[0, 5, 4, 3, 8]]


def test_distributed_sampler_offset_does_not_wrap():
    d = ds.NumpySlicesDataset(np.arange(10), sampler=ds.DistributedSampler(4, 3, shuffle=False, offset=1))
    assert _order(d) == [[2, 6]] and d.get_dataset_size() == 2
    d = ds.NumpySlicesDataset(np.arange(10), sampler=ds.DistributedSampler(4, 0, shuffle=False, offset=1))
    assert _order(d) == [[3, 7]] and d.get_dataset_size() == 2


def test_shuffle_op_stream_goes_on_across_passes():
    d = ds.NumpySlicesDataset(np.arange(10), shuffle=False).shuffle(3).repeat(2)
    assert _order(d) == [[0, 3, 1, 2, 4, 7, 6, 5, 9, 8, 2, 0, 1, 5, 4, 7, 3, 9, 6, 8]]
    assert _order(ds.NumpySlicesDataset(np.arange(10), shuffle=False).shuffle(4)) == [[2, 4, 1, 3, 0, 6, 9, 7, 8, 5]]


@pytest.mark.parametrize("kwargs, message", [
    ({"sampler": ds.RandomSampler(), "num_samples": 3},
     "Conflicting arguments during sampler assignments. num_samples: 3, num_shards: None, shard_id: None, "
     "shuffle: None."),
    ({"shard_id": 1}, "num_shards and shard_id need to be passed in together."),
    ({"num_shards": 2, "shard_id": 2}, "shard_id should be less than num_shards."),
])
def test_generator_sampling_arguments_are_value_errors(kwargs, message):
    with pytest.raises(ValueError) as info:
        ds.GeneratorDataset([(np.int32(i),) for i in range(4)], ["v"], **kwargs)
    assert str(info.value) == message
    with pytest.raises(ValueError):
        ds.NumpySlicesDataset(np.arange(4), **kwargs)


def test_mind_dataset_shuffles_as_mindrecords_reader(tmp_path):
    from mindseed.mindrecord import FileWriter
    assert R.shuffle(np.arange(10), 1, "minstd_rand0").tolist() == [2, 7, 1, 6, 8, 0, 4, 9, 5, 3]
    w = FileWriter(str(tmp_path / "m.mindrecord"), overwrite=True)
    w.add_schema({"x": {"type": "int32"}})
    w.write_raw_data([{"x": i} for i in range(10)])
    w.commit()
    d = ds.MindDataset(str(tmp_path / "m.mindrecord"))
    it = d.create_dict_iterator(output_numpy=True, num_epochs=3)
    assert [[int(r["x"]) for r in it] for _ in range(3)] == [[2, 7, 1, 6, 8, 0, 4, 9, 5, 3],
                                                              [5, 2, 8, 9, 7, 3, 4, 0, 1, 6],
                                                              [9, 7, 4, 6, 8, 1, 3, 5, 0, 2]]
    # a RandomSampler given to a MindDataset is MindRecord's shuffle too
    d = ds.MindDataset(str(tmp_path / "m.mindrecord"), sampler=ds.RandomSampler())
    assert _order(d) == [[2, 7, 1, 6, 8, 0, 4, 9, 5, 3]]
    w = FileWriter(str(tmp_path / "two.mindrecord"), shard_num=2, overwrite=True)
    w.add_schema({"x": {"type": "int32"}})
    w.write_raw_data([{"x": i} for i in range(13)])
    w.commit()
    d = ds.MindDataset([str(tmp_path / "two.mindrecord0"), str(tmp_path / "two.mindrecord1")])
    assert [int(r["x"]) for r in d.create_dict_iterator(output_numpy=True)] == [3, 0, 11, 10, 5, 9, 8, 6, 12, 1, 7,
                                                                                 4, 2]
