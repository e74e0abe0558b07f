

def test_set_seed_restarts_random_and_numpy_as_mindspore():
    import random

    import numpy as np

    import mindseed as ms
    ms.set_seed(5)
    assert (random.random(), np.random.rand()) == (0.6229016948897019, 0.22199317108973948)
