"""The lineage SummaryCollector writes, packed into `lineage_pb2` messages as MindSpore's collector packs them.

`train_lineage` (hyper-parameters, train dataset, network and final loss, checkpoint), `eval_lineage` (metrics and
valid dataset), `dataset_graph` (the serialized dataset pipeline) and `custom_lineage_data` (the user's dict and the
``custom_lineage_data`` of MindInsight's ``MINDINSIGHT_HYPER_CONFIG``); MindInsight's lineage manager reads them.
"""
import json
import logging
import os
from json.decoder import JSONDecodeError

from mindseed.train import lineage_pb2

logger = logging.getLogger("mindseed")

HYPER_CONFIG_ENV_NAME = "MINDINSIGHT_HYPER_CONFIG"
HYPER_CONFIG_LEN_LIMIT = 100000


def check_value_type(arg_name, arg_value, valid_types):
    """MindSpore's type check of SummaryCollector's arguments (a bool is not an int here)."""
    valid_types = tuple(valid_types) if isinstance(valid_types, (list, tuple)) else (valid_types,)
    if (isinstance(arg_value, bool) and bool not in valid_types) or not isinstance(arg_value, valid_types):
        raise TypeError(f"For `{arg_name}` the type should be a valid type of {[t.__name__ for t in valid_types]}, "
                        f"but got {type(arg_value).__name__}.")


# ---------------------------------------------------------------- custom lineage data
def _check_custom_lineage_type(param_name, custom_lineage):
    check_value_type(param_name, custom_lineage, [dict, type(None)])
    for key, value in custom_lineage.items():
        check_value_type(f"{param_name} -> {key}", key, str)
        check_value_type(f"the value of {param_name} -> {key}", value, (int, str, float))


def _hyper_config_lineage_data():
    """The ``custom_lineage_data`` of $MINDINSIGHT_HYPER_CONFIG (set by MindInsight's optimizer), else {}."""
    hyper_config = os.environ.get(HYPER_CONFIG_ENV_NAME)
    if hyper_config is None:
        return {}
    if len(hyper_config) > HYPER_CONFIG_LEN_LIMIT:
        logger.warning("The 'MINDINSIGHT_HYPER_CONFIG' of environment variable is too long. The length limit is %s, "
                       "the length of hyper_config is %s.", HYPER_CONFIG_LEN_LIMIT, len(hyper_config))
        return {}
    try:
        hyper_config = json.loads(hyper_config)
    except (TypeError, JSONDecodeError) as exc:
        logger.warning("The 'MINDINSIGHT_HYPER_CONFIG' of environment variable decode error. Detail: %s.", exc)
        return {}
    return hyper_config.get("custom_lineage_data") or {}


def process_custom_lineage_data(custom_lineage_data):
    """The user's dict (checked: str -> int, str or float) over the hyper config's."""
    if custom_lineage_data is None:
        custom_lineage_data = {}
    _check_custom_lineage_type("custom_lineage_data", custom_lineage_data)
    auto = _hyper_config_lineage_data()
    _check_custom_lineage_type("auto_custom_lineage_data", auto)
    auto.update(custom_lineage_data)
    return auto


def package_custom_lineage_data(custom_lineage_data):
    """UserDefinedInfo: one user_info entry per key, in map_int32, map_double or map_str by the value's type."""
    info = lineage_pb2.UserDefinedInfo()
    for key, value in custom_lineage_data.items():
        attr = "map_int32" if isinstance(value, int) else "map_double" if isinstance(value, float) else "map_str"
        getattr(info.user_info.add(), attr)[key] = value
    return info


# ---------------------------------------------------------------- train / eval lineage
def _dataset_path(dataset):
    """The path the pipeline's source reads (MindSpore's list of sources); IndexError when it reaches a leaf without."""
    import mindseed.dataset as ds  # noqa: PLC0415 -- the dataset package loads late
    path = ""
    if isinstance(dataset, ds.ManifestDataset):
        path = dataset.dataset_file
    elif isinstance(dataset, ds.MindDataset):
        path = dataset.dataset_files
    elif isinstance(dataset, (ds.ImageFolderDataset, ds.MnistDataset, ds.Cifar10Dataset, ds.Cifar100Dataset,
                              ds.VOCDataset, ds.CelebADataset)):
        path = dataset.dataset_dir
    elif isinstance(dataset, (ds.TFRecordDataset, ds.TextFileDataset)):
        path = dataset.dataset_files[0]
    if path:
        return path if isinstance(path, str) else list(path)[0]
    return _dataset_path(dataset.children[0])


