"""mindspore.dataset.dataloader: DataLoader over map- and iterable-style datasets, samplers, collation and worker
processes. Expected values are real MindSpore 2.10's."""
import random
import time
from collections import namedtuple

import numpy as np
import pytest

import mindseed as ms
from mindseed.dataset.dataloader import (BatchSampler, DataLoader, Dataset, DistributedSampler, IterableDataset,
                                         RandomSampler, SequentialSampler, TensorDataset, default_collate,
                                         default_convert, get_worker_info)
from mindseed.dataset.dataloader._utils.collate import collate


class _Rows(Dataset):
    def __init__(self, n):
        self.n = n

    def __getitem__(self, i):
        return {"x": np.arange(3, dtype=np.float32) + i, "y": i, "name": f"s{i}"}

    def __len__(self):
        return self.n


class _Range(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        info = get_worker_info()
        return iter(range(self.n)) if info is None else iter(range(info.id, self.n, info.num_workers))

    def __len__(self):
        return self.n


def test_batches_of_dict_samples():
    batches = list(DataLoader(_Rows(5), batch_size=2))
    assert len(batches) == 3 == len(DataLoader(_Rows(5), batch_size=2))
    assert len(DataLoader(_Rows(5), batch_size=2, drop_last=True)) == 2
    first = batches[0]
    assert first["x"].shape == (2, 3) and first["x"].dtype == ms.float32
    np.testing.assert_array_equal(first["x"].asnumpy(), [[0, 1, 2], [1, 2, 3]])
    assert first["y"].dtype == ms.int64 and first["y"].asnumpy().tolist() == [0, 1]
    assert first["name"] == ["s0", "s1"]
    assert batches[2]["y"].asnumpy().tolist() == [4]
    unbatched = list(DataLoader(_Rows(2), batch_size=None))[0]
    assert unbatched["y"] == 0 and unbatched["name"] == "s0" and isinstance(unbatched["x"], ms.Tensor)


def test_iterable_dataset_in_the_main_process_and_in_two_workers():
    assert [b.asnumpy().tolist() for b in DataLoader(_Range(7), batch_size=3)] == [[0, 1, 2], [3, 4, 5], [6]]
    # each worker iterates its own share; batches come round robin
    assert [b.asnumpy().tolist() for b in DataLoader(_Range(7), batch_size=3, num_workers=2)] == \
        [[0, 2, 4], [1, 3, 5], [6]]


def test_shuffle_and_samplers_draw_what_mindspore_draws():
    loader = DataLoader(_Rows(7), batch_size=3, shuffle=True, generator=np.random.default_rng(3))
    assert [b["y"].asnumpy().tolist() for b in loader] == [[5, 6, 2], [1, 4, 3], [0]]
    assert list(RandomSampler(range(6), generator=np.random.default_rng(0))) == [3, 2, 5, 4, 0, 1]
    assert list(RandomSampler(range(6), replacement=True, num_samples=5, generator=np.random.default_rng(0))) == \
        [5, 3, 3, 1, 1]
    assert list(DistributedSampler(list(range(10)), num_replicas=3, rank=1)) == [6, 3, 0, 4]
    assert list(DistributedSampler(list(range(10)), num_replicas=3, rank=1, shuffle=False, drop_last=True)) == \
        [1, 4, 7]
    assert list(BatchSampler(SequentialSampler(range(10)), 4, False)) == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert list(BatchSampler(SequentialSampler(range(10)), 4, True)) == [[0, 1, 2, 3], [4, 5, 6, 7]]


def test_tensor_dataset_batch_sampler_and_collate_functions():
    td = TensorDataset(ms.Tensor([0, 1, 2], ms.int32), ms.Tensor([[1.0], [2.0], [3.0]]))
    ids, values = next(iter(DataLoader(td, batch_size=2)))
    assert ids.dtype == ms.int32 and ids.asnumpy().tolist() == [0, 1] and values.shape == (2, 1)
    with pytest.raises(ValueError, match="same size in the first dimension"):
        TensorDataset(ms.Tensor([0, 1]), ms.Tensor([0]))
    ints, floats = default_collate([(0, 3.5), (1, 4.5)])
    assert ints.dtype == ms.int64 and floats.dtype == ms.float64
    converted = default_convert((np.int32(3), np.array([1, 2]), "a"))
    assert converted[0].dtype == ms.int32 and converted[1].asnumpy().tolist() == [1, 2] and converted[2] == "a"
    assert isinstance(default_convert(np.array(["text"])), np.ndarray)
    point = namedtuple("Point", "a b")
    out = default_collate([point(1, 2.0), point(3, 4.0)])
    assert isinstance(out, point) and out.a.asnumpy().tolist() == [1, 3]
    with pytest.raises(RuntimeError, match="must be of equal size"):
        default_collate([[1, 2], [3]])
    assert collate([0, 1], collate_fn_map={int: lambda b, collate_fn_map: sum(b)}) == 1
    loader = DataLoader(_Rows(6), batch_sampler=[[0, 1], [5], [2, 3, 4]],
                        collate_fn=lambda s: ms.Tensor([d["y"] for d in s]))
    assert [b.asnumpy().tolist() for b in loader] == [[0, 1], [5], [2, 3, 4]]


class _Seeds(Dataset):
    def __getitem__(self, i):
        info = get_worker_info()
        return np.array([info.id, info.seed % 100000, int(np.random.randint(0, 1000)), int(random.random() * 1000)])

    def __len__(self):
        return 4


def test_workers_are_seeded_from_the_generator_as_mindspores():
    out = [b.asnumpy().tolist() for b in DataLoader(_Seeds(), num_workers=2, generator=np.random.default_rng(5))]
    assert out == [[[0, 77716, 514, 860]], [[1, 77717, 116, 671]], [[0, 77716, 458, 448]], [[1, 77717, 882, 536]]]
    ordered = [b["y"].asnumpy().tolist() for b in DataLoader(_Rows(9), batch_size=2, num_workers=2)]
    assert ordered == [[0, 1], [2, 3], [4, 5], [6, 7], [8]]


class _Slow(Dataset):
    def __getitem__(self, i):
        if i == 1:
            time.sleep(1.0)
        return i

    def __len__(self):
        return 3


def test_out_of_order_timeout_and_persistent_workers():
    assert sorted(int(b.asnumpy()[0]) for b in DataLoader(_Slow(), num_workers=2, in_order=False)) == [0, 1, 2]
    with pytest.raises(RuntimeError, match="DataLoader timed out waiting for data after 0.3 seconds."):
        list(DataLoader(_Slow(), num_workers=2, timeout=0.3))
    loader = DataLoader(_Range(6), batch_size=2, num_workers=2, persistent_workers=True)
    first = [b.asnumpy().tolist() for b in loader]
    assert first == [b.asnumpy().tolist() for b in loader] == [[0, 2], [1, 3], [4], [5]]


class _Broken(Dataset):
    def __getitem__(self, i):
        raise KeyError("boom")

    def __len__(self):
        return 2


def test_errors():
    with pytest.raises(RuntimeError, match=r"DataLoader worker 0 \(pid: \d+\) caught KeyError with message:"):
        list(DataLoader(_Broken(), num_workers=1))
    with pytest.raises(KeyError, match="boom"):
        list(DataLoader(_Broken()))
    cases = [(dict(batch_size=0), ValueError, "batch_size must be positive, but got: 0."),
             (dict(shuffle=True, sampler=[0, 1]), ValueError, "sampler cannot be specified with shuffle."),
             (dict(num_workers=-1), ValueError, "num_workers must be non-negative, but got: -1."),
             (dict(prefetch_factor=2), ValueError, "prefetch_factor must only be specified when num_workers"),
             (dict(batch_sampler=[[0]], batch_size=2), ValueError, "batch_size cannot be specified with batch_"),
             (dict(timeout=-1), ValueError, "timeout must be non-negative, but got: -1."),
             (dict(persistent_workers=True), ValueError, "persistent_workers must only be specified"),
             (dict(generator=1), TypeError, "generator must be")]
    for kwargs, kind, message in cases:
        with pytest.raises(kind, match=message.replace("(", r"\(").replace(")", r"\)")):
            DataLoader(_Rows(3), **kwargs)
    with pytest.raises(ValueError, match="shuffle cannot be specified when dataset is iterable style."):
        DataLoader(_Range(3), shuffle=True)
    with pytest.raises(ValueError, match=r"Invalid rank: 3, rank must be in the interval \[0, 2\]"):
        DistributedSampler(list(range(4)), num_replicas=3, rank=3)
