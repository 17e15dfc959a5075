#!/usr/bin/env python3
"""Prints the markdown table of docs/Rewriting.md: for every network of
test/Integration/rewrite/, the scheduled peak before and after
serenity-rewrite in both modes, the rewrites applied, and the max abs
difference of the outputs executed before and after (compare_rewrite.py).

Usage: scripts/rewrite_report.py [build-dir]   (default: build)
"""
import glob
import os
import re
import subprocess
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "build")
compare = os.path.join(root, "test", "Integration", "compare_rewrite.py")
env = dict(os.environ, PATH=os.path.join(build, "bin") + os.pathsep + os.environ["PATH"])


def measure(path, mode):
    exact = ["--atol", "0", "--rtol", "0"] if "int8" in path else []
    out = subprocess.run([sys.executable, compare, path, "--mode", mode, "--min-rewrites", "0"] + exact,
                         capture_output=True, text=True, env=env).stdout
    rewrites = int(re.search(r"(\d+) rewrites applied", out).group(1))
    peak = re.search(r"^scheduled peak (\d+) -> (\d+) bytes", out, re.MULTILINE)
    diffs = [float(d) for d in re.findall(r"max abs diff (\S+),", out)]
    return {"rewrites": rewrites, "before": peak and int(peak.group(1)),
            "after": peak and int(peak.group(2)), "diff": max(diffs),
            "pass": out.strip().endswith("PASS")}


print("| network | rewrites all / profitable | peak before | after all | after profitable "
      "| max abs diff | result |")
print("|---|---|---|---|---|---|---|")
for path in sorted(glob.glob(os.path.join(root, "test", "Integration", "rewrite", "*.mlir"))):
    runs = {mode: measure(path, mode) for mode in ("all", "profitable")}
    before = runs["all"]["before"] or runs["profitable"]["before"]
    after = {m: (r["after"] if r["rewrites"] else before) for m, r in runs.items()}
    diff = max(r["diff"] for r in runs.values())
    ok = all(r["pass"] for r in runs.values())
    print(f"| {os.path.basename(path)[:-5]} | {runs['all']['rewrites']} / {runs['profitable']['rewrites']} "
          f"| {before} | {after['all']} | {after['profitable']} | {diff:g} | {'PASS' if ok else 'FAIL'} |")
