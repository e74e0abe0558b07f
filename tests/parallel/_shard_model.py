"""A numpy model of sharding, written independently of mindseed.parallel: the N ranks' shards as a list of arrays,
and hypothesis strategies for random meshes, layouts and data."""
import math

import numpy as np
from hypothesis import strategies as st


def model_shards(x, mesh_shape, dims, partial=(), parts=None):
    """Rank r's shard: coordinates by np.unravel_index (row-major); dim d's piece is the mixed-radix number of
    the coordinates along dims[d]; along partial axes only the first rank holds the value (or `parts`)."""
    n = math.prod(mesh_shape)
    out = []
    for r in range(n):
        coords = np.unravel_index(r, mesh_shape) if mesh_shape else ()
        index = []
        for d, axes in enumerate(dims):
            cuts = math.prod(mesh_shape[a] for a in axes)
            i = int(np.ravel_multi_index([coords[a] for a in axes], [mesh_shape[a] for a in axes])) if axes else 0
            size = x.shape[d] // cuts
            index.append(slice(i * size, (i + 1) * size))
        piece = np.array(x[tuple(index)])
        if partial:
            first = all(coords[a] == 0 for a in partial)
            piece = parts(r, piece) if parts is not None else (piece if first else np.zeros_like(piece))
        out.append(piece)
    return out


MESHES = {4: [(4,), (2, 2), (1, 4), (4, 1)], 6: [(6,), (2, 3), (3, 2)], 8: [(8,), (2, 4), (4, 2), (2, 2, 2)]}


@st.composite
def layouts(draw, mesh_shape, ndim, allow_partial=True):
    """(dims, partial): each mesh axis cuts a random dim, is partial, or replicates; a dim's axes in random order."""
    order = draw(st.permutations(list(range(len(mesh_shape)))))
    dims, partial = [[] for _ in range(ndim)], []
    for a in order:
        # 0..ndim-1: cuts that dim; ndim: partial (when allowed); the last choice: replicates
        choice = draw(st.integers(0, ndim + (1 if allow_partial else 0)))
        if choice < ndim:
            dims[choice].append(a)
        elif choice == ndim and allow_partial:
            partial.append(a)
    return tuple(tuple(d) for d in dims), tuple(partial)


def shape_for(mesh_shape, dims, draw):
    """A global shape every dim of which its cuts divide."""
    return tuple(math.prod(mesh_shape[a] for a in d) * draw(st.integers(1, 3)) for d in dims)
