"""Device meshes and tensor layouts: which part of a global tensor each rank holds.

A `DeviceMesh` arranges N ranks in a grid with named axes; rank numbers run row-major (the last axis fastest),
as MindSpore's device matrix does. A `TensorLayout` says, for one tensor on a mesh, which mesh axes cut each of
its dims (several axes cut one dim major-first, as MindSpore's `Layout(...)(("dp", "mp"), "None")`), and which
mesh axes hold partial sums (the global value is the sum of the ranks' values along them). Mesh axes that
neither cut a dim nor are partial replicate the tensor.

MindSpore's two notations compile into this one type:

* a strategy tuple `(2, 1, 4)` for a tensor on `device_num` devices: the mesh `(2, 4, device_num / 8)` (the
  dims cut in more than one piece, then the repeated-calculation axis, last as MindSpore places it), dim 0 cut by
  axis 0 and dim 2 by axis 1 (`TensorLayout.from_strategy`);
* `mindspore.parallel.Layout(device_matrix, alias_name)(*tensor_map)`: the mesh `device_matrix` named by
  `alias_name`, the dims cut by the named axes (`TensorLayout.from_layout`).

A dim that the cuts do not divide is rejected with MindSpore's message, unless the layout pads: the shards are
then of size ceil(dim / cuts), the last ones zero-padded (what the parallel optimizer needs for parameters whose
first dim is not a multiple of the shard count).
"""
import itertools
import math

import numpy as np

__all__ = ["DeviceMesh", "TensorLayout", "shard_array", "assemble", "optimizer_shard_dims", "optimizer_shard"]


