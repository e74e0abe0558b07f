"""Speech corpora readers (LJSpeech, YesNo, SpeechCommands, CMUArctic, LibriTTS): WAV files decoded with the
standard library, waveform float32 (channels, samples) in [-1, 1)."""
import csv
import os
import wave

import numpy as np

from mindseed.dataset._engine import AudioBaseDataset
from mindseed.dataset._readers import IndexedSource

__all__ = ["LJSpeechDataset", "YesNoDataset", "SpeechCommandsDataset", "CMUArcticDataset", "LibriTTSDataset",
           "TedliumDataset", "read_wav", "read_sphere"]

_MAPPABLE = "num_samples=None, num_parallel_workers=None, shuffle=None, sampler=None, num_shards=None, shard_id=None"


def read_wav(path):
    """(waveform float32 (channels, samples), sample rate) of a PCM WAV file; a missing, truncated or non-PCM
    file is an error naming it."""
    try:
        with wave.open(path, "rb") as w:
            channels, width, rate, frames = w.getnchannels(), w.getsampwidth(), w.getframerate(), w.getnframes()
            data = w.readframes(frames)
    except FileNotFoundError:
        raise RuntimeError(f"Invalid file, failed to open audio file: {path}: No such file or directory.") from None
    except (wave.Error, EOFError, OSError) as e:
        raise RuntimeError(f"Invalid file, {path} is not a readable PCM WAV file: {e}.") from None
    if len(data) < frames * channels * width:
        raise RuntimeError(f"Invalid file, {path} is truncated: its header announces {frames} frames but the data "
                           f"holds {len(data) // max(channels * width, 1)}.")
    if width == 1:
        x = (np.frombuffer(data, np.uint8).astype(np.float32) - 128.0) / 128.0
    elif width == 3:
        b = np.frombuffer(data, np.uint8).reshape(-1, 3).astype(np.int32)
        x = ((b[:, 0] | (b[:, 1] << 8) | (b[:, 2] << 16)) << 8 >> 8).astype(np.float32) / float(1 << 23)
    else:
        x = np.frombuffer(data, f"<i{width}").astype(np.float32) / float(1 << (8 * width - 1))
    return np.ascontiguousarray(x.reshape(-1, channels).T), rate


class _WavCorpus(IndexedSource, AudioBaseDataset):
    """Records (wav path, [other column values]); a row is the waveform, its sample rate, then the values."""

    _rate_dtype = np.int32

    def _load(self, record):
        path, values = record
        waveform, rate = read_wav(path)
        return [waveform, np.array(rate, self._rate_dtype)] + [np.array(v) if not isinstance(v, np.ndarray)
                                                               else v.copy() for v in values]

    def _dir(self, *parts):
        path = self._path(*parts)
        if not os.path.isdir(path):
            raise RuntimeError(f"Invalid file, {type(self).__name__}: folder not found: {path}.")
        return path


class LJSpeechDataset(_WavCorpus):
    """LJSpeech (`metadata.csv` "id|transcription|normalized" and `wavs/<id>.wav`): columns waveform,
    sample_rate (int32), transcription, normalized_transcript (string)."""

    _signature = f"dataset_dir, {_MAPPABLE}, cache=None"
    _columns = ("waveform", "sample_rate", "transcription", "normalized_transcript")

    def _scan(self):
        path = self._need(self._path("metadata.csv"))
        records = []
        with open(path, encoding="utf-8", newline="") as f:
            for line_no, rec in enumerate(csv.reader(f, delimiter="|", quoting=csv.QUOTE_NONE), 1):
                if not rec:
                    continue
                if len(rec) != 3:
                    raise RuntimeError(f"Invalid file, {path} line {line_no} has {len(rec)} '|'-separated fields, "
                                       f"LJSpeech metadata has 3.")
                records.append((self._path("wavs", rec[0] + ".wav"), rec[1:]))
        return records


class YesNoDataset(_WavCorpus):
    """YesNo (`<8 digits joined by _>.wav` in `dataset_dir`): columns waveform, sample_rate (int32) and label
    (int32 (8,), the digits of the file name)."""

    _signature = f"dataset_dir, {_MAPPABLE}, cache=None"
    _columns = ("waveform", "sample_rate", "label")

    def _scan(self):
        records = []
        for name in sorted(os.listdir(self.dataset_dir)):
            if not name.endswith(".wav"):
                continue
            try:
                label = np.array([int(v) for v in name[:-4].split("_")], np.int32)
            except ValueError:
                raise RuntimeError(f"Invalid file name, {self._path(name)}: YesNo files are named by their 0/1 "
                                   f"labels joined by '_'.") from None
            records.append((self._path(name), [label]))
        return records


