"""mindspore.ops.operations.manually_defined.ops_def: Rank / rank, Cast, Tile (the same objects as in
`mindspore.ops`)."""
from mindseed.ops.functional import cast, rank, tile  # noqa: F401
from mindseed.ops.operations import Cast, Rank, Tile  # noqa: F401

__all__ = ["Rank", "rank", "Cast", "cast", "Tile", "tile"]
