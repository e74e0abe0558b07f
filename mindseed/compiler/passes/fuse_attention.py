"""Attention fusion: `softmax(q @ k^T * c + mask) @ v` and its gradient -> the blocked flash-attention kernels.

Written as separate ops (as transformer code does), attention materializes the (T, S) score matrix several
times forward and backward. The pattern, after differentiation, is

    kt = Transpose(k, perm=(.., -1, -2))          s  = MatMul(q, kt)       s2 = Mul(s, c)   s3 = Add(s2, mask)
    a  = Softmax(s3, axis=-1)                     o  = MatMul(a, v)
    # backward, when the graph holds it:
    da = MatMul(do, v, transpose_b=True)          dv = MatMul(a, do, transpose_a=True)
    ds3 = SoftmaxGrad(a, da, axis=-1)             ds = Mul(ds3, c)
    dq = MatMul(ds, kt, transpose_b=True)         dkt = MatMul(q, ds, transpose_a=True)

and becomes `o, lse = FlashAttention(q, k, v, mask)` plus `dq, dk, dv = FlashAttentionGrad(do, q, k, v, o, lse,
mask)`, `dkt = Transpose(dk)`. The intermediate values must have no other uses (in particular the mask must
not need a gradient), q, k, v must have the kernel's shapes (4-D, equal batch and head dims, one head size: no
broadcasting), the mask 2-D or 4-D and no wider than the scores, and the kernel available for the dtype/device;
anything else is left alone. The numbers agree with the unfused ops to float rounding (the kernel sums in a
different order); a mask that hides a whole row gives that row's NaN as the unfused softmax does (the kernels
take the unfused path then).
"""
from mindseed._backend import kernels as _K
from mindseed.compiler.ir import Const, Node, Var
from mindseed.compiler.passes._util import new_node, uses_of
from mindseed.ops._prims.core import add_p, div_p, matmul_p, mul_p, transpose_p
from mindseed.ops._prims.nn import flash_attention_grad_p, flash_attention_p, softmax_grad_p, softmax_p

__all__ = ["fuse_attention"]


def _flag(node, name):
    return bool(node.attrs.get(name, False))


def _plain_matmul(node):
    return node is not None and node.prim is matmul_p and not _flag(node, "transpose_a") \
        and not _flag(node, "transpose_b")


def _scale_of(node, x):
    """c when node is x * c, c * x or x / c' (c = 1/c') with a Python number; else None."""
    if node is None or len(node.inputs) != 2:
        return None
    a, b = node.inputs
    if node.prim is mul_p:
        other = b if a is x else a if b is x else None
        if isinstance(other, Const) and isinstance(other.value, (int, float)) and not isinstance(other.value, bool):
            return float(other.value)
    if node.prim is div_p and a is x and isinstance(b, Const) and isinstance(b.value, (int, float)) \
            and not isinstance(b.value, bool) and b.value != 0:
        return 1.0 / float(b.value)
    return None


def _last_two_swapped(node):
    if node is None or node.prim is not transpose_p:
        return False
    perm = tuple(node.attrs.get("perm", ()))
    n = len(perm)
    return n == 4 and perm == tuple(range(n - 2)) + (n - 1, n - 2)


def _kernel_shapes(q, k, v, mask, a):
    """Shapes the flash kernel takes as they are: q (B, H, T, D), k and v (B, H, S, D) with no broadcasting
    between them, scores (B, H, T, S), a 2-D or 4-D mask whose dims are 1 or the scores' (it must not widen them)."""
    shapes = [x.shape for x in (q, k, v, a)]
    if any(sh is None or len(sh) != 4 or not all(type(d) is int for d in sh) for sh in shapes):
        return False
    b, h, t, d = q.shape
    s = k.shape[2]
    if tuple(k.shape) != (b, h, s, d) or tuple(v.shape) != (b, h, s, d) or tuple(a.shape) != (b, h, t, s):
        return False
    if mask is None:
        return True
    return len(mask.shape) in (2, 4) and all(type(m) is int and m in (1, n)
                                               for m, n in zip(reversed(mask.shape), (s, t, h, b)))


class _Match:
    __slots__ = ("q", "k", "v", "mask", "scale", "o", "kt", "fwd", "bwd", "do", "dq", "dkt", "dv")


def _match(softmax, producer, uses):
    """The attention pattern around `softmax` (a Softmax node), or None."""
    a = softmax.outputs[0]
    if softmax.attrs.get("axis") not in (-1, 3) or a.shape is None or len(a.shape) != 4:
        return None
    if not _K.nn.flash_attention_supported(a.dtype):
        return None
    m = _Match()
    s3 = softmax.inputs[0]
    add = producer.get(s3.id) if isinstance(s3, Var) else None
    if add is None or len(uses.get(s3.id, ())) != 1:
        return None
    mask = None
    scaled = s3
    if add.prim is add_p and len(add.inputs) == 2:
        x, y = add.inputs
        px, py = producer.get(getattr(x, "id", None)), producer.get(getattr(y, "id", None))
        if px is not None and px.prim in (mul_p, div_p):
            scaled, mask = x, y
        elif py is not None and py.prim in (mul_p, div_p):
            scaled, mask = y, x
        else:
            return None
        if not isinstance(mask, Var) or mask.dtype != a.dtype or mask.shape is None or not 2 <= len(mask.shape) <= 4:
            return None
        if len(uses.get(scaled.id, ())) != 1:
            return None
        nodes = [add]
    else:
        nodes = []
    mul = producer.get(scaled.id)
    if mul is None:
        return None
    s = next((x for x in mul.inputs if isinstance(x, Var)), None)
    scale = _scale_of(mul, s)
    qk = producer.get(s.id) if s is not None else None
    if scale is None or not _plain_matmul(qk) or len(uses.get(s.id, ())) != 1:
        return None
    q, kt = qk.inputs
    tr = producer.get(kt.id) if isinstance(kt, Var) else None
    if not isinstance(q, Var) or not _last_two_swapped(tr):
        return None
    k = tr.inputs[0]
    users = uses.get(a.id, [])
    pv = [n for n in users if _plain_matmul(n) and n.inputs[0] is a]
    if len(pv) != 1 or not isinstance(pv[0].inputs[1], Var):
        return None
    if not _kernel_shapes(q, k, pv[0].inputs[1], mask, a):
        return None
    m.q, m.k, m.v, m.mask, m.scale, m.kt = q, k, pv[0].inputs[1], mask, scale, kt
    m.o = pv[0].outputs[0]
    m.fwd = [qk, mul] + nodes + [softmax, pv[0]]
    m.bwd = []
    rest = [n for n in users if n is not pv[0]]
    if not rest:
        return m
    return m if _match_backward(m, a, rest, producer, uses) else None


