"""DetectPitchFrequency and Vad (closed forms and MindSpore 2.10's outputs), GTZANDataset and OBSMindDataset."""
import os
import threading
import wave

import numpy as np
import pytest

import mindseed.dataset as ds
import mindseed.dataset.audio as audio


# ------------------------------------------------------------------------------------------ DetectPitchFrequency
def _nccf_lag(x, lag, frame):
    """float64 NCCF of frame 0 at `lag`, by the definition."""
    s1, s2 = x[:frame], x[lag:lag + frame]
    return (s1 * s2).sum() / (1e-9 + np.linalg.norm(s1)) ** 2 / (1e-9 + np.linalg.norm(s2)) ** 2


def test_detect_pitch_frequency_matches_mindspore_and_the_period():
    sr = 8000
    t = np.arange(sr) / sr
    sig = (0.5 * np.sin(2 * np.pi * 220 * t) + 0.2 * np.sin(2 * np.pi * 440 * t)).astype(np.float32)
    out = audio.DetectPitchFrequency(sr)(sig)
    # MindSpore: 85 frames, every one 8000 / 36 (the lag nearest the 220 Hz period of 36.4 samples)
    assert out.dtype == np.float32 and out.shape == (85,)
    np.testing.assert_allclose(out, np.full(85, sr / 36, np.float32), rtol=1e-6)
    lags = np.arange(3, 95)
    best = lags[np.argmax([_nccf_lag(sig.astype(np.float64), k, 80) for k in lags])]
    assert best == 36
    two = audio.DetectPitchFrequency(sr, frame_time=0.02, win_length=5, freq_low=100, freq_high=1000)(
        np.stack([sig, sig[::-1].copy()]))
    assert two.shape == (2, 48)
    np.testing.assert_allclose(two, np.full((2, 48), sr / 36), rtol=1e-6)
    assert audio.DetectPitchFrequency(sr)(sig.astype(np.float64)).dtype == np.float32


def test_detect_pitch_frequency_errors():
    with pytest.raises(ValueError, match=r"sample_rate is not within the required interval of \[-2147483648, 0\)"):
        audio.DetectPitchFrequency(0)
    with pytest.raises(RuntimeError, match=r"Expecting tensor in type of \[float, double\]. But got type int16"):
        audio.DetectPitchFrequency(8000)(np.ones(1000, np.int16))
    with pytest.raises(RuntimeError, match="Expecting tensor in shape of <..., time>. But got tensor with dimension 0"):
        audio.DetectPitchFrequency(8000)(np.float32(1.0))
    with pytest.raises(RuntimeError, match="too few for the median smoothing over win_length=30"):
        audio.DetectPitchFrequency(8000)(np.ones(200, np.float32))
    with pytest.raises(ValueError, match="win_length"):
        audio.DetectPitchFrequency(8000, win_length=0)


def test_detect_pitch_frequency_with_no_lag_above_the_minimum():
    # sample_rate 30: lags 1..ceil(30 / 85) = 1 leave no candidate above lag_min = 1; MindSpore 2.10 then gives
    # lag 2, i.e. 15 Hz, for every frame
    x = np.sin(np.arange(600) * 0.7).reshape(2, 300)
    out = audio.DetectPitchFrequency(30, 0.1, 1)(x)
    assert out.shape == (2, 100) and out.dtype == np.float32
    np.testing.assert_allclose(out, 15.0)
    assert audio.DetectPitchFrequency(30, 0.1, 3)(x).shape == (2, 99)
    np.testing.assert_allclose(audio.DetectPitchFrequency(100, 0.05, 2, 85, 40)(x), 25.0)


# ------------------------------------------------------------------------------------------------------- Vad
def _voice():
    rng = np.random.RandomState(0)
    return np.concatenate([0.001 * rng.randn(4000),
                           0.5 * np.sin(2 * np.pi * 300 * np.arange(8000) / 8000) + 0.001 * rng.randn(8000),
                           0.001 * rng.randn(2000)]).astype(np.float32)


def test_vad_trims_as_mindspore_does():
    x = _voice()
    # MindSpore 2.10's measure is always 0 (see _detect.py), so with trigger_level > 0 the detector never fires
    # and the output is the last fixed_pre_trigger + search + measure samples: 0 + 8000 + 800 at 8 kHz.
    out = audio.Vad(8000)(x)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, x[14000 - 8800:])
    two = audio.Vad(8000, trigger_level=5.0, pre_trigger_time=0.1, allowed_gap=0.1)(np.stack([x, x]))
    np.testing.assert_array_equal(two, np.stack([x, x])[:, 14000 - 9600:])
    # at 16 kHz that length (17600) exceeds the input: MindSpore keeps 17600 - 14000 samples
    np.testing.assert_array_equal(audio.Vad(16000)(x.astype(np.float64)), x.astype(np.float64)[-3600:])
    assert audio.Vad(8000, trigger_level=0.0)(x).shape == (14000,)
    assert audio.Vad(8000, trigger_level=-1.0, pre_trigger_time=0.05)(x).shape == (400,)
    assert audio.Vad(8000)(x[:1000]).shape == (1000,)
    assert audio.Vad(8000)(np.stack([np.stack([x, x])] * 2)).shape == (2, 2, 8800)
    ints = audio.Vad(8000)((x * 1000).astype(np.int16))
    assert ints.dtype == np.float32 and ints[1] == np.float32((x * 1000).astype(np.int16)[5201])


