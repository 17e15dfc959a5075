"""RandWire (Xie et al., "Exploring Randomly Wired Neural Networks", 2019).

A stage is a Watts-Strogatz graph WS(N, K, P) (networkx
``connected_watts_strogatz_graph``) whose undirected edges are oriented from
the lower to the higher node index.  Node = sum of its inputs -> ReLU ->
depthwise 3x3 -> pointwise 1x1 (BatchNorm folded into the conv bias).  The
paper's learned sigmoid edge weights are left out: the aggregation is a plain
sum of tosa.add ops (a per-edge scalar would not change any buffer size).  Nodes without predecessors read the stage input
with stride 2; the stage output is the mean of the nodes without successors.
Ops are emitted node by node in index order, as the reference PyTorch code
evaluates them.
"""

from . import network


def ws_dag(nodes, k, p, seed):
    """Returns (predecessors per node, sources, sinks) of the oriented WS graph."""
    import networkx as nx

    graph = nx.connected_watts_strogatz_graph(nodes, k, p, tries=200, seed=seed)
    preds = {n: [] for n in range(nodes)}
    succs = {n: [] for n in range(nodes)}
    for a, b in graph.edges():
        lo, hi = min(a, b), max(a, b)
        preds[hi].append(lo)
        succs[lo].append(hi)
    for n in preds:
        preds[n].sort()
    sources = [n for n in range(nodes) if not preds[n]]
    sinks = [n for n in range(nodes) if not succs[n]]
    return preds, sources, sinks


def randwire_stage(b, x, out_channels, nodes, k, p, seed, name="stage"):
    """Appends one random-wired stage reading ``x``; returns its output."""
    preds, sources, sinks = ws_dag(nodes, k, p, seed)
    outputs = {}
    for n in range(nodes):
        b.push_scope("%s_n%d" % (name, n))
        if preds[n]:
            h = b.sum([outputs[m] for m in preds[n]], "sum")
            stride = 1
        else:
            h = x
            stride = 2
        h = b.relu(h)
        h = b.depthwise_conv2d(h, kernel=3, stride=stride, padding=1, name="dw")
        outputs[n] = b.conv2d(h, out_channels, kernel=1, name="pw")
        b.pop_scope()
    b.push_scope(name)
    out = b.mean([outputs[n] for n in sinks], "mean")
    b.pop_scope()
    return out


@network("randwire-stage", "one RandWire stage WS(N,K,P), sources stride 2, output mean of sinks",
         channels=78, resolution=56, nodes=32, k=4, p=0.75, in_channels=0)
def randwire_stage_net(b, channels, resolution, nodes, k, p, in_channels, seed):
    """Stage input is ``resolution`` x ``resolution`` x ``in_channels``
    (``in_channels=0`` means ``channels``), output at half resolution."""
    x = b.input((1, resolution, resolution, in_channels or channels))
    return randwire_stage(b, x, channels, nodes, k, p, seed)


@network("randwire", "RandWire small regime: conv s2 (C/2), conv s2 (C), stages C, 2C, 4C, 1x1 conv 1280, pool, FC",
         channels=78, resolution=224, nodes=32, k=4, p=0.75, classes=1000)
def randwire_small(b, channels, resolution, nodes, k, p, classes, seed):
    """Whole small-regime network (Xie et al. Table 2).  Stage i uses graph
    seed ``seed + i`` so the three stages are wired differently."""
    c = channels
    x = b.input((1, resolution, resolution, 3))
    b.push_scope("conv1")
    h = b.conv2d(x, c // 2, kernel=3, stride=2, padding=1)
    h = b.relu(h)
    b.pop_scope()
    b.push_scope("conv2")
    h = b.conv2d(h, c, kernel=3, stride=2, padding=1)
    b.pop_scope()
    for i, width in enumerate((c, 2 * c, 4 * c)):
        h = randwire_stage(b, h, width, nodes, k, p, seed + i, name="stage%d" % (i + 3))
    b.push_scope("classifier")
    h = b.relu(h)
    h = b.conv2d(h, 1280, kernel=1)
    h = b.relu(h)
    h = b.global_avg_pool(h)
    h = b.fully_connected(h, classes)
    out = b.reshape(h, (1, classes))
    b.pop_scope()
    return out
