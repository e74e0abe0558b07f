"""MindPage: read the rows of MindRecord files grouped by an index field, a page at a time (`mindspore.mindrecord`)."""
import json
import os
import sqlite3

from mindseed.mindrecord import _format as F
from mindseed.mindrecord.exceptions import MRMDefineCategoryError, ParamTypeError, ParamValueError

__all__ = ["MindPage"]


class MindPage:
    """Read MindRecord files in pages of the rows that share a value of a category (index) field.

    Args:
        file_name (Union[str, list[str]]): one MindRecord file (its whole shard set is read) or a list of shards.
        num_consumer (int, optional): number of reader workers, in [1, number of CPUs]. Default: ``4``.

    Raises:
        ParamValueError: `file_name` is not a str or list of str, or `num_consumer` is not an int in range.
        RuntimeError: a file or its index is missing, truncated or corrupt.

    >>> page = MindPage("test.mindrecord")
    >>> page.category_field = "label"
    >>> info = json.loads(page.read_category_info())
    >>> rows = page.read_at_page_by_id(0, 0, 10)
    """

    def __init__(self, file_name, num_consumer=4):
        if isinstance(file_name, str):
            files = [file_name]
        elif isinstance(file_name, list) and file_name and all(isinstance(f, str) for f in file_name):
            files = list(file_name)
        else:
            raise ParamValueError(f"Parameter file_name should be a str or a list of str, but got {file_name!r}.")
        if isinstance(num_consumer, bool) or not isinstance(num_consumer, int):
            raise ParamValueError(f"Parameter num_consumer is not int, but got {type(num_consumer).__name__}.")
        if not 1 <= num_consumer <= max(os.cpu_count() or 1, 4):
            raise ParamValueError(f"Parameter num_consumer: {num_consumer} should between 1 and "
                                  f"{max(os.cpu_count() or 1, 4)}.")
        for f in files:
            if not os.path.isfile(f):
                raise RuntimeError(f"Invalid file, MindRecord file {f} does not exist.")
        self._reader = F.ShardSetReader(files, expand=isinstance(file_name, str))
        self._starts = []  # global row index of each shard's first row
        n = 0
        for k in range(len(self._reader.paths)):
            self._starts.append(n)
            n += int((self._reader.rows[:, 0] == k).sum())
        self._candidates = self._index_columns()
        self._category_field = None

    def _index_columns(self):
        con = sqlite3.connect(f"file:{self._reader.paths[0]}.db?mode=ro", uri=True)
        try:
            cols = [r[1] for r in con.execute("PRAGMA table_info(INDEXES)").fetchall()]
        finally:
            con.close()
        # ROW_ID, 7 page columns, then INC_k and <field>_0 per index field
        return [c[:c.rfind("_")] for c in cols[9::2]]

    @property
    def candidate_fields(self):
        """The fields rows can be grouped by (the index fields), list[str]."""
        return list(self._candidates)

    def get_category_fields(self):
        """The fields rows can be grouped by (same as `candidate_fields`)."""
        return self.candidate_fields

    @property
    def category_field(self):
        """The field rows are grouped by (str), or None before it is set."""
        return self._category_field

    @category_field.setter
    def category_field(self, category_field):
        if not category_field or not isinstance(category_field, str):
            raise ParamTypeError("category_fields", "str")
        if category_field not in self._candidates:
            raise MRMDefineCategoryError(f"Field '{category_field}' is not a candidate category field.")
        self._category_field = category_field

    def set_category_field(self, category_field):
        """Group rows by `category_field` (same as assigning `category_field`); returns SUCCESS (0)."""
        self.category_field = category_field
        return 0

    def _categories(self, what):
        """[(name, count)] of the category field's values, in the order of their text (as MindSpore's std::map)."""
        if self._category_field is None:
            raise RuntimeError(f"MindPage.{what}: no category field is set; assign `category_field` (one of "
                               f"{self._candidates}) first.")
        col = f"{self._category_field}_0"
        counts = {}
        for path in self._reader.paths:
            con = sqlite3.connect(f"file:{path}.db?mode=ro", uri=True)
            try:
                for name, count in con.execute(f'SELECT CAST("{col}" AS TEXT), COUNT("{col}") FROM INDEXES '
                                               f'GROUP BY "{col}"'):
                    if name is not None:
                        counts[name] = counts.get(name, 0) + count
            finally:
                con.close()
        return sorted(counts.items(), key=lambda kv: kv[0].encode("utf-8"))

    def read_category_info(self):
        """JSON text ``{"categories": [{"count": n, "id": i, "name": value}, ...], "key": "<field>_0"}``.

        Raises:
            RuntimeError: no category field is set.
        """
        cats = self._categories("read_category_info")
        return json.dumps({"categories": [{"count": c, "id": i, "name": n} for i, (n, c) in enumerate(cats)],
                           "key": f"{self._category_field}_0"}, separators=(",", ":"), ensure_ascii=False)

    def read_at_page_by_id(self, category_id, page, num_row):
        """Rows ``page * num_row`` .. ``(page + 1) * num_row - 1`` of category `category_id`, as a list of dicts.

        Raises:
            ParamValueError: an argument is not a non-negative int (`num_row`: positive).
            RuntimeError: no category field is set, or `category_id` / `page` is out of range.
        """
        if isinstance(category_id, bool) or not isinstance(category_id, int) or category_id < 0:
            raise ParamValueError("Category id should be int and greater than or equal to 0.")
        self._check_page(page, num_row)
        cats = self._categories("read_at_page_by_id")
        if category_id >= len(cats):
            raise RuntimeError(f"Invalid data, category_id: {category_id} is out of range: there are {len(cats)} "
                               f"categories of field '{self._category_field}'.")
        return self._page(cats[category_id], page, num_row)

    def read_at_page_by_name(self, category_name, page, num_row):
        """Rows ``page * num_row`` .. ``(page + 1) * num_row - 1`` of the category named `category_name`.

        Raises:
            ParamValueError: `category_name` is not a str, or `page` / `num_row` is invalid.
            RuntimeError: no category field is set, the name is not a category, or `page` is out of range.
        """
        if not isinstance(category_name, str):
            raise ParamValueError("Category name should be str.")
        self._check_page(page, num_row)
        for cat in self._categories("read_at_page_by_name"):
            if cat[0] == category_name:
                return self._page(cat, page, num_row)
        raise RuntimeError(f"Invalid data, category_name: {category_name} could not found in field "
                           f"'{self._category_field}'.")

    @staticmethod
    def _check_page(page, num_row):
        if isinstance(page, bool) or not isinstance(page, int) or page < 0:
            raise ParamValueError("Page should be int and greater than or equal to 0.")
        if isinstance(num_row, bool) or not isinstance(num_row, int) or num_row <= 0:
            raise ParamValueError("num_row should be int and greater than 0.")

    def _page(self, cat, page, num_row):
        name, count = cat
        if page * num_row >= count:
            raise RuntimeError(f"Invalid data, page no: {page} or page size: {num_row} is invalid: category "
                               f"'{name}' of field '{self._category_field}' has {count} rows.")
        col = f"{self._category_field}_0"
        wanted = []
        for k, path in enumerate(self._reader.paths):
            con = sqlite3.connect(f"file:{path}.db?mode=ro", uri=True)
            try:
                hits = con.execute(f'SELECT CAST("{col}" AS TEXT) = ? FROM INDEXES ORDER BY ROW_ID',
                                   (name,)).fetchall()
            finally:
                con.close()
            wanted.extend(self._starts[k] + pos for pos, (hit,) in enumerate(hits) if hit)
        return [F.reader_row(self._reader.schema, self._reader.read(i))
                for i in wanted[page * num_row:(page + 1) * num_row]]
