import time
import networkx as nx

class Shaver:
    def __init__(self, g):
        self.g = g
        self.anc = list(g.anc); self.desc = list(g.desc)
        self.extra = []  # (u, v): u before v
        self.ncuts = 0

    def incomparable(self, u, v):
        return u != v and not (self.anc[v] >> u) & 1 and not (self.desc[v] >> u) & 1

    def add_prec(self, u, v):
        self.extra.append((u, v))
        A = self.anc[u] | (1 << u); D = self.desc[v] | (1 << v)
        for d in bits(D): self.anc[d] |= A
        for a in bits(A): self.desc[a] |= D

    def cb(self, v, src=0, snk=0):
        g = self.g
        src |= self.anc[v]; snk |= (1 << v) | self.desc[v]
        for u in bits(src): src |= self.anc[u]
        for u in bits(snk): snk |= self.desc[u]
        if src & snk: return float('inf'), None
        self.ncuts += 1
        val, S = cut(g, src, snk, self.extra)
        return val + g.defb[v], S

def bits(x):
    while x:
        l = x & -x; yield l.bit_length() - 1; x ^= l

def cut(g, src_nodes, sink_nodes, extra):
    INF = float('inf')
    H = nx.DiGraph()
    def vx(u):
        if (src_nodes >> u) & 1: return 's'
        if (sink_nodes >> u) & 1: return 't'
        return u
    def add(a, b, c):
        if a == b or a == 't' or b == 's': return
        if H.has_edge(a, b):
            H[a][b]['capacity'] = H[a][b]['capacity'] + c
        else:
            H.add_edge(a, b, capacity=c)
    H.add_node('s'); H.add_node('t')
    for u in range(g.n):
        for p in g.preds[u]: add(vx(u), vx(p), INF)
    for (p, u) in extra: add(vx(u), vx(p), INF)
    for b in g.counted:
        p = g.producer[b]
        a = 's' if p < 0 else vx(p)
        if g.returned[b]: add(a, 't', g.bytes[b]); continue
        rd = list(g.readers[b])
        if len(rd) == 1: add(a, vx(rd[0]), g.bytes[b]); continue
        c = ('c', b); add(a, c, g.bytes[b])
        for r in rd: add(c, vx(r), INF)
    val, (A, B) = nx.minimum_cut(H, 's', 't')
    S = src_nodes
    for x in A:
        if isinstance(x, int): S |= 1 << x
    return val, S

def refute(g, tau, maxrounds=20, log=False, deadline=None, propagate=True):
    """True if shaving proves no order has peak <= tau."""
    sh = Shaver(g)
    n = g.n
    best = {}
    for v in range(n):
        val, S = sh.cb(v)
        if val > tau: return True, sh
        best[v] = (val, S)
    changed = True; rounds = 0
    while changed and rounds < (maxrounds if propagate else 1):
        changed = False; rounds += 1; added = 0
        for u in range(n):
            for v in range(u + 1, n):
                if not sh.incomparable(u, v): continue
                ok = []
                for (a, b) in ((u, v), (v, u)):  # a before b
                    # a's step: b and desc(b) not executed
                    Sa = best[a][1]
                    Sb = best[b][1]
                    feas = True
                    if Sa & ((1 << b) | sh.desc[b]):
                        val, _ = sh.cb(a, snk=(1 << b) | sh.desc[b])
                        if val > tau: feas = False
                    if feas and not (Sb >> a) & 1:
                        val, _ = sh.cb(b, src=(1 << a) | sh.anc[a])
                        if val > tau: feas = False
                    ok.append(feas)
                if not ok[0] and not ok[1]: return True, sh
                if propagate and (not ok[0] or not ok[1]):
                    a, b = (u, v) if ok[0] else (v, u)
                    sh.add_prec(a, b); changed = True; added += 1
                    # refresh bounds of everything (cheap check: recompute a and b only)
                    for x in (a, b):
                        val, S = sh.cb(x)
                        if val > tau: return True, sh
                        best[x] = (val, S)
                if deadline and time.time() > deadline: return None, sh
        # refresh all bounds after a round
        for v in range(n):
            val, S = sh.cb(v)
            if val > tau: return True, sh
            best[v] = (val, S)
        if log: print('  round', rounds, 'added', added, 'cuts', sh.ncuts, flush=True)
    return False, sh
