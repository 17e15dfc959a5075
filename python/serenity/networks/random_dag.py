"""Seeded random irregular DAGs for stress-testing schedulers."""

import random

from . import network

_UNARY_OPS = ("conv1x1", "conv3x3", "dw3x3", "relu", "maxpool")


@network("random-dag", "seeded random DAG: each node merges 1..branching earlier values (add or concat) then applies "
         "a conv1x1/conv3x3/dw3x3/relu/maxpool; output = concat of sinks",
         channels=16, resolution=32, nodes=24, branching=3, cmin=8, cmax=64)
def random_dag(b, channels, resolution, nodes, branching, cmin, cmax, seed):
    """Spatial size stays ``resolution``; conv widths are drawn from
    [cmin, cmax].  A node with several inputs adds them when their channel
    counts agree (half of the time) and concatenates them otherwise; a concat is
    always followed by a conv so widths stay in range."""
    if nodes < 1 or branching < 1 or not 1 <= cmin <= cmax:
        raise ValueError("random-dag needs nodes >= 1, branching >= 1, 1 <= cmin <= cmax")
    rng = random.Random("random-dag/%d" % seed)
    x = b.input((1, resolution, resolution, channels))
    values = [x]
    used = [False]
    for i in range(nodes):
        b.push_scope("n%d" % i)
        k = rng.randint(1, min(branching, len(values)))
        picks = sorted(rng.sample(range(len(values)), k))
        for p in picks:
            used[p] = True
        ins = [values[p] for p in picks]
        merged_by_concat = False
        if len(ins) == 1:
            h = ins[0]
        elif all(v.channels == ins[0].channels for v in ins) and rng.random() < 0.5:
            h = b.sum(ins, "add")
        else:
            h = b.concat(ins)
            merged_by_concat = True
        op = rng.choice(_UNARY_OPS[:2] if merged_by_concat else _UNARY_OPS)
        if op == "conv1x1":
            h = b.conv2d(h, rng.randint(cmin, cmax), kernel=1)
        elif op == "conv3x3":
            h = b.conv2d(h, rng.randint(cmin, cmax), kernel=3, padding=1)
        elif op == "dw3x3":
            h = b.depthwise_conv2d(h, 3, 1, padding=1)
        elif op == "relu":
            h = b.relu(h)
        else:
            h = b.max_pool2d(h, 3, 1, padding=1)
        values.append(h)
        used.append(False)
        b.pop_scope()
    sinks = [v for v, u in zip(values[1:], used[1:]) if not u]
    return b.concat(sinks, name="output")
