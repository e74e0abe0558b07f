"""The mint optimizer classes: the experimental (torch-style) optimizers under mint's module paths."""

_CALLING = """

    Called as MindSpore's optimizers are, with the gradients of its parameters: `optimizer(grads)`. Parameter
    groups (dicts with `'params'` and any hyper-parameter) as in PyTorch; the learning rate of group `i` is the
    Parameter `param_groups[i]["lr"]`, which `mindspore.experimental.optim.lr_scheduler` schedulers update. The
    arguments and defaults are those of the signature (PyTorch's).

    >>> import mindseed as ms
    >>> from mindseed import mint
    >>> w = ms.Parameter(ms.Tensor([1.0]), name="w")
    >>> _ = mint.optim.{name}([w], lr=0.1)((ms.Tensor([1.0]),))
    >>> float(w[0]) < 1.0
    True
    """


def mint_optimizer(base, module, summary, name=None):
    """A subclass of `base` named `name` (base's name by default) in `module`, documented by `summary`."""
    name = name or base.__name__
    return type(name, (base,), {"__doc__": summary + _CALLING.format(name=name), "__module__": module,
                                "__qualname__": name})
