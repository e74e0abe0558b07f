"""`mindspore.dataset.transforms.validators`: the argument checks the dataset transforms share, with
MindSpore's messages."""
from mindseed.dataset._validate import (INT32_MAX, check_bool, check_columns, check_num_samples,  # noqa: F401
                                        check_pos_int32, check_range, check_sharding, type_check)

__all__ = ["INT32_MAX", "type_check", "check_range", "check_pos_int32", "check_bool", "check_columns",
           "check_num_samples", "check_sharding"]
