#!/usr/bin/env python3
"""Schedules the Python generator's networks under concat=copy and
concat=inplace with serenity-opt --serenity-schedule (dp) and prints a
markdown table: peak as written, dp peak, whether dp proved it optimal, and
whether serenity-annotate-lifetimes with the same option reports the same
peak on the scheduled IR (it must: exits non-zero otherwise).

Usage: /usr/bin/python3 scripts/bench_schedule_inplace.py [build-dir]
"""

import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build")
OPT = os.path.join(BUILD, "bin", "serenity-opt")
NETWORKS = ["randwire-stage", "randwire", "darts-normal", "darts-reduction",
            "darts-stack", "densenet-block", "inception-module", "fire-module",
            "mobilenetv2", "vww", "kws-dscnn", "resnet8", "fc-autoencoder",
            "random-dag"]
TIME_LIMIT_MS = 2000


def run(args, text):
    return subprocess.run(args, input=text, capture_output=True, text=True,
                          check=True).stdout


def main_attr(ir, name):
    """The integer or bool attribute `name` on @main."""
    line = next(l for l in ir.splitlines() if "func.func @main" in l)
    return re.search(name + r" = (\w+)", line).group(1)


def measure(ir, concat):
    written = run([OPT, "--serenity-annotate-lifetimes=concat=" + concat], ir)
    scheduled = run([OPT, "--serenity-schedule=concat=%s time-limit-ms=%d"
                     % (concat, TIME_LIMIT_MS)], ir)
    attr = re.search(r"serenity.schedule = \{[^}]*\}", scheduled).group(0)
    peak = int(re.search(r"peak_bytes = (\d+)", attr).group(1))
    proven = "optimal = true" in attr
    after = run([OPT, "--serenity-annotate-lifetimes=concat=" + concat],
                scheduled)
    return (int(main_attr(written, "serenity.peak_bytes")), peak, proven,
            int(main_attr(after, "serenity.peak_bytes")))


def main():
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    print("| network | as written (copy) | dp (copy) | as written (inplace) | dp (inplace) "
          "| proven copy / inplace | annotate-lifetimes after dp (inplace) |")
    print("|---|---:|---:|---:|---:|---|---:|")
    mismatches = 0
    for name in NETWORKS:
        ir = subprocess.run([sys.executable, "-m", "serenity", "gen", name],
                            capture_output=True, text=True, check=True,
                            env=env).stdout
        copy = measure(ir, "copy")
        inplace = measure(ir, "inplace")
        mismatches += copy[1] != copy[3] or inplace[1] != inplace[3]
        print("| %s | %d | %d | %d | %d | %s / %s | %d |" % (
            name, copy[0], copy[1], inplace[0], inplace[1],
            "yes" if copy[2] else "no", "yes" if inplace[2] else "no",
            inplace[3]))
    print("%d networks, %d with a schedule peak different from "
          "annotate-lifetimes" % (len(NETWORKS), mismatches))
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
