"""obfuscate_ckpt / load_obf_params_into_net against checkpoints real MindSpore 2.10 obfuscated (tests/fixtures/obf)."""
import os
import shutil
import sys

import numpy as np
import pytest

import mindseed as ms

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures", "obf")
sys.path.insert(0, FIXTURES)
from obf_net import OBF_CONFIG, SEED, TARGET_MODULES, build, net_input  # noqa: E402

EXPECTED = dict(np.load(os.path.join(FIXTURES, "expected.npz")))
CASES = {"cfg": {"obf_config": OBF_CONFIG}, "tm": {"target_modules": TARGET_MODULES}}


def _values(path):
    return {k: v.asnumpy() for k, v in ms.load_checkpoint(path).items()}


@pytest.fixture
def plain_dir(tmp_path):
    d = tmp_path / "plain"
    d.mkdir()
    shutil.copy(os.path.join(FIXTURES, "plain", "net.ckpt"), d / "net.ckpt")
    os.chmod(d / "net.ckpt", 0o600)
    return str(d)


@pytest.mark.parametrize("tag", sorted(CASES))
def test_obfuscate_ckpt_equals_mindspore_file_and_metadata(tag, plain_dir, tmp_path):
    net = build(ms)     # before seeding, as the fixtures were made: its initializers draw seeds from numpy
    np.random.seed(SEED)
    saved = ms.obfuscate_ckpt(net, plain_dir, saved_path=str(tmp_path), **CASES[tag])
    want_meta = {k[len(tag) + 1:]: v for k, v in EXPECTED.items() if k.startswith(tag + "_")}
    assert sorted(saved) == sorted(want_meta)
    for name, value in saved.items():
        assert value.dtype == want_meta[name].dtype
        np.testing.assert_array_equal(value, want_meta[name])
    ours, theirs = _values(str(tmp_path / "net_obf.ckpt")), _values(os.path.join(FIXTURES, tag, "net_obf.ckpt"))
    assert sorted(ours) == sorted(theirs)
    for name in ours:
        np.testing.assert_array_equal(ours[name], theirs[name])


@pytest.mark.parametrize("tag", sorted(CASES))
def test_mindspore_obfuscated_ckpt_runs_with_mindspore_outputs(tag):
    net = build(ms)
    ms.load_checkpoint(os.path.join(FIXTURES, tag, "net_obf.ckpt"), net)
    obf_net = ms.load_obf_params_into_net(net, **CASES[tag])
    assert obf_net is net
    np.testing.assert_allclose(obf_net(ms.Tensor(net_input())).asnumpy(), EXPECTED[f"out_{tag}"], rtol=1e-5)


def test_obfuscated_weights_follow_numpy(plain_dir, tmp_path):
    plain = _values(os.path.join(plain_dir, "net.ckpt"))
    np.random.seed(SEED)
    scale = np.random.randint(1, 100, size=[3, 1]).astype(np.float16)
    perm_matrix = np.identity(3)[:, np.random.permutation(3)]
    perm = np.random.permutation(3)
    net = build(ms)
    np.random.seed(SEED)
    saved = ms.obfuscate_ckpt(net, plain_dir, obf_config=OBF_CONFIG, saved_path=str(tmp_path))
    obf = _values(str(tmp_path / "net_obf.ckpt"))
    np.testing.assert_array_equal(saved["obf_metadata_s"], (1 / scale.astype(np.float32)).astype(np.float16))
    np.testing.assert_array_equal(obf["body.fc1.weight"], plain["body.fc1.weight"] * scale.astype(np.float32))
    np.testing.assert_allclose(obf["body.fc2.weight"], plain["body.fc2.weight"] @ perm_matrix, rtol=1e-6)
    np.testing.assert_array_equal(obf["body.fc2.bias"], plain["body.fc2.bias"][perm])
    np.testing.assert_array_equal(obf["body.fc1.bias"], plain["body.fc1.bias"])


def test_obfuscate_ckpt_subdirectories_and_scale(plain_dir, tmp_path):
    os.makedirs(os.path.join(plain_dir, "rank_0"))
    shutil.copy(os.path.join(plain_dir, "net.ckpt"), os.path.join(plain_dir, "rank_0", "r.ckpt"))
    open(os.path.join(plain_dir, "notes.txt"), "w").close()
    out = tmp_path / "out"
    out.mkdir()
    np.random.seed(0)
    saved = ms.obfuscate_ckpt(build(ms), plain_dir, target_modules=TARGET_MODULES, saved_path=str(out),
                              obfuscate_scale=3)
    assert sorted(os.listdir(out)) == ["net_obf.ckpt", "rank_0"]
    assert os.listdir(out / "rank_0") == ["r_obf.ckpt"]
    ratio = 1 / saved["obf_metadata"].astype(np.float32)
    assert ratio.round() in (1.0, 2.0)
    plain = _values(os.path.join(plain_dir, "net.ckpt"))
    for path in (out / "net_obf.ckpt", out / "rank_0" / "r_obf.ckpt"):
        obf = _values(str(path))
        for name in plain:
            np.testing.assert_allclose(obf[name], plain[name] * ratio.round(), rtol=1e-6)


