"""Indexing with run-time index tensors: `x[i]` / `x[i] = v` where `i` is computed inside a compiled graph.

The index template (attribute `index`) holds `Slot(k)` where the k-th index tensor goes; the index tensors
are inputs of the node, so the compiled graph reads their values at every run instead of baking them in.
PyNative indexing keeps using getitem/setitem (the index tensors as attributes).
"""
from mindseed._backend.kernels import dyn_index as K
from mindseed.ops import _infer as I
from mindseed.ops._registry import Prim

Slot = K.Slot

getitem_dyn_p = Prim("GetitemDyn", K.getitem_dyn)
index_add_grad_dyn_p = Prim("IndexAddGradDyn", K.index_add_grad_dyn)
setitem_dyn_p = Prim("SetitemDyn", K.setitem_dyn)
setitem_zero_dyn_p = Prim("SetitemZeroDyn", K.setitem_zero_dyn)
# the index of a switch over `n` cells, checked and made non-negative each run (no bprop: an index has no gradient)
switch_index_p = Prim("SwitchLayerIndex", K.switch_index, infer=I.same)


@getitem_dyn_p.def_bprop
def _getitem_dyn_bprop(x, *rest, index):
    *idx, _out, dout = rest
    return (index_add_grad_dyn_p(dout, *idx, shape=x.shape, index=index),) + (None,) * len(idx)


@index_add_grad_dyn_p.def_bprop
def _index_add_grad_dyn_bprop(dout, *rest, shape, index):
    *idx, _out, ddout = rest
    return (getitem_dyn_p(ddout, *idx, index=index),) + (None,) * len(idx)


@setitem_dyn_p.def_bprop
def _setitem_dyn_bprop(x, value, *rest, index):
    *idx, _out, dout = rest
    dx = setitem_zero_dyn_p(dout, *idx, index=index)
    dv = getitem_dyn_p(dout, *idx, index=index) if isinstance(value, type(x)) else None
    return (dx, dv) + (None,) * len(idx)


@setitem_zero_dyn_p.def_bprop
def _setitem_zero_dyn_bprop(x, *rest, index):
    *idx, _out, dout = rest
    return (setitem_zero_dyn_p(dout, *idx, index=index),) + (None,) * len(idx)
