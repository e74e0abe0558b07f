"""dataset.config setters check their values as MindSpore's config manager does."""
import os

import pytest

import mindseed.dataset as ds


def test_set_num_parallel_workers_bounded_by_cpu_count():
    old = ds.config.get_num_parallel_workers()
    cpus = os.cpu_count()
    with pytest.raises(RuntimeError, match=f"num_parallel_workers exceeds the boundary between 1 and {cpus}, "
                                           f"as got {cpus + 1}"):
        ds.config.set_num_parallel_workers(cpus + 1)
    assert ds.config.get_num_parallel_workers() == old
    ds.config.set_num_parallel_workers(cpus)
    assert ds.config.get_num_parallel_workers() == cpus
    with pytest.raises(ValueError, match=r"not within the required range \(0, INT32_MAX"):
        ds.config.set_num_parallel_workers(0)
    ds.config.set_num_parallel_workers(old)


@pytest.mark.parametrize("path, message", [
    ("", "The value of json_filepath cannot be the empty string."),
    ("/path/to/autotune_out.json", "Directory </path/to> does not exist."),
    ("{tmp}", "is a directory, not filename."),
    ("{tmp}/", "is a directory, not filename."),
])
def test_set_enable_autotune_checks_json_path(tmp_path, path, message):
    with pytest.raises(RuntimeError, match=message):
        ds.config.set_enable_autotune(True, path.format(tmp=tmp_path))
    assert ds.config.get_enable_autotune() is False


def test_set_enable_autotune_accepts_file_in_existing_dir(tmp_path):
    try:
        ds.config.set_enable_autotune(True, str(tmp_path / "autotune_out.json"))
        assert ds.config.get_enable_autotune() is True
        ds.config.set_enable_autotune(True)
        assert ds.config.get_enable_autotune() is True
    finally:
        ds.config.set_enable_autotune(False)
    assert ds.config.get_enable_autotune() is False
    with pytest.raises(TypeError, match="json_filepath must be a str"):
        ds.config.set_enable_autotune(True, 5)


def test_operation_workers_bounded_by_cpu_count():
    import numpy as np
    cpus = os.cpu_count()
    data = ds.NumpySlicesDataset({"x": np.arange(4)}, shuffle=False)
    for make in (lambda n: data.map(lambda x: x, input_columns="x", num_parallel_workers=n),
                 lambda n: ds.NumpySlicesDataset({"x": np.arange(4)}, num_parallel_workers=n),
                 lambda n: data.batch(2, num_parallel_workers=n)):
        for bad in (0, cpus + 1):
            with pytest.raises(ValueError, match=f"num_parallel_workers exceeds the boundary between 1 and {cpus}!"):
                make(bad)
    out = [int(r[0]) for r in data.map(lambda x: x * 2, input_columns="x", num_parallel_workers=cpus)
           .create_tuple_iterator(output_numpy=True)]
    assert out == [0, 2, 4, 6]
