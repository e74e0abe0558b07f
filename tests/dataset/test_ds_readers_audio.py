"""Speech corpora readers on small WAV trees laid out as each corpus is distributed."""
import os
import wave

import numpy as np
import pytest

import mindseed.dataset as ds
from mindseed.dataset._audio_sources import read_wav


def rows(d, **kw):
    return [[np.asarray(x) for x in r] for r in d.create_tuple_iterator(num_epochs=1, output_numpy=True, **kw)]


def write_wav(path, samples, rate=8000, width=2):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    a = np.asarray(samples)
    with wave.open(path, "wb") as w:
        w.setnchannels(1 if a.ndim == 1 else a.shape[0])
        w.setsampwidth(width)
        w.setframerate(rate)
        frames = a if a.ndim == 1 else a.T.reshape(-1)
        w.writeframes(frames.astype({1: np.uint8, 2: "<i2", 4: "<i4"}[width]).tobytes())


def test_read_wav_scales_every_width_and_names_bad_files(tmp_path):
    write_wav(str(tmp_path / "a.wav"), [0, 16384, -32768, 32767], rate=16000)
    x, rate = read_wav(str(tmp_path / "a.wav"))
    assert rate == 16000 and x.dtype == np.float32 and x.shape == (1, 4)
    np.testing.assert_allclose(x[0], [0.0, 0.5, -1.0, 32767 / 32768])
    write_wav(str(tmp_path / "b.wav"), np.array([[0, 64, 255], [128, 192, 0]]), width=1)
    y, _ = read_wav(str(tmp_path / "b.wav"))
    np.testing.assert_allclose(y, [[-1.0, -0.5, 127 / 128], [0.0, 0.5, -1.0]])
    write_wav(str(tmp_path / "c.wav"), [1 << 30, -(1 << 31)], width=4)
    np.testing.assert_allclose(read_wav(str(tmp_path / "c.wav"))[0], [[0.5, -1.0]])
    raw = open(str(tmp_path / "a.wav"), "rb").read()
    open(str(tmp_path / "t.wav"), "wb").write(raw[:-3])
    with pytest.raises(RuntimeError, match="t.wav is truncated"):
        read_wav(str(tmp_path / "t.wav"))
    open(str(tmp_path / "n.wav"), "wb").write(b"not a wav at all")
    with pytest.raises(RuntimeError, match="n.wav is not a readable PCM WAV"):
        read_wav(str(tmp_path / "n.wav"))


def test_ljspeech_metadata_and_wavs(tmp_path):
    for i in range(3):
        write_wav(str(tmp_path / "wavs" / f"LJ001-000{i}.wav"), np.full(5 + i, 1000 * i), rate=22050)
    (tmp_path / "metadata.csv").write_text("".join(f"LJ001-000{i}|Text {i}, \"quoted\"|text {i}\n" for i in range(3)))
    d = ds.LJSpeechDataset(str(tmp_path), shuffle=False)
    out = rows(d)
    assert d.get_col_names() == ["waveform", "sample_rate", "transcription", "normalized_transcript"]
    assert out[2][0].shape == (1, 7) and out[2][0].dtype == np.float32 and np.allclose(out[2][0], 2000 / 32768)
    assert int(out[0][1]) == 22050 and out[0][1].dtype == np.int32 and str(out[1][2]) == 'Text 1, "quoted"'
    assert str(rows(ds.LJSpeechDataset(str(tmp_path), sampler=ds.SubsetSampler([2])))[0][3]) == "text 2"
    parts = [rows(ds.LJSpeechDataset(str(tmp_path), shuffle=False, num_shards=3, shard_id=i)) for i in range(3)]
    assert [str(p[0][3]) for p in parts] == ["text 0", "text 1", "text 2"]
    os.remove(str(tmp_path / "wavs" / "LJ001-0001.wav"))
    with pytest.raises(RuntimeError, match="LJ001-0001.wav"):
        rows(ds.LJSpeechDataset(str(tmp_path), shuffle=False))


def test_yesno_labels_from_names(tmp_path):
    for name in ("0_1_1_0_0_1_0_1", "1_1_1_1_0_0_0_0"):
        write_wav(str(tmp_path / f"{name}.wav"), [1, 2, 3])
    out = rows(ds.YesNoDataset(str(tmp_path), shuffle=False))
    assert out[0][2].tolist() == [0, 1, 1, 0, 0, 1, 0, 1] and out[0][2].dtype == np.int32
    assert len(rows(ds.YesNoDataset(str(tmp_path), num_shards=2, shard_id=1))) == 1
    write_wav(str(tmp_path / "oops.wav"), [1])
    with pytest.raises(RuntimeError, match="oops.wav"):
        ds.YesNoDataset(str(tmp_path)).get_dataset_size()


def test_speech_commands_splits(tmp_path):
    for label in ("yes", "no", "_background_noise_"):
        for spk in ("aa11", "bb22"):
            write_wav(str(tmp_path / label / f"{spk}_nohash_{len(label)}.wav"), [5, 6])
    (tmp_path / "validation_list.txt").write_text("yes/bb22_nohash_3.wav\n")
    (tmp_path / "testing_list.txt").write_text("no/aa11_nohash_2.wav\n")
    d = ds.SpeechCommandsDataset(str(tmp_path), usage="train", shuffle=False)
    out = rows(d)
    assert d.get_col_names() == ["waveform", "sample_rate", "label", "speaker_id", "utterance_number"]
    assert [(str(r[2]), str(r[3]), int(r[4])) for r in out] == [("no", "bb22", 2), ("yes", "aa11", 3)]
    assert ds.SpeechCommandsDataset(str(tmp_path)).get_dataset_size() == 4
    assert str(rows(ds.SpeechCommandsDataset(str(tmp_path), usage="valid"))[0][3]) == "bb22"