def dataset_lineage(dataset):
    """(directory or path of the data, batch size, batch count * batch size) of a dataset, as MindSpore records them."""
    try:
        path = _dataset_path(dataset)
    except IndexError:
        path = None
    if path and os.path.isfile(path):
        path = os.path.dirname(path)
    batch_size = dataset.get_batch_size()
    return path, batch_size, int(dataset.get_dataset_size() * batch_size)


def train_lineage_message(values):
    """TrainLineage from the collected dict (keys as MindSpore's LineageMetadata); None values are left unset."""
    message = lineage_pb2.TrainLineage()
    fields = {"network": (message.algorithm, "network"), "loss": (message.algorithm, "loss"),
              "train_dataset_path": (message.train_dataset, "train_dataset_path"),
              "train_dataset_size": (message.train_dataset, "train_dataset_size"),
              "model_path": (message.model, "path"), "model_size": (message.model, "size")}
    for name in ("learning_rate", "optimizer", "loss_function", "parallel_mode", "epoch", "device_num", "batch_size"):
        fields[name] = (message.hyper_parameters, name)
    for key, (part, field) in fields.items():
        if values.get(key) is not None:
            setattr(part, field, values[key])
    return message


def eval_lineage_message(metrics, dataset):
    """EvaluationLineage: the metrics as JSON and the valid dataset's path and size."""
    message = lineage_pb2.EvaluationLineage()
    try:
        message.metric = json.dumps(metrics)
    except TypeError as exc:
        logger.warning("Summary cannot collect the type of metrics, currently support type: dict, list, tuple, str, "
                       "int, float, bool and None. %s.", exc)
    path, _, size = dataset_lineage(dataset)
    if path is not None:
        message.valid_dataset.valid_dataset_path = path
    message.valid_dataset.valid_dataset_size = size
    return message


# ---------------------------------------------------------------- dataset graph
def package_dataset_graph(dataset):
    """DatasetGraph of `mindspore.dataset.serialize(dataset)`: the node's parameters, its map operations and sampler,
    its children nested; None when the pipeline cannot be serialized."""
    from mindseed.dataset import serialize  # noqa: PLC0415 -- the dataset package loads late
    try:
        graph = serialize(dataset)
    except (TypeError, OSError, ValueError) as exc:
        logger.warning("Summary can not collect dataset graph, there is an error in dataset internal, detail: %s.",
                       exc)
        return None
    message = lineage_pb2.DatasetGraph()
    if isinstance(graph, dict):
        _package_node(dict(graph), message)
    return message


def _package_node(node, message):
    children = node.pop("children", None) or []
    for child in children:
        if child:
            _package_node(dict(child), message.children.add())
    for key, value in node.items():
        if value and key == "operations":
            for op in value:
                _package_operation(op, message.operations.add())
        elif value and key == "sampler":
            _package_operation(value, message.sampler)
        else:
            _package_parameter(key, value, message.parameter)


def _package_operation(operation, message):
    if operation is None:
        logger.warning("Summary cannot collect the operation for dataset graph as the operation is none.")
        return
    for key, value in operation.items():
        if isinstance(value, (list, tuple)):
            if all(isinstance(v, int) for v in value):
                message.size.extend(value)
            else:
                message.weights.extend(value)
        else:
            _package_parameter(key, value, message.operationParam)


def _package_parameter(key, value, message):
    if isinstance(value, str):
        message.mapStr[key] = value
    elif isinstance(value, bool):
        message.mapBool[key] = value
    elif isinstance(value, int):
        message.mapInt[key] = value
    elif isinstance(value, float):
        message.mapDouble[key] = value
    elif isinstance(value, (list, tuple)):
        if value and key != "operations":
            message.mapStrList[key].strValue.extend("" if v is None else json.dumps(v) for v in value)
    elif isinstance(value, dict):
        message.mapStr[key] = json.dumps(value, default=str)
    elif value is None:
        message.mapStr[key] = "None"
    else:
        logger.warning("The parameter %r is not recorded, because its type is not supported in event package, but got "
                       "type is %r.", key, type(value).__name__)
