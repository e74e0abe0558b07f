"""`nn.Jvp` and `nn.Vjp`: a network's forward output together with its JVP / VJP along a given vector."""
from mindseed.autograd.grad import GradOperation, jvp
from mindseed.common.tensor import Tensor
from mindseed.nn.cell import Cell

__all__ = ["Jvp", "Vjp"]


def _split_inputs(name, args):
    if len(args) < 2:
        raise TypeError(f"For '{name}', the inputs must be the network's inputs followed by the vector 'v', but got "
                        f"{len(args)} input(s).")
    return args[:-1], args[-1]


def _check_vector(name, v, count, what):
    vs = (v,) if isinstance(v, Tensor) else v
    if not isinstance(vs, (tuple, list)) or not all(isinstance(t, Tensor) for t in vs):
        raise TypeError(f"For '{name}', 'v' must be a Tensor or a tuple of Tensors, but got {type(v).__name__}.")
    if len(vs) != count:
        raise TypeError(f"For '{name}', 'v' must have one Tensor per network {what} ({count}), but got {len(vs)}.")
    if count == 1 and not isinstance(v, Tensor):
        # as MindSpore: v has the structure of the inputs (outputs), a Tensor for a single one
        raise TypeError(f"For '{name}', 'v' must be a Tensor for a network of one {what}, but got "
                        f"{type(v).__name__}.")


class Jvp(Cell):
    """Jacobian-vector product (forward-mode derivative) of the network `fn`.

    Called as `Jvp(fn)(*inputs, v)`: `v` is a Tensor (one input) or a tuple with one Tensor per input, each shaped
    like its input. Returns `(net_output, jvp)`, `jvp` shaped like the output (a tuple for a tuple output).

    >>> import mindseed as ms
    >>> from mindseed.nn.grad import Jvp
    >>> Jvp(lambda x: x ** 3)(ms.Tensor([2.0]), ms.Tensor([1.0]))[1]
    Tensor(shape=[1], dtype=Float32, value= [ 1.20000000e+01])
    """

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def construct(self, *args):
        inputs, v = _split_inputs("Jvp", args)
        _check_vector("Jvp", v, len(inputs), "input")
        return jvp(self.fn, inputs, v)


class Vjp(Cell):
    """Vector-Jacobian product (reverse-mode derivative) of the network `fn`.

    Called as `Vjp(fn)(*inputs, v)`: `v` is shaped like the network's output (a tuple for a tuple output). Returns
    `(net_output, vjp)`: `vjp` is the gradient of the one input, or a tuple with one gradient per input.
    """

    def __init__(self, fn):
        super().__init__()
        self.fn = fn
        self.grad = GradOperation(get_all=True, sens_param=True)

    def construct(self, *args):
        inputs, v = _split_inputs("Vjp", args)
        output = self.fn(*inputs)
        _check_vector("Vjp", v, len(output) if isinstance(output, tuple) else 1, "output")
        grads = self.grad(self.fn)(*inputs, v)
        return output, grads[0] if len(inputs) == 1 else grads
