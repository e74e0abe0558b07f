"""Conversion interface of the second-order optimizer THOR: ConvertNetUtils (layers) and ConvertModelUtils (Model)."""
from mindseed.nn._thor_convert import ConvertNetUtils

__all__ = ["ConvertNetUtils", "ConvertModelUtils"]

_THOR_OPTIMIZERS = ("ThorAscend", "ThorGpu")


class ConvertModelUtils:
    """Convert a Model to one that trains with THOR.

    >>> import mindseed as ms
    >>> net = ms.nn.SequentialCell([ms.nn.Dense(4, 3)])
    >>> opt = ms.nn.thor(net, ms.Tensor(0.1), ms.Tensor([0.03] * 10), 0.9, frequency=2)
    >>> loss = ms.nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction='mean')
    >>> model = ms.Model(net, loss_fn=loss, optimizer=opt)
    >>> model = ms.ConvertModelUtils.convert_to_thor_model(model, network=net, loss_fn=loss, optimizer=opt)
    >>> type(model).__name__
    'ModelThor'
    """

    @staticmethod
    def convert_to_thor_model(model, network, loss_fn=None, optimizer=None, metrics=None, amp_level="O0",
                              loss_scale_manager=None, keep_batchnorm_fp32=False):
        """A `ModelThor` training `network` with the THOR optimizer `optimizer`: its `train` refreshes the
        second-order matrices on one step in every `optimizer.get_frequency()` and reuses them in between.
        With another optimizer `model` is returned unchanged (as MindSpore).

        Args:
            model (Model): the Model to convert.
            network (Cell): the training network (or a TrainOneStepCell holding the THOR optimizer).
            loss_fn (Cell): the loss function. Default: ``None``.
            optimizer (Cell): the optimizer built by `nn.thor`. Default: ``None``.
            metrics (Union[dict, set]): the metrics of `eval`. Default: ``None``.
            amp_level (str): the mixed-precision level. Default: ``"O0"``.
            loss_scale_manager (Union[None, LossScaleManager]): the loss scale. Default: ``None``.
            keep_batchnorm_fp32 (bool): keep BatchNorm in float32. Default: ``False``.

        Returns:
            Model, the THOR Model (or `model`).
        """
        from mindseed import nn  # noqa: PLC0415
        from mindseed.train.train_thor.model_thor import ModelThor  # noqa: PLC0415
        optim = network.optimizer if isinstance(network, nn.TrainOneStepCell) else optimizer
        if type(optim).__name__ not in _THOR_OPTIMIZERS:
            return model
        if isinstance(network, nn.TrainOneStepCell):
            return ModelThor(network=network)
        kwargs = {"keep_batchnorm_fp32": keep_batchnorm_fp32}
        if loss_scale_manager is not None:
            kwargs["loss_scale_manager"] = loss_scale_manager
        return ModelThor(network=network, loss_fn=loss_fn, optimizer=optimizer, metrics=metrics, amp_level=amp_level,
                         **kwargs)
