"""Loss landscapes as MindSpore 2.10 computes them and MindInsight shows them.

`SummaryCollector(collect_specified_data={'collect_landscape': {...}})` saves the network's parameters at the
steps (or epochs) of each interval into ``<summary_dir>/ckpt_dir`` and, at the end of training, the run's
``train_metadata.json``. `SummaryLandscape(summary_dir).gen_landscapes_with_multi_process(callback_fn, ...)`
then evaluates the loss on a ``landscape_size`` x ``landscape_size`` grid around the final parameters:

* ``train``: per interval, the two principal directions of the parameter trajectory (PCA of the checkpoints
  minus the last one), each scaled per parameter to that parameter's norm; the grid spans the trajectory's
  coordinates (least squares) widened by 20 % on each side, and the path's own losses are recorded;
* ``result``: two random normal directions (numpy's global generator), scaled the same way, on [-1, 1]^2.

Only parameters whose name holds ``weight`` or ``bias`` (and not ``moment``) move. Each landscape is written to
the summary as a LossLandscape value (tag ``landscape_[first, last]``) at step 0.
"""
import json
import os
import shutil
import stat
from collections import defaultdict

import numpy as np

from mindseed.common.parameter import Parameter
from mindseed.common.tensor import Tensor
from mindseed.train.callback._callback import _make_directory
from mindseed.train.dataset_helper import DatasetHelper
from mindseed.train.metrics import get_metrics
from mindseed.train.serialization import load_checkpoint, load_param_into_net, save_checkpoint
from mindseed.train.summary import _event_file as E
from mindseed.train.summary.summary_record import SummaryRecord

__all__ = ["SummaryLandscape"]

_PROZ = 0.2          # the margin around the trajectory, as a fraction of its extent
_RANDOM_BOUND = 5    # the random landscape spans [-_PROZ * 5, _PROZ * 5]
_METADATA_KEYS = ("epoch_group", "model_params_file_map", "step_per_epoch", "unit", "num_samples",
                  "landscape_size", "create_landscape")


def _moves(name):
    return ("weight" in name or "bias" in name) and "moment" not in name


def _type_error(owner, name, value, kind):
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise TypeError(f"For '{owner}', the '{name}' must be {getattr(kind, '__name__', kind)}, but got "
                        f"{type(value).__name__}.")


def check_collect_landscape(owner, landscape, where="collect_landscape"):
    """Raise as MindSpore does for a bad `collect_landscape` dict (keys, sizes, units, intervals)."""
    _type_error(owner, where, landscape, dict)
    for key in landscape:
        if key not in ("landscape_size", "unit", "num_samples", "create_landscape", "intervals"):
            raise ValueError(f'For "{owner}", the key of collect landscape should be landscape_size, unit, '
                             f'num_samples create_landscape or intervals, but got the: {key}. ')
    if "landscape_size" in landscape:
        size = landscape["landscape_size"]
        _type_error(owner, "landscape_size", size, int)
        if not 3 <= size <= 256:
            raise ValueError(f'For "{owner}", "landscape_size" should be between 3 and 256, but got the: {size}')
    if "unit" in landscape:
        _type_error(owner, "unit", landscape["unit"], str)
        if landscape["unit"] not in ("step", "epoch"):
            raise ValueError(f'For "{owner}", the "unit" should be step or epoch, but got the: {landscape["unit"]}')
    if "num_samples" in landscape:
        _type_error(owner, "num_samples", landscape["num_samples"], int)
    if "create_landscape" in landscape:
        create = landscape["create_landscape"]
        _type_error(owner, "create_landscape", create, dict)
        if sorted(create) != ["result", "train"]:
            raise ValueError(f'For "{owner}", the keys of "create_landscape" should be train and result, but got '
                             f'the: {sorted(create)}.')
        for key, value in create.items():
            _type_error(owner, key, value, bool)
    if "intervals" in landscape:
        intervals = landscape["intervals"]
        _type_error(owner, "intervals", intervals, list)
        for interval in intervals:
            _type_error(owner, "each interval in intervals", interval, list)
            if len(interval) < 3:
                raise ValueError(f'For "{owner}", the length of each list in "intervals" should not be less than '
                                 f'three, but got the: {interval}.')
            for point in interval:
                if isinstance(point, bool) or not isinstance(point, int):
                    raise TypeError(f'For "{owner}", the type of each value in "intervals" should be int, but got '
                                    f'the: {type(point)}.')


