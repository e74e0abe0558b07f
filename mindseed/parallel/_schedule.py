"""Pipeline schedules: the order in which each stage runs its micro-batch passes, their timeline, and the activation
memory they hold.

A pass is ``("F", m)`` / ``("B", m)`` (the forward / backward of micro-batch m through the stage) without
interleaving, and ``("F", m, c)`` / ``("B", m, c)`` with it: an interleaved pipeline (MindSpore's
``pipeline_config={"pipeline_interleave": True, ...}``) gives each stage several model chunks (``Cell.pipeline_stage``
going round the stages more than once, or ``Cell.pipeline_segment``), and a pass runs one micro-batch through one
chunk. Virtual stage ``c * stages + s`` is chunk c of stage s; values go through the virtual stages in order.

* ``"gpipe"``: every forward, then every backward.
* ``"1f1b"`` without interleaving: stage s runs min(stages - s - 1, micro) forwards, then one forward and one
  backward in turn, then the remaining backwards.
* interleaved (MindSpore's InterleavedScheduler): the passes are taken in MindSpore's micro-batch order: groups of
  `stages` micro-batches (the first group also takes the ``micro % stages`` left over), in a group the chunks in
  order (the backward: the last chunk first), in a chunk the micro-batches in order. ``"1f1b"``: stage s runs
  ``bias = (stages + micro % stages) * (chunks - 1) + 2 * (stages - s - 1)`` forwards, then one forward and one
  backward in turn, then the remaining backwards; ``"gpipe"``: all forwards then all backwards, in that order.
* ``"seqpipe"`` (MindSpore's SeqpipeScheduler, one sequence chunk): the forwards in cycles of `stages` micro-batches
  (the ``micro % stages`` left over spread over the first cycles; fewer micro-batches than stages: one cycle), in a
  cycle the chunks in order, in a chunk the micro-batches in order; after the first
  ``(stages - 1 - s) * (1 if chunks == 1 else 2) + (chunks - 1) * cycles[0]`` forwards, each forward is followed by
  one backward: the micro-batch of the oldest forward not yet gone back, in the latest chunk it went forward through.
  Without chunks it is 1F1B. ``"seqvpp"``: the same with chunks (at least 2) and at least `stages` micro-batches
  (MindSpore's RuntimeErrors); ``"seqsmartvpp"``: seqvpp warming up one forward per later stage instead of two.
* ``"zero_bubble_v"`` (MindSpore's ZeroBubbleV): two chunks in a V, chunk 0 down the stages and chunk 1 back up
  (stage s holds virtual stages s and 2 stages - 1 - s, so the first stage computes the loss), stage s running
  2 (stages - s - 1) forwards of chunk 0, then (s + 1) pairs F0 F1, (stages - s - 1) pairs B1 F1, then
  ``micro - 2 stages + s + 1`` rounds B1 F0 B0 F1, (stages - s - 1) rounds B1 B0 F1, (s + 1) pairs B1 B0 and the
  last B0s. As MindSpore's (its detach_backward), some backwards are split into the input's gradient ``("B", m, c)``
  and the weights' ``("W", m, c)`` (`zero_bubble_v_split`): chunk 1's first stages - s - 1 micro-batches, whose W
  follows its B at once (rounds B1 W1 F1: the B's gradient is sent on before the W runs), chunk 1's last (s + 1) // 2
  and chunk 0's last stages - (s + 1) // 2 micro-batches, whose Ws are deferred: the last B0s become rounds W0 B0
  (the oldest deferred W0 first), and the step ends with the W0s then the W1s left. The other backwards are whole.

A pass ``("W", m[, c])`` needs its own ``("B", m[, c])``; in the timeline a split backward's B takes ``backward -
weight`` and its W ``weight``, and its forward values are kept until the W (the weights' gradients read them).
"""

__all__ = ["schedule", "timeline", "peak_bytes", "interleaved_bias", "Order", "zero_bubble_v_split"]

