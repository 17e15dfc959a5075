import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import maximum_flow, breadth_first_order
import shave

def cut(g, src_nodes, sink_nodes, extra):
    # vertex ids: 0 = s, 1 = t, nodes 2.., consumed helpers after
    INF = 1 << 29
    def vx(u):
        if (src_nodes >> u) & 1: return 0
        if (sink_nodes >> u) & 1: return 1
        return 2 + u
    rows = []; cols = []; caps = []
    def add(a, b, c):
        if a == b or a == 1 or b == 0: return
        rows.append(a); cols.append(b); caps.append(c)
    for u in range(g.n):
        for p in g.preds[u]: add(vx(u), vx(p), INF)
    for (p, u) in extra: add(vx(u), vx(p), INF)
    nv = 2 + g.n
    for b in g.counted:
        p = g.producer[b]
        a = 0 if p < 0 else vx(p)
        if g.returned[b]: add(a, 1, g.bytes[b]); continue
        rd = list(g.readers[b])
        if len(rd) == 1: add(a, vx(rd[0]), g.bytes[b]); continue
        c = nv; nv += 1
        add(a, c, g.bytes[b])
        for r in rd: add(c, vx(r), INF)
    caps = np.minimum(np.array(caps, dtype=np.int64), INF)
    C = csr_matrix((caps, (rows, cols)), shape=(nv, nv))
    C.sum_duplicates()
    C = csr_matrix((np.minimum(C.data, INF).astype(np.int32), C.indices, C.indptr), shape=(nv, nv))
    res = maximum_flow(C, 0, 1, method='dinic')
    R = (C - res.flow).tocsr()
    R.data = (R.data > 0).astype(np.int8); R.eliminate_zeros()
    reach = breadth_first_order(R, 0, directed=True, return_predecessors=False)
    S = src_nodes
    for x in reach:
        if 2 <= x < 2 + g.n: S |= 1 << (int(x) - 2)
    return int(res.flow_value), S


def install():
    """Makes shave.cut use this scipy max-flow."""
    shave.cut = cut


install()
