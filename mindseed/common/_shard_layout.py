"""MindSpore's `Layout`: a device matrix with named axes, called with a tensor map to describe one tensor.

It sits below `ops` because `Primitive.shard` accepts it; `mindseed.parallel` re-exports it and compiles it into
its `TensorLayout`. Checks and messages are MindSpore 2.x's.
"""
import copy
import math
from mindseed._utils._props import readonly

__all__ = ["Layout"]


class Layout:
    """Parallel layout: how the devices are arranged (`device_matrix`, axes named by `alias_name`) and, once called
    with a tensor map, which device axes cut each dim of a tensor.

    Args:
        device_matrix (tuple[int]): the shape of the device arrangement.
        alias_name (tuple[str]): one name per axis of `device_matrix` ("interleaved_parallel", last only, splits a
            dim into copies on one device).
        rank_list (list[int], optional): the ranks of the arrangement, row-major. Default: 0 .. N-1.

    Raises:
        TypeError: `device_matrix` or `alias_name` is not a tuple, an element of the wrong type, `rank_list` not a
            list of int.
        ValueError: lengths differ, an alias is empty, "None" or repeated, "interleaved_parallel" not last, or
            `rank_list` of another length than the device count.

    >>> from mindseed.parallel import Layout
    >>> layout = Layout((2, 2, 2), ("dp", "sp", "mp"))
    >>> layout("dp", "mp").to_dict()["tensor_map"]
    (2, 0)
    """

    def __init__(self, device_matrix, alias_name, rank_list=None):
        if not isinstance(device_matrix, tuple):
            raise TypeError(f"device_matrix must be tuple type, but got:{type(device_matrix)}")
        if not isinstance(alias_name, tuple):
            raise TypeError(f"alias_name must be tuple type, but got:{type(alias_name)}")
        if len(device_matrix) != len(alias_name):
            raise ValueError("device_matrix length should be equal to alias_name length")
        for ele in device_matrix:
            if not isinstance(ele, int):
                raise TypeError(f"The element of device_matrix must be int type, but got:{type(ele)}")
        for ele in alias_name:
            if not isinstance(ele, str):
                raise TypeError(f"The element of alias_name must be str type, but got:{type(ele)}")
            if not ele:
                raise ValueError("The element of alias_name can not be empty.")
            if ele == "None":
                raise ValueError("The element of alias_name can not set 'None', because 'None' means no sharding.")
        if len(set(alias_name)) != len(alias_name):
            raise ValueError(f"Each element of alias_name {alias_name} should be different")
        inter = "interleaved_parallel"
        if inter in alias_name and alias_name.index(inter) != len(alias_name) - 1:
            raise ValueError(f"When alias_name {alias_name} contains keyword 'interleaved_parallel', it should be at "
                             f"the last dim of alias_name, which means the virtual sharding.")
        count = math.prod(device_matrix)
        if rank_list is not None:
            if not isinstance(rank_list, list):
                raise TypeError(f"The rank_list should be a list, but got {type(rank_list).__name__}.")
            for ele in rank_list:
                if not isinstance(ele, int):
                    raise TypeError(f"The element of rank_list should be int, but got {type(ele).__name__}.")
            if len(rank_list) != count:
                raise ValueError(f"The length of rank_list should be equal to the product of device_matrix, but got "
                                 f"{len(rank_list)} and {count}.")
        self._device_shape = device_matrix
        self._alias_name = alias_name
        self._tensor_map = None
        self._rank_list = list(range(count)) if rank_list is None else list(rank_list)

    device_matrix = readonly("_device_shape")
    alias_name = readonly("_alias_name")
    rank_list = readonly("_rank_list")

    def _axis(self, name, written):
        if name not in self._alias_name:
            raise ValueError(f"The axis {name} is not found in {self._alias_name}")
        if name in written:
            raise ValueError(f"The axis {name} has been set more than one in {self._alias_name}")
        written.append(name)
        return len(self._alias_name) - 1 - self._alias_name.index(name)

    def __call__(self, *tensor_map):
        """A copy of this layout describing a tensor whose dim i is cut by the axis (or tuple of axes, major first)
        named `tensor_map[i]`, "None" for an uncut dim. The tensor map stores axes counted from the right of the
        device matrix (MindSpore's convention), -1 for "None"."""
        written, mapped = [], ()
        for ele in tensor_map:
            if isinstance(ele, tuple):
                mapped += (tuple(-1 if item == "None" else self._axis(item, written) for item in ele),)
            else:
                mapped += (-1 if ele == "None" else self._axis(ele, written),)
        out = copy.deepcopy(self)
        out._tensor_map = mapped
        return out

    def to_dict(self):
        """{"device_matrix", "tensor_map", "interleaved_parallel", "alias_name", "rank_list"}.

        Raises:
            ValueError: the layout was not called with a tensor map.
        """
        if self._tensor_map is None:
            raise ValueError("The tensor_map of layout is None")
        return {"device_matrix": self._device_shape, "tensor_map": self._tensor_map,
                "interleaved_parallel": "interleaved_parallel" in self._alias_name, "alias_name": self._alias_name,
                "rank_list": self._rank_list}

    def __repr__(self):
        return f"Layout(device_matrix={self._device_shape}, alias_name={self._alias_name}, " \
               f"tensor_map={self._tensor_map})"
