#!/usr/bin/env python3
"""Times the five MLPerf Tiny models compiled by serenity-compile for the
host, under one or more serenity-pipeline option sets, in one run.

For each model and each `--config OPTIONS` (default: the upstream loops and
the int8 dot-product kernels, `conv-kernels=loops` and `conv-kernels=dot`)
it compiles the model (--target host --io arena), links a C program that
calls NAME_run REPS times in a loop (clock_gettime around the loop, best of
five loops) and prints microseconds per inference in a table.

Usage: PATH=build/bin:$PATH /usr/bin/python3 examples/deploy/host_time.py
           [--config "conv-kernels=loops"] [--config ...] [--reps 200]
           [--only kws_ref_model,...]
Timing depends on the machine and its load: the numbers are for reading, no
test checks them.
"""
import argparse
import os
import sys
import tempfile

from measure import ROOT, find_compiler, model_paths, run
from serenity.deploy import host_cc

PROGRAM = r"""
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "net.h"

static uint8_t arena[NET_ARENA_BYTES] __attribute__((aligned(NET_ARENA_ALIGNMENT)));

int main(int argc, char **argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 100;
  for (size_t i = 0; i < sizeof arena; ++i)
    arena[i] = (uint8_t)(i * 2654435761u >> 24);
  double best = 1e30;
  for (int round = 0; round < 5; ++round) {
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (int i = 0; i < reps; ++i)
      if (net_run(arena) != 0)
        return 1;
    clock_gettime(CLOCK_MONOTONIC, &end);
    double us = ((end.tv_sec - start.tv_sec) * 1e6 + (end.tv_nsec - start.tv_nsec) / 1e3) / reps;
    if (us < best)
      best = us;
  }
  printf("%.1f\n", best);
  return 0;
}
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=os.path.join(ROOT, "..", "shared", "models", "mlperf_tiny"))
    parser.add_argument("--config", action="append", help="serenity-pipeline options (repeatable)")
    parser.add_argument("--reps", type=int, default=100)
    parser.add_argument("--only", default="", help="comma-separated model names (default: all five)")
    args = parser.parse_args()
    configs = args.config or ["conv-kernels=loops", "conv-kernels=dot"]
    compiler = find_compiler()
    cc = host_cc()
    print("| model | " + " | ".join("`%s` (us)" % c for c in configs) + " |")
    print("|---|" + "---:|" * len(configs))
    with tempfile.TemporaryDirectory() as work:
        main_c = os.path.join(work, "main.c")
        with open(main_c, "w") as f:
            f.write(PROGRAM)
        for model, path in model_paths(args.models, args.only):
            times = []
            for i, config in enumerate(configs):
                out = os.path.join(work, "%s-%d" % (model, i))
                run([compiler, path, "--target", "host", "--name", "net", "--io", "arena",
                     "--pipeline", config, "-o", out])
                exe = os.path.join(out, "a.out")
                run([cc, "-O2", "-I", out, main_c, os.path.join(out, "net.o"), "-o", exe, "-lm"])
                times.append(float(run([exe, str(args.reps)]).strip()))
            print("| %s | %s |" % (model, " | ".join("%.1f" % t for t in times)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
