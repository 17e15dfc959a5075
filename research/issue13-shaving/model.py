import os
import sys
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..')
sys.path.insert(0, os.path.join(ROOT, 'python'))
sys.path.insert(0, os.path.join(ROOT, 'python', 'tests'))
from mlir_text import Function, type_bytes
import networkx as nx

VIEWS = {"tosa.reshape", "tosa.identity", "tosa.slice", "tensor.cast"}

class G:
    """nodes 0..n-1; buffers: bytes, producer (-1 input), readers (set of nodes), returned."""
    def __init__(self, text):
        f = Function(text)
        self.bytes = []; self.producer = []; self.readers = []; self.returned = []
        buf = {}
        for name, ty in f.args:
            buf[name] = len(self.bytes); self.bytes.append(type_bytes(ty)); self.producer.append(-1)
            self.readers.append(set()); self.returned.append(False)
        ops = f.scheduled
        self.n = len(ops)
        self.names = []
        self.uses = [set() for _ in ops]
        self.defs = [[] for _ in ops]
        for i, op in enumerate(ops):
            assert op.name not in VIEWS, op.name
            self.names.append(op.result)
            for o in op.operands:
                if o in buf:
                    b = buf[o]; self.uses[i].add(b); self.readers[b].add(i)
            b = len(self.bytes); buf[op.result] = b
            self.bytes.append(type_bytes(op.result_type)); self.producer.append(i)
            self.readers.append(set()); self.returned.append(False); self.defs[i].append(b)
        for r in f.returned:
            self.returned[buf[r]] = True
        self.nb = len(self.bytes)
        self.preds = [set() for _ in range(self.n)]
        for i in range(self.n):
            for b in self.uses[i]:
                if self.producer[b] >= 0: self.preds[i].add(self.producer[b])
        self.succs = [set() for _ in range(self.n)]
        for i in range(self.n):
            for p in self.preds[i]: self.succs[p].add(i)
        self.defb = [sum(self.bytes[b] for b in self.defs[i]) for i in range(self.n)]
        # ancestors / descendants (ops are in topological order)
        self.anc = [0]*self.n
        for i in range(self.n):
            a = 0
            for p in self.preds[i]: a |= self.anc[p] | (1 << p)
            self.anc[i] = a
        self.desc = [0]*self.n
        for i in reversed(range(self.n)):
            d = 0
            for s in self.succs[i]: d |= self.desc[s] | (1 << s)
            self.desc[i] = d
        self.counted = [b for b in range(self.nb) if self.bytes[b] > 0 and (self.returned[b] or self.readers[b])]

    def live(self, S):  # S bitmask of executed nodes
        t = 0
        for b in self.counted:
            p = self.producer[b]
            if p >= 0 and not (S >> p) & 1: continue
            if self.returned[b] or any(not (S >> r) & 1 for r in self.readers[b]): t += self.bytes[b]
        return t

    def peak(self, order):
        S = 0; pk = 0
        for v in order:
            pk = max(pk, self.live(S) + self.defb[v]); S |= 1 << v
        return pk

    def cut(self, src_nodes, sink_nodes):
        """min live(S) over ideals S containing src_nodes, disjoint from sink_nodes (bitmasks, closed appropriately)."""
        INF = float('inf')
        H = nx.DiGraph()
        def vx(u):
            if (src_nodes >> u) & 1: return 's'
            if (sink_nodes >> u) & 1: return 't'
            return u
        def add(a, b, c):
            if a == b or a == 't' or b == 's': return
            if H.has_edge(a, b):
                H[a][b]['capacity'] = H[a][b]['capacity'] + c if c != INF else INF
            else:
                H.add_edge(a, b, capacity=c)
        H.add_node('s'); H.add_node('t')
        for u in range(self.n):
            for p in self.preds[u]:
                add(vx(u), vx(p), INF)
        for b in self.counted:
            p = self.producer[b]
            a = 's' if p < 0 else vx(p)
            if self.returned[b]:
                add(a, 't', self.bytes[b]); continue
            rd = list(self.readers[b])
            if len(rd) == 1:
                add(a, vx(rd[0]), self.bytes[b]); continue
            c = ('c', b)
            add(a, c, self.bytes[b])
            for r in rd: add(c, vx(r), INF)
        val, (A, B) = nx.minimum_cut(H, 's', 't')
        S = 0
        for x in A:
            if isinstance(x, int): S |= 1 << x
        S |= src_nodes
        return val, S

    def cutbound(self, v, extra_src=0, extra_sink=0):
        src = self.anc[v] | extra_src
        snk = (1 << v) | self.desc[v] | extra_sink
        # close: src under ancestors, sink under descendants
        for u in range(self.n):
            if (src >> u) & 1: src |= self.anc[u]
            if (snk >> u) & 1: snk |= self.desc[u]
        if src & snk: return float('inf'), None
        val, S = self.cut(src, snk)
        return val + self.defb[v], S
