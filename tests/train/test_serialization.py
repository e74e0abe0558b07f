"""Checkpoints: MindSpore-written fixtures load bit-exactly, round trips, corrupt files, load_param_into_net."""
import io
import os
import threading

import numpy as np
import pytest

import mindseed as ms
from mindseed import _backend as B
from mindseed.nn import Cell
from mindseed.train import _ckpt_format as CF
from mindseed.train import serialization as S

FIX = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures", "ckpt")


def _bits(t):
    """Raw bytes of a Tensor as a numpy byte array (bfloat16 included)."""
    return np.frombuffer(B.bytes_of(t._data), np.uint8)


class Lin(Cell):
    def __init__(self, rs, n_in, n_out):
        super().__init__()
        self.weight = ms.Parameter(ms.Tensor(rs.standard_normal((n_out, n_in)).astype(np.float32)))
        self.bias = ms.Parameter(ms.Tensor(rs.standard_normal(n_out).astype(np.float32)))


class Small(Cell):
    def __init__(self, seed=0):
        super().__init__()
        rs = np.random.RandomState(seed)
        self.fc1 = Lin(rs, 3, 4)
        self.fc2 = Lin(rs, 4, 2)


def _snapshot(net):
    return {p.name: p.asnumpy().copy() for p in net.get_parameters()}


def _expected():
    return dict(np.load(os.path.join(FIX, "expected.npz")))


# ---------------------------------------------------------------- MindSpore fixtures
def test_oracle_net_ckpt_loads_bit_exactly():
    exp = _expected()
    for name in ("net.ckpt", "crc.ckpt"):
        # crc_check=True refuses a file without a crc (net.ckpt), which loads without it
        d = ms.train.load_checkpoint(os.path.join(FIX, name), crc_check=name == "crc.ckpt")
        assert list(d) == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
        for k, p in d.items():
            assert isinstance(p, ms.Parameter) and p.name == k
            np.testing.assert_array_equal(p.asnumpy(), exp["net/" + k])
            assert p.asnumpy().tobytes() == exp["net/" + k].tobytes()


def test_oracle_safetensors_loads_bit_exactly():
    exp = _expected()
    d = ms.train.load_checkpoint(os.path.join(FIX, "net.safetensors"), format="safetensors")
    assert sorted(d) == sorted(k[4:] for k in exp if k.startswith("net/"))
    for k, p in d.items():
        assert p.asnumpy().tobytes() == exp["net/" + k].tobytes()


def test_oracle_every_dtype_and_append_values():
    exp = _expected()
    d = ms.train.load_checkpoint(os.path.join(FIX, "dtypes.ckpt"))
    assert d["tag"] == "hello"
    want = {"f16": ms.float16, "f32": ms.float32, "f64": ms.float64, "i8": ms.int8, "i16": ms.int16,
            "i32": ms.int32, "i64": ms.int64, "u8": ms.uint8, "u16": ms.uint16, "u32": ms.uint32, "u64": ms.uint64,
            "bool": ms.bool_, "bf16": ms.bfloat16, "scalar_f32": ms.float32, "epoch_num": ms.int64,
            "lr": ms.float32, "flag": ms.bool_}
    for k, dt in want.items():
        assert d[k].dtype == dt, k
        if k == "bf16":
            assert np.array_equal(_bits(d[k]).view(np.uint16).reshape(3, 2), exp["dtypes/bf16"])
        else:
            assert d[k].shape == exp["dtypes/" + k].shape
            assert d[k].asnumpy().tobytes() == exp["dtypes/" + k].tobytes(), k


def test_mindseed_writes_the_same_bytes_as_mindspore(tmp_path):
    src = ms.train.load_checkpoint(os.path.join(FIX, "net.ckpt"))
    net = Small()
    ms.train.load_param_into_net(net, src)
    out = str(tmp_path / "same.ckpt")
    ms.train.save_checkpoint(net, out, crc_check=True)
    with open(out, "rb") as f, open(os.path.join(FIX, "crc.ckpt"), "rb") as g:
        ours, theirs = f.read(), g.read()
    # the same messages; ours opens with the marker field and so has a different CRC footer
    assert ours.startswith(CF.MARKER) and ours[len(CF.MARKER):-17] == theirs[:-17]
    assert CF.crc32(ours[:-17]) == int.from_bytes(ours[-10:], "big")


