"""mindspore.train.metrics: evaluation metrics (computed in numpy from Tensors, lists or arrays)."""
from mindseed.train.metrics.metric import Metric, rearrange_inputs
from mindseed.train.metrics._classification import (Accuracy, ConfusionMatrix, F1, Fbeta, Precision, Recall,
                                                    Top1CategoricalAccuracy, Top5CategoricalAccuracy,
                                                    TopKCategoricalAccuracy)
from mindseed.train.metrics._regression import (MAE, MSE, BleuScore, CosineSimilarity, Dice, Loss, Perplexity, ROC,
                                                auc)
from mindseed.train.metrics._confusion import ConfusionMatrixMetric
from mindseed.train.metrics._surface import HausdorffDistance, MeanSurfaceDistance, RootMeanSquareDistance
from mindseed.train.metrics._occlusion import OcclusionSensitivity

__all__ = ["names", "get_metric_fn", "Accuracy", "MAE", "MSE", "Metric", "rearrange_inputs", "Precision",
           "HausdorffDistance", "Recall", "Fbeta", "BleuScore", "CosineSimilarity", "OcclusionSensitivity", "F1",
           "Dice", "ROC", "auc", "TopKCategoricalAccuracy", "Top1CategoricalAccuracy", "Top5CategoricalAccuracy",
           "Loss", "MeanSurfaceDistance", "RootMeanSquareDistance", "Perplexity", "ConfusionMatrix",
           "ConfusionMatrixMetric"]

__factory__ = {
    "accuracy": Accuracy, "acc": Accuracy, "precision": Precision, "recall": Recall, "F1": F1, "dice": Dice,
    "roc": ROC, "auc": auc, "bleu_score": BleuScore, "cosine_similarity": CosineSimilarity,
    "occlusion_sensitivity": OcclusionSensitivity, "topk": TopKCategoricalAccuracy,
    "hausdorff_distance": HausdorffDistance, "top_1_accuracy": Top1CategoricalAccuracy,
    "top_5_accuracy": Top5CategoricalAccuracy, "mae": MAE, "mse": MSE, "loss": Loss,
    "mean_surface_distance": MeanSurfaceDistance, "root_mean_square_distance": RootMeanSquareDistance,
    "perplexity": Perplexity, "confusion_matrix": ConfusionMatrix, "confusion_matrix_metric": ConfusionMatrixMetric,
}


def names():
    """The sorted names accepted by `get_metric_fn` (and by `Model(metrics={...})` as a set)."""
    return sorted(__factory__.keys())


def get_metric_fn(name, *args, **kwargs):
    """A metric object by name, e.g. ``get_metric_fn("accuracy")``.

    Raises:
        KeyError: unknown name.
    """
    if not isinstance(name, str):
        raise TypeError(f"For 'get_metric_fn', the 'name' must be a str, but got {type(name).__name__}.")
    if name not in __factory__:
        raise KeyError(f"For 'get_metric_fn', unsupported metric {name}, please refer to official website for more "
                       f"details about supported metrics.")
    return __factory__[name](*args, **kwargs)


def get_metrics(metrics):
    """Normalize Model's `metrics`: None, a dict name -> Metric, or a set of names -> dict."""
    if metrics is None:
        return None
    if isinstance(metrics, dict):
        for name, metric in metrics.items():
            if not isinstance(name, str) or not isinstance(metric, Metric):
                raise TypeError(f"For 'get_metrics', if 'metrics' is dict, the key in 'metrics' must be string and "
                                f"value in 'metrics' must be Metric, but got key:{type(name)}, value:{type(metric)}.")
        return metrics
    if isinstance(metrics, set):
        return {name: get_metric_fn(name) for name in metrics}
    raise TypeError(f"For 'get_metrics', the argument 'metrics' must be None, dict or set, but got {metrics}")


# MindSpore's module layout (`from mindspore.train.metrics.accuracy import Accuracy`): one module per metric,
# holding the same classes
_MODULES = {
    "accuracy": ("Accuracy",), "bleu_score": ("BleuScore",), "confusion_matrix": ("ConfusionMatrix",
                                                                                   "ConfusionMatrixMetric"),
    "cosine_similarity": ("CosineSimilarity",), "dice": ("Dice",), "error": ("MAE", "MSE"),
    "fbeta": ("Fbeta", "F1"), "hausdorff_distance": ("HausdorffDistance",), "loss": ("Loss",),
    "mean_surface_distance": ("MeanSurfaceDistance",), "occlusion_sensitivity": ("OcclusionSensitivity",),
    "perplexity": ("Perplexity",), "precision": ("Precision",), "recall": ("Recall",), "roc": ("ROC",),
    "root_mean_square_surface_distance": ("RootMeanSquareDistance",),
    "topk": ("TopKCategoricalAccuracy", "Top1CategoricalAccuracy", "Top5CategoricalAccuracy"),
}


def _module(name, classes):
    import importlib.machinery  # noqa: PLC0415
    import sys  # noqa: PLC0415
    import types  # noqa: PLC0415
    module = types.ModuleType(f"{__name__}.{name}", f"mindspore.train.metrics.{name}: {', '.join(classes)}.")
    module.__spec__ = importlib.machinery.ModuleSpec(module.__name__, None)
    module.__all__ = list(classes)
    for cls in classes:
        setattr(module, cls, globals()[cls])
    sys.modules[module.__name__] = module
    return module


globals().update({_name: _module(_name, _classes) for _name, _classes in _MODULES.items()})
