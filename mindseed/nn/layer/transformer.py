"""MultiheadAttention and the Transformer encoder/decoder layers and stacks (MindSpore's PyTorch-derived API)."""
import copy
import math

from mindseed.common import dtype as mstype
from mindseed.common.initializer import HeUniform, Uniform, XavierNormal, XavierUniform, initializer
from mindseed.common.parameter import Parameter
from mindseed.nn.cell import Cell
from mindseed.nn.layer.activation import GELU, ReLU
from mindseed.nn.layer.basic import Dense, Dropout
from mindseed.nn.layer.container import CellList
from mindseed.nn.layer.normalization import LayerNorm
from mindseed.ops import functional as F
from mindseed.ops._prims import core as P
from mindseed.ops._prims.nn import dense_p

__all__ = ["MultiheadAttention", "TransformerEncoderLayer", "TransformerDecoderLayer", "TransformerEncoder",
           "TransformerDecoder", "Transformer"]


def _linear(x, w, b):
    return dense_p(x, w, b)


def _pad_last(mask):
    """A mask with one more key position (never masked) at the end."""
    if mask.dtype == mstype.bool_:
        return F.cast(F.pad(F.cast(mask, mstype.int32), (0, 1)), mstype.bool_)
    return F.pad(mask, (0, 1))


def _as_additive(mask, dtype):
    """Boolean masks (True = not allowed) as additive -inf masks; float masks unchanged."""
    if mask.dtype == mstype.bool_:
        return F.masked_fill(F.zeros(mask.shape, dtype), mask, float("-inf"))
    return mask


def _check_mask_dtype(name, mask):
    if mask.dtype == mstype.uint8:
        return F.cast(mask, mstype.bool_)
    if mask.dtype != mstype.bool_ and not mstype.is_float(mask.dtype):
        raise ValueError(f"`{name}` only support float, byte, and bool types, but got not {mask.dtype}.")
    return mask


