"""`mindspore.mindrecord`: MindSpore's record file format (FileWriter, FileReader, MindPage), byte-compatible with
MindSpore, its converters from public dataset formats, and its file encryption (set_enc_key / set_enc_mode /
set_dec_mode)."""
from mindseed.mindrecord._converters import (Cifar10ToMR, Cifar100ToMR, CsvToMR, ImageNetToMR, MnistToMR,
                                             TFRecordToMR)
from mindseed.mindrecord.config import set_dec_mode, set_enc_key, set_enc_mode
from mindseed.mindrecord.exceptions import *  # noqa: F403
from mindseed.mindrecord.filewriter import FAILED, SUCCESS, FileReader, FileWriter
from mindseed.mindrecord.mindpage import MindPage

__all__ = ["FileWriter", "FileReader", "MindPage", "Cifar10ToMR", "Cifar100ToMR", "CsvToMR", "ImageNetToMR",
           "MnistToMR", "TFRecordToMR", "set_enc_key", "set_enc_mode", "set_dec_mode", "SUCCESS", "FAILED"]