# ---------------------------------------------------------------- round trips
def _all_dtype_items():
    rs = np.random.RandomState(1)
    items = []
    for t in (np.float16, np.float32, np.float64, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
              np.uint32, np.uint64):
        items.append({"name": np.dtype(t).name, "data": ms.Tensor((rs.standard_normal((3, 2)) * 40).astype(t))})
    items.append({"name": "bool", "data": ms.Tensor(rs.standard_normal(5) > 0)})
    items.append({"name": "bf16", "data": ms.Tensor(rs.standard_normal((2, 2)).astype(np.float32), ms.bfloat16)})
    items.append({"name": "scalar", "data": ms.Tensor(np.float64(3.25))})
    items.append({"name": "empty", "data": ms.Tensor(np.zeros((0, 3), np.float32))})
    return items


@pytest.mark.parametrize("fmt", ["ckpt", "safetensors"])
def test_round_trip_every_dtype_bit_exact(tmp_path, fmt):
    items = _all_dtype_items()
    path = str(tmp_path / f"all.{fmt}")
    ms.train.save_checkpoint(items, path, format=fmt)
    d = ms.train.load_checkpoint(path, format=fmt)
    assert sorted(d) == sorted(i["name"] for i in items)
    for item in items:
        p = d[item["name"]]
        assert p.dtype == item["data"].dtype and p.shape == item["data"].shape
        assert np.array_equal(_bits(p), _bits(item["data"])), item["name"]


def test_safetensors_file_is_readable_by_the_safetensors_package(tmp_path):
    import safetensors.numpy as st
    net = Small()
    path = str(tmp_path / "n.safetensors")
    ms.train.save_checkpoint(net, path, format="safetensors", crc_check=True)
    arrays = st.load_file(path)
    for k, v in _snapshot(net).items():
        np.testing.assert_array_equal(arrays[k], v)
    assert ms.train.load_checkpoint(path, format="safetensors", crc_check=True)["fc1.bias"].shape == (4,)


def test_append_dict_and_name_suffix(tmp_path):
    net = Small()
    ms.train.save_checkpoint(net, str(tmp_path / "meta"), append_dict={"epoch_num": 3, "tag": "demo", "lr": 0.125,
                                                                         "ok": True, "t": ms.Tensor([1, 2])})
    d = ms.train.load_checkpoint(str(tmp_path / "meta.ckpt"))
    assert d["tag"] == "demo"
    assert d["epoch_num"].dtype == ms.int64 and int(d["epoch_num"].asnumpy()) == 3
    assert d["lr"].dtype == ms.float32 and float(d["lr"].asnumpy()) == 0.125
    assert d["ok"].dtype == ms.bool_ and bool(d["ok"].asnumpy())
    assert d["t"].asnumpy().tolist() == [1, 2]
    assert oct(os.stat(tmp_path / "meta.ckpt").st_mode & 0o777) == "0o400"


def test_large_values_are_sliced_and_joined(tmp_path, monkeypatch):
    monkeypatch.setattr(CF, "SLICE_BYTES", 10)
    monkeypatch.setattr(CF.encode_value, "__defaults__", (10,))
    big = ms.Tensor(np.arange(37, dtype=np.float32).reshape(37, 1))
    path = str(tmp_path / "big.ckpt")
    ms.train.save_checkpoint([{"name": "big", "data": big}, {"name": "b2", "data": ms.Tensor([1.0, 2.0])}], path)
    raw = open(path, "rb").read()
    assert raw.count(b"\n\x03big") >= 10  # one message per 10-byte slice
    d = ms.train.load_checkpoint(path)
    np.testing.assert_array_equal(d["big"].asnumpy(), big.asnumpy())
    np.testing.assert_array_equal(d["b2"].asnumpy(), [1.0, 2.0])