def test_vad_argument_errors():
    with pytest.raises(ValueError, match="noise_up_time should be greater than noise_down_time"):
        audio.Vad(8000, noise_up_time=0.01, noise_down_time=0.1)
    with pytest.raises(ValueError, match="trigger_time should be non-negative"):
        audio.Vad(8000, trigger_time=-1)
    with pytest.raises(RuntimeError, match="cepstrum_start should be smaller than cepstrum_end"):
        audio.Vad(8000, hp_lifter_freq=3000.0)(_voice())


# ----------------------------------------------------------------------------------------------------- GTZAN
def _gtzan(root):
    for genre, ids in [("blues", [0, 12, 29, 5]), ("rock", [10, 0, 38]), ("pop", [])]:
        os.makedirs(os.path.join(root, genre), exist_ok=True)
        for k in ids:
            with wave.open(os.path.join(root, genre, f"{genre}.{k:05d}.wav"), "wb") as w:
                w.setnchannels(1)
                w.setsampwidth(2)
                w.setframerate(22050)
                w.writeframes((np.arange(4) * 1000 + k).astype("<i2").tobytes())
    return root


def _rows(d):
    return [(str(r["label"]), r["waveform"], r["sample_rate"]) for r in
            d.create_dict_iterator(num_epochs=1, output_numpy=True)]


def test_gtzan_splits_columns_and_sharding(tmp_path):
    root = _gtzan(str(tmp_path / "gtzan"))
    from mindseed.dataset._gtzan import split_names
    assert [len(split_names(u)) for u in ("train", "valid", "test")] == [443, 197, 290]
    rows = _rows(ds.GTZANDataset(root, shuffle=False))
    assert [(g, int(round(w[0, 0] * 32767))) for g, w, _ in rows] == \
        [("blues", 0), ("blues", 5), ("blues", 12), ("blues", 29), ("rock", 0), ("rock", 10), ("rock", 38)]
    label, wav, rate = rows[1]
    assert wav.dtype == np.float32 and wav.shape == (1, 4) and rate.dtype == np.uint32 and int(rate) == 22050
    np.testing.assert_allclose(wav[0], (np.arange(4) * 1000 + 5) / 32767, rtol=1e-7)
    assert [g for g, _, _ in _rows(ds.GTZANDataset(root, usage="train", shuffle=False))] == ["blues", "rock"]
    valid = _rows(ds.GTZANDataset(root, usage="valid", shuffle=False))
    assert [(g, int(round(w[0, 0] * 32767))) for g, w, _ in valid] == [("blues", 0), ("blues", 5), ("rock", 38)]
    assert ds.GTZANDataset(root, usage="test").get_dataset_size() == 2
    assert [g for g, _, _ in _rows(ds.GTZANDataset(root, usage="train", num_shards=2, shard_id=1,
                                                   shuffle=False))] == ["rock"]
    assert len(_rows(ds.GTZANDataset(root, usage="valid", num_samples=2, shuffle=False))) == 2
    assert ds.GTZANDataset(root).get_col_names() == ["waveform", "sample_rate", "label"]
    with pytest.raises(ValueError, match=r"Input usage is not within the valid set of \['train', 'valid', 'test', "
                                         r"'all'\]"):
        ds.GTZANDataset(root, usage="xx")
    with pytest.raises(ValueError, match="does not exist or is not a directory"):
        ds.GTZANDataset(str(tmp_path / "none"))


