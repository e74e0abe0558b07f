"""Redistribution: the collectives and local slices that take a tensor from one layout to another.

`plan(src, dst, itemsize)` works on one mesh. When the two layouts live on different meshes of the same ranks,
both are first written on their common refinement (mesh (2, 4) and mesh (4, 2) are both the mesh (2, 2, 2),
rank numbers unchanged); meshes without one ((2, 3) and (3, 2)) go through the whole tensor. On one mesh:

1. partial axes the destination cuts a dim with, right after the dims' current cuts: ReduceScatter;
2. per dim, cuts the destination does not keep, innermost first: AllToAll when the destination wants the axis on
   another dim next, else AllGather;
3. the destination's further cuts by axes holding no partial sum: local slices (no communication), so that
4. the other partial axes reduce the pieces only: ReduceScatter when now possible, else one AllReduce;
5. the remaining cuts: local slices; the destination's new partial axes: zeros off the first rank (local).

A mesh axis free in the source (cutting no dim, holding no partial sum) may first slice a dim: the plan that sends
the fewest bytes is kept ((a0, -) -> (a1, -) through (a0, a1) gathers 1/|a1| of what the direct gather sends).

A `Redistribution` runs on a world (`run(values, world)`) and knows the bytes each rank sends (`sent_bytes`),
which the world's log confirms when it runs.
"""
import math

import numpy as np

from mindseed.parallel._layout import DeviceMesh, TensorLayout
from mindseed.parallel._world import sent_bytes

__all__ = ["Step", "Redistribution", "plan", "common_mesh"]


class Step:
    """One step of a redistribution.

    Args:
        kind (str): "AllReduce", "ReduceScatter", "AllGather", "AllToAll" (collectives), "Slice" or "Zero" (local).
        mesh (DeviceMesh): the mesh whose axes `axes` name.
        axes (tuple[int]): the mesh axes the step runs along (its groups), major first.
        dim (int): the tensor dim gathered, scattered or sliced (AllToAll: the dim it concatenates).
        split_dim (int): AllToAll: the dim it splits.
        input_bytes (int): bytes of one rank's input.
    """

    __slots__ = ("kind", "mesh", "axes", "dim", "split_dim", "input_bytes")

    def __init__(self, kind, mesh, axes, dim=None, split_dim=None, input_bytes=0):
        self.kind, self.mesh, self.axes, self.dim, self.split_dim = kind, mesh, tuple(axes), dim, split_dim
        self.input_bytes = input_bytes

    @property
    def group_size(self):
        return math.prod(self.mesh.shape[a] for a in self.axes)

    @property
    def sent_bytes(self):
        if self.kind in ("Slice", "Zero"):
            return 0
        return sent_bytes(self.kind, self.group_size, self.input_bytes)

    def run(self, values, world):
        if world.abstract:  # a shapes-only world: the step is logged, no array moves
            if self.kind not in ("Slice", "Zero"):
                world.collective(self.kind, self.group_size, self.input_bytes)
            return values
        groups = self.mesh.groups(self.axes)
        if self.kind == "AllReduce":
            return world.all_reduce(values, groups)
        if self.kind == "ReduceScatter":
            return world.reduce_scatter(values, groups, axis=self.dim)
        if self.kind == "AllGather":
            return world.all_gather(values, groups, axis=self.dim)
        if self.kind == "AllToAll":
            return world.all_to_all(values, groups, split_axis=self.split_dim, concat_axis=self.dim)
        out = []
        for rank, v in enumerate(values):
            i, n = self.mesh.index_along(rank, self.axes)
            if v is None:  # a rank another process computes
                out.append(None)
            elif self.kind == "Slice":
                out.append(np.split(v, n, axis=self.dim)[i].copy())
            else:  # Zero: the first rank along the axes keeps the value, the others hold zeros (a partial sum)
                out.append(v if i == 0 else np.zeros_like(v))
        return out

    def __repr__(self):
        names = ",".join(self.mesh.names[a] for a in self.axes)
        where = f" dim {self.dim}" if self.dim is not None else ""
        if self.kind == "AllToAll":
            where = f" split dim {self.split_dim} concat dim {self.dim}"
        return f"{self.kind}({names}{where}, {self.sent_bytes} B)"


