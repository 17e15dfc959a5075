#!/usr/bin/python3
"""A stand-in for a serenity-opt that has --serenity-schedule and
--serenity-static-alloc, for testing the driver's parsing and the bench
columns before those passes exist.  Numbers are fixed per algorithm:
program order peak 2000, kahn 1500, greedy 1200, dp 1000 (proven)."""

import json
import os
import sys

PEAKS = {"program-order": 2000, "kahn": 1500, "greedy": 1200, "dp": 1000}

HELP = """OVERVIEW: fake serenity-opt
      --serenity-memory-report   -   Print the per-step activation memory of every function
      --serenity-schedule        -   Reorder ops to minimize peak memory
        --algorithm=<string>     - Scheduling algorithm
        --work-limit=<long>      - Work budget of the dp search
      --serenity-static-alloc    -   Place buffers in one arena
"""


def main(argv):
    if "--help" in argv:
        sys.stdout.write(HELP)
        return 0
    if os.environ.get("FAKE_SERENITY_FAIL"):
        sys.stderr.write("fake.mlir:3:5: error: %s\n" % os.environ["FAKE_SERENITY_FAIL"])
        return 3
    out = None
    algorithm = None
    alloc_report = None
    for i, a in enumerate(argv):
        if a == "-o":
            out = argv[i + 1]
        elif a.startswith("--serenity-schedule="):
            algorithm = dict(kv.split("=", 1) for kv in a.split("=", 1)[1].split())["algorithm"]
        elif a.startswith("--serenity-static-alloc="):
            alloc_report = dict(kv.split("=", 1) for kv in a.split("=", 1)[1].split())["report"]
    if os.environ.get("FAKE_SERENITY_LOG"):
        with open(os.environ["FAKE_SERENITY_LOG"], "a") as f:
            f.write(" ".join(a for a in argv if a.startswith("--serenity-schedule")) + "\n")
    peak = PEAKS[algorithm or "program-order"]
    if "--serenity-memory-report=format=json" in argv:
        json.dump({"functions": [{"function": "main", "peak_bytes": peak, "peak_step": 1,
                                  "steps": [{"step": 0, "op": "tosa.clamp", "loc": "x", "live_bytes": peak // 2,
                                             "new_bytes": 10},
                                            {"step": 1, "op": "tosa.add", "loc": "y", "live_bytes": peak,
                                             "new_bytes": 10}],
                                  "buffers": [{"name": "%arg0", "bytes": 600, "def": -1, "last": 1},
                                              {"name": "%0", "bytes": 400, "def": 0, "last": 1}]}]},
                  sys.stdout)
    if out and out != os.devnull:
        with open(out, "w") as f:
            attrs = ""
            if algorithm:
                attrs = (' attributes {serenity.peak_bytes = %d : i64, serenity.schedule = {algorithm = "%s", '
                         'lower_bound_bytes = 900 : i64, optimal = %s, peak_bytes = %d : i64, states = 42 : i64, '
                         'stopped_by = "none", work = 7 : i64}}' % (peak, algorithm, "true" if algorithm == "dp" else "false", peak))
            f.write("module {\n  func.func @main(%%arg0: tensor<4xf32>) -> tensor<4xf32>%s {\n"
                    "    return %%arg0 : tensor<4xf32>\n  }\n}\n" % attrs)
    if alloc_report:
        with open(alloc_report, "w") as f:
            json.dump({"function": "main", "arena_bytes": 1024, "lower_bound": 960,
                       "buffers": [{"name": "%0", "offset": 0, "size": 512, "first": 0, "last": 2},
                                   {"name": "%1", "offset": 512, "size": 512, "first": 1, "last": 3}]}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
