from model import G
import fastcut
fastcut.install()
from shave import refute
import sys, time
f = sys.argv[1]; lo = int(sys.argv[2]); peak = int(sys.argv[3]); iters = int(sys.argv[4]); dl = float(sys.argv[5])
g = G(open(f+'.mlir').read())
# lo: proven LB (peak <= lo-1 impossible). find largest proven
hi = peak
taus = [int(a) for a in sys.argv[6:]]
for i in range(iters):
    tau = taus[i] if i < len(taus) else (lo + hi) // 2
    if tau < lo: break
    t = time.time()
    r, sh = refute(g, tau, deadline=time.time() + dl)
    print(f, 'tau', tau, {True: 'refuted', False: 'NOT refuted', None: 'timeout'}[r], 'prec', len(sh.extra), 'cuts', sh.ncuts, '%.1fs' % (time.time() - t), flush=True)
    if r: lo = tau + 1
    else: hi = tau
print(f, 'shaving LB', lo, 'peak', peak, 'gap %.3f' % (peak / lo))
