"""Embedding layers: Embedding, EmbeddingExt, EmbeddingLookup, MultiFieldEmbeddingLookup."""
from mindseed.common import dtype as mstype
from mindseed.common.initializer import Normal, initializer
from mindseed.common.parameter import Parameter
from mindseed.common.tensor import Tensor
from mindseed.nn.cell import Cell
from mindseed.nn.layer._utils import div_no_nan
from mindseed.ops import functional as F
from mindseed.ops._prims import core as P

__all__ = ["Embedding", "EmbeddingExt", "EmbeddingLookup", "MultiFieldEmbeddingLookup"]


def _check_int(cls, name, value):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"For '{cls}', the '{name}' must be int, but got {type(value).__name__}.")
    return value


def _check_ids(cls, ids):
    if not isinstance(ids, Tensor):
        raise TypeError(f"For '{cls}', the 'ids' must be a Tensor, but got {type(ids).__name__}.")
    if ids.dtype not in (mstype.int32, mstype.int64, mstype.int16, mstype.int8, mstype.uint8):
        raise TypeError(f"For '{cls}', the dtype of 'ids' must be int32 or int64, but got {ids.dtype}.")


class Embedding(Cell):
    """A lookup table of `vocab_size` vectors of `embedding_size`: ids (*) -> (*, embedding_size).

    Args:
        vocab_size (int), embedding_size (int): table shape.
        use_one_hot (bool): compute as one_hot(ids) @ table. Default ``False``.
        embedding_table (Union[Tensor, str, Initializer]): Default ``'normal'``.
        padding_idx (int): the row initialised to zeros. Default ``None``.

    >>> import mindseed as ms
    >>> ms.nn.Embedding(10, 3)(ms.Tensor([[1, 2]], ms.int32)).shape
    (1, 2, 3)
    """

    def __init__(self, vocab_size, embedding_size, use_one_hot=False, embedding_table="normal",
                 dtype=mstype.float32, padding_idx=None):
        super().__init__()
        self.vocab_size = _check_int("Embedding", "vocab_size", vocab_size)
        self.embedding_size = _check_int("Embedding", "embedding_size", embedding_size)
        if not isinstance(use_one_hot, bool):
            raise TypeError(f"For 'Embedding', the 'use_one_hot' must be bool, but got {type(use_one_hot).__name__}.")
        self.use_one_hot = use_one_hot
        self.dtype = dtype
        table = initializer(embedding_table, [vocab_size, embedding_size])
        self.padding_idx = padding_idx
        if padding_idx is not None:
            if isinstance(padding_idx, bool) or not isinstance(padding_idx, int) or not 0 <= padding_idx < vocab_size:
                raise ValueError(f"For 'Embedding', the 'padding_idx' must be in range [0, {vocab_size}), but got "
                                 f"{padding_idx}.")
            arr = table.asnumpy().copy()
            arr[padding_idx] = 0
            table = Tensor(arr, table.dtype)
        self.embedding_table = Parameter(table, name="embedding_table")

    def construct(self, ids):
        _check_ids("Embedding", ids)
        out_shape = ids.shape + (self.embedding_size,)
        flat = P.reshape_p(ids, shape=(-1,))
        if self.use_one_hot:
            dt = self.embedding_table.dtype
            one_hot = F.one_hot(flat, self.vocab_size, Tensor(1.0, dt), Tensor(0.0, dt))
            out = P.matmul_p(one_hot, self.embedding_table)
        else:
            out = F.gather(self.embedding_table, flat, 0)
        return P.reshape_p(out, shape=out_shape)

    def extend_repr(self):
        return (f"vocab_size={self.vocab_size}, embedding_size={self.embedding_size}, use_one_hot={self.use_one_hot}, "
                f"embedding_table={self.embedding_table}, dtype={self.dtype}, padding_idx={self.padding_idx}")


