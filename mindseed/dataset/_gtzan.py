"""GTZAN music-genre corpus (`<genre>/<genre>.<5 digits>.wav`, 22050 Hz 16-bit mono).

`usage` 'train'/'valid'/'test' read MindSpore's fixed "filtered" split (the artist-conflict-free split of
Sturm's GTZAN analysis, as torchaudio and MindSpore ship it): 443/197/290 tracks, kept below as per-genre
number ranges in MindSpore's order. 'all' reads every `*.wav` of the ten genre folders (sorted by name; MindSpore
takes the directory's own order). Samples are int16 / 32767 as MindSpore's WAV reader scales them.
"""
import os
import wave

import numpy as np

from mindseed.dataset._audio_sources import _MAPPABLE, _WavCorpus

__all__ = ["GTZANDataset"]

GENRES = ("blues", "classical", "country", "disco", "hiphop", "jazz", "metal", "pop", "reggae", "rock")

_SPLITS = {
    "test": {
        "blues": "12-28 61-72 98-99", "classical": "11-29 34-41 49 77-79",
        "country": "30-40 43-44 46-48 50-51 53-64", "disco": "1 21 58 62-66 69 76-88 91-94 96-97 99",
        "hiphop": "0 26-27 30 40 43-45 51-54 62-75 99", "jazz": "73-99",
        "metal": "12-15 22-23 25-33 38-39 67 70 73-75 78 83 85 87-88",
        "pop": "0-1 13-14 43 63-66 69-79 82 88-96", "reggae": "34-40 46-48 52-53 64-68 71 79 82-84 87-90",
        "rock": "10-15 27-37 39-48 86-90"},
    "train": {
        "blues": "29-49 73-97", "classical": "30-33 43-48 50-67 80-99", "country": "19-26 28-29 65-99",
        "disco": "5 15-20 22-37 39-45 47 49 53-54 56-57 59 61 70 73-74 89",
        "hiphop": "2-25 28-29 31-38 41-42 55-61 77-80", "jazz": "0-1 11-24 41 47-72",
        "metal": "2-3 5 21 24 35 46-57 59-66 69 71-72 79-80 84 86 89-99",
        "pop": "2-9 11-12 16-20 23-29 31-36 38-42 44 46 49-50 80 97-99",
        "reggae": "0-2 4 6 9 11-12 14-32 42-45 49-51 54-60 63 69", "rock": "0-9 16-26 57-70 91-99"},
    "valid": {
        "blues": "0-11 50-60", "classical": "0-10 68-76", "country": "0-7 9-18 27 41-42 45 49",
        "disco": "0 2-4 6-14 46 48 52 67-68 72 75 90 95", "hiphop": "81-98", "jazz": "2-10 25-32",
        "metal": "0-1 6-11 16-20 36-37 68 76-77 81-82", "pop": "10 53 55 58-62 81 83-86",
        "reggae": "61-62 70 72 74 76-78 85 92-99", "rock": "38 49-56 71-85"},
}


def split_names(usage):
    """The track names ("blues.00012", ...) of a filtered split, in MindSpore's order."""
    names = []
    for genre in GENRES:
        for part in _SPLITS[usage][genre].split():
            lo, _, hi = part.partition("-")
            names += [f"{genre}.{k:05d}" for k in range(int(lo), int(hi or lo) + 1)]
    return names


def read_gtzan_wav(path):
    """float32 (1, samples) of a 16-bit PCM WAV at 22050 Hz, scaled by 1/32767."""
    try:
        with wave.open(path, "rb") as w:
            channels, width, rate, frames = w.getnchannels(), w.getsampwidth(), w.getframerate(), w.getnframes()
            data = w.readframes(frames)
    except (wave.Error, EOFError, OSError) as e:
        raise RuntimeError(f"Invalid file, GTZANDataset: {path} is not a readable PCM WAV file: {e}.") from None
    if width != 2:
        raise RuntimeError(f"Invalid file, GTZANDataset: {path} has {8 * width}-bit samples, GTZAN is 16-bit.")
    if rate != 22050:
        raise RuntimeError(f"Invalid file, sampling rate of GTZAN wav file must be 22050, file path: {path}")
    if len(data) < frames * channels * width:
        raise RuntimeError(f"Invalid file, GTZANDataset: {path} is truncated: its header announces {frames} "
                           f"frames but the data holds {len(data) // (channels * width)}.")
    x = np.frombuffer(data, "<i2").astype(np.float32) / np.float32(32767.0)
    return x.reshape(1, -1)


class GTZANDataset(_WavCorpus):
    """GTZAN (`<genre>/<genre>.NNNNN.wav`): columns waveform (float32 (1, samples)), sample_rate (uint32 scalar,
    22050) and label (string scalar, the genre).

    Args:
        usage (str, optional): ``'train'``, ``'valid'``, ``'test'`` or ``'all'``. Default: ``None`` (all).
    """

    _signature = f"dataset_dir, usage=None, {_MAPPABLE}, cache=None"
    _choices = {"usage": ("train", "valid", "test", "all", None)}
    _columns = ("waveform", "sample_rate", "label")

    def _scan(self):
        usage = self.usage or "all"
        records = []
        if usage == "all":
            for genre in GENRES:
                folder = self._path(genre)
                if not os.path.isdir(folder):
                    continue
                for name in sorted(os.listdir(folder)):
                    stem, ext = os.path.splitext(name)
                    if ext == ".wav" and "." in stem:
                        records.append((os.path.join(folder, name), [genre]))
        else:
            for name in split_names(usage):
                genre = name.split(".")[0]
                path = self._path(genre, name + ".wav")
                if os.path.isfile(path):
                    records.append((path, [genre]))
        if not records:
            raise RuntimeError(f"Invalid data, no valid data found in path:{self.dataset_dir}")
        return records

    def _load(self, record):
        path, (genre,) = record
        return [read_gtzan_wav(path), np.array(22050, np.uint32), np.array(genre)]
