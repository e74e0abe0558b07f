"""Argument checks of `mindspore.dataset.text` (`mindspore.dataset.text.validators`), with MindSpore's messages."""
from mindseed.dataset._validate import INT32_MAX, type_check

__all__ = ["check_from_file_vectors", "check_to_vectors_args", "check_sentencepiece_args", "check_uint32"]

UINT32_MAX = 4294967295


def check_uint32(value, name):
    """`value` an int in [0, 2**32 - 1]."""
    type_check(value, (int,), name)
    if not 0 <= value <= UINT32_MAX:
        raise ValueError(f"Input {name} is not within the required interval of [0, {UINT32_MAX}].")


def check_from_file_vectors(file_path, max_vectors):
    """Arguments of Vectors/GloVe/FastText/CharNGram.from_file."""
    type_check(file_path, (str,), "file_path")
    if max_vectors is not None:
        type_check(max_vectors, (int,), "max_vectors")
        if not 0 <= max_vectors <= INT32_MAX:
            raise ValueError(f"Input max_vectors is not within the required interval of [0, {INT32_MAX}].")


def check_to_vectors_args(vectors, unk_init, lower_case_backup, vectors_cls):
    """Arguments of ToVectors."""
    type_check(vectors, (vectors_cls,), "vectors")
    if unk_init is not None:
        type_check(unk_init, (list, tuple), "unk_init")
        for i, value in enumerate(unk_init):
            type_check(value, (int, float), f"unk_init[{i}]")
    type_check(lower_case_backup, (bool,), "lower_case_backup")


def check_sentencepiece_args(vocab_size, character_coverage, model_type, params, model_enum):
    """vocab_size, character_coverage, model_type and params of SentencePieceVocab.from_file/from_dataset."""
    check_uint32(vocab_size, "vocab_size")
    type_check(character_coverage, (float,), "character_coverage")
    type_check(model_type, (str, model_enum), "model_type")
    type_check(params, (dict,), "params")
