"""Lists of constants passed to a compiled function are the caller's objects (values printed by MindSpore 2.10
CPU): a returned argument list is the caller's list, an in-place update is seen by the caller, at every call."""
from mindseed import Tensor, jit


def test_a_returned_list_argument_is_the_callers_list():
    @jit
    def same(x):
        return x

    x = [1, 2, 3, 4]
    for _ in range(2):          # the trace and a cache hit
        assert same(x) is x
    t = ([1, 2, 3, 4], 2, 3)
    assert same(t)[0] is t[0]


def test_an_in_place_update_of_a_list_argument_reaches_the_caller():
    @jit
    def rev(x):
        x.reverse()
        return x

    @jit
    def insert_no_return(x):
        x.insert(0, 5)

    for _ in range(2):
        x = [1, 2, 3, 4]
        ret = rev(x)
        assert ret is x and x == [4, 3, 2, 1]
        y = [1, 2, 3]
        insert_no_return(y)
        assert y == [5, 1, 2, 3]


def test_a_list_inside_a_tuple_and_lists_of_lists():
    @jit
    def first_rev(x):
        y = x[0]
        y.reverse()
        return y

    x = ([1, 2, 3], 1)
    inner = x[0]
    assert first_rev(x) is inner and x == ([3, 2, 1], 1)

    @jit
    def outer_rev(x):
        x.reverse()
        return x

    for _ in range(2):
        a, b = [1], [2, 3]
        x = [a, b]
        assert outer_rev(x) is x
        assert x[0] is b and x[1] is a       # the inner lists moved, still the caller's objects


def test_a_list_given_a_tensor_stays_the_callers_unchanged_list():
    @jit
    def put(x, t):
        x.append(t + 1)
        return x

    x = [1, 2]
    r = put(x, Tensor(2))
    assert x == [1, 2] and r is not x
    assert r[:2] == [1, 2] and int(r[2]) == 3