class LandscapeCollection:
    """What SummaryCollector saves for landscapes: the backbone's parameters at each step (or epoch) of the
    intervals, and ``train_metadata.json`` at the end of training."""

    def __init__(self, summary_dir, landscape):
        check_collect_landscape("SummaryCollector", landscape)
        if "intervals" not in landscape:
            raise ValueError("For 'SummaryCollector', 'collect_landscape' needs 'intervals'.")
        self.landscape = landscape
        self.unit = landscape.get("unit", "step")
        self.ckpt_dir = _make_directory(os.path.join(summary_dir, "ckpt_dir"))
        self.files = {}
        self.groups = defaultdict(list)
        for i, interval in enumerate(landscape["intervals"]):
            self.groups[i].extend(interval)

    def maybe_save(self, cb, unit):
        """Save the parameters when `unit` is the collection unit and the current step/epoch is in an interval."""
        if unit != self.unit or cb.get("mode") != "train":
            return
        now = cb.cur_epoch_num if unit == "epoch" else cb.cur_step_num
        if not any(now in interval for interval in self.landscape["intervals"]):
            return
        backbone = next((c._backbone for _, c in cb.train_network.cells_and_names()
                         if hasattr(c, "_backbone")), cb.train_network)
        while "network" in backbone.name_cells():
            has_optimizer = "optimizer" in backbone.name_cells()
            backbone = backbone.network
            if has_optimizer:
                break
        path = os.path.join(self.ckpt_dir, f"{type(backbone).__name__}_{now}_{unit}.ckpt")
        self.files[str(now)] = path
        if not os.path.isfile(path):
            save_checkpoint([{"name": p.name, "data": Tensor(p.asnumpy())} for p in backbone.get_parameters()], path)

    def save_metadata(self, step_per_epoch):
        data = {"epoch_group": self.groups, "model_params_file_map": self.files, "step_per_epoch": step_per_epoch,
                "unit": self.unit, "num_samples": self.landscape.get("num_samples", 2048),
                "landscape_size": self.landscape.get("landscape_size", 40),
                "create_landscape": self.landscape.get("create_landscape", {"train": True, "result": True})}
        path = os.path.join(self.ckpt_dir, "train_metadata.json")
        if not os.path.isfile(path):
            with open(path, "w", encoding="utf-8") as f:
                json.dump(data, f)
            os.chmod(path, stat.S_IRUSR)


