"""Schema (column names, types and shapes); the dataset callbacks (DSCallback, WaitedDSCallback) are re-exported
from `_callbacks`."""
import json
import os

from mindseed.common import dtype as mstype

__all__ = ["Schema", "DSCallback", "WaitedDSCallback"]

_TYPES = {"bool": mstype.bool_, "int8": mstype.int8, "int16": mstype.int16, "int32": mstype.int32,
          "int64": mstype.int64, "uint8": mstype.uint8, "uint16": mstype.uint16, "uint32": mstype.uint32,
          "uint64": mstype.uint64, "float16": mstype.float16, "float32": mstype.float32, "float64": mstype.float64,
          "string": mstype.string}


def _type_name(t):
    for k, v in _TYPES.items():
        if v == t:
            return k
    raise TypeError(f"Unsupported column type {t!r}.")


class Schema:
    """Column descriptions {name, type, shape} (from code or a JSON schema file)."""

    def __init__(self, schema_file=None):
        self.columns = []
        self.num_rows = None
        if schema_file is not None:
            if not isinstance(schema_file, str) or not os.path.isfile(schema_file):
                raise ValueError(f"The file {schema_file} does not exist or permission denied!")
            with open(schema_file, encoding="utf-8") as f:
                self.from_json(json.load(f))

    def add_column(self, name, de_type, shape=None):
        """Add a column of mindseed dtype (or type name) `de_type` and optional shape."""
        if not isinstance(name, str) or not name:
            raise TypeError("Column name should be a non-empty str.")
        if isinstance(de_type, str):
            if de_type not in _TYPES:
                raise TypeError(f"Unsupported column type {de_type!r}.")
            de_type = _TYPES[de_type]
        elif not isinstance(de_type, mstype.Type):
            de_type = mstype.pytype_to_dtype(de_type)
        col = {"name": name, "type": de_type}
        if shape is not None:
            if not isinstance(shape, list) or not all(isinstance(s, int) for s in shape):
                raise TypeError("shape should be a list of int.")
            col["shape"] = list(shape)
        self.columns.append(col)

    def parse_columns(self, columns):
        """Columns from a dict {name: {"type": ..., "shape": ...}} or a list of dicts with "name"."""
        self.columns = []
        items = columns.items() if isinstance(columns, dict) else [(c["name"], c) for c in columns]
        for name, spec in items:
            if "type" not in spec:
                raise RuntimeError(f"Column '{name}' must have a 'type' attribute.")
            self.add_column(name, spec["type"], spec.get("shape"))

    def to_json(self):
        """The schema as a JSON string."""
        cols = {c["name"]: dict({"type": _type_name(c["type"])}, **({"shape": c["shape"]} if "shape" in c else {}))
                for c in self.columns}
        out = {"columns": cols}
        if self.num_rows is not None:
            out["numRows"] = self.num_rows
        return json.dumps(out, indent=2)

    def from_json(self, json_obj):
        """Load columns (and numRows) from a parsed JSON object."""
        if "columns" not in json_obj:
            raise RuntimeError("Schema JSON must have a 'columns' entry.")
        self.parse_columns(json_obj["columns"])
        self.num_rows = json_obj.get("numRows")

    def __str__(self):
        return self.to_json()


from mindseed.dataset._callbacks import DSCallback, WaitedDSCallback  # noqa: E402  (re-exported)
