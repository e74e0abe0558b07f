"""serialize / deserialize / show / compare: a pipeline as a JSON-able dict, in MindSpore's layout.

Each node is {"op_type": ..., "num_parallel_workers": ..., "children": [...], <its arguments>}: a source's
op_type is its class name and its arguments are its constructor's (read back from the object); the operations
are "Map", "Batch", "Shuffle", "Repeat", "Take", "Skip", "Project", "Rename", "Zip" and "Concat". A map's
transforms are {"tensor_op_name": <class>, "tensor_op_params": {<constructor arguments>}}; a Python function
is {"python_module": <module>, "tensor_op_name": <name>} as MindSpore writes it, and, as in MindSpore, cannot be
rebuilt by `deserialize` (nor can a GeneratorDataset/NumpySlicesDataset, whose data lives in Python objects).
"""
import enum
import inspect
import json
import logging

import numpy as np

from mindseed.dataset import _validate as V

__all__ = ["serialize", "deserialize", "show", "compare"]

_SKIP = {"self", "cache", "sampler", "kwargs", "args", "callbacks", "per_batch_map"}
_NOT_REBUILDABLE = {"GeneratorDataset", "NumpySlicesDataset", "PaddedDataset"}


def _jsonable(v):
    if isinstance(v, enum.Enum):
        return v.value
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    raise TypeError(type(v).__name__)


def _ctor_args(obj):
    """{name: JSON value} of obj's constructor arguments that it keeps as attributes (name, name_flag, name_mode)."""
    out = {}
    for name in inspect.signature(type(obj).__init__).parameters:
        if name in _SKIP:
            continue
        for attr in (name, name + "_flag", name + "_mode"):
            if attr in vars(obj):
                value = vars(obj)[attr]
                if attr.endswith("_mode") and value is None:
                    value = False  # a mode of None is the argument False (e.g. a text source's shuffle)
                try:
                    out[name] = _jsonable(value)
                except TypeError:
                    pass
                break
    return out


def _op_json(op):
    from mindseed.dataset.transforms._base import TensorOperation
    if isinstance(op, TensorOperation):
        return {"tensor_op_name": type(op).__name__, "tensor_op_params": _ctor_args(op) or None}
    return {"python_module": getattr(op, "__module__", None) or type(op).__module__,
            "tensor_op_name": getattr(op, "__name__", type(op).__name__)}


def _node(d):
    from mindseed.dataset import _batch_ops as B
    from mindseed.dataset import _ops as O
    cols = lambda v: list(v) if v else []  # noqa: E731
    node = {"num_parallel_workers": d.num_parallel_workers, "children": [_node(c) for c in d.children]}
    if isinstance(d, O.MapDataset):
        node.update(op_type="Map", operations=[_op_json(op) for op in d.operations],
                    input_columns=cols(d.input_columns), output_columns=cols(d.output_columns), callback=[])
    elif isinstance(d, B._Batch):
        node.update(op_type="Batch", batch_size=d.batch_size, drop_remainder=bool(d.drop_remainder),
                    input_columns=cols(d.input_columns), output_columns=cols(d.output_columns))
    elif isinstance(d, O.ShuffleDataset):
        node.update(op_type="Shuffle", buffer_size=d.buffer_size, reshuffle_each_epoch=d.reshuffle_each_epoch)
    elif isinstance(d, (O.RepeatDataset, O.TakeDataset, O.SkipDataset)):
        node.update(op_type=type(d).__name__[:-len("Dataset")], count=d.count)
    elif isinstance(d, O.ProjectDataset):
        node.update(op_type="Project", columns=list(d.columns))
    elif isinstance(d, O.RenameDataset):
        node.update(op_type="Rename", input_columns=list(d.input_columns), output_columns=list(d.output_columns))
    elif isinstance(d, (O.ZipDataset, O.ConcatDataset)):
        node.update(op_type=type(d).__name__[:-len("Dataset")])
    elif not d.children:
        node.update(op_type=type(d).__name__, **_ctor_args(d))
    else:
        raise RuntimeError(f"serialize: the {type(d).__name__} node has no JSON form.")
    return node


