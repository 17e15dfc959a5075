#!/usr/bin/python3
"""Writes what serenity-pipeline and serenity-compile produce for a fixed set
of networks and option sets into one directory, so that a refactoring of the
pipeline can be checked to change nothing:

    scripts/pipeline-snapshot.py /tmp/before      # on the old build
    scripts/pipeline-snapshot.py /tmp/after       # on the new build
    diff -r /tmp/before /tmp/after && echo identical

Networks: the five MLPerf Tiny .tflite models (../shared; skipped with a
message when absent) through the whole pipeline to the LLVM dialect under
several option sets and through serenity-compile (host and Cortex-M4), and
every network of the bench suites `lowering` and `tiling` through the
pipeline to memrefs (host and cortex-m). A run that fails is recorded as its
exit status and diagnostics, which are compared like any output. What
differs from run to run is normalized: the output directory's path (OUT) and
measured times (time_ms, time in the reports, search times).

Options: --build DIR (default: build), --jobs N (default 2), --only TEXT
(only runs whose file name contains TEXT), --normalize-only.
"""

import argparse
import concurrent.futures
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))

from serenity.bench import SUITES, ImportedCase  # noqa: E402
from serenity.networks import generate  # noqa: E402

# Option sets of the MLPerf models (whole pipeline, LLVM dialect out).
MLPERF_OPTIONS = {
    "default": "",
    "cortex-m": "target=cortex-m",
    "cortex-m-loops-copy": "target=cortex-m conv-kernels=loops concat=copy",
    "rewrite-greedy-bestfit": "rewrite=profitable schedule=greedy alloc=best-fit arena=argument io=arena",
    "inplace-accumulate": "concat=inplace accumulate-in-place=1 fuse-requantization=0 alloc=greedy-size tile=none",
    "im2col": "primitives=im2col tile=ffmt concat=auto",
    "kahn-fdt-memref": "schedule=kahn tile=fdt concat=auto lower-to-llvm=false alignment=16",
    "dot-widen": "target=cortex-m conv-kernels=dot widen-budget=1000 tile-channels=2 tile-cols=0",
    "no-schedule": "schedule=none alloc=none lower-to-llvm=false fuse-padding=0",
}

# Option sets of the bench networks (to memrefs).
BENCH_OPTIONS = {
    "host-memref": "lower-to-llvm=false",
    "cortex-m-memref": "target=cortex-m lower-to-llvm=false io=arena",
}

COMPILE_TARGETS = ("host", "cortex-m4")


def run(argv, out_path, timeout=900):
    """Runs argv and writes its stdout, or its status and stderr, to out_path."""
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
        text = proc.stdout if proc.returncode == 0 else \
            "exit %d\n%s" % (proc.returncode, proc.stderr)
    except subprocess.TimeoutExpired:
        text = "timeout after %d s\n" % timeout
    with open(out_path, "w") as f:
        f.write(text)
    return os.path.basename(out_path)


_TIMES = [
    (re.compile(r"time_ms = \d+"), "time_ms = _"),
    (re.compile(r'"(time_ms|search_s|seconds|elapsed_s)": [0-9.e+-]+'), r'"\1": _'),
]


def normalize(outdir):
    """Rewrites the text files under outdir without run-to-run differences."""
    root = os.path.abspath(outdir)
    for dirpath, _, files in os.walk(root):
        for name in files:
            if name.endswith(".o"):
                continue
            path = os.path.join(dirpath, name)
            with open(path, errors="surrogateescape") as f:
                text = f.read()
            new = text.replace(root, "OUT")
            for pattern, repl in _TIMES:
                new = pattern.sub(repl, new)
            if new != text:
                with open(path, "w", errors="surrogateescape") as f:
                    f.write(new)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("outdir")
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--only", default="")
    p.add_argument("--normalize-only", action="store_true",
                   help="only normalize an existing snapshot directory")
    args = p.parse_args()
    if args.normalize_only:
        normalize(args.outdir)
        return
    opt = os.path.join(args.build, "bin", "serenity-opt")
    compile_tool = os.path.join(args.build, "bin", "serenity-compile")
    nets = os.path.join(args.outdir, "networks")
    os.makedirs(nets, exist_ok=True)

    jobs = []  # (argv, out_path)
    seen = set()
    for suite in ("tflite", "lowering", "tiling"):
        for i, case in enumerate(SUITES[suite]):
            reason = case.skip_reason()
            if reason:
                print("skipped %s: %s" % (case.label, reason), file=sys.stderr)
                continue
            name = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in case.label)
            if name in seen:
                continue
            seen.add(name)
            path = os.path.join(nets, name + ".mlir")
            if isinstance(case, ImportedCase):
                text = case.text()
            else:
                params = dict(case.params)
                seed = params.pop("seed", 0)
                text = generate(case.network, dtype=case.dtype, seed=seed, **params)
            with open(path, "w") as f:
                f.write(text)
            imported = isinstance(case, ImportedCase)
            options = MLPERF_OPTIONS if imported else BENCH_OPTIONS
            for key, value in options.items():
                out = os.path.join(args.outdir, "%s.%s.mlir" % (name, key))
                jobs.append(([opt, path, "--serenity-pipeline=%s" % value], out))
            if imported:
                for target in COMPILE_TARGETS:
                    outdir = os.path.join(args.outdir, "%s.compile-%s" % (name, target))
                    os.makedirs(outdir, exist_ok=True)
                    log = os.path.join(args.outdir, "%s.compile-%s.log" % (name, target))
                    jobs.append(([compile_tool, path, "--target", target, "--name", "net",
                                  "-o", outdir], log))
    jobs = [j for j in jobs if args.only in os.path.basename(j[1])]
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for done in pool.map(lambda j: run(*j), jobs):
            print(done, flush=True)
    normalize(args.outdir)
    print("%d runs written to %s" % (len(jobs), args.outdir))


if __name__ == "__main__":
    main()