class Redistribution:
    """The steps from `src` to `dst`; `sent_bytes` is what one rank sends in all."""

    __slots__ = ("src", "dst", "steps")

    def __init__(self, src, dst, steps):
        self.src, self.dst, self.steps = src, dst, tuple(steps)

    @property
    def sent_bytes(self):
        return sum(s.sent_bytes for s in self.steps)

    def collectives(self):
        return [s for s in self.steps if s.kind not in ("Slice", "Zero")]

    def run(self, values, world):
        """The ranks' arrays under `dst`, from their arrays under `src` (a list indexed by rank)."""
        for step in self.steps:
            values = step.run(values, world)
        return values

    def __repr__(self):
        return f"Redistribution({self.src} -> {self.dst}: {list(self.steps)})"


def common_mesh(a, b):
    """(mesh, axes_of_a, axes_of_b): the coarsest mesh refining meshes `a` and `b` of the same ranks, and for each
    axis of `a` (of `b`) the refined axes it is made of, major first; None when there is none."""
    if a.size != b.size:
        return None
    strides = set()
    for mesh in (a, b):
        step = 1
        for s in reversed(mesh.shape):
            strides.add(step)
            step *= s
    strides.add(a.size)
    ordered = sorted(strides)
    if any(hi % lo for lo, hi in zip(ordered, ordered[1:])):
        return None
    sizes = [hi // lo for lo, hi in zip(ordered, ordered[1:])][::-1]
    fine_strides = ordered[:-1][::-1]
    mesh = DeviceMesh(tuple(sizes), tuple(f"r{i}" for i in range(len(sizes))))

    def parts(m):
        out, step = [None] * len(m.shape), 1
        for ax in range(len(m.shape) - 1, -1, -1):
            lo, hi = step, step * m.shape[ax]
            out[ax] = tuple(i for i, st in enumerate(fine_strides) if lo <= st < hi)
            step = hi
        return out

    return mesh, parts(a), parts(b)


def _refined(layout, mesh, parts):
    dims = tuple(tuple(f for a in d for f in parts[a]) for d in layout.dims)
    partial = tuple(f for a in layout.partial for f in parts[a])
    return TensorLayout(mesh, layout.shape, dims, partial)


def _prefix(short, long):
    return long[:len(short)] == short


class _Planner:
    def __init__(self, src, mesh, itemsize):
        self.mesh, self.shape, self.itemsize = mesh, src.shape, itemsize
        self.dims = [tuple(d) for d in src.dims]
        self.partial = set(src.partial)
        self.steps = []

    def local_bytes(self):
        n = math.prod(self.shape[d] // math.prod(self.mesh.shape[a] for a in axes) for d, axes in enumerate(self.dims))
        return n * self.itemsize

    def add(self, kind, axes, dim=None, split_dim=None):
        self.steps.append(Step(kind, self.mesh, axes, dim, split_dim, self.local_bytes()))

    def reduce_scatters(self, dst):
        for p in sorted(self.partial - set(dst.partial)):
            for d, want in enumerate(dst.dims):
                if _prefix(self.dims[d] + (p,), want):
                    self.add("ReduceScatter", (p,), d)
                    self.dims[d] += (p,)
                    self.partial.discard(p)
                    break

    def uncut(self, dst):
        changed = True
        while changed:
            changed = False
            for d in range(len(self.dims)):
                if _prefix(self.dims[d], dst.dims[d]):
                    continue
                a = self.dims[d][-1]
                target = next((d2 for d2 in range(len(self.dims))
                               if d2 != d and _prefix(self.dims[d2] + (a,), dst.dims[d2])), None)
                if target is not None:
                    self.add("AllToAll", (a,), d, target)
                    self.dims[target] += (a,)
                else:
                    self.add("AllGather", (a,), d)
                self.dims[d] = self.dims[d][:-1]
                changed = True

    def slices(self, dst):
        """The destination's further cuts by axes that hold no partial sum: local slices."""
        for d, want in enumerate(dst.dims):
            extra = want[len(self.dims[d]):]
            free = next((i for i, a in enumerate(extra) if a in self.partial), len(extra))
            if free:
                self.add("Slice", extra[:free], d)
                self.dims[d] += extra[:free]

    def finish(self, dst):
        self.reduce_scatters(dst)
        self.slices(dst)  # slicing before reducing: the sums run on the pieces only
        self.reduce_scatters(dst)
        rest = sorted(self.partial - set(dst.partial))
        if rest:
            self.add("AllReduce", tuple(rest))
            self.partial -= set(rest)
        self.slices(dst)
        new = sorted(set(dst.partial) - self.partial)
        if new:
            self.add("Zero", tuple(new))


def _steps(src, dst, mesh, itemsize, first_slice=None):
    """The steps from `src` to `dst` on `mesh`, after slicing dim `first_slice[1]` by the free mesh axis
    `first_slice[0]` when given."""
    p = _Planner(src, mesh, itemsize)
    if first_slice is not None:
        axis, d = first_slice
        p.add("Slice", (axis,), d)
        p.dims[d] += (axis,)
    p.reduce_scatters(dst)
    p.uncut(dst)
    p.finish(dst)
    return p.steps


def plan(src, dst, itemsize=4):
    """The redistribution from layout `src` to layout `dst` of the same global tensor.

    Args:
        src, dst (TensorLayout): the layouts (their meshes must have the same number of ranks).
        itemsize (int): bytes of one element (for the byte counts).

    Raises:
        ValueError: different global shapes or rank counts, or a padded layout.
    """
    if src.shape != dst.shape:
        raise ValueError(f"For 'redistribute', the layouts are of different global shapes {src.shape} and "
                         f"{dst.shape}.")
    if src.mesh.size != dst.mesh.size:
        raise ValueError(f"For 'redistribute', the layouts are on {src.mesh.size} and {dst.mesh.size} ranks.")
    if src.pad or dst.pad:
        raise ValueError("For 'redistribute', padded layouts are not redistributed: assemble and shard the tensor.")
    if src.mesh.shape == dst.mesh.shape:
        same = tuple((a,) for a in range(len(src.mesh.shape)))
        common = src.mesh, same, same
    else:
        common = common_mesh(src.mesh, dst.mesh)
    if common is not None:
        mesh, parts_src, parts_dst = common
        start, target = _refined(src, mesh, parts_src), _refined(dst, mesh, parts_dst)
        steps = _steps(start, target, mesh, itemsize)
        if any(s.sent_bytes for s in steps):
            # a free axis sliced in first can shrink every collective after it: (a0, -) -> (a1, -) gathers 7/8 of
            # the tensor over a0, but (a0, a1) -> (a1, -) gathers and exchanges 1/1024 of it
            used = {a for d in start.dims for a in d} | set(start.partial)
            for axis in range(len(mesh.shape)):
                if mesh.shape[axis] == 1 or axis in used:
                    continue
                for d in range(len(start.shape)):
                    if start.shape[d] % (start.cuts(d) * mesh.shape[axis]) == 0:
                        other = _steps(start, target, mesh, itemsize, (axis, d))
                        if sum(s.sent_bytes for s in other) < sum(s.sent_bytes for s in steps):
                            steps = other
        return Redistribution(src, dst, steps)
    # no common refinement: through the whole tensor on the source mesh, then cut on the destination mesh
    first = _Planner(src, src.mesh, itemsize)
    whole = TensorLayout.replicated(src.mesh, src.shape)
    first.uncut(whole)
    first.finish(whole)
    second = _Planner(TensorLayout.replicated(dst.mesh, dst.shape), dst.mesh, itemsize)
    second.finish(dst)
    return Redistribution(src, dst, first.steps + second.steps)
