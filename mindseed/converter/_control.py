"""ONNX If and Loop written as Python `if`/`else` and `while` blocks of `construct` (MindSpore compiles them as
control flow in graph mode). Each branch or body is a child `Program` (run once on the values around it for its
shapes) whose lines become the block.

    if cond:                      # an If on a constant condition is only its branch's lines
        <then lines>
        z = <then result>
    else:
        <else lines>
        z = <else result>

    y_in = x                      # Loop: the carried values, the iteration count (with a trip count) and the
    i = ms.Tensor(0, ms.int64)    # condition (when the file has one) start before the loop
    while i < 5 and c_in:
        <body lines>
        c_in, y_in = c_out, y_out
        i = i + 1
"""
import numpy as np

from mindseed.common.tensor import Tensor
from mindseed.converter._program import Program


def _tensor(value):
    return Tensor(value) if isinstance(value, np.ndarray) else value


def write_if(p, node, build):
    children = []
    for key in ("then_branch", "else_branch"):
        child = Program(None, parent=p, sub=node.attrs[key], env=p.env, inputs={})
        build(child)
        children.append(child)
    cond = node.inputs[0]
    if p.is_const(cond):
        child = children[0 if p.consts[cond].reshape(-1)[0] else 1]
        p.lines.extend(child.lines)
        p.assign(node.outputs, ", ".join(child.arg(o) for o in child.graph.outputs))
        return
    for head, child in ((f"if {p.arg(cond)}:", children[0]), ("else:", children[1])):
        p.lines.append(head)
        results = [child.arg(o) for o in child.graph.outputs]
        p.block(child.lines + [f"{', '.join(p.name_var(o) for o in node.outputs)} = {', '.join(results)}"])


def write_loop(p, node, build):
    body = node.attrs["body"]
    inputs = node.inputs + [""] * (2 - len(node.inputs))
    limit, cond, carried = inputs[0], inputs[1], inputs[2:]
    if len(body.outputs) != 1 + len(carried):
        raise p.graph.error(node, "the converter cannot write a Loop with scan outputs as MindSpore code.")
    if not limit and not cond:
        raise p.graph.error(node, "a Loop with neither a trip count nor a condition does not end.")
    iter_name, cond_name, *carried_names = body.inputs
    start = {iter_name: Tensor(np.array(0, np.int64)), cond_name: Tensor(np.array(True))}
    start.update({n: _tensor(p.env[v]) for n, v in zip(carried_names, carried)})
    child = Program(None, parent=p, sub=body, env=p.env, inputs=start)
    build(child)
    # the condition matters when the file gives one or the body computes one
    use_cond = bool(cond) and not (p.is_const(cond) and p.consts[cond].all() and body.outputs[0] == cond_name)
    names = [child.name_var(n) for n in carried_names]
    for name, value in zip(names, carried):
        p.lines.append(f"{name} = {p.arg(value)}")
    test = []
    if limit:
        i = child.name_var(iter_name)
        p.lines.append(f"{i} = ms.Tensor(0, ms.int64)")
        test.append(f"{i} < {int(p.consts[limit].reshape(-1)[0]) if p.is_const(limit) else p.arg(limit)}")
    if use_cond:
        c = child.name_var(cond_name)
        p.lines.append(f"{c} = {p.arg(cond)}")
        test.append(c)
    targets = ([c] if use_cond else []) + names
    values = ([child.arg(body.outputs[0])] if use_cond else []) + [child.arg(o) for o in body.outputs[1:]]
    updates = [f"{', '.join(targets)} = {', '.join(values)}"] if targets else []
    p.lines.append(f"while {' and '.join(test)}:")
    p.block(child.lines + updates + ([f"{i} = {i} + 1"] if limit else []))
    for out, name in zip(node.outputs, names):
        if out:
            p.var[out] = name