class DeviceMesh:
    """N ranks arranged in a grid of `shape`, axis i named `names[i]`; rank numbers row-major.

    Raises:
        TypeError: `shape` is not a tuple of ints or `names` not a tuple of str.
        ValueError: a size below 1, or names that are empty, repeated or not one per axis.
    """

    __slots__ = ("shape", "names", "size", "_strides")

    def __init__(self, shape, names=None):
        shape = tuple(shape) if isinstance(shape, (tuple, list)) else shape
        if not isinstance(shape, tuple) or any(isinstance(s, bool) or not isinstance(s, int) for s in shape):
            raise TypeError(f"For 'DeviceMesh', the 'shape' must be a tuple of int, but got {shape!r}.")
        if any(s < 1 for s in shape):
            raise ValueError(f"For 'DeviceMesh', every size in 'shape' must be positive, but got {shape}.")
        names = tuple(f"a{i}" for i in range(len(shape))) if names is None else tuple(names)
        if len(names) != len(shape) or any(not isinstance(n, str) or not n for n in names):
            raise ValueError(f"For 'DeviceMesh', 'names' must be one non-empty str per axis of {shape}, but got "
                             f"{names!r}.")
        if len(set(names)) != len(names):
            raise ValueError(f"For 'DeviceMesh', the axis names {names} must be different.")
        self.shape, self.names, self.size = shape, names, math.prod(shape)
        strides, step = [], 1
        for s in reversed(shape):
            strides.append(step)
            step *= s
        self._strides = tuple(reversed(strides))

    def axis(self, name):
        """The index of the axis called `name`."""
        try:
            return self.names.index(name)
        except ValueError:
            raise ValueError(f"The axis {name} is not found in {self.names}") from None

    def coords(self, rank):
        """The grid coordinates of `rank`."""
        return tuple((rank // st) % s for st, s in zip(self._strides, self.shape))

    def rank(self, coords):
        """The rank at grid coordinates `coords`."""
        return sum(c * st for c, st in zip(coords, self._strides))

    def index_along(self, rank, axes):
        """(index, count): `rank`'s position along `axes` read as one mixed-radix number, major first."""
        c = self.coords(rank)
        index, count = 0, 1
        for a in axes:
            index, count = index * self.shape[a] + c[a], count * self.shape[a]
        return index, count

    def groups(self, axes):
        """The ranks that differ only along `axes`: one list per group, ordered by `index_along(rank, axes)`."""
        axes = tuple(axes)
        rest = [a for a in range(len(self.shape)) if a not in axes]
        out = []
        for fixed in itertools.product(*[range(self.shape[a]) for a in rest]):
            group = []
            for moving in itertools.product(*[range(self.shape[a]) for a in axes]):
                c = [0] * len(self.shape)
                for a, v in zip(rest, fixed):
                    c[a] = v
                for a, v in zip(axes, moving):
                    c[a] = v
                group.append(self.rank(c))
            out.append(group)
        return out

    def __eq__(self, other):
        return isinstance(other, DeviceMesh) and self.shape == other.shape and self.names == other.names

    def __hash__(self):
        return hash((self.shape, self.names))

    def __repr__(self):
        return "DeviceMesh(" + ", ".join(f"{n}={s}" for n, s in zip(self.names, self.shape)) + ")"


def _format_strategy(strategy):
    # MindSpore prints a strategy as ((8, 1)) / ((2, 1), (1, 4)): the tuples joined, without Python's trailing comma
    return "(" + ", ".join(str(tuple(s)) for s in strategy) + ")"


class TensorLayout:
    """Where the parts of one global tensor of `shape` live on `mesh`.

    Args:
        mesh (DeviceMesh): the ranks.
        shape (tuple[int]): the global shape.
        dims (tuple[tuple[int]]): per tensor dim, the mesh axes that cut it, major first (() : not cut).
        partial (Iterable[int]): mesh axes along which the ranks hold partial sums.
        pad (bool): shards of a dim the cuts do not divide are ceil-sized and zero-padded, instead of an error.

    Raises:
        ValueError: a mesh axis used twice, `dims` not one entry per dim, or a dim the cuts do not divide
            (without `pad`).
    """

    __slots__ = ("mesh", "shape", "dims", "partial", "pad")

    def __init__(self, mesh, shape, dims=None, partial=(), pad=False, strategy=None):
        self.mesh, self.shape, self.pad = mesh, tuple(int(d) for d in shape), pad
        dims = tuple(() for _ in self.shape) if dims is None else tuple(tuple(d) for d in dims)
        if len(dims) != len(self.shape):
            raise ValueError(f"The layout's tensor map {dims} must have one entry per dim of the shape {self.shape}.")
        # size-1 mesh axes cut nothing: dropping them gives one spelling per layout
        self.dims = tuple(tuple(a for a in d if mesh.shape[a] > 1) for d in dims)
        self.partial = tuple(sorted(a for a in set(partial) if mesh.shape[a] > 1))
        used = [a for d in self.dims for a in d] + list(self.partial)
        if len(set(used)) != len(used):
            raise ValueError(f"The layout uses a device-matrix axis more than once: tensor map {dims}, partial "
                             f"{tuple(partial)} on {mesh}.")
        if not pad:
            for d, size in enumerate(self.shape):
                cuts = self.cuts(d)
                if size % cuts:
                    shown = strategy if strategy is not None else (tuple(self.cuts(i) for i in range(len(dims))),)
                    raise ValueError(f"The strategy is {_format_strategy(shown)}, shape {size} can not be divisible "
                                     f"by strategy value {cuts}")

    # ------------------------------------------------------------ construction from MindSpore's notations
    @classmethod
    def replicated(cls, mesh, shape):
        """Every rank holds the whole tensor."""
        return cls(mesh, shape)

    @classmethod
    def from_strategy(cls, shape, strategy, device_num, pad=False):
        """The layout of a strategy tuple (one int per dim) for a tensor on `device_num` ranks.

        Raises:
            ValueError: the strategy's length is not the tensor's rank, a value below 1, a product that does not
                divide `device_num`, or a dim the strategy does not divide.
        """
        strategy = tuple(strategy)
        if len(strategy) != len(shape):
            raise ValueError(f"The strategy is {_format_strategy((strategy,))}, its length {len(strategy)} is not "
                             f"equal to the dimension {len(shape)} of the tensor shape {tuple(shape)}")
        if any(isinstance(s, bool) or not isinstance(s, int) or s < 1 for s in strategy):
            raise ValueError(f"The strategy is {_format_strategy((strategy,))}, its values must be positive ints.")
        used = math.prod(strategy)
        if device_num % used:
            raise ValueError(f"The strategy is {_format_strategy((strategy,))}, the product of its values {used} "
                             f"must divide the device number {device_num}.")
        # NOTE: MindSpore puts the repeated-calculation axis last in the device matrix (the ranks holding the same
        # piece are neighbours)
        repeat = device_num // used
        # a dim cut into 1 piece makes no mesh axis: equal cuts give equal meshes, whatever the rank of the tensor
        cut = [i for i, s in enumerate(strategy) if s > 1]
        sizes = tuple(strategy[i] for i in cut) + ((repeat,) if repeat > 1 else ())
        names = tuple(f"s{i}" for i in cut) + (("repeat",) if repeat > 1 else ())
        mesh = DeviceMesh(sizes or (1,), names or ("repeat",))
        dims = tuple((cut.index(i),) if i in cut else () for i in range(len(strategy)))
        return cls(mesh, shape, dims, pad=pad, strategy=(strategy,))

    @classmethod
    def from_layout(cls, shape, layout, pad=False):
        """The layout of a `mindspore.parallel.Layout` called with a tensor map.

        Raises:
            ValueError: the layout has no tensor map, or a tensor map of another length than the tensor's rank.
        """
        info = layout.to_dict()
        tensor_map, matrix = info["tensor_map"], tuple(info["device_matrix"])
        if len(tensor_map) != len(shape):
            raise ValueError(f"The layout's tensor map {tensor_map} has {len(tensor_map)} entries, but the tensor "
                             f"shape {tuple(shape)} has {len(shape)} dims.")
        names = tuple(info["alias_name"])
        # NOTE: an "interleaved_parallel" axis splits a dim into copies held by the same device: it is no mesh axis
        keep = [i for i, n in enumerate(names) if n != "interleaved_parallel"]
        mesh = DeviceMesh(tuple(matrix[i] for i in keep), tuple(names[i] for i in keep))
        last = len(matrix) - 1

        def axes(entry):
            entry = entry if isinstance(entry, tuple) else (entry,)
            return tuple(keep.index(last - e) for e in entry if e != -1 and last - e in keep)

        return cls(mesh, shape, tuple(axes(e) for e in tensor_map), pad=pad)

    # ------------------------------------------------------------ queries
    def cuts(self, d):
        """How many pieces dim `d` is cut into."""
        return math.prod(self.mesh.shape[a] for a in self.dims[d])

    def chunk(self, d):
        """The size of a piece of dim `d` (ceil-sized when padding)."""
        return -(-self.shape[d] // self.cuts(d))

    @property
    def local_shape(self):
        return tuple(self.chunk(d) for d in range(len(self.shape)))

    def is_replicated(self):
        return not self.partial and all(not d for d in self.dims)

    def box(self, rank):
        """Per dim, the slice of the global tensor that `rank` holds (clipped to the shape when padding)."""
        out = []
        for d, axes in enumerate(self.dims):
            i, _ = self.mesh.index_along(rank, axes)
            c = self.chunk(d)
            out.append(slice(min(i * c, self.shape[d]), min((i + 1) * c, self.shape[d])))
        return tuple(out)

    def owner_of_sum(self, rank):
        """Whether `rank`'s value counts once in the global tensor: its coordinates are 0 on every axis that
        replicates the tensor (it is the one copy summed over the partial axes)."""
        c = self.mesh.coords(rank)
        used = {a for d in self.dims for a in d} | set(self.partial)
        return all(c[a] == 0 for a in range(len(c)) if a not in used)

    def with_(self, dims=None, partial=None):
        """The same tensor on the same mesh with other cuts or partial axes."""
        return TensorLayout(self.mesh, self.shape, self.dims if dims is None else dims,
                            self.partial if partial is None else partial, pad=self.pad)

    def __eq__(self, other):
        return isinstance(other, TensorLayout) and (self.mesh, self.shape, self.dims, self.partial, self.pad) == \
            (other.mesh, other.shape, other.dims, other.partial, other.pad)

    def __hash__(self):
        return hash((self.mesh, self.shape, self.dims, self.partial, self.pad))

    def __repr__(self):
        names = self.mesh.names
        dims = ", ".join("(" + ",".join(names[a] for a in d) + ")" if d else "-" for d in self.dims)
        part = f", partial=({','.join(names[a] for a in self.partial)})" if self.partial else ""
        return f"TensorLayout({self.shape} on {self.mesh}: [{dims}]{part})"


def _padded(piece, local_shape):
    if piece.shape == tuple(local_shape):
        return piece
    out = np.zeros(local_shape, dtype=piece.dtype)
    out[tuple(slice(0, s) for s in piece.shape)] = piece
    return out


def shard_array(x, layout, parts=None):
    """The N ranks' shards of the global array `x` under `layout`, as a list indexed by rank.

    A partial layout needs the pieces that add up: `parts(rank, piece)` gives rank's share of `piece` (default: the
    first rank along the partial axes holds it, the others zeros).
    """
    x = np.asarray(x)
    if tuple(x.shape) != layout.shape:
        raise ValueError(f"For 'shard_array', the array's shape {tuple(x.shape)} is not the layout's {layout.shape}.")
    out = []
    for rank in range(layout.mesh.size):
        piece = _padded(np.array(x[layout.box(rank)]), layout.local_shape)
        if layout.partial:
            if parts is not None:
                piece = parts(rank, piece)
            elif layout.mesh.index_along(rank, layout.partial)[0]:
                piece = np.zeros_like(piece)
        out.append(piece)
    return out


def assemble(shards, layout):
    """The global array of the ranks' `shards` under `layout` (partial sums added up, padding dropped).

    Raises:
        ValueError: not one shard per rank, or a shard of another shape than the layout's local shape.
    """
    if len(shards) != layout.mesh.size:
        raise ValueError(f"For 'assemble', {len(shards)} shards were given for the {layout.mesh.size} ranks of "
                         f"{layout.mesh}.")
    first = np.asarray(shards[0])
    out = np.zeros(layout.shape, dtype=first.dtype)
    for rank, piece in enumerate(shards):
        piece = np.asarray(piece)
        if piece.shape != layout.local_shape:
            raise ValueError(f"For 'assemble', rank {rank}'s shard has shape {piece.shape}, but {layout} holds "
                             f"{layout.local_shape} per rank.")
        if not layout.owner_of_sum(rank):
            continue
        box = layout.box(rank)
        piece = piece[tuple(slice(0, b.stop - b.start) for b in box)]
        if layout.partial:
            out[box] += piece
        else:
            out[box] = piece
    return out


def optimizer_shard_dims(mesh_shape, dims, size, name="the parameter"):
    """(mesh shape, dims) with dim 0 further cut over `size` of the repeated axes (-1: all of them), as MindSpore's
    parallel optimizer cuts a parameter: the innermost repeated axes first, an axis split in (outer, inner) when only
    part of it is needed; the new cuts are minor to dim 0's model-parallel cuts.

    Raises:
        ValueError: no repeated axis, or `size` that the repeated axes cannot make.
    """
    used = {a for d in dims for a in d}
    repeated = [a for a, s in enumerate(mesh_shape) if a not in used and s > 1]
    if not repeated:
        raise ValueError(f"For the parallel optimizer, {name}'s device matrix {list(mesh_shape)} has no repeated axis "
                         f"for the optimizer shard.")
    shape, opt = list(mesh_shape), []
    remaining = math.prod(shape[a] for a in repeated) if size == -1 else size
    for a in reversed(repeated):
        if remaining == 1:
            break
        if shape[a] > remaining:
            if shape[a] % remaining:
                raise ValueError(f"For the parallel optimizer, {name}'s device-matrix axis of size {shape[a]} cannot "
                                 f"be divided by the optimizer shard size {remaining}.")
            # split the axis: the inner part of size `remaining` carries the shard
            shape[a:a + 1] = [shape[a] // remaining, remaining]
            dims = [tuple(x + 1 if x > a else x for x in d) for d in dims]
            opt = [x + 1 for x in opt]
            a += 1
        if remaining % shape[a]:
            raise ValueError(f"For the parallel optimizer, the optimizer shard size {size} of {name} does not divide "
                             f"its device matrix {list(mesh_shape)}.")
        remaining //= shape[a]
        opt.insert(0, a)
    if remaining != 1:
        raise ValueError(f"For the parallel optimizer, the optimizer shard size {size} of {name} is more than its "
                         f"repeated devices in {list(mesh_shape)}.")
    dims = list(dims)
    dims[0] = tuple(dims[0]) + tuple(opt)
    return tuple(shape), dims


def optimizer_shard(layout, size=-1, name="the parameter"):
    """`layout` with dim 0 further cut by the parallel optimizer over `size` of its repeated ranks (-1: all);
    None when that is impossible (no repeated axis, or dim 0 not divisible), where MindSpore leaves the parameter
    whole in the optimizer."""
    if not layout.shape or layout.partial:
        return None
    try:
        shape, dims = optimizer_shard_dims(layout.mesh.shape, layout.dims, size, name)
        return TensorLayout(DeviceMesh(shape), layout.shape, dims)
    except ValueError:
        return None
