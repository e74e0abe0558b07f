"""ConvertNetUtils: swap a network's Dense/Conv2d/Embedding/EmbeddingLookup cells for their THOR versions.

It lives in nn (the optimizer `nn.thor` converts the net it is given); `mindspore.train.train_thor` re-exports it
under MindSpore's path. The new cells take over the old ones' Parameters, so weights and names are kept.
"""
from mindseed.nn.cell import Cell
from mindseed.nn.layer.basic import Dense
from mindseed.nn.layer.container import SequentialCell
from mindseed.nn.layer.conv import Conv2d
from mindseed.nn.layer.embedding import Embedding, EmbeddingLookup
from mindseed.nn.layer.thor_layer import Conv2dThor, DenseThor, EmbeddingLookupThor, EmbeddingThor

_THOR_CELLS = (DenseThor, Conv2dThor, EmbeddingThor, EmbeddingLookupThor)


def _convert_dense(cell):
    new = DenseThor(cell.in_channels, cell.out_channels, weight_init="zeros", has_bias=cell.has_bias)
    new.activation, new.activation_flag = cell.activation, cell.activation_flag
    new.weight = cell.weight
    if cell.has_bias:
        new.bias = cell.bias
    return new


def _convert_conv2d(cell):
    padding = cell.padding if cell.pad_mode.lower() == "pad" else 0
    new = Conv2dThor(cell.in_channels, cell.out_channels, cell._kernel, stride=cell._stride, pad_mode=cell.pad_mode,
                     padding=padding, dilation=cell._dilation, group=cell.group, has_bias=cell.has_bias,
                     weight_init="zeros")
    new.weight = cell.weight
    if cell.has_bias:
        new.bias = cell.bias
    return new


def _convert_embedding(cell):
    new = EmbeddingThor(cell.vocab_size, cell.embedding_size, use_one_hot=False, embedding_table="zeros")
    new.embedding_table = cell.embedding_table
    return new


def _convert_embedding_lookup(cell):
    new = EmbeddingLookupThor(cell.vocab_size, cell.embedding_size, param_init="zeros", target=cell.target,
                              sparse=cell.sparse, max_norm=cell.max_norm)
    new.embedding_table = cell.embedding_table
    return new


# exact types: a subclass of Dense (or a THOR cell) may compute something else and is left alone
_CONVERTERS = {Dense: _convert_dense, Conv2d: _convert_conv2d, Embedding: _convert_embedding,
               EmbeddingLookup: _convert_embedding_lookup}


def _table(cell):
    return cell.embedding_table if isinstance(cell, (Embedding, EmbeddingLookup)) else cell.weight


def _name_factors(new, old_table):
    """The new cell's own Parameters (its factors) named under the old cell's prefix (``fc1.matrix_a``)."""
    local = "embedding_table" if isinstance(new, (EmbeddingThor, EmbeddingLookupThor)) else "weight"
    prefix = old_table.name[:-len(local)] if old_table.name.endswith(local) else ""
    for param in new._params.values():
        if param is not None and param.requires_grad is False and not param.name.startswith(prefix):
            param.name = prefix + param.name


class ConvertNetUtils:
    """Convert a network to one whose layers record the second-order information THOR needs.

    >>> import mindseed as ms
    >>> net = ms.nn.SequentialCell([ms.nn.Dense(3, 4), ms.nn.ReLU(), ms.nn.Dense(4, 2)])
    >>> ms.ConvertNetUtils().convert_to_thor_net(net)
    >>> type(net[0]).__name__
    'DenseThor'
    """

    def _convert_to_thor_net(self, net):
        changed = False
        for name, cell in net.name_cells().items():
            if cell is net or isinstance(cell, _THOR_CELLS):
                continue
            convert = _CONVERTERS.get(type(cell))
            if convert is None:
                self._convert_to_thor_net(cell)
            elif _table(cell).requires_grad:
                new = convert(cell)
                _name_factors(new, _table(cell))
                # not insert_child_to_cell: that would rename the kept Parameters, which carry their full names
                net.__dict__["_cells"][name] = new
                object.__setattr__(net, name, new)
                changed = True
        if changed and isinstance(net, SequentialCell):
            net._refresh()

    def convert_to_thor_net(self, net):
        """Replace, in place, every trainable Dense, Conv2d, Embedding and EmbeddingLookup cell of `net` (at any
        depth) by DenseThor, Conv2dThor, EmbeddingThor, EmbeddingLookupThor holding the same Parameters.

        Note:
            The optimizer `nn.thor` calls it on the network it is given.

        Args:
            net (Cell): the network to be trained by THOR.

        Raises:
            TypeError: `net` is not a Cell.
        """
        if not isinstance(net, Cell):
            raise TypeError(f"For 'convert_to_thor_net', the 'net' must be a Cell, but got {type(net).__name__}.")
        self._convert_to_thor_net(net)
