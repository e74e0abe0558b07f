"""Model internals that subclasses of Model (privacy-preserving Models) call: _check_kwargs, _parallel_mode."""
import pytest

import mindseed as ms
from mindseed.train import Model
from mindseed.train.model import ParallelMode


def test_check_kwargs_and_parallel_mode():
    model = Model(ms.nn.Dense(2, 1), loss_fn=ms.nn.MSELoss())
    model._check_kwargs({"loss_scale_manager": None, "keep_batchnorm_fp32": False})
    with pytest.raises(ValueError, match="should be 'loss_scale_manager' or 'keep_batchnorm_fp32'.*but got 'micro'"):
        model._check_kwargs({"micro": 1})
    assert model._parallel_mode == ParallelMode.STAND_ALONE == "stand_alone"
    ms.set_auto_parallel_context(parallel_mode=ParallelMode.DATA_PARALLEL)
    try:
        assert Model(ms.nn.Dense(2, 1))._parallel_mode == "data_parallel"
    finally:
        ms.reset_auto_parallel_context()
