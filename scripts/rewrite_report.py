#!/usr/bin/env python3
"""Prints the markdown table of docs/Rewriting.md: for every network of
test/Integration/rewrite/, the scheduled peak before and after
serenity-rewrite (mode=all, mode=profitable, and mode=profitable with
in-place concatenation and in-place partial sums), the rewrites applied, and
the max abs difference of the outputs executed before and after
(compare_rewrite.py, which lowers the last variant in place).

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


def measure(path, mode, extra=()):
    exact = ["--atol", "0", "--rtol", "0"] if "int8" in path else []
    out = subprocess.run([sys.executable, compare, path, "--mode", mode, "--min-rewrites", "0"]
                         + exact + list(extra),
                         capture_output=True, text=True, env=env).stdout
    rewrites = int(re.search(r"(\d+) rewrites applied", out).group(1))
    peak = re.search(r"^scheduled peak (\d+) -> (\d+) bytes", out, re.MULTILINE)
    diffs = [float(d) for d in re.findall(r"max abs diff (\S+),", out)]
    return {"rewrites": rewrites, "before": peak and int(peak.group(1)),
            "after": peak and int(peak.group(2)), "diff": max(diffs),
            "pass": out.strip().endswith("PASS")}


print("| network | rewrites all / profitable / in-place | peak before | after all | after profitable "
      "| in-place: before | in-place: after profitable | max abs diff | result |")
print("|---|---|---|---|---|---|---|---|---|")
for path in sorted(glob.glob(os.path.join(root, "test", "Integration", "rewrite", "*.mlir"))):
    runs = {"all": measure(path, "all"), "profitable": measure(path, "profitable"),
            "inplace": measure(path, "profitable", ["--concat", "inplace", "--accumulate"])}
    copy_before = runs["all"]["before"] or runs["profitable"]["before"]

    def after(run, before):
        return run["after"] if run["rewrites"] else before

    inplace_before = runs["inplace"]["before"]
    diff = max(r["diff"] for r in runs.values())
    ok = all(r["pass"] for r in runs.values())
    counts = " / ".join(str(runs[m]["rewrites"]) for m in ("all", "profitable", "inplace"))
    print(f"| {os.path.basename(path)[:-5]} | {counts} | {copy_before} "
          f"| {after(runs['all'], copy_before)} | {after(runs['profitable'], copy_before)} "
          f"| {inplace_before if inplace_before else '-'} "
          f"| {after(runs['inplace'], inplace_before) if inplace_before else '-'} "
          f"| {diff:g} | {'PASS' if ok else 'FAIL'} |")