def test_protobuf_library_parses_our_file(tmp_path):
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
    fdp = descriptor_pb2.FileDescriptorProto(name="ckpt_test.proto", package="mstest")
    ck = fdp.message_type.add(name="Checkpoint")
    val = ck.nested_type.add(name="Value")
    L = descriptor_pb2.FieldDescriptorProto
    val.field.add(name="tag", number=1, type=L.TYPE_STRING, label=L.LABEL_REQUIRED)
    val.field.add(name="tensor", number=2, type=L.TYPE_MESSAGE, label=L.LABEL_OPTIONAL, type_name=".mstest.TensorProto")
    ck.field.add(name="value", number=1, type=L.TYPE_MESSAGE, label=L.LABEL_REPEATED,
                 type_name=".mstest.Checkpoint.Value")
    tp = fdp.message_type.add(name="TensorProto")
    tp.field.add(name="dims", number=1, type=L.TYPE_INT64, label=L.LABEL_REPEATED)
    tp.field.add(name="tensor_type", number=2, type=L.TYPE_STRING, label=L.LABEL_REQUIRED)
    tp.field.add(name="tensor_content", number=3, type=L.TYPE_BYTES, label=L.LABEL_REQUIRED)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fdp)
    Checkpoint = message_factory.GetMessageClass(pool.FindMessageTypeByName("mstest.Checkpoint"))
    path = str(tmp_path / "p.ckpt")
    ms.train.save_checkpoint(Small(), path)
    raw = open(path, "rb").read()[:-17]  # without the crc footer (the marker field is an unknown field)
    msg = Checkpoint.FromString(raw)
    assert [v.tag for v in msg.value] == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    assert list(msg.value[0].tensor.dims) == [4, 3] and msg.value[0].tensor.tensor_type == "Float32"


# ---------------------------------------------------------------- corrupt files never touch the net
def _cut_copies(src, tmp_path, offsets):
    raw = open(src, "rb").read()
    for off in offsets:
        path = tmp_path / f"cut_{off}.ckpt"
        path.write_bytes(raw[:off])
        yield str(path)


def test_truncated_mindseed_file_is_rejected_and_net_unchanged(tmp_path):
    src = str(tmp_path / "good.ckpt")
    ms.train.save_checkpoint(Small(seed=1), src)
    size = os.path.getsize(src)
    rs = np.random.RandomState(7)
    offsets = sorted(set(rs.randint(1, size, 10).tolist()) | {size - 1, size - 17, 0})
    for path in _cut_copies(src, tmp_path, offsets):
        net = Small(seed=2)
        before = _snapshot(net)
        with pytest.raises(ValueError, match=r"checkpoint file|empty|crc") as info:
            ms.train.load_checkpoint(path, net=net)
        assert os.path.basename(path) in str(info.value) or "empty" in str(info.value)
        after = _snapshot(net)
        assert all(np.array_equal(before[k], after[k]) for k in before)