class SummaryLandscape:
    """Create loss landscapes from what `SummaryCollector` collected with ``collect_landscape``.

    Args:
        summary_dir (str): the summary directory SummaryCollector wrote (its ``ckpt_dir`` holds the checkpoints and
            ``train_metadata.json``).

    >>> import mindseed as ms
    >>> landscape = ms.SummaryLandscape("/tmp/summary_landscape_doc")
    >>> landscape.clean_ckpt()
    """

    def __init__(self, summary_dir):
        self._summary_dir = os.path.realpath(summary_dir)
        self._ckpt_dir = _make_directory(os.path.join(self._summary_dir, "ckpt_dir"))
        self._model_params_file_map = {}
        self._epoch_group = defaultdict(list)
        self._metric_fns = None

    def clean_ckpt(self):
        """Remove the collected checkpoints (``ckpt_dir``)."""
        shutil.rmtree(self._ckpt_dir, ignore_errors=True)

    def gen_landscapes_with_multi_process(self, callback_fn, collect_landscape=None, device_ids=None, output=None):
        """Compute the landscapes and write them to a summary file in `output` (default: the summary directory).

        Args:
            callback_fn (Callable): no arguments; returns ``(model, network, dataset, metrics)``: a Model whose
                ``train_network`` gives the loss, its network, the dataset the loss is averaged over (its first
                ``num_samples // batch_size`` batches) and the metrics (with a ``'Loss'`` one).
            collect_landscape (dict): overrides of the collected settings (``landscape_size``, ``unit``,
                ``num_samples``, ``create_landscape``, ``intervals``), written back to ``train_metadata.json``.
            device_ids (list[int]): device ids in [0, 7]; the loss is computed in this process whatever their number.
            output (str): the directory of the summary file. Default: ``None`` (the summary directory).

        Raises:
            TypeError / ValueError: bad `device_ids` or `collect_landscape`, or a malformed ``train_metadata.json``.
            FileNotFoundError: ``train_metadata.json`` is missing (SummaryCollector did not collect landscapes).
        """
        self._check_device_ids(device_ids)
        json_path = os.path.join(self._ckpt_dir, "train_metadata.json")
        if collect_landscape is not None:
            check_collect_landscape(type(self).__name__, collect_landscape)
            if not os.path.exists(json_path):
                raise FileNotFoundError(f'For "{type(self).__name__}", train_metadata.json file path of {json_path} '
                                        f'not exists.')
            with open(json_path, encoding="utf-8") as f:
                data = json.load(f)
            data.update({k: v for k, v in collect_landscape.items() if k in data})
            if "intervals" in collect_landscape:
                data["epoch_group"] = {i: list(v) for i, v in enumerate(collect_landscape["intervals"])}
            os.chmod(json_path, stat.S_IRUSR | stat.S_IWUSR)
            with open(json_path, "w", encoding="utf-8") as f:
                json.dump(data, f)
            os.chmod(json_path, stat.S_IRUSR)
        with SummaryRecord(os.path.realpath(output) if output is not None else self._summary_dir) as record:
            for interval, landscape in self._list_landscapes(callback_fn):
                record.add_value("landscape", f"landscape_{interval}", landscape)
                record.record(0)
                record.flush()

    # ------------------------------------------------------------ the landscapes
    def _metadata(self):
        path = os.path.join(self._ckpt_dir, "train_metadata.json")
        if not os.path.exists(path):
            raise FileNotFoundError(f'For "{type(self).__name__}", train_metadata.json file does not exist under the '
                                    f'path, please use summary_collector to collect information to create the json '
                                    f'file')
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        self._check_json_file_data(data)
        return data

    def _list_landscapes(self, callback_fn):
        data = self._metadata()
        self._epoch_group = data["epoch_group"]
        self._model_params_file_map = data["model_params_file_map"]
        meta = (data["unit"], data["step_per_epoch"])
        if data["create_landscape"]["train"]:
            for epochs in self._epoch_group.values():
                yield [epochs[0], epochs[-1]], self._by_pca(epochs, data, callback_fn, meta)
        if data["create_landscape"]["result"]:
            final = [list(self._epoch_group.values())[-1][-1]]
            yield final, self._by_random(final, data, callback_fn, meta)

    def _params(self, epochs):
        return [list(load_checkpoint(self._model_params_file_map[str(e)]).values()) for e in epochs]

    def _by_pca(self, epochs, data, callback_fn, meta):
        checkpoints = self._params(epochs)
        flat = np.vstack([np.concatenate([p.asnumpy().ravel() for p in params if _moves(p.name)])
                          for params in checkpoints])
        components = _pca_2(flat[:-1] - flat[-1])
        final = checkpoints[-1]
        moving = [p for p in final if _moves(p.name)]
        v, w = _reshape(components[:, 0], final), _reshape(components[:, -1], final)
        v, w = _normalize(final, v, w)
        v_moving, w_moving = _normalize(moving, _reshape(components[:, 0], moving), _reshape(components[:, -1], moving))
        basis = np.vstack([_flat(v_moving), _flat(w_moving)]).T
        origin = _flat([p.asnumpy() for p in moving])
        coefs = np.array([np.linalg.lstsq(basis, _flat([p.asnumpy() for p in params if _moves(p.name)]) - origin,
                                          rcond=None)[0] for params in checkpoints])
        axes = [np.linspace(c.min() - _PROZ * (c.max() - c.min()), c.max() + _PROZ * (c.max() - c.min()),
                            data["landscape_size"]) for c in (coefs[:, 0], coefs[:, 1])]
        x_points, y_points = np.meshgrid(*axes)
        evaluate = _LossOnGrid(callback_fn, final, v, w, data["num_samples"], self)
        path_z = np.array([evaluate(c[0], c[1]) for c in coefs])
        z = np.vstack([[evaluate(x, row[0]) for x in x_points[i]] for i, row in enumerate(y_points)])
        zero = int(np.argwhere(coefs[:, 0] == 0)[0][0])
        return E.LossLandscape((x_points[0], y_points[:, 0], z), ("PCA",) + meta,
                               path=(coefs[:, 0], coefs[:, 1], path_z), intervals=epochs,
                               convergence=(np.array([0]), np.array([0]), np.array([path_z[zero]])))

    def _by_random(self, epochs, data, callback_fn, meta):
        final = self._params(epochs)[-1]
        arrays = [p.asnumpy() for p in final]
        total = sum(a.size for a in arrays)
        v_rand, w_rand = np.random.normal(size=total), np.random.normal(size=total)
        v, w = _normalize(final, _split_like(v_rand, arrays), _split_like(w_rand, arrays))
        axis = np.linspace(-_PROZ * _RANDOM_BOUND, _PROZ * _RANDOM_BOUND, data["landscape_size"])
        x_points, y_points = np.meshgrid(axis, axis)
        evaluate = _LossOnGrid(callback_fn, final, v, w, data["num_samples"], self)
        z = np.vstack([[evaluate(x, row[0]) for x in x_points[i]] for i, row in enumerate(y_points)])
        mid = len(axis) // 2
        return E.LossLandscape((x_points[0], y_points[:, 0], z), ("Random",) + meta,
                               convergence=(np.array([axis[mid]]), np.array([axis[mid]]), np.array([z[mid][mid]])))

    def _loss(self, model, dataset, metrics):
        self._metric_fns = get_metrics(metrics)
        for metric in self._metric_fns.values():
            metric.clear()
        network = model.train_network
        network.set_train(True)
        for inputs in DatasetHelper(dataset, False):
            outputs = network(*((inputs,) if isinstance(inputs, Tensor) else inputs))
            outputs = (outputs,) if isinstance(outputs, Tensor) else outputs
            if not isinstance(outputs, tuple):
                raise ValueError(f"The argument 'outputs' should be tuple, but got {type(outputs)}. Modify 'output' "
                                 f"to Tensor or tuple. ")
            for metric in self._metric_fns.values():
                metric.update(outputs[0])
        return {k: m.eval() for k, m in self._metric_fns.items()}

    # ------------------------------------------------------------ checks
    def _check_device_ids(self, device_ids):
        owner = f"{type(self).__name__}.gen_landscapes_with_multi_process"
        _type_error(owner, "device_ids", device_ids, list)
        for i in device_ids:
            if isinstance(i, bool) or not isinstance(i, int):
                raise TypeError(f'For "{owner}", the parameter "device_ids" type should be int, but got the: '
                                f'{type(i)}.')
            if not 0 <= i <= 7:
                raise ValueError(f'For "{owner}", the parameter "device_ids" should be between 0 and 7, but got {i}.')

    def _check_json_file_data(self, data):
        owner = type(self).__name__
        for key in data:
            if key not in _METADATA_KEYS:
                raise ValueError(f'"train_metadata" json file should be {list(_METADATA_KEYS)}, but got the: {key}')
        missing = [k for k in _METADATA_KEYS if k not in data]
        if missing:
            raise ValueError(f'For "{owner}", train_metadata.json lacks {missing}.')
        for epochs in data["epoch_group"].values():
            if len(epochs) < 3:
                raise ValueError(f'For "{owner}", the "epoch_group" in train_metadata.json, length of each list in '
                                 f'"epoch_group" should not be less than 3, but got: {len(epochs)}. ')
            for epoch in epochs:
                if str(epoch) not in data["model_params_file_map"]:
                    raise ValueError(f'For "{owner}", the "model_params_file_map" in train_metadata.json does not '
                                     f'exist {epoch}th checkpoint in intervals.')
        _type_error(owner, "step_per_epoch", data["step_per_epoch"], int)
        check_collect_landscape(owner, {k: data[k] for k in ("landscape_size", "unit", "num_samples",
                                                             "create_landscape")}, "train_metadata.json")