_KINDS = ("1f1b", "gpipe", "seqpipe", "seqvpp", "seqsmartvpp", "zero_bubble_v")
_SEQ = {"seqpipe": 2, "seqvpp": 2, "seqsmartvpp": 1}   # the warm-up's forwards per stage with chunks


class Order(list):
    """Per stage the order of its passes; `v_shape`: the chunks go down the stages and back up (zero_bubble_v)
    instead of round them again."""

    v_shape = False


def _check(kind, stages, micro, chunks):
    if kind not in _KINDS:
        raise ValueError(f"For the pipeline schedule, the scheduler must be one of {', '.join(_KINDS)} (the ones "
                         f"simulated), but got {kind!r}.")
    for name, value in (("stages", stages), ("micro", micro), ("chunks", chunks)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"For the pipeline schedule, '{name}' must be a positive int, but got {value!r}.")


def interleaved_bias(stages, micro, chunks, stage):
    """The number of forward passes stage `stage` runs before its first backward in the interleaved 1F1B schedule,
    less one (MindSpore's ``bias_``)."""
    return (stages + micro % stages) * (chunks - 1) + 2 * (stages - stage - 1)


def _interleaved_passes(stages, micro, chunks, backward):
    offset = micro % stages

    def key(unit):
        m, c = unit
        loop = 0 if m // (stages + offset) == 0 else (m - offset) // stages
        return loop, (-c if backward else c), m

    return sorted(((m, c) for c in range(chunks) for m in range(micro)), key=key)


def _one_f_one_b(forwards, backwards, warm):
    order = forwards[:warm]
    for i in range(warm, len(forwards)):
        order += [forwards[i], backwards[i - warm]]
    return order + backwards[len(forwards) - warm:]