def multi_head_attention_forward(query, key, value, embed_dim, num_heads, in_proj_weight, in_proj_bias, bias_k,
                                 bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias, training=True,
                                 key_padding_mask=None, attn_mask=None, q_proj_weight=None, k_proj_weight=None,
                                 v_proj_weight=None, average_attn_weights=True):
    """Multi-head attention on (L, N, E) query and (S, N, E) key/value (or unbatched (L, E), (S, E)).

    Returns:
        (output (L, N, E), weights (N, L, S) averaged over heads or (N, heads, L, S)).
    """
    batched = query.ndim == 3
    if batched and (key.ndim != 3 or value.ndim != 3):
        raise ValueError(f"For batched `query`, the `key` and `value` must be 3D tensor, but got `key` with "
                         f"{key.ndim}D and `value` with {value.ndim}D.")
    if not batched:
        if query.ndim != 2 or key.ndim != 2 or value.ndim != 2:
            raise ValueError(f"The `query` should be unbatched 2D or batched 3D tensor, but got {query.ndim}D.")
        query, key, value = (P.reshape_p(t, shape=(t.shape[0], 1, t.shape[1])) for t in (query, key, value))
        if key_padding_mask is not None:
            key_padding_mask = P.reshape_p(key_padding_mask, shape=(1,) + key_padding_mask.shape)
    tgt_len, bsz, e = query.shape
    if e != embed_dim:
        raise ValueError(f"The `embed_dim` should be {embed_dim}, but got {e}.")
    head_dim = embed_dim // num_heads
    if q_proj_weight is None:
        if key.shape != value.shape:
            raise ValueError(f"The shape of `key` {key.shape} does not match `value` {value.shape}.")
        w_q, w_k, w_v = P.split_sizes_p(in_proj_weight, sizes=[embed_dim] * 3, axis=0)
    else:
        if key.shape[:2] != value.shape[:2]:
            raise ValueError(f"The sequence length and batch dims of `key`: {key.shape[:2]} do not match `value`: "
                             f"{value.shape[:2]}.")
        w_q, w_k, w_v = q_proj_weight, k_proj_weight, v_proj_weight
    b_q = b_k = b_v = None
    if in_proj_bias is not None:
        b_q, b_k, b_v = P.split_sizes_p(in_proj_bias, sizes=[embed_dim] * 3, axis=0)
    q, k, v = _linear(query, w_q, b_q), _linear(key, w_k, b_k), _linear(value, w_v, b_v)
    src_len = key.shape[0]

    if attn_mask is not None:
        attn_mask = _check_mask_dtype("attn_mask", attn_mask)
        if attn_mask.ndim == 2:
            if attn_mask.shape != (tgt_len, src_len):
                raise ValueError(f"The shape of the `attn_mask` should be {(tgt_len, src_len)}, but got "
                                 f"{attn_mask.shape}.")
            attn_mask = P.reshape_p(attn_mask, shape=(1,) + attn_mask.shape)
        elif attn_mask.ndim == 3:
            if attn_mask.shape != (bsz * num_heads, tgt_len, src_len):
                raise ValueError(f"The shape of the `attn_mask` should be {(bsz * num_heads, tgt_len, src_len)}, "
                                 f"but got {attn_mask.shape}.")
        else:
            raise ValueError(f"The ndim of `attn_mask` only support 2 or 3, but got {attn_mask.ndim}.")
    if key_padding_mask is not None:
        if key_padding_mask.dtype != mstype.bool_ and not mstype.is_float(key_padding_mask.dtype):
            raise ValueError("The `key_padding_mask` only supports bool and floating dtypes.")

    if bias_k is not None and bias_v is not None:
        k = F.concat((k, F.tile(bias_k, (1, bsz, 1))), 0)
        v = F.concat((v, F.tile(bias_v, (1, bsz, 1))), 0)
        if attn_mask is not None:
            attn_mask = _pad_last(attn_mask)
        if key_padding_mask is not None:
            key_padding_mask = _pad_last(key_padding_mask)
    elif bias_k is not None or bias_v is not None:
        raise ValueError("The bias_k and bias_v should be ``None``at the same time.")

    q = P.transpose_p(P.reshape_p(q, shape=(tgt_len, bsz * num_heads, head_dim)), perm=(1, 0, 2))
    k = P.transpose_p(P.reshape_p(k, shape=(k.shape[0], bsz * num_heads, head_dim)), perm=(1, 0, 2))
    v = P.transpose_p(P.reshape_p(v, shape=(v.shape[0], bsz * num_heads, head_dim)), perm=(1, 0, 2))
    if add_zero_attn:
        zeros = F.zeros((bsz * num_heads, 1, head_dim), k.dtype)
        k = F.concat((k, zeros), 1)
        v = F.concat((v, zeros), 1)
        if attn_mask is not None:
            attn_mask = _pad_last(attn_mask)
        if key_padding_mask is not None:
            key_padding_mask = _pad_last(key_padding_mask)
    src_len = k.shape[1]

    if key_padding_mask is not None:
        if key_padding_mask.shape != (bsz, src_len):
            raise ValueError(f"The shape of `key_padding_mask` should be {(bsz, src_len)}, but got "
                             f"{key_padding_mask.shape}.")
        kpm = P.reshape_p(F.tile(P.reshape_p(key_padding_mask, shape=(bsz, 1, 1, src_len)), (1, num_heads, 1, 1)),
                          shape=(bsz * num_heads, 1, src_len))
        if attn_mask is None:
            attn_mask = kpm
        elif attn_mask.dtype == mstype.bool_ and kpm.dtype == mstype.bool_:
            attn_mask = F.logical_or(attn_mask, kpm)
        else:
            attn_mask = P.add_p(_as_additive(attn_mask, q.dtype), _as_additive(kpm, q.dtype))
    if attn_mask is not None:
        attn_mask = _as_additive(attn_mask, q.dtype)
        if attn_mask.shape[0] == 1:
            attn_mask = P.reshape_p(attn_mask, shape=(1,) + attn_mask.shape)
        else:
            attn_mask = P.reshape_p(attn_mask, shape=(bsz, num_heads, -1, src_len))

    q = P.reshape_p(q, shape=(bsz, num_heads, tgt_len, head_dim))
    k = P.reshape_p(k, shape=(bsz, num_heads, src_len, head_dim))
    v = P.reshape_p(v, shape=(bsz, num_heads, src_len, head_dim))
    scale = math.sqrt(math.sqrt(head_dim))
    attn = P.matmul_p(P.div_p(q, scale), P.div_p(k, scale), transpose_b=True)
    if attn_mask is not None:
        attn = P.add_p(attn, attn_mask)
    attn = F.softmax(attn, -1)
    if dropout_p > 0.0 and training:
        attn = F.dropout(attn, p=dropout_p, training=True)
    out = P.matmul_p(attn, v)
    out = P.reshape_p(P.transpose_p(out, perm=(2, 0, 1, 3)), shape=(bsz * tgt_len, embed_dim))
    out = _linear(out, out_proj_weight, out_proj_bias)
    out = P.reshape_p(out, shape=(tgt_len, bsz, out.shape[1]))
    if average_attn_weights:
        attn = P.div_p(P.reduce_sum_p(attn, axis=1), num_heads)
    if not batched:
        out = P.reshape_p(out, shape=(tgt_len, out.shape[2]))
        attn = P.reshape_p(attn, shape=attn.shape[1:])
    return out, attn


