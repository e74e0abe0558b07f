"""PyNative training steps W1-W4 on mindseed next to torch eager, in one process (target >= 0.7x torch).

    python bench/train_step.py [W1 W2 ...]        # PEER_MIN_TIME=2 for a quicker run
"""
import sys

import _workloads as W

TARGET = 0.7


def main(keys):
    rows = []
    for k in keys:
        ours = W.run_mindseed(k, "pynative")
        peer = W.run_torch(k, "eager")
        rows.append((k, ours, peer))
    print(f"\n{'workload':10s} {'mindseed/s':>11s} {'torch/s':>9s} {'ratio':>7s}  "
          f"{'loss0 ours':>11s} {'loss0 torch':>11s}")
    for k, o, p in rows:
        ratio = o["steps_per_s"] / p["steps_per_s"]
        print(f"{k:10s} {o['steps_per_s']:11.2f} {p['steps_per_s']:9.2f} {ratio:6.2f}x  {o['check0']:11.6f} "
              f"{p['check0']:11.6f}  {'ok' if ratio >= TARGET else 'BELOW TARGET'}")


if __name__ == "__main__":
    main(sys.argv[1:] or ["W1", "W2", "W3", "W4"])
