"""ONNX files for the converter's tests and its oracle check: small torch models (a CNN with batch norms, an MLP with
GELUs, LSTMs, a transformer block) written by torch.onnx.export, and mindseed's own exporter's files of the
export test networks. torch is used only to write the files.
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def _torch_models(torch):
    nn = torch.nn

    class CNN(nn.Module):
        """conv-relu-bn-pool twice, an average pool, flatten, linear-bn1d, log-softmax."""

        def __init__(self):
            super().__init__()
            self.conv1, self.bn1 = nn.Conv2d(3, 6, 3, padding=1), nn.BatchNorm2d(6)
            self.conv2, self.bn2 = nn.Conv2d(6, 8, 3, stride=2, padding=(1, 0), bias=False), nn.BatchNorm2d(8)
            self.pool = nn.MaxPool2d(2, ceil_mode=True)
            self.avg = nn.AvgPool2d(3, stride=1, padding=1, count_include_pad=False)
            self.fc, self.bn3 = nn.Linear(8 * 3 * 2, 10), nn.BatchNorm1d(10)

        def forward(self, x):
            x = self.pool(self.bn1(torch.relu(self.conv1(x))))
            x = self.avg(self.bn2(torch.relu(self.conv2(x))))
            return torch.log_softmax(self.bn3(self.fc(torch.flatten(x, 1))), -1)

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1, self.fc2, self.fc3 = nn.Linear(12, 32), nn.Linear(32, 16), nn.Linear(16, 4)

        def forward(self, x):
            h = nn.functional.gelu(self.fc1(x))
            h = nn.functional.leaky_relu(nn.functional.gelu(self.fc2(h), approximate="tanh"), 0.1)
            return torch.sigmoid(self.fc3(h)), torch.tanh(h)

    class LSTMNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(6, 8, num_layers=2, batch_first=True)
            self.bi = nn.LSTM(8, 5, bidirectional=True)
            self.head = nn.Linear(10, 3)

        def forward(self, x):
            y, _ = self.lstm(x)
            z, (h, c) = self.bi(y.transpose(0, 1))
            return self.head(z[-1]), h, c

    class Transformer(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(30, 16)
            self.block = nn.TransformerEncoderLayer(16, 4, 32, dropout=0.0, batch_first=True, activation="gelu")
            self.head = nn.Linear(16, 30)

        def forward(self, ids):
            return self.head(self.block(self.embed(ids)))

    return {"cnn": (CNN, (torch.randn(2, 3, 12, 12),)), "mlp": (MLP, (torch.randn(5, 12),)),
            "lstm": (LSTMNet, (torch.randn(3, 7, 6),)), "transformer": (Transformer, (torch.randint(0, 30, (2, 6)),))}


def torch_onnx_files(folder, names=None, opset=17):
    """{name: path} of the torch models exported to ONNX (`opset`; the transformer also as `transformer14`, whose
    LayerNorms are written as elementwise nodes)."""
    import torch  # noqa: PLC0415
    torch.manual_seed(0)
    files = {}
    for name, (cls, args) in _torch_models(torch).items():
        if names is not None and name not in names:
            continue
        net = cls().eval()
        with torch.no_grad():
            for m in net.modules():
                if isinstance(m, (torch.nn.BatchNorm1d, torch.nn.BatchNorm2d)):
                    m.running_mean.uniform_(-1, 1)
                    m.running_var.uniform_(0.5, 2)
                    m.weight.uniform_(0.5, 1.5)
                    m.bias.uniform_(-0.5, 0.5)
        for tag, version in ((name, opset),) + (((name + "14", 14),) if name == "transformer" else ()):
            path = os.path.join(folder, tag + ".onnx")
            torch.onnx.export(net, args, path, opset_version=version, dynamo=False)
            files[tag] = path
    return files


def mindseed_onnx_files(folder, names=("lenet", "resblock", "mlp", "resnet", "gpt", "control")):
    """{name: path} of the export tests' networks written by mindseed's ONNX exporter."""
    if HERE not in sys.path:
        sys.path.insert(0, HERE)
    import _nets  # noqa: PLC0415
    import mindseed as ms  # noqa: PLC0415
    nets, files = _nets.build(ms), {}
    for name in names:
        net, x = nets[name]
        ms.export(net, ms.Tensor(x), file_name=os.path.join(folder, "ms_" + name), file_format="ONNX")
        files["ms_" + name] = os.path.join(folder, f"ms_{name}.onnx")
    return files


def inputs_for(path, seed=0):
    """{input name: array} for an ONNX file: normal floats, integers in [0, 20) (token ids)."""
    import onnx  # noqa: PLC0415
    model = onnx.load(path)
    inits = {i.name for i in model.graph.initializer}
    rng, feeds = np.random.RandomState(seed), {}
    for v in model.graph.input:
        if v.name in inits:
            continue
        t = v.type.tensor_type
        dtype = onnx.helper.tensor_dtype_to_np_dtype(t.elem_type)
        shape = [d.dim_value for d in t.shape.dim]
        feeds[v.name] = rng.randint(0, 20, shape).astype(dtype) if np.dtype(dtype).kind in "iu" else \
            rng.randn(*shape).astype(dtype)
    return feeds


def onnxruntime_outputs(path, feeds):
    import onnxruntime  # noqa: PLC0415
    return onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"]).run(None, feeds)