class MultiheadAttention(Cell):
    """Multi-head attention: softmax(Q K^T / sqrt(d)) V over `num_heads` heads, then an output projection.

    Args:
        embed_dim (int), num_heads (int): sizes (embed_dim divisible by num_heads).
        dropout (float): on the attention weights in training. Default ``0.0``.
        has_bias (bool): Default ``True``. add_bias_kv, add_zero_attn (bool): Default ``False``.
        kdim, vdim (int): key/value feature sizes. Default ``embed_dim``.
        batch_first (bool): (N, L, E) inputs. Default ``False``.

    Inputs: query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
    average_attn_weights=True. Outputs: (attn_output, attn_weights) or (attn_output,).
    """

    def __init__(self, embed_dim, num_heads, dropout=0.0, has_bias=True, add_bias_kv=False, add_zero_attn=False,
                 kdim=None, vdim=None, batch_first=False, dtype=mstype.float32):
        super().__init__()
        for name, v in (("embed_dim", embed_dim), ("num_heads", num_heads)):
            if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
                raise ValueError(f"For 'MultiheadAttention', the '{name}' must be a positive int, but got {v!r}.")
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != self.embed_dim:
            raise ValueError("The init argument 'embed_dim' must be divisible by 'num_heads'.")
        dtype = dtype or mstype.float32
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = Parameter(initializer(XavierUniform(), (embed_dim, embed_dim), dtype),
                                           "q_proj_weight")
            self.k_proj_weight = Parameter(initializer(XavierUniform(), (embed_dim, self.kdim), dtype),
                                           "k_proj_weight")
            self.v_proj_weight = Parameter(initializer(XavierUniform(), (embed_dim, self.vdim), dtype),
                                           "v_proj_weight")
            self.in_proj_weight = None
        else:
            self.in_proj_weight = Parameter(initializer(XavierUniform(), (3 * embed_dim, embed_dim), dtype),
                                            "in_proj_weight")
            self.q_proj_weight = self.k_proj_weight = self.v_proj_weight = None
        self.in_proj_bias = Parameter(initializer("zeros", (3 * embed_dim,), dtype), "in_proj_bias") \
            if has_bias else None
        bound = 1 / math.sqrt(embed_dim)
        self.out_proj = Dense(embed_dim, embed_dim, has_bias=has_bias, weight_init=HeUniform(math.sqrt(5)),
                              bias_init=Uniform(bound), dtype=dtype)
        if add_bias_kv:
            self.bias_k = Parameter(initializer(XavierNormal(), (1, 1, embed_dim), dtype), "bias_k")
            self.bias_v = Parameter(initializer(XavierNormal(), (1, 1, embed_dim), dtype), "bias_v")
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self.dtype = dtype

    def construct(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                  average_attn_weights=True):
        batched = query.ndim == 3
        if key_padding_mask is not None and key_padding_mask.dtype != mstype.bool_ and \
                not mstype.is_float(key_padding_mask.dtype):
            raise ValueError("only bool and floating types of key_padding_mask are supported")
        if self.batch_first and batched:
            query, key, value = (P.transpose_p(t, perm=(1, 0, 2)) for t in (query, key, value))
        out, weights = multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight, self.in_proj_bias, self.bias_k,
            self.bias_v, self.add_zero_attn, self.dropout, self.out_proj.weight, self.out_proj.bias,
            training=self.training, key_padding_mask=key_padding_mask, attn_mask=attn_mask,
            q_proj_weight=self.q_proj_weight, k_proj_weight=self.k_proj_weight, v_proj_weight=self.v_proj_weight,
            average_attn_weights=average_attn_weights)
        if self.batch_first and batched:
            out = P.transpose_p(out, perm=(1, 0, 2))
        if need_weights:
            return out, weights
        return (out,)


