"""Python objects as bytes for the object collectives (all_gather_object, broadcast_object_list, ...).

A restricted, safe codec instead of pickle: JSON with tags for what JSON lacks (tuples, bytes, non-string dict
keys, non-finite floats, complex numbers, numpy arrays and scalars, Tensors). Decoding builds only these types,
so a peer's bytes can never run code here.
"""
import base64
import json
import math

import numpy as np

from mindseed.common.tensor import Tensor

__all__ = ["encode", "decode"]


def _array(a):
    return {"shape": list(a.shape), "dtype": a.dtype.str, "data": base64.b64encode(a.tobytes()).decode()}


def _to_json(obj):
    if obj is None or isinstance(obj, (bool, str, int)):
        return obj
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else {"#": "float", "v": repr(obj)}
    if isinstance(obj, complex):
        return {"#": "complex", "v": [obj.real, obj.imag]}
    if isinstance(obj, list):
        return [_to_json(v) for v in obj]
    if isinstance(obj, tuple):
        return {"#": "tuple", "v": [_to_json(v) for v in obj]}
    if isinstance(obj, (set, frozenset)):
        return {"#": type(obj).__name__, "v": [_to_json(v) for v in obj]}
    if isinstance(obj, dict):
        return {"#": "dict", "v": [[_to_json(k), _to_json(v)] for k, v in obj.items()]}
    if isinstance(obj, (bytes, bytearray)):
        return {"#": "bytes", "v": base64.b64encode(bytes(obj)).decode()}
    if isinstance(obj, Tensor):
        return {"#": "tensor", "v": _array(obj.asnumpy())}
    if isinstance(obj, np.ndarray):
        return {"#": "ndarray", "v": _array(obj)}
    if isinstance(obj, np.generic):
        return {"#": "npscalar", "v": _array(np.asarray(obj))}
    raise TypeError(f"For the mint.distributed object collectives, objects must be built of None, bool, int, float, "
                    f"complex, str, bytes, list, tuple, set, dict, numpy arrays and Tensors, but got "
                    f"{type(obj).__name__}.")


def _from_array(d):
    a = np.frombuffer(base64.b64decode(d["data"]), dtype=np.dtype(d["dtype"])).reshape(d["shape"])
    return a.copy()


_DECODERS = {
    "float": lambda v: float(v),
    "complex": lambda v: complex(v[0], v[1]),
    "tuple": lambda v: tuple(_from_json(x) for x in v),
    "set": lambda v: {_from_json(x) for x in v},
    "frozenset": lambda v: frozenset(_from_json(x) for x in v),
    "dict": lambda v: {_from_json(k): _from_json(x) for k, x in v},
    "bytes": lambda v: base64.b64decode(v),
    "tensor": lambda v: Tensor(_from_array(v)),
    "ndarray": _from_array,
    "npscalar": lambda v: _from_array(v)[()],
}


def _from_json(obj):
    if isinstance(obj, list):
        return [_from_json(v) for v in obj]
    if isinstance(obj, dict):
        return _DECODERS[obj["#"]](obj["v"])
    return obj


def encode(obj):
    """The bytes of `obj` as a uint8 numpy array."""
    return np.frombuffer(json.dumps(_to_json(obj), separators=(",", ":")).encode(), dtype=np.uint8)


def decode(data):
    """The object of bytes made by `encode` (a uint8 numpy array)."""
    return _from_json(json.loads(np.asarray(data, dtype=np.uint8).tobytes().decode()))