class SpeechCommandsDataset(_WavCorpus):
    """Speech Commands (`<label>/<speaker>_nohash_<n>.wav`, with `validation_list.txt` and `testing_list.txt`):
    columns waveform, sample_rate (int32), label, speaker_id (string), utterance_number (int32).

    Args:
        usage (str, optional): ``'train'``, ``'valid'``, ``'test'`` or ``'all'``. Default: ``None`` (all).
    """

    _signature = f"dataset_dir, usage=None, {_MAPPABLE}, cache=None"
    _choices = {"usage": ("train", "valid", "test", "all", None)}
    _columns = ("waveform", "sample_rate", "label", "speaker_id", "utterance_number")

    def _list(self, name):
        path = self._path(name)
        if not os.path.isfile(path):
            return set()
        with open(path, encoding="utf-8") as f:
            return {line.strip() for line in f if line.strip()}

    def _scan(self):
        valid, test = self._list("validation_list.txt"), self._list("testing_list.txt")
        records = []
        for label in sorted(os.listdir(self.dataset_dir)):
            folder = self._path(label)
            if not os.path.isdir(folder) or label.startswith("_"):
                continue
            for name in sorted(os.listdir(folder)):
                rel = f"{label}/{name}"
                split = "valid" if rel in valid else "test" if rel in test else "train"
                if not name.endswith(".wav") or self.usage not in ("all", split):
                    continue
                speaker, _, number = name[:-4].partition("_nohash_")
                if not number.isdigit():
                    raise RuntimeError(f"Invalid file name, {os.path.join(folder, name)}: expected "
                                       f"'<speaker>_nohash_<n>.wav'.")
                records.append((os.path.join(folder, name), [label, speaker, np.array(int(number), np.int32)]))
        return records


class CMUArcticDataset(_WavCorpus):
    """CMU Arctic (`ARCTIC/cmu_us_<name>_arctic/wav/*.wav` and `etc/txt.done.data`): columns waveform,
    sample_rate (uint32), transcript, utterance_id (string).

    Args:
        name (str, optional): the speaker, e.g. ``'aew'``, ``'bdl'``, ``'slt'``. Default: ``None`` (``'aew'``).
    """

    _signature = f"dataset_dir, name=None, {_MAPPABLE}, cache=None"
    _choices = {"name": ("aew", "ahw", "aup", "awb", "axb", "bdl", "clb", "eey", "fem", "gka", "jmk", "ksp", "ljm",
                         "lnh", "rms", "rxr", "slp", "slt", None)}
    _columns = ("waveform", "sample_rate", "transcript", "utterance_id")
    _rate_dtype = np.uint32

    def _scan(self):
        root = self._dir("ARCTIC", f"cmu_us_{self.name or 'aew'}_arctic")
        path = self._need(os.path.join(root, "etc", "txt.done.data"))
        records = []
        with open(path, encoding="utf-8") as f:
            for line_no, line in enumerate(f, 1):
                line = line.strip()
                if not line:
                    continue
                head, _, rest = line.strip("( )").partition(" ")
                if not (rest.startswith('"') and rest.endswith('"')):
                    raise RuntimeError(f"Invalid file, {path} line {line_no}: expected '( <id> \"<transcript>\" )'.")
                records.append((os.path.join(root, "wav", head + ".wav"), [rest[1:-1], head]))
        return records


class LibriTTSDataset(_WavCorpus):
    """LibriTTS (`LibriTTS/<usage>/<speaker>/<chapter>/<speaker>_<chapter>_<p>_<s>.wav` with `.original.txt` and
    `.normalized.txt`): columns waveform, sample_rate (uint32), original_text, normalized_text (string),
    speaker_id, chapter_id (uint32), utterance_id (string)."""

    _signature = f"dataset_dir, usage=None, {_MAPPABLE}, cache=None"
    _choices = {"usage": ("dev-clean", "dev-other", "test-clean", "test-other", "train-clean-100",
                          "train-clean-360", "train-other-500", "all", None)}
    _columns = ("waveform", "sample_rate", "original_text", "normalized_text", "speaker_id", "chapter_id",
                "utterance_id")
    _rate_dtype = np.uint32

    def _scan(self):
        root = self._dir("LibriTTS")
        parts = [u for u in self._choices["usage"][:-2] if os.path.isdir(os.path.join(root, u))] \
            if self.usage == "all" else [self.usage]
        records = []
        for part in parts:
            base = self._dir("LibriTTS", part)
            for speaker in sorted(os.listdir(base), key=lambda s: (len(s), s)):
                for chapter in sorted(os.listdir(os.path.join(base, speaker)), key=lambda s: (len(s), s)):
                    folder = os.path.join(base, speaker, chapter)
                    for name in sorted(os.listdir(folder)):
                        if name.endswith(".wav"):
                            records.append((os.path.join(folder, name), (speaker, chapter, name[:-4])))
        return records

    def _load(self, record):
        path, (speaker, chapter, utt) = record
        texts = []
        for kind in ("original", "normalized"):
            tpath = path[:-4] + f".{kind}.txt"
            try:
                with open(tpath, encoding="utf-8") as f:
                    texts.append(f.read().strip())
            except OSError as e:
                raise RuntimeError(f"Invalid file, failed to open {tpath}: {e.strerror}.") from None
        return super()._load((path, texts + [np.array(int(speaker), np.uint32), np.array(int(chapter), np.uint32),
                                             utt]))


