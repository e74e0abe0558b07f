

def test_set_seed_restarts_random_and_numpy_as_mindspore():
    import random

    import numpy as np

    import mindseed as ms
    ms.set_seed(5)
    assert (random.random(), np.random.rand()) == (0.6229016948897019, 0.22199317108973948)


def test_seed_draws_a_32_bit_seed_and_restarts_from_it():
    import numpy as np

    import mindseed as ms
    gen = ms.Generator()
    seeds = [ms.seed() for _ in range(16)] + [gen.seed() for _ in range(16)]
    assert all(isinstance(s, int) and 0 <= s < 2 ** 32 for s in seeds)
    assert len(set(seeds)) > 1 and gen.initial_seed() == seeds[-1] and ms.initial_seed() == seeds[15]
    state = gen.get_state().asnumpy()
    assert int(state[:8].view(np.int64)[0]) == seeds[-1]        # the state's head: (seed, offset)