def serialize(dataset, json_filepath=""):
    """The pipeline ending at `dataset` as a dict (also written to `json_filepath` when given)."""
    from mindseed.dataset._engine import Dataset
    if not isinstance(dataset, Dataset):
        raise TypeError(f"serialize: dataset should be a Dataset, but got {type(dataset).__name__}.")
    if not isinstance(json_filepath, str):
        raise TypeError(f"Argument json_filepath with value {json_filepath!r} is not of type [<class 'str'>].")
    tree = _node(dataset)
    if json_filepath:
        with open(json_filepath, "w", encoding="utf-8") as f:
            json.dump(tree, f, indent=2)
    return tree


def _find_transform(name):
    from mindseed.dataset import audio, text, transforms, vision
    for mod in (vision, text, audio, transforms):
        cls = getattr(mod, name, None)
        if isinstance(cls, type):
            return cls
    raise RuntimeError(f"deserialize: unknown transform {name!r}.")


def _call(cls, params, who):
    """cls(**params), turning JSON values back into the enums the signature's defaults are."""
    sig = inspect.signature(cls)
    kwargs = {}
    for k, v in (params or {}).items():
        if k not in sig.parameters:
            continue
        default = sig.parameters[k].default
        if isinstance(default, enum.Enum) and not isinstance(v, (enum.Enum, bool)) and v is not None:
            v = type(default)(v)
        elif isinstance(default, tuple) and isinstance(v, list):
            v = tuple(v)
        kwargs[k] = v
    try:
        return cls(**kwargs)
    except TypeError as e:
        raise RuntimeError(f"deserialize: cannot rebuild {who} from {params}: {e}") from None


def _build_op(spec):
    if "python_module" in spec:
        raise RuntimeError(f"deserialize: the Python function {spec.get('tensor_op_name')!r} of module "
                           f"{spec['python_module']!r} is not serialized and cannot be rebuilt.")
    return _call(_find_transform(spec["tensor_op_name"]), spec.get("tensor_op_params"), spec["tensor_op_name"])


def _build(node):
    import mindseed.dataset as ds
    op = node.get("op_type")
    kids = [_build(c) for c in node.get("children", [])]
    workers = node.get("num_parallel_workers")
    if op == "Map":
        return kids[0].map([_build_op(s) for s in node["operations"]], input_columns=node["input_columns"] or None,
                           output_columns=node["output_columns"] or None, num_parallel_workers=workers)
    if op == "Batch":
        return kids[0].batch(node["batch_size"], drop_remainder=node["drop_remainder"], num_parallel_workers=workers)
    if op == "Shuffle":
        return kids[0].shuffle(node["buffer_size"])
    if op in ("Repeat", "Take", "Skip"):
        return getattr(kids[0], op.lower())(node["count"])
    if op == "Project":
        return kids[0].project(node["columns"])
    if op == "Rename":
        return kids[0].rename(node["input_columns"], node["output_columns"])
    if op == "Zip":
        return ds.zip(tuple(kids))
    if op == "Concat":
        return kids[0].concat(kids[1:])
    if op in _NOT_REBUILDABLE:
        raise RuntimeError(f"deserialize: a {op} holds Python data that is not serialized; it cannot be rebuilt.")
    cls = getattr(ds, str(op), None)
    if not isinstance(cls, type):
        raise RuntimeError(f"deserialize: unknown op_type {op!r}.")
    params = {k: v for k, v in node.items() if k not in ("op_type", "children")}
    return _call(cls, params, op)


def deserialize(input_dict=None, json_filepath=None):
    """The pipeline described by `input_dict` or by the JSON file `json_filepath` (see `serialize`)."""
    if (input_dict is None) == (json_filepath is None):
        raise ValueError("deserialize: exactly one of input_dict and json_filepath should be given.")
    if json_filepath is not None:
        V.check_file(json_filepath, "json_filepath")
        with open(json_filepath, encoding="utf-8") as f:
            input_dict = json.load(f)
    if not isinstance(input_dict, dict):
        raise TypeError(f"deserialize: input_dict should be a dict, but got {type(input_dict).__name__}.")
    return _build(input_dict)


def show(dataset, indentation=2):
    """Log the pipeline's JSON (logging INFO of `mindseed.dataset`)."""
    if indentation is not None and (isinstance(indentation, bool) or not isinstance(indentation, int)):
        raise TypeError(f"Argument indentation with value {indentation!r} is not of type [<class 'int'>].")
    logging.getLogger("mindseed.dataset").info(json.dumps(serialize(dataset), indent=indentation))


def compare(pipeline1, pipeline2):
    """Whether two pipelines serialize to the same JSON."""
    return serialize(pipeline1) == serialize(pipeline2)