def test_obfuscate_ckpt_layered_targets_fail_as_in_mindspore(plain_dir, tmp_path):
    # MindSpore's layered config reads 'obf_metadata_<layer>' but draws only 'obf_metadata': nothing is written
    saved = ms.obfuscate_ckpt(build(ms), plain_dir, target_modules=TARGET_MODULES + ["obfuscate_layers:2"],
                              saved_path=str(tmp_path))
    assert list(saved) == ["obf_metadata"]
    assert not os.path.exists(tmp_path / "net_obf.ckpt")


@pytest.mark.parametrize("kwargs, err, match", [
    ({"network": 1}, TypeError, "network must be nn.Cell"),
    ({"ckpt_files": 3}, TypeError, "ckpt_files must be string"),
    ({"ckpt_files": "/nonexistent/dir"}, ValueError, "is not exist"),
    ({"target_modules": "body"}, TypeError, "target_modules type should be list"),
    ({"target_modules": ["body"]}, ValueError, "at least two string values"),
    ({"target_modules": ["bo-dy", "fc1"]}, ValueError, "can only contain"),
    ({"target_modules": ["body", ""]}, ValueError, "non-empty string"),
    ({"target_modules": ["nope", "fc1"]}, ValueError, "does not exist"),
    ({"target_modules": ["body", "fc9"]}, ValueError, "all targets"),
    ({"target_modules": ["body", "fc1", "layers:2"]}, ValueError, "obfuscate_layers"),
    ({"obf_config": []}, TypeError, "obf_config type should be dict"),
    ({"obf_config": {}}, ValueError, "'obf_config' is empty"),
    ({"obf_config": {"bad": []}}, TypeError, "config_type must be str"),
    ({"obf_config": {"obf_metadata_config": [{"name": "a", "shape": [1], "type": "gauss"}],
                     "weight_obf_config": []}}, TypeError, "'type'"),
    ({"obf_config": {"obf_metadata_config": [], "weight_obf_config": [{"target": "a", "weight_obf_ops": [
        {"name": "mul", "input_x": "w", "input_y": 1}]}]}}, TypeError, "input_y_name type should be str"),
    ({"obf_config": {"obf_metadata_config": [], "weight_obf_config": [{"target": "a", "layers": "", "weight_obf_ops": [
        {"name": "mul", "input_x": "w", "input_y": "m"}]}]}}, TypeError,
     r"obf_config\[\]\[\]\['layers'\] type should be list, but got <class 'str'>"),
    ({"obf_config": {"obf_metadata_config": [], "weight_obf_config": [{"target": "a", "layers": [1, "2"],
                                                                       "weight_obf_ops": [
        {"name": "mul", "input_x": "w", "input_y": "m"}]}]}}, TypeError,
     r"obf_config\[\]\[\]\['layers'\]\[\] type should be int, but got <class 'str'>"),
    ({"obfuscate_scale": 1}, ValueError, "obfuscate_scale must be float or int, and larger than 1"),
])
def test_obfuscate_ckpt_bad_input(kwargs, err, match, plain_dir, tmp_path):
    args = {"network": build(ms), "ckpt_files": plain_dir, "saved_path": str(tmp_path), "obf_config": OBF_CONFIG}
    if "target_modules" in kwargs:
        args.pop("obf_config")
    args.update(kwargs)
    with pytest.raises(err, match=match):
        ms.obfuscate_ckpt(**args)


@pytest.mark.parametrize("kwargs, err, match", [
    ({"network": None}, TypeError, "network must be nn.Cell"),
    ({"data_parallel_num": 0}, ValueError, "data_parallel_num must be positive"),
    ({"obf_config": {"network_obf_config": [{"target": "fc1"}]}}, TypeError, "'module'"),
])
def test_load_obf_params_into_net_bad_input(kwargs, err, match):
    args = {"network": build(ms), "obf_config": OBF_CONFIG}
    args.update(kwargs)
    with pytest.raises(err, match=match):
        ms.load_obf_params_into_net(**args)
