import fastcut, shave, sys
from model import G
# dump the networks of the per-node cuts of an instance: edges list per cut
f = sys.argv[1]
g = G(open(f+'.mlir').read())
sh = shave.Shaver(g)
out = open(f + '.cuts', 'w')
orig = fastcut.cut
def capture(g_, src, snk, extra):
    INF = 1 << 40
    def vx(u):
        if (src >> u) & 1: return 0
        if (snk >> u) & 1: return 1
        return 2 + u
    E = []
    def add(a, b, c):
        if a == b or a == 1 or b == 0: return
        E.append((a, b, c))
    for u in range(g.n):
        for p in g.preds[u]: add(vx(u), vx(p), INF)
    nv = 2 + g.n
    for b in g.counted:
        p = g.producer[b]; a = 0 if p < 0 else vx(p)
        if g.returned[b]: add(a, 1, g.bytes[b]); continue
        rd = list(g.readers[b])
        if len(rd) == 1: add(a, vx(rd[0]), g.bytes[b]); continue
        c = nv; nv += 1; add(a, c, g.bytes[b])
        for r in rd: add(c, vx(r), INF)
    out.write('%d %d\n' % (nv, len(E)))
    for e in E: out.write('%d %d %d\n' % e)
    return orig(g_, src, snk, extra)
shave.cut = capture
vals = [sh.cb(v)[0] - g.defb[v] for v in range(g.n)]
out.close()
print(sum(vals))