def _seqpipe(stages, micro, chunks, stage, tag, bias=2):
    """Stage `stage`'s passes under MindSpore's seqpipe order (see the module docstring); `bias`: the warm-up's
    forwards per later stage with chunks (seqsmartvpp: 1)."""
    if micro < stages:
        cycles = [micro]
    else:
        cycles = [stages] * (micro // stages)
        for i in range(micro - len(cycles) * stages):
            cycles[i % len(cycles)] += 1
    forwards, first = [], 0
    for length in cycles:
        forwards += [(first + m, c) for c in range(chunks) for m in range(length)]
        first += length
    warm = (stages - 1 - stage) * (1 if chunks == 1 else bias) + (chunks - 1) * cycles[0]
    order, queue, went = [], [], {}
    for i, (m, c) in enumerate(forwards):
        order.append(tag("F", m, c))
        queue.append(m)
        went.setdefault(m, []).append(c)
        if i >= warm:
            b = queue.pop(0)
            order.append(tag("B", b, went[b].pop()))
    for b in queue:
        order.append(tag("B", b, went[b].pop()))
    return order


def zero_bubble_v_split(stages, micro, stage):
    """The (micro-batch, chunk) pairs whose backward stage `stage` splits into B and W under zero_bubble_v
    (MindSpore's InferNeedDetachInfo, offset 0)."""
    deferred_1 = (stage + 1) // 2
    return ({(m, 1) for m in range(stages - stage - 1)} | {(micro - 1 - i, 1) for i in range(deferred_1)}
            | {(micro - 1 - i, 0) for i in range(stages - deferred_1)})


def _zero_bubble_v(stages, micro, stage):
    """Stage `stage`'s passes under MindSpore's ZeroBubbleV order (see the module docstring)."""
    left = stages - stage - 1
    rounds = [(2 * left, ("F0",)), (stage + 1, ("F0", "F1")), (left, ("B1", "W1", "F1")),
              (micro - 2 * stages + stage + 1, ("B1", "F0", "B0", "F1")), (left, ("B1", "B0", "F1")),
              (stage + 1, ("B1", "B0")), (left, ("W0", "B0"))]
    split = zero_bubble_v_split(stages, micro, stage)
    deferred = {c: sorted(m for m, k in split if k == c and not (c == 1 and m < left)) for c in (0, 1)}
    taken = {k: 0 for k in ("F0", "F1", "B0", "B1", "W1")}
    order = []
    for count, kinds in rounds:
        for _ in range(count):
            for k in kinds:
                if k == "W0":
                    order.append(("W", deferred[0].pop(0), 0))
                    continue
                order.append((k[0], taken[k], int(k[1])))
                taken[k] += 1
    return order + [("W", m, c) for c in (0, 1) for m in deferred[c]]


def schedule(kind, stages, micro, chunks=1, interleave=False):
    """Per stage, the order of its passes (see the module docstring).

    Raises:
        ValueError: an unknown `kind`, a count below 1, or several chunks without `interleave`.
        RuntimeError: an interleaved 1F1B with fewer micro-batches than stages (MindSpore's error).
    """
    _check(kind, stages, micro, chunks)
    if kind == "zero_bubble_v":
        if chunks != 2:
            raise ValueError(f"For the pipeline schedule, Zero Bubble V scheduler only support chunk_num is 2, but "
                             f"got:{chunks} (the cells' pipeline_segment 0 going down the stages, 1 coming back).")
        if micro < 2 * stages - 1:
            raise ValueError(f"For the pipeline schedule, Zero Bubble V needs at least 2 * stages - 1 = "
                             f"{2 * stages - 1} micro-batches, but got {micro}.")
        out = Order(_zero_bubble_v(stages, micro, s) for s in range(stages))
        out.v_shape = True
        return out
    if chunks != 1 and not interleave:
        raise ValueError(f"For the pipeline schedule, the pipeline has {chunks} chunks per stage (a stage's cells "
                         f"come round the stages again): set pipeline_config={{'pipeline_interleave': True, ...}}.")
    if kind in ("seqvpp", "seqsmartvpp"):
        if chunks <= 1:
            raise RuntimeError("For seq vpp scheduler, vpp should large than 1.")
        if micro < stages:
            raise RuntimeError("For seq vpp scheduler, micro_num * seq_chunk_size should be greater than or equal to "
                               "pp.")
    if kind in _SEQ:
        tag = (lambda k, m, c: (k, m, c)) if interleave else (lambda k, m, c: (k, m))
        return Order(_seqpipe(stages, micro, chunks, s, tag, _SEQ[kind]) for s in range(stages))
    if not interleave:
        out = Order()
        for s in range(stages):
            forwards = [("F", m) for m in range(micro)]
            backwards = [("B", m) for m in range(micro)]
            warm = micro if kind == "gpipe" else min(stages - s - 1, micro)
            out.append(_one_f_one_b(forwards, backwards, warm))
        return out
    if kind == "1f1b" and micro < stages:
        raise RuntimeError(f"For 1F1B Scheduler, MicroBatch num must be larger or equal than StageNum, but got "
                           f"MicroBatch:{micro} StageNum:{stages}")
    forwards = [("F", m, c) for m, c in _interleaved_passes(stages, micro, chunks, False)]
    backwards = [("B", m, c) for m, c in _interleaved_passes(stages, micro, chunks, True)]
    total = micro * chunks
    return Order(_one_f_one_b(forwards, backwards,
                              total if kind == "gpipe" else min(interleaved_bias(stages, micro, chunks, s), total))
                 for s in range(stages))


def _needs_v(kind, stage, c, stages, tag):
    """`_needs` for two chunks in a V: chunk 0 goes down the stages, chunk 1 comes back up."""
    down = stage + 1 if c == 0 else stage - 1       # the stage the chunk's values go to next
    up = stage - 1 if c == 0 else stage + 1         # and come from
    if kind == "F":
        return [(up, tag("F", c))] if 0 <= up < stages else [(stage, tag("F", 0))] if c == 1 else []
    if kind == "W":
        return [(stage, tag("B", c))]
    needs = [(stage, tag("F", c))]
    if 0 <= down < stages:
        needs.append((down, tag("B", c)))
    elif c == 0:
        needs.append((stage, tag("B", 1)))
    return needs


def _needs(unit, stage, stages, chunks, v_shape=False):
    """The (stage, pass) that must be done before `unit` runs on `stage`."""
    kind, m, c = unit if len(unit) == 3 else (*unit, 0)
    tag = (lambda k, ch: (k, m, ch)) if len(unit) == 3 else (lambda k, ch: (k, m))
    if v_shape:
        return _needs_v(kind, stage, c, stages, tag)
    if kind == "W":
        return [(stage, tag("B", c))]
    if kind == "F":
        if stage > 0:
            return [(stage - 1, tag("F", c))]
        return [(stages - 1, tag("F", c - 1))] if c > 0 else []
    needs = [(stage, tag("F", c))]
    if stage < stages - 1:
        needs.append((stage + 1, tag("B", c)))
    elif c < chunks - 1:
        needs.append((0, tag("B", c + 1)))
    return needs


def _split_pairs(passes):
    """The (micro-batch, chunk) pairs whose backward `passes` (one stage's) split into B and W."""
    return {(p[1], p[2] if len(p) == 3 else 0) for p in passes if p[0] == "W"}


def timeline(order, forward=1.0, backward=2.0, cost=None, weight=1.0):
    """Run the stages' pass `order` (from `schedule`) with each forward pass taking `forward` and each backward
    `backward` time units, a split backward's B `backward - weight` and its W `weight` (or `cost(stage, pass)` when
    given), a stage starting a pass once it is free and the passes it depends on are done (the previous virtual
    stage's forward, the next one's backward, its own forward; a W its B).

    Returns:
        (per stage the (start, end, pass) of its passes, the time the last pass ends).

    Raises:
        ValueError: an order in which the stages wait on each other for ever.
    """
    stages = len(order)
    chunks = 1 + max((p[2] for o in order for p in o if len(p) == 3), default=0)
    end, free, nxt = {}, [0.0] * stages, [0] * stages
    runs = [[] for _ in range(stages)]
    split = [_split_pairs(o) for o in order]
    left = sum(len(o) for o in order)
    while left:
        moved = False
        for s in range(stages):
            if nxt[s] == len(order[s]):
                continue
            unit = order[s][nxt[s]]
            needs = _needs(unit, s, stages, chunks, getattr(order, "v_shape", False))
            if any(n not in end for n in needs):
                continue
            start = max([free[s]] + [end[n] for n in needs])
            if cost is not None:
                took = cost(s, unit)
            elif unit[0] == "B":
                took = backward - weight if (unit[1], unit[2] if len(unit) == 3 else 0) in split[s] else backward
            else:
                took = forward if unit[0] == "F" else weight
            free[s] = end[(s, unit)] = start + took
            runs[s].append((start, free[s], unit))
            nxt[s] += 1
            left -= 1
            moved = True
        if not moved:
            waiting = {s: order[s][nxt[s]] for s in range(stages) if nxt[s] < len(order[s])}
            raise ValueError(f"For the pipeline schedule, the stages wait on each other for ever: next passes "
                             f"{waiting}.")
    return runs, max(free)


def peak_bytes(order, activations):
    """Per stage, the most bytes of forward values held at once under `order`: a pass's values (`activations[s][c][m]`
    bytes on stage s for micro-batch m of chunk c) are kept from its forward pass to its backward pass (a split
    backward: to its W pass)."""
    peaks = []
    for s, passes in enumerate(order):
        held = peak = 0
        split = _split_pairs(passes)
        for unit in passes:
            kind, m, c = unit if len(unit) == 3 else (*unit, None)
            if kind == "B" and (m, c or 0) in split:
                continue
            size = sum(chunk[m] for chunk in activations[s]) if c is None else activations[s][c][m]
            held += size if kind == "F" else -size
            peak = max(peak, held)
        peaks.append(peak)
    return peaks
