"""SequentialCell, CellList, CellDict."""
from collections import OrderedDict
from collections import abc

from mindseed.nn.cell import Cell

__all__ = ["SequentialCell", "CellList", "CellDict"]


def _check_cell(op, cell):
    if not isinstance(cell, Cell):
        raise TypeError(f"For '{op}', each element must be a Cell, but got {type(cell).__name__}.")
    return cell


def _check_index(op, index, n, inserting=False):
    """A list position as MindSpore checks it: an int (TypeError) in [-n, n) ([-n, n] when inserting, IndexError);
    returns it counted from the front."""
    if not isinstance(index, int) or isinstance(index, bool):
        raise TypeError(f"For '{op}', the type of 'index' must be int, but got {type(index).__name__}.")
    hi = n + 1 if inserting else n
    if not -n <= index < hi:
        close = "]" if inserting else ")"
        raise IndexError(f"For '{op}', the value of 'index' must be a number in range [{-n}, {n}{close}, "
                         f"but got {index}.")
    return index + n if index < 0 else index


class SequentialCell(Cell):
    """Cells applied in order; built from cells, a list of cells, or an OrderedDict of named cells.

    >>> import mindseed as ms
    >>> seq = ms.nn.SequentialCell(ms.nn.Dense(3, 2), ms.nn.ReLU())
    >>> len(seq)
    2
    """

    def __init__(self, *args):
        super().__init__()
        self._is_dynamic_name = []
        if len(args) == 1:
            arg = args[0]
            if isinstance(arg, OrderedDict):
                for name, cell in arg.items():
                    self._insert_child(name, _check_cell("SequentialCell", cell))
                    self._is_dynamic_name.append(False)
                self._refresh()
                return
            if isinstance(arg, list):
                args = tuple(arg)
            elif not isinstance(arg, Cell):
                raise TypeError(f"For 'SequentialCell', the input must be Cells, a list of Cells or an OrderedDict, "
                                f"but got {type(arg).__name__}.")
        for i, cell in enumerate(args):
            self._insert_child(str(i), _check_cell("SequentialCell", cell))
            self._is_dynamic_name.append(True)
        self._refresh()

    def _refresh(self):
        # MindSpore's public `cell_list`: the children in order, what construct runs (mindcv's feature wrapper reads it)
        self.__dict__["cell_list"] = [c for c in self._cells.values() if c is not None]

    def __getitem__(self, index):
        if isinstance(index, slice):
            # MindSpore keeps the children's keys (and so their parameter names) in a slice
            return SequentialCell(OrderedDict(list(self._cells.items())[index]))
        if not isinstance(index, int):
            raise TypeError(f"For 'SequentialCell', the type of 'index' must be int, but got "
                            f"{type(index).__name__}.")
        n = len(self._cells)
        if not -n <= index < n:
            raise IndexError(f"For 'SequentialCell', the value of 'index' must be a number in range [{-n}, {n}), but "
                             f"got {index}.")
        return list(self._cells.values())[index]

    def __setitem__(self, index, cell):
        key = list(self._cells.keys())[index]
        self._insert_child(key, _check_cell("SequentialCell", cell))
        self._refresh()

    def __delitem__(self, index):
        keys = list(self._cells.keys())
        for key in (keys[index] if isinstance(index, slice) else [keys[index]]):
            del self._cells[key]
            self.__dict__.pop(key, None)
        self._renumber()

    def _renumber(self):
        if all(self._is_dynamic_name[:len(self._cells)]):
            cells = list(self._cells.values())
            for key in list(self._cells):
                self.__dict__.pop(key, None)
            self._cells.clear()
            for i, c in enumerate(cells):
                self.__dict__["_cells"][str(i)] = c
                object.__setattr__(self, str(i), c)
        self._refresh()

    def __len__(self):
        return len(self._cells)

    def __iter__(self):
        return iter(self._cells.values())

    def append(self, cell):
        """Add a cell at the end."""
        self._insert_child(str(len(self._cells)), _check_cell("SequentialCell", cell))
        self._is_dynamic_name.append(True)
        self._refresh()
        return self

    def insert(self, index, cell):
        cells = list(self._cells.values())
        cells.insert(index, _check_cell("SequentialCell", cell))
        for key in list(self._cells):
            self.__dict__.pop(key, None)
        self._cells.clear()
        self._is_dynamic_name = [True] * len(cells)
        for i, c in enumerate(cells):
            self._insert_child(str(i), c)
        self._refresh()

    def construct(self, input_data):
        for cell in self.cell_list:
            input_data = cell(input_data)
        return input_data