def test_flipped_bytes_are_rejected(tmp_path):
    src = str(tmp_path / "good.ckpt")
    ms.train.save_checkpoint(Small(seed=1), src)
    raw = bytearray(open(src, "rb").read())
    for pos in (5, 30, len(raw) // 2, len(raw) - 20, len(raw) - 3):
        bad = bytearray(raw)
        bad[pos] ^= 0x5A
        path = tmp_path / f"flip_{pos}.ckpt"
        path.write_bytes(bytes(bad))
        net = Small(seed=2)
        before = _snapshot(net)
        with pytest.raises(ValueError, match=f"flip_{pos}.ckpt"):
            ms.train.load_checkpoint(str(path), net=net)
        assert all(np.array_equal(v, _snapshot(net)[k]) for k, v in before.items())


def test_truncated_oracle_file_without_crc_is_rejected(tmp_path):
    raw = open(os.path.join(FIX, "dtypes.ckpt"), "rb").read()
    rs = np.random.RandomState(3)
    boundaries = _message_boundaries(raw)
    cuts = [c for c in rs.randint(1, len(raw), 40).tolist() if c not in boundaries][:10]
    for path in _cut_copies(os.path.join(FIX, "dtypes.ckpt"), tmp_path, cuts):
        with pytest.raises(ValueError, match="corrupted"):
            ms.train.load_checkpoint(path)


def _message_boundaries(raw):
    from mindseed.train import _wire as W
    out, pos = {0}, 0
    for _, _, span in W.fields(raw):
        pos = span[1]
        out.add(pos)
    return out


def test_corrupt_safetensors_is_rejected(tmp_path):
    src = str(tmp_path / "g.safetensors")
    ms.train.save_checkpoint(Small(), src, format="safetensors")
    raw = open(src, "rb").read()
    for off in (3, 20, len(raw) - 1):
        p = tmp_path / f"c{off}.safetensors"
        p.write_bytes(raw[:off])
        with pytest.raises(ValueError, match=f"c{off}.safetensors"):
            ms.train.load_checkpoint(str(p), format="safetensors")


def test_shape_mismatch_leaves_every_parameter_unchanged():
    params = {"fc1.weight": ms.Parameter(ms.Tensor(np.ones((4, 3), np.float32)), name="fc1.weight"),
              "fc2.weight": ms.Parameter(ms.Tensor(np.ones((5, 4), np.float32)), name="fc2.weight")}
    net = Small()
    before = _snapshot(net)
    with pytest.raises(RuntimeError, match="fc2.weight in the argument 'net' should have the same shape"):
        ms.train.load_param_into_net(net, params)
    assert all(np.array_equal(v, _snapshot(net)[k]) for k, v in before.items())


# ---------------------------------------------------------------- load_param_into_net semantics
def test_load_param_into_net_results_and_copy():
    src = Small(seed=3)
    d = {p.name: ms.Parameter(p.copy(), name=p.name) for p in src.get_parameters()}
    d.pop("fc2.bias")
    d["extra"] = ms.Parameter(ms.Tensor([1.0]), name="extra")
    d["note"] = "text"
    net = Small(seed=4)
    assert ms.train.load_param_into_net(net, d) == (["fc2.bias"], ["extra", "note"])
    np.testing.assert_array_equal(net.fc1.weight.asnumpy(), src.fc1.weight.asnumpy())
    d["fc1.weight"].set_data(ms.Tensor(np.zeros((4, 3), np.float32)))
    assert net.fc1.weight.asnumpy().any()  # the net got its own copy


def test_load_param_into_net_dtype_conversion_and_strict():
    d = {"fc1.bias": ms.Parameter(ms.Tensor(np.arange(4, dtype=np.float16)), name="fc1.bias")}
    net = Small()
    ms.train.load_param_into_net(net, d)
    assert net.fc1.bias.dtype == ms.float32
    np.testing.assert_array_equal(net.fc1.bias.asnumpy(), [0, 1, 2, 3])
    with pytest.raises(RuntimeError, match="same type"):
        ms.train.load_param_into_net(Small(), d, strict_load=True)
    with pytest.raises(RuntimeError, match="same type"):
        ms.train.load_param_into_net(Small(), {"fc1.bias": ms.Parameter(ms.Tensor([1, 2, 3, 4], ms.int32))})


def test_load_param_into_net_prefix_fallback_and_trailing_ones():
    src = Small(seed=5)
    d = {"net." + p.name: ms.Parameter(p.copy(), name="net." + p.name) for p in src.get_parameters()}
    net = Small(seed=6)
    assert ms.train.load_param_into_net(net, d)[0] == []
    np.testing.assert_array_equal(net.fc2.bias.asnumpy(), src.fc2.bias.asnumpy())
    d2 = {"fc1.bias": ms.Parameter(ms.Tensor(np.ones((4, 1, 1), np.float32)), name="fc1.bias")}
    ms.train.load_param_into_net(net, d2)
    np.testing.assert_array_equal(net.fc1.bias.asnumpy(), np.ones(4))


def test_load_param_into_net_bad_arguments():
    with pytest.raises(TypeError, match="'net' should be a Cell"):
        ms.train.load_param_into_net(object(), {})
    with pytest.raises(TypeError, match="should be a 'str' and 'Parameter'"):
        ms.train.load_param_into_net(Small(), {"a": ms.Tensor(1)})
    with pytest.raises(TypeError, match="stand_alone"):
        ms.train.load_param_into_net(Small(), {}, remove_redundancy=True)


# ---------------------------------------------------------------- filters and arguments
def test_prefix_and_choice_filters(tmp_path):
    path = str(tmp_path / "f.ckpt")
    ms.train.save_checkpoint(Small(), path, choice_func=lambda n: n != "fc2.bias")
    assert sorted(ms.train.load_checkpoint(path)) == ["fc1.bias", "fc1.weight", "fc2.weight"]
    assert sorted(ms.train.load_checkpoint(path, specify_prefix="fc2")) == ["fc2.weight"]
    assert sorted(ms.train.load_checkpoint(path, filter_prefix=["fc1"])) == ["fc2.weight"]
    assert sorted(ms.train.load_checkpoint(path, choice_func=lambda n: n.endswith("bias"))) == ["fc1.bias"]
    with pytest.raises(ValueError, match="empty after filter"):
        ms.train.load_checkpoint(path, specify_prefix="zzz")
    with pytest.raises(TypeError, match="specify_prefix"):
        ms.train.load_checkpoint(path, specify_prefix=3)


def test_save_from_list_dict_and_parameter_list(tmp_path):
    net = Small()
    ms.train.save_checkpoint(net.trainable_params(), str(tmp_path / "a.ckpt"))
    d = ms.train.load_checkpoint(str(tmp_path / "a.ckpt"))
    ms.train.save_checkpoint(d, str(tmp_path / "b.ckpt"))
    d2 = ms.train.load_checkpoint(str(tmp_path / "b.ckpt"))
    assert list(d2) == list(d)
    for k in d:
        np.testing.assert_array_equal(d[k].asnumpy(), d2[k].asnumpy())


def test_save_and_load_argument_errors(tmp_path):
    net = Small()
    p = str(tmp_path / "x.ckpt")
    with pytest.raises(TypeError, match="must be a bool"):
        ms.train.save_checkpoint(net, p, integrated_save=1)
    with pytest.raises(ValueError, match="enc_key"):
        ms.train.save_checkpoint(net, p, enc_key="x")
    with pytest.raises(TypeError, match="async_save"):
        ms.train.save_checkpoint(net, p, async_save=1)
    with pytest.raises(ValueError, match="async_save"):
        ms.train.save_checkpoint(net, p, async_save="x")
    with pytest.raises(TypeError, match="append_info"):
        ms.train.save_checkpoint(net, p, append_dict={"a": [1]})
    with pytest.raises(ValueError, match="format"):
        ms.train.save_checkpoint(net, p, format="pt")
    with pytest.raises(TypeError, match="save_obj"):
        ms.train.save_checkpoint(3, p)
    with pytest.raises(IsADirectoryError):
        ms.train.save_checkpoint(net, str(tmp_path))
    with pytest.raises(ValueError, match="does not exist"):
        ms.train.load_checkpoint(str(tmp_path / "none.ckpt"))
    with pytest.raises(ValueError, match="format must same"):
        ms.train.load_checkpoint(str(tmp_path / "none.bin"))
    with pytest.raises(TypeError, match="BytesIO"):
        ms.train.load_checkpoint(io.BytesIO(b""))


def test_bytesio_safetensors(tmp_path):
    p = str(tmp_path / "n.safetensors")
    ms.train.save_checkpoint(Small(), p, format="safetensors")
    d = ms.train.load_checkpoint(io.BytesIO(open(p, "rb").read()), format="safetensors")
    assert sorted(d) == ["fc1.bias", "fc1.weight", "fc2.bias", "fc2.weight"]


# ---------------------------------------------------------------- atomicity, async, conversion
def test_crash_mid_save_keeps_the_old_file(tmp_path, monkeypatch):
    p = str(tmp_path / "keep.ckpt")
    ms.train.save_checkpoint(Small(seed=1), p)
    old = open(p, "rb").read()

    def exploding(records):
        yield b"\x0a\x03abc"
        raise OSError("disk full")

    monkeypatch.setattr(S, "_ckpt_chunks", exploding)
    with pytest.raises(OSError, match="disk full"):
        ms.train.save_checkpoint(Small(seed=2), p)
    assert open(p, "rb").read() == old
    assert os.listdir(tmp_path) == ["keep.ckpt"]


def test_async_save_captures_values_at_call_time(tmp_path):
    net = Small(seed=1)
    expect = _snapshot(net)
    p = str(tmp_path / "async.ckpt")
    ms.train.save_checkpoint(net, p, async_save=True)
    net.fc1.weight.set_data(ms.Tensor(np.zeros((4, 3), np.float32)))
    for t in threading.enumerate():
        if t.name == "asyn_save_ckpt":
            t.join()
    assert not ms.train.async_ckpt_thread_status()
    d = ms.train.load_checkpoint(p)
    np.testing.assert_array_equal(d["fc1.weight"].asnumpy(), expect["fc1.weight"])


def test_load_checkpoint_async(tmp_path):
    p = str(tmp_path / "a.ckpt")
    ms.train.save_checkpoint(Small(seed=1), p)
    fut = ms.train.load_checkpoint_async(p)
    assert sorted(fut.result()) == ["fc1.bias", "fc1.weight", "fc2.bias", "fc2.weight"]


def test_ckpt_safetensors_conversion(tmp_path):
    net = Small(seed=1)
    src = tmp_path / "src"
    (src / "rank_0").mkdir(parents=True)
    ms.train.save_checkpoint(net, str(src / "rank_0" / "m.ckpt"))
    ms.train.ckpt_to_safetensors(str(src / "rank_0" / "m.ckpt"), str(tmp_path / "out"), name_map={"fc1.bias": "b1"})
    d = ms.train.load_checkpoint(str(tmp_path / "out" / "m.safetensors"), format="safetensors")
    np.testing.assert_array_equal(d["b1"].asnumpy(), net.fc1.bias.asnumpy())
    ms.train.ckpt_to_safetensors(str(src), str(tmp_path / "dirout"))
    assert os.listdir(tmp_path / "dirout" / "rank_0") == ["m.safetensors"]
    ms.train.safetensors_to_ckpt(str(tmp_path / "out" / "m.safetensors"), str(tmp_path / "back"))
    d2 = ms.train.load_checkpoint(str(tmp_path / "back" / "m.ckpt"))
    np.testing.assert_array_equal(d2["fc2.weight"].asnumpy(), net.fc2.weight.asnumpy())
    (tmp_path / "m.bin").write_bytes(b"x")
    with pytest.raises(ValueError, match="must be a .ckpt file"):
        ms.train.ckpt_to_safetensors(str(tmp_path / "m.bin"))


def test_export_and_load_through_the_serialization_module(tmp_path):
    """MindSpore's train.serialization also holds export/load and the distributed-checkpoint functions."""
    import importlib  # noqa: PLC0415
    E = importlib.import_module("mindseed.export")
    C = importlib.import_module("mindseed.parallel.checkpoint_transform")
    assert S.export is E.export and S.load is E.load and S.merge_sliced_parameter is C.merge_sliced_parameter
    net = ms.nn.Dense(3, 2)
    x = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    S.export(net, x, file_name=str(tmp_path / "dense"), file_format="MINDIR")
    graph = ms.nn.GraphCell(S.load(str(tmp_path / "dense.mindir")))
    np.testing.assert_allclose(graph(x).asnumpy(), net(x).asnumpy(), rtol=1e-6)
    with pytest.raises(AttributeError, match="has no attribute 'no_such_function'"):
        S.no_such_function  # noqa: B018
