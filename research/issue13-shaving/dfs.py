from model import G
import fastcut
fastcut.install()
from shave import refute
import sys, time
sys.setrecursionlimit(100000)

def decide(g, tau, extra, limit_states=3_000_000, deadline=None):
    n = g.n
    preds = [0]*n
    for v in range(n):
        for p in g.preds[v]: preds[v] |= 1 << p
    for (u, v) in extra: preds[v] |= 1 << u
    full = (1 << n) - 1
    # remaining-reader counts computed on the fly from S
    readers_mask = {b: sum(1 << r for r in g.readers[b]) for b in g.counted}
    dead = set(); cnt = [0]
    order = []
    def live_after(S, live, v):
        S2 = S | (1 << v)
        nl = live + sum(g.bytes[b] for b in g.defs[v] if b in readers_mask)
        for b in g.uses[v]:
            if b in readers_mask and not g.returned[b] and (readers_mask[b] & ~S2) == 0:
                nl -= g.bytes[b]
        return nl
    def rec(S, live):
        if S == full: return True
        if S in dead: return False
        cnt[0] += 1
        if cnt[0] > limit_states or (deadline and cnt[0] % 1000 == 0 and time.time() > deadline): raise TimeoutError
        cands = []
        for v in range(n):
            if (S >> v) & 1 or (preds[v] & ~S): continue
            if live + g.defb[v] > tau: continue
            nl = live_after(S, live, v)
            cands.append((nl - live, v, nl))
        cands.sort()
        # eager: a node that does not grow memory
        if cands and cands[0][0] <= 0:
            cands = cands[:1]
        for _, v, nl in cands:
            order.append(v)
            if rec(S | (1 << v), nl): return True
            order.pop()
        dead.add(S)
        return False
    live0 = sum(g.bytes[b] for b in g.counted if g.producer[b] < 0)
    try:
        r = rec(0, live0)
    except TimeoutError:
        r = None
    return r, cnt[0], list(order)

if __name__ == '__main__':
    f = sys.argv[1]; tau = int(sys.argv[2]); mode = sys.argv[3]
    g = G(open(f+'.mlir').read())
    extra = []
    t = time.time()
    if mode == 'shave':
        r, sh = refute(g, tau, deadline=time.time()+300)
        print('shave', r, len(sh.extra), 'edges', sh.ncuts, 'cuts', '%.1fs' % (time.time()-t), flush=True)
        extra = sh.extra
    t = time.time()
    r, states, order = decide(g, tau, extra, deadline=time.time()+float(sys.argv[4]))
    print(f, 'tau', tau, mode, 'result', r, 'states', states, '%.1fs' % (time.time()-t), 'peak', g.peak(order) if r else None)