class CellList(Cell):
    """A list of cells, registered as children (indexable, appendable). A CellDict cannot be an element."""

    def __init__(self, *args, **kwargs):
        auto_prefix, _ = kwargs.pop("auto_prefix", True), kwargs
        super().__init__(auto_prefix=auto_prefix)
        if len(args) == 1:
            self.extend(args[0])

    def __getitem__(self, index):
        if isinstance(index, slice):
            return CellList(list(self._cells.values())[index])
        if not isinstance(index, int):
            raise TypeError(f"For 'CellList', the type of 'index' must be int or slice, but got "
                            f"{type(index).__name__}.")
        return self._cells[str(_check_index("CellList", index, len(self._cells)))]

    def __setitem__(self, index, cell):
        _check_cell("CellList", cell)
        self._insert_child(str(_check_index("CellList", index, len(self._cells))), cell)

    def __delitem__(self, index):
        cells = list(self._cells.values())
        if isinstance(index, slice):
            del cells[index]
        elif isinstance(index, int):
            del cells[_check_index("CellList", index, len(cells))]
        else:
            raise TypeError(f"For 'CellList', the type of 'index' must be int or slice, but got "
                            f"{type(index).__name__}.")
        self._reset(cells)

    def _reset(self, cells):
        for key in list(self._cells):
            self.__dict__.pop(key, None)
        self._cells.clear()
        for i, c in enumerate(cells):
            self._insert_child(str(i), c)

    def __len__(self):
        return len(self._cells)

    def __iter__(self):
        return iter(self._cells.values())

    def __iadd__(self, cells):
        return self.extend(cells)

    def insert(self, index, cell):
        cells = list(self._cells.values())
        cells.insert(_check_index("CellList", index, len(cells), inserting=True), _check_element(cell))
        self._reset(cells)

    def extend(self, cells):
        if not isinstance(cells, (list, CellList)):
            raise TypeError(f"For 'CellList', the new cells wanted to append should be instance of list, but got "
                            f"{type(cells).__name__}.")
        for cell in cells:
            self.append(cell)
        return self

    def append(self, cell):
        self._insert_child(str(len(self._cells)), _check_element(cell))
        return self

    def construct(self, *inputs):
        raise AttributeError("For 'CellList', construct is not defined: call its cells.")

    def _ensemble_members(self):
        """`vmap` of a CellList maps cell i over slice i (MindSpore's model ensembling)."""
        return list(self._cells.values())


def _check_element(cell):
    """An element of a CellList: a Cell, not a CellDict."""
    if isinstance(cell, CellDict):
        raise TypeError(f"For 'CellList', the type of cell can not be CellDict, but got {type(cell).__name__}.")
    return _check_cell("CellList", cell)


class CellDict(Cell):
    """An ordered dict of named cells, registered as children."""

    def __init__(self, *args, **kwargs):
        auto_prefix = kwargs.pop("auto_prefix", True)
        super().__init__(auto_prefix=auto_prefix)
        if args:
            self.update(args[0])

    def __getitem__(self, key):
        return self._cells[key]

    def __setitem__(self, key, cell):
        if not isinstance(key, str):
            raise TypeError(f"For 'CellDict', the type of key should be string but got {type(key).__name__}.")
        if key not in self._cells and hasattr(self, key):
            raise KeyError(f"For 'CellDict', the key can not be same with the attributes of Cell, but got key {key}.")
        if "." in key or key == "":
            raise KeyError(f"For 'CellDict', a key can not be empty or contain \".\", but got key {key!r}.")
        if cell is None:
            raise TypeError("For 'CellDict', cell can not be None.")
        if isinstance(cell, (CellDict, CellList, SequentialCell)):
            raise TypeError(f"For 'CellDict', the type of cell can not be CellDict, CellList or SequentialCell, "
                            f"but got {type(cell).__name__}.")
        self._insert_child(key, _check_cell("CellDict", cell))

    def __delitem__(self, key):
        del self._cells[key]
        self.__dict__.pop(key, None)

    def __len__(self):
        return len(self._cells)

    def __iter__(self):
        return iter(self._cells)

    def __contains__(self, key):
        return key in self._cells

    def clear(self):
        for key in list(self._cells):
            del self[key]

    def pop(self, key):
        cell = self._cells[key]
        del self[key]
        return cell

    def keys(self):
        return self._cells.keys()

    def values(self):
        return self._cells.values()

    def items(self):
        return self._cells.items()

    def update(self, cells):
        if not isinstance(cells, abc.Iterable):
            raise TypeError(f"For 'CellDict', update() takes an iterable of key-value pairs or a mapping, but got "
                            f"{type(cells).__name__}.")
        if isinstance(cells, (abc.Mapping, CellDict)):
            for key, cell in cells.items():
                self[key] = cell
            return
        for i, pair in enumerate(cells):
            if not isinstance(pair, abc.Iterable):
                raise TypeError(f"For 'CellDict', update() element #{i} should be an iterable key-value pair, but "
                                f"got {type(pair).__name__}.")
            pair = tuple(pair)
            if len(pair) != 2:
                raise ValueError(f"For 'CellDict', update() element #{i} should have length 2, but has length "
                                 f"{len(pair)}.")
            self[pair[0]] = pair[1]

    def construct(self, *inputs):
        raise AttributeError("For 'CellDict', construct is not defined: call its cells.")