class EmbeddingExt(Cell):
    """Embedding with PyTorch-style arguments (Parameter `weight`, N(0, 1) init, max_norm renormalisation)."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, sparse=False, _weight=None, _freeze=False, dtype=None):
        super().__init__()
        if sparse:
            raise ValueError("For Embedding, the scenerio, where `sparse` is True, has not be supported.")
        self.sparse = sparse
        self.num_embeddings = _check_int("EmbeddingExt", "num_embeddings", num_embeddings)
        self.embedding_dim = _check_int("EmbeddingExt", "embedding_dim", embedding_dim)
        self.dtype = dtype if dtype is not None else mstype.float32
        self.padding_idx = padding_idx
        if _weight is None:
            table = initializer(Normal(1, 0), [num_embeddings, embedding_dim], self.dtype)
            if padding_idx is not None:
                if not -num_embeddings <= padding_idx < num_embeddings:
                    raise ValueError(f"For 'EmbeddingExt', the 'padding_idx' must be in range [{-num_embeddings}, "
                                     f"{num_embeddings}), but got {padding_idx}.")
                arr = table.asnumpy().copy()
                arr[padding_idx] = 0
                table = Tensor(arr, self.dtype)
        else:
            if _weight.shape != (num_embeddings, embedding_dim):
                raise ValueError(f"For Embedding, shape of weight should be match with num_embeddings and "
                                 f"embedding_dim, but got weight.shape: {_weight.shape}, and (num_embeddings, "
                                 f"embedding_dim): ({num_embeddings}, {embedding_dim})")
            table = _weight
        self.weight = Parameter(table, name="weight", requires_grad=not _freeze)
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq

    def construct(self, input):
        return F.embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                           self.scale_grad_by_freq)

    def extend_repr(self):
        return (f"num_embeddings={self.num_embeddings}, embedding_dim={self.embedding_dim}, "
                f"padding_idx={self.padding_idx}, max_norm={self.max_norm}, norm_type={self.norm_type}, "
                f"scale_grad_by_freq={self.scale_grad_by_freq}, dtype={self.dtype}")


def _clip_rows(out, axis_start, max_norm):
    """Rows (the trailing axes from axis_start) rescaled to L2 norm at most max_norm."""
    axes = tuple(range(axis_start, out.ndim))
    norm = F.sqrt(F.sum(P.mul_p(out, out), axes, keepdim=True))
    return P.div_p(P.mul_p(out, max_norm), P.maximum_p(norm, max_norm))


class EmbeddingLookup(Cell):
    """Embedding table lookup with MindSpore's host/device and slicing options (one process: a gather).

    Args:
        vocab_size (int), embedding_size (int): table shape. param_init: Default ``'normal'``.
        target (str): ``'CPU'`` or ``'DEVICE'``; 'CPU' requires sparse=True. max_norm (float): clip rows.
    """

    BATCH_SLICE = "batch_slice"
    FIELD_SLICE = "field_slice"
    TABLE_ROW_SLICE = "table_row_slice"
    TABLE_COLUMN_SLICE = "table_column_slice"

    def __init__(self, vocab_size, embedding_size, param_init="normal", target="CPU", slice_mode="batch_slice",
                 manual_shapes=None, max_norm=None, sparse=True, dtype=mstype.float32):
        super().__init__()
        cls = type(self).__name__
        if not isinstance(sparse, bool):
            raise TypeError(f"For '{cls}', the 'sparse' must be bool, but got {type(sparse).__name__}.")
        if isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or vocab_size <= 0:
            raise ValueError(f"For '{cls}', the 'vocab_size' must be a positive int, but got {vocab_size}.")
        if isinstance(embedding_size, bool) or not isinstance(embedding_size, int) or embedding_size <= 0:
            raise ValueError(f"For '{cls}', the 'embedding_size' must be a positive int, but got {embedding_size}.")
        if target not in ("CPU", "DEVICE"):
            raise ValueError(f"For '{cls}', the 'target' must be in ['CPU', 'DEVICE'], but got {target}.")
        if not sparse and target == "CPU":
            raise ValueError(f"For '{cls}', 'sparse' must be True when 'target' is \"CPU\", but got 'sparse': "
                             f"{sparse} and 'target': {target}")
        self.vocab_size, self.embedding_size = vocab_size, embedding_size
        self.target, self.sparse, self.slice_mode = target, sparse, slice_mode
        self.forward_unique = False
        self.embedding_table = Parameter(initializer(param_init, [vocab_size, embedding_size], dtype=dtype),
                                         name="embedding_table")
        self.max_norm = max_norm
        if max_norm is not None:
            if isinstance(max_norm, bool) or not isinstance(max_norm, (int, float)) or max_norm <= 0:
                raise ValueError(f"For '{cls}', the 'max_norm' must be a positive float, but got {max_norm}.")
            self.max_norm = float(max_norm)

    def _lookup(self, indices):
        out = F.gather(self.embedding_table, indices, 0)
        if self.max_norm is not None:
            out = _clip_rows(out, indices.ndim, self.max_norm)
        return out

    def construct(self, indices):
        return self._lookup(indices)


class MultiFieldEmbeddingLookup(EmbeddingLookup):
    """Embeddings of (batch, n) ids weighted by `input_values` and merged per field ('SUM', 'MEAN' or 'MAX').

    Outputs: (batch, field_size, embedding_size).
    """

    OPERATOR_SUM = "SUM"
    OPERATOR_MEAN = "MEAN"
    OPERATOR_MAX = "MAX"

    def __init__(self, vocab_size, embedding_size, field_size, param_init="normal", target="CPU",
                 slice_mode="batch_slice", feature_num_list=None, max_norm=None, sparse=True, operator="SUM",
                 dtype=mstype.float32):
        super().__init__(vocab_size, embedding_size, param_init, target, slice_mode, feature_num_list, max_norm,
                         sparse, dtype=dtype)
        if isinstance(field_size, bool) or not isinstance(field_size, int) or field_size <= 0:
            raise ValueError(f"For 'MultiFieldEmbeddingLookup', the 'field_size' must be a positive int, but got "
                             f"{field_size}.")
        if operator not in ("SUM", "MAX", "MEAN"):
            raise ValueError(f"For 'MultiFieldEmbeddingLookup', the 'operator' must be in ['SUM', 'MAX', 'MEAN'], "
                             f"but got {operator}.")
        self.field_size = field_size
        self.operator = operator
        self.negative_inf_value = -3.402823466E+38

    def construct(self, input_indices, input_values, field_ids):
        cls = "MultiFieldEmbeddingLookup"
        for name, t in (("input_indices", input_indices), ("input_values", input_values), ("field_ids", field_ids)):
            if t.ndim != 2:
                raise ValueError(f"For '{cls}', the dimension of '{name}' must be 2d, but got {t.ndim}")
        if input_indices.dtype not in (mstype.int32, mstype.int64):
            raise TypeError(f"For '{cls}', the 'input_indices' should be one of [mindspore.int32, mindspore.int64], "
                            f"but got 'mindspore.{input_indices.dtype.name.lower()}'.")
        if input_values.dtype != mstype.float32:
            raise TypeError(f"For '{cls}', the 'input_values' must be float32, but got {input_values.dtype}.")
        if field_ids.dtype != mstype.int32:
            raise TypeError(f"For '{cls}', the 'field_ids' should be Int32, but got "
                            f"'mindspore.{field_ids.dtype.name.lower()}'.")
        batch_size = input_indices.shape[0]
        num_segments = batch_size * self.field_size
        bias = Tensor([[i * self.field_size] for i in range(batch_size)], field_ids.dtype)
        field_ids = P.add_p(field_ids, bias)
        out = self._lookup(input_indices)
        weights = P.reshape_p(input_values, shape=(batch_size, input_indices.shape[1], 1))
        embedding = P.mul_p(weights, out)
        flat_ids = P.reshape_p(field_ids, shape=(-1,))
        embedding = P.reshape_p(embedding, shape=(-1, self.embedding_size))
        if self.operator == "MAX":
            # padded entries (weight 0) must not win the max
            mask = F.cast(P.equal_p(P.reshape_p(weights, shape=(-1, 1)), 0), mstype.float32)
            embedding = P.add_p(embedding, P.mul_p(mask, self.negative_inf_value))
            merged = F.unsorted_segment_max(embedding, flat_ids, num_segments)
            count = F.unsorted_segment_sum(F.abs(P.reshape_p(input_values, shape=(-1,))), flat_ids, num_segments)
            merged = P.mul_p(merged, P.reshape_p(F.cast(P.not_equal_p(count, 0.0), mstype.float32), shape=(-1, 1)))
        else:
            merged = F.unsorted_segment_sum(embedding, flat_ids, num_segments)
            if self.operator == "MEAN":
                count = F.unsorted_segment_sum(F.abs(P.reshape_p(input_values, shape=(-1,))), flat_ids,
                                               num_segments)
                merged = div_no_nan(merged, P.reshape_p(count, shape=(-1, 1)))
        return P.reshape_p(merged, shape=(batch_size, self.field_size, -1))