def test_gtzan_bad_files_are_named(tmp_path):
    root = _gtzan(str(tmp_path / "g"))
    with wave.open(os.path.join(root, "rock", "rock.00010.wav"), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(8000)
        w.writeframes(b"\0\0" * 4)
    with pytest.raises(RuntimeError, match="sampling rate of GTZAN wav file must be 22050, file path: .*rock.00010"):
        _rows(ds.GTZANDataset(root, usage="test", shuffle=False))
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(RuntimeError, match="no valid data found in path"):
        _rows(ds.GTZANDataset(str(empty)))


# ------------------------------------------------------------------------------------------------------ OBS
def _mindrecord(path, first=0, n=6):
    from mindseed.mindrecord import FileWriter
    w = FileWriter(path, shard_num=1, overwrite=True)
    w.add_schema({"label": {"type": "int32"}, "data": {"type": "float32", "shape": [2]}}, "test")
    w.write_raw_data([{"label": i, "data": np.array([i, -i], np.float32)} for i in range(first, first + n)])
    w.commit()
    return path


def _labels(d):
    return [int(r["label"]) for r in d.create_dict_iterator(num_epochs=1, output_numpy=True)]


def test_obs_mind_dataset_reads_local_files_with_mindspore_arguments(tmp_path):
    path = _mindrecord(str(tmp_path / "a.mindrecord"))
    sync = tmp_path / "sync"
    sync.mkdir()
    d = ds.OBSMindDataset(["file://" + path], "https://obs.example.com", "AK", "SK", str(sync), shuffle=False)
    assert d.get_col_names() == ["data", "label"] and _labels(d) == list(range(6))
    # MindSpore's plan: shard 1 of 2 reads the contiguous span of rows 3..5
    shard = ds.OBSMindDataset([path], "http://127.0.0.1:9000", "AK", "SK", "file://" + str(sync),
                              columns_list=["label"], shuffle=False, num_shards=2, shard_id=1)
    assert shard.get_dataset_size() == 3 and _labels(shard) == [3, 4, 5]
    d = ds.OBSMindDataset([path], "https://obs.example.com", "AK", "SK", str(sync))
    assert sorted(_labels(d)) == list(range(6))
    with pytest.raises(RuntimeError, match="s3://bucket/a.mindrecord is a remote object"):
        ds.OBSMindDataset(["s3://bucket/a.mindrecord"], "https://obs.example.com", "AK", "SK", str(sync))
    with pytest.raises(ValueError, match="server should be a str that starts with http:// or https://"):
        ds.OBSMindDataset([path], "obs.example.com", "AK", "SK", str(sync))
    with pytest.raises(RuntimeError, match="sync_obs_path .* does not exist"):
        ds.OBSMindDataset([path], "https://obs.example.com", "AK", "SK", str(tmp_path / "nosync"))
    with pytest.raises(TypeError, match="shuffle must be of boolean or enum of 'Shuffle'"):
        ds.OBSMindDataset([path], "https://obs.example.com", "AK", "SK", str(sync), shuffle="yes")
    with pytest.raises(RuntimeError, match="num_shards and shard_id need to be passed in together"):
        ds.OBSMindDataset([path], "https://obs.example.com", "AK", "SK", str(sync), num_shards=2)
    with pytest.raises(ValueError, match=r"columns_list: \['nope'\] can not found in MindRecord fields"):
        ds.OBSMindDataset([path], "https://obs.example.com", "AK", "SK", str(sync), columns_list=["nope"])


def test_obs_mind_dataset_shards_and_shuffles_files_as_mindspore_plans(tmp_path):
    import random
    from mindseed.dataset._obs import shard_spans
    assert shard_spans([6], 3, 1) == [(0, 3, 6)]
    assert shard_spans([4, 4, 3], 4, 2) == [(2, 0, 3), (0, 0, 1)]  # the last span wraps to the first file
    files = [_mindrecord(str(tmp_path / f"{k}.mindrecord"), 10 * k, 3) for k in range(3)]
    sync = tmp_path / "sync"
    sync.mkdir()
    args = (files, "https://obs.example.com", "AK", "SK", str(sync))
    order = list(files)
    random.Random(1).shuffle(order)  # MindSpore: set_seed(1); random.shuffle(dataset_files)
    expected = [10 * files.index(f) + i for f in order for i in range(3)]
    assert _labels(ds.OBSMindDataset(*args, shuffle=ds.Shuffle.FILES)) == expected
    infile = _labels(ds.OBSMindDataset(*args, shuffle=ds.Shuffle.INFILE))
    assert [v // 10 for v in infile] == [0, 0, 0, 1, 1, 1, 2, 2, 2] and sorted(infile) == sorted(expected)
    spans = [_labels(ds.OBSMindDataset(*args, shuffle=False, num_shards=2, shard_id=k)) for k in range(2)]
    assert spans == [[0, 1, 2, 10, 11], [12, 20, 21, 22, 0]]
    unequal = [_labels(ds.OBSMindDataset(*args, shuffle=False, num_shards=2, shard_id=k, shard_equal_rows=False))
               for k in range(2)]
    assert unequal == [[0, 1, 2, 20, 21, 22], [10, 11, 12]]


def test_sync_wait_for_dataset_is_a_barrier_over_the_sync_directory(tmp_path, monkeypatch):
    monkeypatch.setenv("BATCH_JOB_ID", "job7")
    path = _mindrecord(str(tmp_path / "a.mindrecord"))
    sync = tmp_path / "sync"
    sync.mkdir()
    d = ds.OBSMindDataset([path], "https://obs.example.com", "AK", "SK", str(sync))
    ds.sync_wait_for_dataset(0, 1, 3, d)
    assert os.listdir(sync / "job7" / "3") == ["0.txt"]
    done = []
    waiter = threading.Thread(target=lambda: done.append(ds.sync_wait_for_dataset(0, 2, 4, d)))
    waiter.start()
    waiter.join(0.5)
    assert waiter.is_alive() and not done
    ds.sync_wait_for_dataset(1, 2, 4, d)
    waiter.join(5)
    assert not waiter.is_alive() and done == [None]
    with pytest.raises(ValueError, match="rank_id should be in"):
        ds.sync_wait_for_dataset(2, 2, 0, d)
    with pytest.raises(TypeError, match="obs_runtime should be the OBSMindDataset"):
        ds.sync_wait_for_dataset(0, 1, 0, object())