def _get_activation_fn(activation):
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    raise ValueError(f"The activation must be relu/gelu, but get {activation}")


def _check_activation(activation):
    if not isinstance(activation, (str, Cell)) and not callable(activation):
        raise ValueError(f"The argument 'activation' must be str, callable or Cell instance, but get {activation}.")
    if isinstance(activation, Cell):
        if not isinstance(activation, (ReLU, GELU)):
            raise ValueError(f"The argument 'activation' must be nn.ReLU or nn.GELU instance, but get {activation}.")
    elif callable(activation) and activation is not F.relu and activation is not F.gelu:
        raise ValueError(f"The argument 'activation' must be ops.relu or ops.gelu instance, but get {activation}.")
    return _get_activation_fn(activation) if isinstance(activation, str) else activation


def _feedforward(d_model, dim_feedforward, dtype):
    dense1 = Dense(d_model, dim_feedforward, weight_init=HeUniform(math.sqrt(5)),
                   bias_init=Uniform(1 / math.sqrt(d_model)), dtype=dtype)
    dense2 = Dense(dim_feedforward, d_model, weight_init=HeUniform(math.sqrt(5)),
                   bias_init=Uniform(1 / math.sqrt(dim_feedforward)), dtype=dtype)
    return dense1, dense2


def _check_kpm(mask):
    if mask is not None and mask.dtype != mstype.bool_ and not mstype.is_float(mask.dtype):
        raise AssertionError("only bool and floating types of key_padding_mask are supported")


class _TransformerLayer(Cell):
    """What the encoder and decoder layers share: self-attention (and, with `blocks` 3, attention over the
    encoder memory), the feed-forward block, one LayerNorm and one Dropout per block, and the arguments
    `_Stack` copies a layer's configuration from."""

    def __init__(self, blocks, d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps, batch_first,
                 norm_first, dtype):
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first, dtype=dtype)
        if blocks == 3:
            self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first,
                                                     dtype=dtype)
        dense1, dense2 = _feedforward(d_model, dim_feedforward, dtype)
        self.dense1 = dense1
        self.dropout = Dropout(p=dropout)
        self.dense2 = dense2
        self.norm_first = norm_first
        for i in range(1, blocks + 1):
            setattr(self, f"norm{i}", LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype))
        for i in range(1, blocks + 1):
            setattr(self, f"dropout{i}", Dropout(p=dropout))
        self.activation1 = activation
        self.activation = _check_activation(activation)
        self.d_model, self.nhead, self.dim_feedforward = d_model, nhead, dim_feedforward
        self.dropout_num, self.layernorm_eps = dropout, layer_norm_eps
        self.batch_first, self.dtype = batch_first, dtype

    def _sa_block(self, x, attn_mask, key_padding_mask):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False)[0]
        return self.dropout1(x)

    def _feedforward_block(self, x, dropout):
        return dropout(self.dense2(self.dropout(self.activation(self.dense1(x)))))


class TransformerEncoderLayer(_TransformerLayer):
    """Self-attention then a feed-forward block, each with residual, dropout and LayerNorm (post-norm unless
    norm_first)."""

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu", layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, dtype=mstype.float32):
        super().__init__(2, d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps, batch_first,
                         norm_first, dtype)

    def construct(self, src, src_mask=None, src_key_padding_mask=None):
        _check_kpm(src_key_padding_mask)
        x = src
        if self.norm_first:
            x = P.add_p(x, self._sa_block(self.norm1(x), src_mask, src_key_padding_mask))
            x = P.add_p(x, self._ff_block(self.norm2(x)))
        else:
            x = self.norm1(P.add_p(x, self._sa_block(x, src_mask, src_key_padding_mask)))
            x = self.norm2(P.add_p(x, self._ff_block(x)))
        return x

    def _ff_block(self, x):
        return self._feedforward_block(x, self.dropout2)


