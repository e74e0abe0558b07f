"""A Cell's buffers (tensors of its state that are no parameters: `register_buffer`, `buffers`, `named_buffers`,
`get_buffer`) and the lookup of sub cells by dotted path (`get_sub_cell`), as MindSpore 2.x's Cell has them.

A buffer is stored in the cell's `_buffers` table (an `_AttrTable`: each entry is also an instance attribute, so
`self.name` reads it in PyNative and in graph mode alike); which buffers are not part of the state dict is
`_non_persistent_buffers_set`. `Cell.__setattr__` registers a `_Buffer` assigned to an attribute.
"""
from mindseed.common.tensor import Tensor
from mindseed._utils._jit_forbidden import jit_forbidden_register


class CellBuffers:
    """Buffer and sub-cell methods of `nn.Cell` (a base class of it)."""

    @jit_forbidden_register
    def register_buffer(self, name, tensor, persistent=True):
        """Add `tensor` to this cell's buffers under `name` (readable as ``self.<name>``).

        Args:
            name (str): the buffer's name; no dot, not empty, no other attribute's name.
            tensor (Tensor): the buffer; ``None`` registers the name without a value (left out of the state dict).
            persistent (bool): whether the buffer belongs to the state dict. Default ``True``.

        Raises:
            AttributeError: called before ``Cell.__init__``.
            TypeError: `name` not a str, or `tensor` neither a Tensor nor None.
            KeyError: `name` holds a dot, is empty, or names another attribute.

        >>> import mindseed as ms
        >>> net = ms.nn.Cell()
        >>> net.register_buffer("running", ms.Tensor([1.0, 2.0]))
        >>> [n for n, _ in net.named_buffers()]
        ['running']
        """
        d = self.__dict__
        if "_buffers" not in d:
            raise AttributeError("cannot assign buffer before Cell.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"buffer name should be a string.But got this type: {type(name)}")
        if "." in name:
            raise KeyError('buffer name can\'t contain "."')
        if name == "":
            raise KeyError('buffer name can\'t be empty string ""')
        if hasattr(self, name) and name not in d["_buffers"]:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{type(tensor)}' object to buffer '{name}' (mindspore Tensor or None "
                            f"required)")
        d["_buffers"][name] = tensor
        if persistent:
            d["_non_persistent_buffers_set"].discard(name)
        else:
            d["_non_persistent_buffers_set"].add(name)

    @jit_forbidden_register
    def get_sub_cell(self, target):
        """The sub cell at the dotted path `target` ("" is this cell).

        Raises:
            AttributeError: a name on the path is no attribute, or no Cell.
        """
        cell = self
        if target == "":
            return cell
        for item in target.split("."):
            if not hasattr(cell, item):
                raise AttributeError(f"{type(cell).__name__} has no attribute `{item}`")
            cell = getattr(cell, item)
            if not isinstance(cell, CellBuffers):
                raise AttributeError(f"`{item}` is not an nn.Cell")
        return cell

    @jit_forbidden_register
    def get_buffer(self, target):
        """The buffer at the dotted path `target` (``"sub.cell.name"``).

        Raises:
            AttributeError: no such attribute, or it is no buffer.
        """
        cell_path, _, name = target.rpartition(".")
        cell = self.get_sub_cell(cell_path)
        if not hasattr(cell, name):
            raise AttributeError(f"{type(cell).__name__} has no attribute `{name}`")
        buffer = getattr(cell, name)
        if name not in cell._buffers:
            raise AttributeError(f"`{name}` is not a buffer")
        return buffer

    @jit_forbidden_register
    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        """(dotted name, buffer) of this cell's buffers, then (with `recurse`) its sub cells'; a buffer met twice is
        given once unless `remove_duplicate` is False; None buffers are skipped."""
        cells = self.cells_and_names(name_prefix=prefix) if recurse else [(prefix, self)]
        seen = set()
        for cell_prefix, cell in cells:
            for name, buf in cell._buffers.items():
                if buf is None or id(buf) in seen:
                    continue
                if remove_duplicate:
                    seen.add(id(buf))
                yield (f"{cell_prefix}.{name}" if cell_prefix else name), buf

    @jit_forbidden_register
    def buffers(self, recurse=True):
        """This cell's buffers, then (with `recurse`) its sub cells'."""
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf
