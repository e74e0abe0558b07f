"""mindspore.train.summary._summary_adapter: the rules by which summary values become Event fields. The writer
itself is `_event_file`; this module holds MindSpore's histogram bucket-count rule, which both share."""

__all__ = ["_calc_histogram_bins"]

_MAX_BINS, _MAX_PER_BIN = 90, 10


def _calc_histogram_bins(count):
    """MindSpore's number of histogram buckets for `count` finite values: 1 for none, 2 up to 5, 3 up to 10, then
    about 10 values a bucket (count // 10 + 1) up to 90 buckets."""
    if not count:
        return 1
    if count <= 5:
        return 2
    if count <= 10:
        return 3
    if count <= 880:
        return count // _MAX_PER_BIN + 1
    return _MAX_BINS
