"""Cell.state_dict / load_state_dict (parameters and persistent buffers, extra state, strictness) and their hooks."""
import os

import numpy as np
import pytest

import mindseed as ms
from mindseed import nn
from mindseed.common.parameter import _Buffer


def _t(*v):
    return ms.Tensor(np.array(v, np.float32))


class _Inner(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(_t(1, 2), name="w")
        self.mean = _Buffer(_t(3, 4))
        self.register_buffer("scratch", _t(0, 0), persistent=False)


class _Outer(nn.Cell):
    def __init__(self):
        super().__init__()
        self.b = ms.Parameter(_t(5), name="b")
        self.inner = _Inner()


def test_state_dict_names_parameters_and_persistent_buffers():
    sd = _Outer().state_dict()
    assert list(sd) == ["b", "inner.w", "inner.mean"]
    assert isinstance(sd["inner.w"], ms.Parameter) and sd["inner.mean"].asnumpy().tolist() == [3.0, 4.0]
    assert list(_Outer().state_dict(prefix="net.")) == ["net.b", "net.inner.w", "net.inner.mean"]
    with pytest.raises(TypeError, match="prefix must be string"):
        _Outer().state_dict(prefix=1)


def test_load_state_dict_copies_values_and_reports_keys(tmp_path):
    src = _Outer()
    src.inner.w.set_data(_t(7, 8))
    path = os.path.join(str(tmp_path), "sd.ckpt")
    ms.save_checkpoint(src.state_dict(), path)
    dst = _Outer()
    keys = dst.load_state_dict(ms.load_checkpoint(path))
    assert keys.missing_keys == [] and keys.unexpected_keys == []
    np.testing.assert_array_equal(dst.inner.w.asnumpy(), [7, 8])
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "inner.mean"'):
        _Outer().load_state_dict({"b": _t(1), "inner.w": _t(1, 1)})
    with pytest.raises(RuntimeError, match='Unexpected key\\(s\\) in state_dict: "c"'):
        _Outer().load_state_dict({**_Outer().state_dict(), "c": _t(1)})
    with pytest.raises(RuntimeError, match="size mismatch for b"):
        _Outer().load_state_dict({**_Outer().state_dict(), "b": _t(1, 2)})
    loose = _Outer().load_state_dict({"b": _t(9)}, strict=False)
    assert loose.unexpected_keys == []
    with pytest.raises(TypeError, match="dict-like"):
        _Outer().load_state_dict([1])


def test_extra_state_and_hooks():
    class WithExtra(_Inner):
        def get_extra_state(self):
            return {"step": 3}

        def set_extra_state(self, state):
            self.step = state["step"]

    calls = []
    src = WithExtra()
    h = src.register_state_dict_pre_hook(lambda cell, prefix, keep: calls.append(("pre", prefix)))
    src.register_state_dict_post_hook(lambda cell, sd, prefix, meta: calls.append(("post", list(sd))))
    sd = src.state_dict()
    assert sd["_extra_state"] == {"step": 3}
    assert calls == [("pre", ""), ("post", ["w", "mean", "_extra_state"])]
    h.remove()
    dst = WithExtra()
    dst.register_load_state_dict_pre_hook(lambda cell, sd, prefix, *rest: calls.append(("load-pre", prefix)))
    dst.register_load_state_dict_post_hook(lambda cell, keys: calls.append(("load-post", list(keys.missing_keys))))
    dst.load_state_dict(sd)
    assert dst.step == 3 and calls[-2:] == [("load-pre", ""), ("load-post", [])]
