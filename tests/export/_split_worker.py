"""One rank of the export_split_mindir test: loads split_net<rank>.mindir from the working directory, runs it
on the input saved there and writes the output (usage: python _split_worker.py OUT.npy)."""
import sys

import numpy as np

import mindseed as ms
from mindseed.communication import get_rank, init

init()
graph = ms.nn.GraphCell(ms.load(f"split_net{get_rank()}.mindir"))
np.save(sys.argv[1], graph(ms.Tensor(np.load("x.npy"))).asnumpy())