def test_cmu_arctic_and_libritts(tmp_path):
    root = tmp_path / "ARCTIC" / "cmu_us_slt_arctic"
    for i in (1, 2):
        write_wav(str(root / "wav" / f"arctic_a000{i}.wav"), [i] * 4, rate=16000)
    (root / "etc").mkdir()
    (root / "etc" / "txt.done.data").write_text('( arctic_a0001 "Author of the danger trail." )\n'
                                                '( arctic_a0002 "Not at this particular case, Tom." )\n')
    out = rows(ds.CMUArcticDataset(str(tmp_path), name="slt", shuffle=False))
    assert [str(r[3]) for r in out] == ["arctic_a0001", "arctic_a0002"] and str(out[1][2]).endswith("case, Tom.")
    assert out[0][1].dtype == np.uint32
    (root / "etc" / "txt.done.data").write_text("( arctic_a0001 no quotes )\n")
    with pytest.raises(RuntimeError, match="txt.done.data line 1"):
        ds.CMUArcticDataset(str(tmp_path), name="slt").get_dataset_size()
    base = tmp_path / "LibriTTS" / "dev-clean" / "84" / "121123"
    write_wav(str(base / "84_121123_000007_000001.wav"), [3, 3], rate=24000)
    (base / "84_121123_000007_000001.original.txt").write_text("Mr. Smith")
    (base / "84_121123_000007_000001.normalized.txt").write_text("Mister Smith")
    d = ds.LibriTTSDataset(str(tmp_path), usage="dev-clean")
    row = rows(d)[0]
    assert d.get_col_names()[2:] == ["original_text", "normalized_text", "speaker_id", "chapter_id", "utterance_id"]
    assert (str(row[2]), str(row[3]), int(row[4]), int(row[5]), str(row[6])) == (
        "Mr. Smith", "Mister Smith", 84, 121123, "84_121123_000007_000001")
    assert ds.LibriTTSDataset(str(tmp_path)).get_dataset_size() == 1
    os.remove(str(base / "84_121123_000007_000001.normalized.txt"))
    with pytest.raises(RuntimeError, match="84_121123_000007_000001.normalized.txt"):
        rows(ds.LibriTTSDataset(str(tmp_path)))


def write_sphere(path, samples, rate=16000, byte_format="01"):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    a = np.asarray(samples, "<i2" if byte_format == "01" else ">i2")
    head = (f"NIST_1A\n   1024\nsample_rate -i {rate}\nchannel_count -i 1\nsample_n_bytes -i 2\n"
            f"sample_count -i {len(a)}\nsample_byte_format -s2 {byte_format}\nsample_coding -s3 pcm\nend_head\n")
    with open(path, "wb") as f:
        f.write(head.encode().ljust(1024, b" ") + a.tobytes())


def test_tedlium_segments_from_stm_and_sphere(tmp_path):
    root = tmp_path / "TEDLIUM_release1"
    samples = np.arange(0, 16000 * 3, 50, dtype=np.int64) % 32000 - 16000    # 960 samples at 320 Hz
    write_sphere(str(root / "train" / "sph" / "Talk_A.sph"), samples, rate=320)
    (root / "train" / "stm").mkdir(parents=True)
    (root / "train" / "stm" / "Talk_A.stm").write_text(
        "Talk_A 1 Speaker_A 0.00 1.00 <o,f0,male> hello there\n"
        "Talk_A 1 Speaker_A 1.50 2.25 <o,f0,male> general kenobi\n")
    write_sphere(str(root / "test" / "sph" / "Talk_B.sph"), samples[:320], rate=320, byte_format="10")
    (root / "test" / "stm").mkdir(parents=True)
    (root / "test" / "stm" / "Talk_B.stm").write_text("Talk_B 1 Spk_B 0.5 1.0 <o,f0,female> big endian\n")
    d = ds.TedliumDataset(str(tmp_path), "release1", usage="train", shuffle=False)
    out = rows(d)
    assert d.get_col_names() == ["waveform", "sample_rate", "transcript", "talk_id", "speaker_id", "identifier"]
    assert out[1][0].shape == (1, 240) and int(out[1][1]) == 320 and str(out[1][2]) == "general kenobi"
    np.testing.assert_allclose(out[1][0][0], samples[480:720] / 32768.0)
    assert (str(out[0][3]), str(out[0][4]), str(out[0][5])) == ("Talk_A", "Speaker_A", "<o,f0,male>")
    big = rows(ds.TedliumDataset(str(tmp_path), "release1", usage="test"))[0]
    np.testing.assert_allclose(big[0][0], samples[160:320] / 32768.0)
    assert ds.TedliumDataset(str(tmp_path), "release1").get_dataset_size() == 3
    with pytest.raises(ValueError, match="release3"):
        ds.TedliumDataset(str(tmp_path), "release3", usage="train")
    with open(str(root / "test" / "sph" / "Talk_B.sph"), "r+b") as f:
        f.truncate(1100)
    with pytest.raises(RuntimeError, match="Talk_B.sph is truncated"):
        rows(ds.TedliumDataset(str(tmp_path), "release1", usage="test"))


def test_tedlium_checks_the_release_before_the_folder(tmp_path):
    missing = str(tmp_path / "nowhere")
    with pytest.raises(ValueError, match=r"Input release is not within the valid set of \['release1', 'release2', "
                                         r"'release3'\]"):
        ds.TedliumDataset(missing, "invalid")
    with pytest.raises(TypeError, match=r"Argument release with value None is not of type \[<class 'str'>\]"):
        ds.TedliumDataset(missing, None)
    with pytest.raises(ValueError, match="does not exist or is not a directory"):
        ds.TedliumDataset(missing, "release1")
