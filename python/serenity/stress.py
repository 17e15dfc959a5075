"""``bench --suite stress``: the whole ``serenity-pipeline`` on large graphs.

Each graph (random DAGs of about 1000, 3000 and 10000 TOSA ops and a DARTS
stack of 200 cells, 8365 ops) goes through ``serenity-opt --serenity-pipeline
--mlir-timing`` (default options, output discarded); one row per graph: TOSA
ops, wall time and peak RSS of the whole run, and the wall time of every pass
that took at least 1 s (``--mlir-timing``, nested passes under their own
names). Peak RSS is per run: ``--mlir-timing`` has no per-pass memory.
"""

import os
import re
import subprocess
import sys
import tempfile
import time

from .networks import generate

# (label, network, parameters)
GRAPHS = [
    ("random DAG, 1k ops", "random-dag", {"nodes": 600}),
    ("random DAG, 3k ops", "random-dag", {"nodes": 1800}),
    ("random DAG, 10k ops", "random-dag", {"nodes": 6000}),
    ("DARTS stack, 200 cells", "darts-stack", {"cells": 200}),
]
# Wall-time budget of each graph on the 2-core reference machine (issue 46:
# <= 30 s for 1k and 3k ops, <= 60 s for 10k; the 8k-op DARTS stack as 10k).
BUDGET_S = {"random DAG, 1k ops": 30.0, "random DAG, 3k ops": 30.0,
            "random DAG, 10k ops": 60.0, "DARTS stack, 200 cells": 60.0}

_TIMING_LINE = re.compile(r"^\s*([0-9.]+) \(\s*[0-9.]+%\)\s+(?:[0-9.]+ \(\s*[0-9.]+%\)\s+)?(\S.*)$")


def parse_timing(text):
    """(pass name, wall seconds) pairs of an --mlir-timing report, in order."""
    rows = []
    in_report = False
    for line in text.splitlines():
        if "Execution time report" in line:
            in_report = True
            continue
        if not in_report or "Wall Time" in line:
            continue
        m = _TIMING_LINE.match(line)
        if not m:
            continue
        numbers = re.findall(r"([0-9.]+) \(\s*[0-9.]+%\)", line)
        # With user and wall columns the wall time is the last one.
        rows.append((m.group(2).strip(), float(numbers[-1])))
    return rows


def count_ops(text):
    return sum(1 for line in text.splitlines() if " = tosa." in line and "tosa.const" not in line)


def run_graph(tool_path, label, network, params, workdir, timeout_s=900):
    text = generate(network, seed=0, **params)
    path = os.path.join(workdir, "net.mlir")
    with open(path, "w") as f:
        f.write(text)
    err_path = os.path.join(workdir, "stderr.txt")
    start = time.time()
    with open(err_path, "w") as err:
        proc = subprocess.Popen([tool_path, path, "--serenity-pipeline", "--mlir-timing", "-o", os.devnull],
                                stdout=subprocess.DEVNULL, stderr=err)
    # os.wait4 gives this run's own peak RSS; polled so a hang is bounded.
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.time() - start > timeout_s:
            proc.kill()
            os.wait4(proc.pid, 0)
            return {"graph": label, "ops": count_ops(text), "wall_s": None, "rss_mib": None, "passes": []}
        time.sleep(0.05)
    wall = time.time() - start
    rss = usage.ru_maxrss / 1024.0
    with open(err_path) as f:
        stderr = f.read()
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise RuntimeError("serenity-pipeline failed (exit %d) on %s: %s"
                           % (code, label, stderr.strip()[-2000:]))
    passes = [(name, s) for name, s in parse_timing(stderr)
              if name not in ("Total", "Rest") and not name.endswith("' Pipeline") and not name.startswith("(A)")]
    return {"graph": label, "ops": count_ops(text), "wall_s": wall, "rss_mib": rss, "passes": passes}


def _seconds(value):
    return "timeout" if value is None else "%.1f" % value


def within_budget(r):
    """Whether the run finished within its graph's budget (True without one)."""
    budget = BUDGET_S.get(r["graph"])
    return budget is None or (r["wall_s"] is not None and r["wall_s"] <= budget)


def format_row(r, min_s=1.0):
    budget = BUDGET_S.get(r["graph"])
    previous = r.get("previous_s", "")
    cells = [r["graph"], str(r["ops"]), _seconds(r["wall_s"]),
             "" if budget is None else "%.0f (%s)" % (budget, "yes" if within_budget(r) else "NO"),
             "" if previous == "" else _seconds(previous)]
    if r["wall_s"] is None:
        return "| " + " | ".join(cells) + " | | |"
    slow = ", ".join("%s %.1f" % (name, s) for name, s in r["passes"] if s >= min_s)
    return "| " + " | ".join(cells) + " | %.0f | %s |" % (r["rss_mib"], slow)


HEADER = ("| graph | TOSA ops | serenity-pipeline s | budget s (within) | previous release s "
          "| peak RSS MiB | passes >= 1 s (wall s) |")


def run_stress(tool_path, only=None, verbose=False, out=sys.stdout, log=sys.stderr, previous=None):
    """Prints the table; returns the rows. With ``previous`` (the serenity-opt
    of the previous release), each graph also runs through it, in the same
    run, for the "previous release" column."""
    print(HEADER, file=out)
    print("|---|---:|---:|---:|---:|---:|---|", file=out)
    rows = []
    with tempfile.TemporaryDirectory(prefix="serenity-stress-") as tmp:
        for label, network, params in GRAPHS:
            if only and not any(o in label for o in only):
                continue
            row = run_graph(tool_path, label, network, params, tmp)
            if previous:
                row["previous_s"] = run_graph(previous, label, network, params, tmp)["wall_s"]
            rows.append(row)
            print(format_row(row), file=out)
            out.flush()
            if verbose:
                for name, s in row["passes"]:
                    print("  %s: %-45s %8.3f s" % (label, name, s), file=log)
    return rows
