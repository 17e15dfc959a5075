"""``bench --suite scale``: the exact scheduler over classes of graphs, not
hand-picked seeds.

Each class is a generator with fixed parameters run for seeds 0..N-1 (30 by
default).  Every graph goes through ``serenity-opt --serenity-schedule`` with
the pass's default options (plus ``--serenity-schedule-extra`` options when
given); one row per class: ops (median), proven fraction, median and max of the
wall time of the schedule (its work, ``work`` of the ``serenity.schedule`` attribute, is deterministic) and
of the whole serenity-opt run (parse + pass + print), the largest peak RSS of
serenity-opt, and the median and max gap (peak / proven lower bound; 1.000
when proven).
"""

import os
import statistics
import subprocess
import sys
import tempfile
import time

from .driver import parse_schedule_attrs
from .networks import generate


class ScaleClass:
    """A class of graphs: ``network`` with ``params`` for seeds 0..seeds-1."""

    def __init__(self, label, network, seeds=30, **params):
        self.label = label
        self.network = network
        self.seeds = seeds
        self.params = params


# The classes of issue 13 item 4, then the series-parallel and 10000-op
# targets of its "done when".
CLASSES = [
    ScaleClass("RandWire stage, 32 nodes, C=16, 32x32", "randwire-stage", nodes=32, channels=16, resolution=32),
    ScaleClass("RandWire stage, 32 nodes, C=32, 32x32", "randwire-stage", nodes=32, channels=32, resolution=32),
    ScaleClass("RandWire stage, 32 nodes, C=78, 32x32", "randwire-stage", nodes=32, channels=78, resolution=32),
    ScaleClass("RandWire stage, 48 nodes, C=32, 32x32", "randwire-stage", nodes=48, channels=32, resolution=32),
    ScaleClass("random DAG, 40 nodes", "random-dag", nodes=40),
    ScaleClass("random DAG, 60 nodes", "random-dag", nodes=60),
    ScaleClass("random DAG, 100 nodes", "random-dag", nodes=100),
    ScaleClass("random DAG, 40 nodes, branching 6", "random-dag", nodes=40, branching=6),
    ScaleClass("random DAG, 60 nodes, branching 6", "random-dag", nodes=60, branching=6),
    ScaleClass("random DAG, 100 nodes, branching 6", "random-dag", nodes=100, branching=6),
    ScaleClass("DARTS stack, 20 cells", "darts-stack", cells=20),
    ScaleClass("RandWire network, 3 stages (C=78, 224)", "randwire"),
    ScaleClass("tiled chain, 5x5 = 25 partitions, 4 layers", "tiled-chain", grid=5, layers=4),
    ScaleClass("tiled chain, 25 partitions, 20 layers (1000+ ops)", "tiled-chain", seeds=5, grid=5, layers=20),
    ScaleClass("DARTS stack, 200 cells (10000+ ops)", "darts-stack", seeds=3, cells=200),
]


def run_one(tool_path, text, extra_options, workdir):
    """Schedules ``text``; returns (schedule attribute dict, wall s, peak RSS MiB)."""
    path = os.path.join(workdir, "net.mlir")
    with open(path, "w") as f:
        f.write(text)
    flag = "--serenity-schedule" + ("=" + " ".join(extra_options) if extra_options else "")
    start = time.time()
    proc = subprocess.Popen([tool_path, path, flag, "-o", path + ".out"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.time() - start
    stderr = proc.stderr.read()
    proc.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise RuntimeError("serenity-opt failed (exit %d) on %s: %s" % (code, path, stderr.strip()))
    with open(path + ".out") as f:
        attrs = list(parse_schedule_attrs(f.read()).values())
    if not attrs:
        raise RuntimeError("no serenity.schedule attribute in the output for %s" % path)
    return attrs[0], wall, usage.ru_maxrss / 1024.0


def count_ops(text):
    return sum(1 for line in text.splitlines() if " = tosa." in line and "tosa.const" not in line)


def run_class(cls, tool_path, extra_options, seeds=None, log=None):
    """One row (dict) for ``cls``."""
    n = cls.seeds if seeds is None else min(seeds, cls.seeds)
    rows = []
    with tempfile.TemporaryDirectory(prefix="serenity-scale-") as tmp:
        for seed in range(n):
            text = generate(cls.network, seed=seed, **cls.params)
            attr, wall, rss = run_one(tool_path, text, extra_options, tmp)
            gap = attr["peak_bytes"] / max(1, attr["lower_bound_bytes"])
            rows.append({"seed": seed, "ops": count_ops(text), "proven": attr["optimal"],
                         "time_ms": wall * 1000.0, "work": attr["work"], "wall_s": wall, "rss_mib": rss, "gap": gap})
            if log:
                print("  %s seed %d: peak %d, bound %d, %s, %d ms (run %.2f s, %.0f MiB)"
                      % (cls.label, seed, attr["peak_bytes"], attr["lower_bound_bytes"],
                         "proven" if attr["optimal"] else "NOT proven", wall * 1000.0, wall, rss), file=log)
    times = [r["time_ms"] for r in rows]
    walls = [r["wall_s"] for r in rows]
    gaps = [r["gap"] for r in rows]
    return {"class": cls.label, "graphs": len(rows), "ops": int(statistics.median(r["ops"] for r in rows)),
            "proven": sum(r["proven"] for r in rows),
            "time_median_ms": statistics.median(times), "time_max_ms": max(times),
            "wall_median_s": statistics.median(walls), "wall_max_s": max(walls),
            "rss_max_mib": max(r["rss_mib"] for r in rows),
            "gap_median": statistics.median(gaps), "gap_max": max(gaps)}


HEADER = ("| class | graphs | ops (median) | proven | schedule ms median | max | serenity-opt s median | max "
          "| peak RSS MiB | gap median | gap max |")


def format_row(r):
    return ("| %s | %d | %d | %d/%d | %d | %d | %.2f | %.2f | %.0f | %.3f | %.3f |"
            % (r["class"], r["graphs"], r["ops"], r["proven"], r["graphs"], r["time_median_ms"], r["time_max_ms"],
               r["wall_median_s"], r["wall_max_s"], r["rss_max_mib"], r["gap_median"], r["gap_max"]))


def run_scale(tool_path, extra_options=(), seeds=None, only=None, verbose=False, out=sys.stdout, log=sys.stderr):
    """Prints the table; returns the rows."""
    print(HEADER, file=out)
    print("|---|" + "---:|" * 10, file=out)
    rows = []
    for cls in CLASSES:
        if only and not any(o in cls.label for o in only):
            continue
        row = run_class(cls, tool_path, list(extra_options), seeds, log if verbose else None)
        rows.append(row)
        print(format_row(row), file=out)
        out.flush()
    return rows