def read_sphere(path):
    """(samples float32 (channels, n), sample rate) of a NIST SPHERE file with 16-bit PCM data (TED-LIUM's .sph)."""
    data = _sphere_bytes(path)
    try:
        size = int(data[8:16].split()[0])
        fields = {}
        for line in data[16:size].decode("ascii", "replace").splitlines():
            parts = line.split(None, 2)
            if parts and parts[0] == "end_head":
                break
            if len(parts) == 3:
                fields[parts[0]] = parts[2]
        rate = int(fields.get("sample_rate", 16000))
        channels = int(fields.get("channel_count", 1))
        width = int(fields.get("sample_n_bytes", 2))
    except (ValueError, IndexError):
        raise RuntimeError(f"Invalid file, {path} has no readable NIST SPHERE header.") from None
    if data[:7] != b"NIST_1A" or width != 2 or "pcm" not in fields.get("sample_coding", "pcm"):
        raise RuntimeError(f"Invalid file, {path} is not a NIST SPHERE file of 16-bit PCM samples.")
    order = ">" if fields.get("sample_byte_format", "01").strip() == "10" else "<"
    body = data[size:]
    count = int(fields.get("sample_count", len(body) // (2 * channels)))
    if len(body) < count * 2 * channels:
        raise RuntimeError(f"Invalid file, {path} is truncated: its header announces {count} samples but the data "
                           f"holds {len(body) // (2 * channels)}.")
    x = np.frombuffer(body, f"{order}i2", count * channels).astype(np.float32) / 32768.0
    return np.ascontiguousarray(x.reshape(-1, channels).T), rate


def _sphere_bytes(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise RuntimeError(f"Invalid file, failed to open audio file: {path}: {e.strerror}.") from None


class TedliumDataset(IndexedSource, AudioBaseDataset):
    """TED-LIUM release 1, 2 or 3 (`<root>/<usage>/stm/*.stm` segment lists and `sph/*.sph` audio): one row per
    segment: waveform (float32 (1, n), the segment's samples), sample_rate (int32), transcript, talk_id,
    speaker_id and identifier (string).

    Args:
        release (str): ``'release1'``, ``'release2'`` or ``'release3'``.
        usage (str, optional): ``'train'``, ``'dev'``, ``'test'`` or ``'all'`` (releases 1 and 2; release 3 has
            one set). Default: ``None`` (all).
        extensions (str, optional): the audio files' extension. Default: ``'.sph'``.
    """

    _signature = f"dataset_dir, release, usage=None, extensions=None, {_MAPPABLE}, cache=None"
    _choices = {"release": ("release1", "release2", "release3"), "usage": ("train", "dev", "test", "all", None)}
    _checked_first = ("release",)
    _columns = ("waveform", "sample_rate", "transcript", "talk_id", "speaker_id", "identifier")
    _roots = {"release1": "TEDLIUM_release1", "release2": "TEDLIUM_release2", "release3": "TEDLIUM_release-3"}

    def _check_args(self):
        if self.extensions is not None and not isinstance(self.extensions, str):
            raise TypeError(f"Argument extensions with value {self.extensions!r} is not of type [<class 'str'>].")
        if self.release == "release3" and self.usage not in ("all", None):
            raise ValueError("TedliumDataset: release3 has one set; usage must be None or 'all'.")

    def _scan(self):
        root = self._path(self._roots[self.release])
        parts = ["data"] if self.release == "release3" else [self.usage]
        if self.usage == "all" and self.release != "release3":
            parts = [p for p in ("train", "dev", "test") if os.path.isdir(os.path.join(root, p, "stm"))] or ["train"]
        records = []
        for part in parts:
            stm_dir = os.path.join(root, part, "stm")
            if not os.path.isdir(stm_dir):
                raise RuntimeError(f"Invalid file, TedliumDataset: folder not found: {stm_dir}.")
            for name in sorted(n for n in os.listdir(stm_dir) if n.endswith(".stm")):
                path = os.path.join(stm_dir, name)
                audio = os.path.join(root, part, "sph", name[:-4] + (self.extensions or ".sph"))
                with open(path, encoding="utf-8") as f:
                    for line_no, line in enumerate(f, 1):
                        fields = line.split(None, 6)
                        if not fields:
                            continue
                        try:
                            start, end = float(fields[3]), float(fields[4])
                        except (ValueError, IndexError):
                            raise RuntimeError(f"Invalid file, {path} line {line_no}: expected 'talk channel speaker "
                                               f"start end <identifier> transcript'.") from None
                        text = fields[6].strip() if len(fields) > 6 else ""
                        records.append((audio, start, end, [text, fields[0], fields[2], fields[5]]))
        return records

    def _load(self, record):
        audio, start, end, values = record
        wave_, rate = read_sphere(audio)
        segment = np.ascontiguousarray(wave_[:, int(start * rate):int(end * rate)])
        return [segment, np.array(rate, np.int32)] + [np.array(v) for v in values]
