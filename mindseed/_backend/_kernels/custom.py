"""Kernel of ops.Custom(func_type="pyfunc"): a user's Python function run on numpy copies of the inputs."""
import numpy as np
import torch

from mindseed._backend._core import from_numpy, to_numpy


def _to_array(x):
    if not isinstance(x, torch.Tensor):
        return x
    if x.dtype == torch.bfloat16:
        x = x.float()
    return np.array(to_numpy(x), copy=True)  # a copy: the function may write into its arguments


def pyfunc(*xs, func, out_shapes, out_dtypes, multi, bprop=None):
    """func(*numpy arrays) -> array (or tuple of arrays when `multi`), checked against the declared shapes."""
    out = func(*[_to_array(x) for x in xs])
    if out is None and not out_shapes:  # a function run for its side effects: no outputs declared, none made
        return ()
    outs = tuple(out) if multi and isinstance(out, (tuple, list)) else (out,)
    if len(outs) != len(out_shapes):
        raise ValueError(f"For 'Custom', 'func' returned {len(outs)} outputs, but 'out_shape' declares "
                         f"{len(out_shapes)}.")
    res = []
    for i, (o, shape, dtype_name) in enumerate(zip(outs, out_shapes, out_dtypes)):
        a = np.asarray(o)
        if a.shape != shape:
            if a.size != int(np.prod(shape, dtype=np.int64)):
                raise ValueError(f"For 'Custom', the output {i} of 'func' has shape {a.shape}, but 'out_shape' is "
                                 f"{shape}.")
            a = a.reshape(shape)
        if a.dtype == object:
            raise TypeError(f"For 'Custom', the output {i} of 'func' must be a numeric array, but got "
                            f"{type(o).__name__}.")
        res.append(from_numpy(a, dtype_name))
    return tuple(res) if multi else res[0]