class _LossOnGrid:
    """loss(final + a v + b w) on the first num_samples of callback_fn's dataset, with callback_fn's model."""

    def __init__(self, callback_fn, final, v, w, num_samples, owner):
        self.model, self.network, dataset, self.metrics = callback_fn()
        self.dataset = dataset.take(num_samples // dataset.get_batch_size())
        self.names = [p.name for p in final]
        self.final = [p.asnumpy() for p in final]
        self.v, self.w, self.owner = v, w, owner

    def __call__(self, a, b):
        params = {name: Parameter(Tensor((x + a * dv + b * dw).astype(np.float32)), name=name)
                  for name, x, dv, dw in zip(self.names, self.final, self.v, self.w)}
        load_param_into_net(self.network, params)
        return float(self.owner._loss(self.model, self.dataset, self.metrics).get("Loss"))


def _pca_2(x):
    """The first two principal components (columns, times their singular values) of the rows of x's transpose:
    MindSpore's _PCA (exact SVD of the column-centred matrix, signs fixed by each column's largest entry)."""
    x = x.T.astype(np.float64)
    x = x - x.mean(axis=0)
    u, s, _ = np.linalg.svd(x, full_matrices=False)
    signs = np.sign(u[np.argmax(np.abs(u), axis=0), range(u.shape[1])])
    u = u * signs
    s = np.where(s == 0, 1e-19, s)
    return u[:, :2] * s[:2]


def _reshape(vector, params):
    """`vector` cut into the shapes of the moving parameters; the others keep their values."""
    out, i = [], 0
    for p in params:
        data = p.asnumpy()
        if not _moves(p.name):
            out.append(np.array(data, np.float32))
            continue
        out.append(np.array(vector[i:i + data.size].reshape(data.shape), np.float32))
        i += data.size
    return out


def _split_like(vector, arrays):
    out, i = [], 0
    for a in arrays:
        out.append(np.array(vector[i:i + a.size].reshape(a.shape), np.float32))
        i += a.size
    return out


def _normalize(params, v, w):
    """Each direction's block scaled to its parameter's norm (filter normalisation); fixed parameters get 0."""
    for i, p in enumerate(params):
        data = p.asnumpy()
        if _moves(p.name):
            v[i] = v[i] * (np.linalg.norm(data) / np.linalg.norm(v[i]))
            w[i] = w[i] * (np.linalg.norm(data) / np.linalg.norm(w[i]))
        else:
            v[i], w[i] = v[i] * 0, w[i] * 0
    return v, w


def _flat(arrays):
    return np.concatenate([a.ravel() for a in arrays], axis=None)
