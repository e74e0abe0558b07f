"""MindSpore's `mindspore.parallel.checkpoint_convert`: `rank_list_for_convert`, `convert_checkpoint_by_rank`,
`convert_checkpoints` (`checkpoint_transform`'s, which they are in MindSpore too under other names)."""
from mindseed.parallel.checkpoint_transform import (convert_checkpoint_by_rank, convert_checkpoints,
                                                    rank_list_for_convert)

__all__ = ["rank_list_for_convert", "convert_checkpoint_by_rank", "convert_checkpoints"]