class TransformerDecoderLayer(_TransformerLayer):
    """Self-attention, attention over the encoder memory and a feed-forward block, each with residual,
    dropout and LayerNorm."""

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu", layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, dtype=mstype.float32):
        super().__init__(3, d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps, batch_first,
                         norm_first, dtype)

    def construct(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                  memory_key_padding_mask=None):
        x = tgt
        if self.norm_first:
            x = P.add_p(x, self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask))
            x = P.add_p(x, self._mha_block(self.norm2(x), memory, memory_mask, memory_key_padding_mask))
            x = P.add_p(x, self._ff_block(self.norm3(x)))
        else:
            x = self.norm1(P.add_p(x, self._sa_block(x, tgt_mask, tgt_key_padding_mask)))
            x = self.norm2(P.add_p(x, self._mha_block(x, memory, memory_mask, memory_key_padding_mask)))
            x = self.norm3(P.add_p(x, self._ff_block(x)))
        return x

    def _mha_block(self, x, mem, attn_mask, key_padding_mask):
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                                need_weights=False)[0]
        return self.dropout2(x)

    def _ff_block(self, x):
        return self._feedforward_block(x, self.dropout3)


class _Stack(Cell):
    """`num_layers` fresh copies of `layer`'s configuration (not its weights), then an optional norm."""

    def __init__(self, layer_cls, layer, num_layers, norm):
        super().__init__()
        owner = layer_cls.__name__.removesuffix("Layer")
        if not isinstance(layer, layer_cls):
            raise TypeError(f"For '{owner}', the layer must be a {layer_cls.__name__}, but got {type(layer).__name__}.")
        if isinstance(num_layers, bool) or not isinstance(num_layers, int) or not 0 < num_layers <= 4096:
            raise ValueError(f"For '{owner}', the 'num_layers' must be an int in [1, 4096], but got {num_layers!r}.")
        fresh = layer_cls(layer.d_model, layer.nhead, layer.dim_feedforward, layer.dropout_num, layer.activation1,
                          layer.layernorm_eps, layer.batch_first, layer.norm_first, dtype=layer.dtype)
        self.layers = CellList([copy.deepcopy(fresh) for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm

    def _stack(self, output, *args, **kwargs):
        for mod in self.layers:
            output = mod(output, *args, **kwargs)
        return output if self.norm is None else self.norm(output)


class TransformerEncoder(_Stack):
    """`num_layers` fresh copies of `encoder_layer`'s configuration, then an optional norm."""

    def __init__(self, encoder_layer, num_layers, norm=None):
        super().__init__(TransformerEncoderLayer, encoder_layer, num_layers, norm)

    def construct(self, src, src_mask=None, src_key_padding_mask=None):
        _check_kpm(src_key_padding_mask)
        return self._stack(src, src_mask=src_mask, src_key_padding_mask=src_key_padding_mask)


class TransformerDecoder(_Stack):
    """`num_layers` fresh copies of `decoder_layer`'s configuration, then an optional norm."""

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__(TransformerDecoderLayer, decoder_layer, num_layers, norm)

    def construct(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                  memory_key_padding_mask=None):
        return self._stack(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                         tgt_key_padding_mask=tgt_key_padding_mask, memory_key_padding_mask=memory_key_padding_mask)


class Transformer(Cell):
    """Encoder-decoder Transformer; weights of more than one dimension are Xavier-uniform initialised.

    Inputs: src (S, N, E), tgt (T, N, E) (batch first with batch_first) and the optional masks.
    """

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6, dim_feedforward=2048,
                 dropout=0.1, activation="relu", custom_encoder=None, custom_decoder=None, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, dtype=mstype.float32):
        super().__init__()

        def stack(custom, layer_cls, stack_cls, num_layers):
            if custom is not None:
                return custom
            layer = layer_cls(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps, batch_first,
                              norm_first, dtype=dtype)
            return stack_cls(layer, num_layers, LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype))
        self.encoder = stack(custom_encoder, TransformerEncoderLayer, TransformerEncoder, num_encoder_layers)
        self.decoder = stack(custom_decoder, TransformerDecoderLayer, TransformerDecoder, num_decoder_layers)
        for _, p in self.parameters_and_names():
            if p.ndim > 1:
                p.set_data(initializer("xavier_uniform", p.shape, p.dtype))
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def construct(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None, src_key_padding_mask=None,
                  tgt_key_padding_mask=None, memory_key_padding_mask=None):
        batched = src.ndim == 3
        if batched and src.shape[0 if self.batch_first else 1] != tgt.shape[0 if self.batch_first else 1]:
            raise ValueError("The number of batch size for 'src' and 'tgt' must be equal.")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise ValueError("The number of features for 'src' and 'tgt' must be equal to `d_model`.")
        memory = self.encoder(src, src_mask=src_mask, src_key_padding_mask=src_key_padding_mask)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask)