def _match_backward(m, a, users, producer, uses):
    """The gradient part; dv / dq / dk may each be absent (not asked for), the softmax gradient may not."""
    if len(users) > 2 or None in users:
        return False
    dv_mm = next((n for n in users if n.prim is matmul_p and _flag(n, "transpose_a")
                  and not _flag(n, "transpose_b") and n.inputs[0] is a), None)
    sg = next((n for n in users if n.prim is softmax_grad_p and n.inputs[0] is a
               and n.attrs.get("axis") in (-1, 3)), None)
    if sg is None or len(users) != 1 + (dv_mm is not None):
        return False
    da = sg.inputs[1]
    da_mm = producer.get(getattr(da, "id", None))
    if da_mm is None or da_mm.prim is not matmul_p or not _flag(da_mm, "transpose_b") \
            or _flag(da_mm, "transpose_a") or da_mm.inputs[1] is not m.v or len(uses.get(da.id, ())) != 1:
        return False
    do = da_mm.inputs[0]
    if not isinstance(do, Var) or dv_mm is not None and dv_mm.inputs[1] is not do:
        return False
    ds3 = sg.outputs[0]
    ds3_users = uses.get(ds3.id, [])
    dmul = ds3_users[0] if len(ds3_users) == 1 else None
    if dmul is None or _scale_of(dmul, ds3) != m.scale:
        return False
    ds = dmul.outputs[0]
    ds_users = uses.get(ds.id, [])
    if not ds_users or None in ds_users:
        return False
    dq_mm = next((n for n in ds_users if n.prim is matmul_p and _flag(n, "transpose_b")
                  and not _flag(n, "transpose_a") and n.inputs[0] is ds and n.inputs[1] is m.kt), None)
    dk_mm = next((n for n in ds_users if n.prim is matmul_p and _flag(n, "transpose_a")
                  and not _flag(n, "transpose_b") and n.inputs[0] is m.q and n.inputs[1] is ds), None)
    found = [n for n in (dq_mm, dk_mm) if n is not None]
    if len(found) != len(ds_users):
        return False
    m.do = do
    m.dv = dv_mm.outputs[0] if dv_mm is not None else None
    m.dq = dq_mm.outputs[0] if dq_mm is not None else None
    m.dkt = dk_mm.outputs[0] if dk_mm is not None else None
    m.bwd = [n for n in (da_mm, dv_mm, sg, dmul, dq_mm, dk_mm) if n is not None]
    return True


def fuse_attention(graph):
    """Replace every attention pattern of graph (not of its sub-graphs) by the fused kernels."""
    if graph.dynamic:
        return graph
    producer = {o.id: node for node in graph.nodes for o in node.outputs}
    uses = uses_of(graph)
    matches = [m for m in (_match(n, producer, uses) for n in graph.nodes if n.prim is softmax_p) if m]
    if not matches:
        return graph
    drop, insert = set(), {}
    order = {id(n): i for i, n in enumerate(graph.nodes)}
    for m in matches:
        fwd_at = m.fwd[-1]
        if m.bwd and min(order[id(n)] for n in m.bwd) < order[id(fwd_at)]:
            continue        # a cotangent not computed from the output (given from outside): keep it unfused
        fwd = new_node(flash_attention_p, [m.q, m.k, m.v, m.mask], {"scale": m.scale}, fwd_at.loc, "lse")
        fwd.outputs[0] = m.o        # (o, lse): the output the unfused ops computed, and a new log-sum-exp
        lse = fwd.outputs[1]
        insert[id(fwd_at)] = [fwd]
        drop.update(id(n) for n in m.fwd)
        if m.bwd:
            first = min(m.bwd, key=lambda n: order[id(n)])
            bwd = new_node(flash_attention_grad_p, [m.do, m.q, m.k, m.v, m.o, lse, m.mask], {"scale": m.scale},
                           first.loc, "d")
            dq, dk, dv = bwd.outputs
            bwd.outputs = [m.dq or dq, dk, m.dv or dv]
            insert[id(first)] = [bwd]
            if m.dkt is not None:
                insert[id(first)].append(Node(transpose_p, [dk], {"perm": (0, 1, 3, 2)}, [m.dkt], first.loc))
            drop.update(id(n) for n in m.bwd)
    nodes = []
    for node in graph.nodes:
        nodes.extend(insert.get(id(node), ()))
        if id(node) not in drop:
            nodes.append(node)
    graph.nodes = nodes
    return graph
