#!/usr/bin/env python3
"""Seeded, time-bounded differential fuzzer for serenity-opt (issue 16).

Each case draws a network (a generator of python/serenity/networks with small
random parameters, f32 or int8, seeded random weights) and a random option
set, then checks:

  1. graph passes: serenity-schedule (random algorithm and memory-model
     options), then serenity-rewrite / serenity-tile when drawn: every run
     exits 0, and the peak serenity-schedule reports equals an independent
     recount (python/tests/mlir_text.py) of the order it printed;
  2. the arena: serenity-pipeline's allocation report has no two buffers
     whose lifetimes and byte ranges both overlap, every buffer inside the
     arena and aligned;
  3. numbers: test/Integration/compare_lowering.py runs the pipeline-lowered
     network and the upstream reference lowering with mlir-runner on seeded
     inputs: int8 bit-exact, f32 within 1e-4 (rewrites change the summation
     order).

A failing case is shrunk (its size parameters halved while it still fails)
and written to OUT/fuzz-SEED-N.mlir with a RUN line that reproduces it.

Usage: fuzz.py [--seconds 60] [--cases N] [--seed 1] [--out DIR]
Exit 0 when every case passed, 1 otherwise. Needs serenity-opt on PATH (or
--serenity-opt) and /usr/bin/python3 (numpy).
"""
import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "python", "tests"))
from serenity.networks import generate  # noqa: E402
from mlir_text import Function, simulate  # noqa: E402

COMPARE = os.path.join(ROOT, "test", "Integration", "compare_lowering.py")

# (generator, size parameters drawn per case); every value can be halved by
# the shrinker down to its floor (FLOORS).
GENERATORS = {
    "random-dag": lambda r: dict(nodes=r.randint(4, 14), branching=r.randint(1, 4), channels=r.choice([4, 8]),
                                 cmin=4, cmax=r.choice([8, 12]), resolution=r.choice([4, 8])),
    "randwire-stage": lambda r: dict(nodes=r.randint(5, 10), channels=r.choice([4, 8]), resolution=r.choice([8, 16])),
    "residual-concat": lambda r: dict(channels=r.choice([4, 8]), resolution=r.choice([8, 16])),
    "resnet8": lambda r: dict(channels=r.choice([4, 8]), resolution=r.choice([8, 16]), classes=r.choice([2, 10])),
    "mobilenetv2": lambda r: dict(channels=8, resolution=r.choice([16, 32]), classes=r.choice([2, 10])),
    "vww": lambda r: dict(resolution=r.choice([16, 32]), classes=2),
    "kws-dscnn": lambda r: dict(channels=r.choice([8, 16]), classes=r.choice([4, 12])),
    "densenet-block": lambda r: dict(channels=r.choice([4, 8]), resolution=r.choice([4, 8]),
                                     layers=r.randint(2, 3), growth=4),
    "fire-module": lambda r: dict(channels=r.choice([8, 16]), resolution=r.choice([8, 16]), squeeze=4, expand=8),
    "inception-module": lambda r: dict(channels=8, resolution=r.choice([4, 8]), b1=4, b2=8, b2_reduce=4, b3=4,
                                       b3_reduce=4, b4=4),
}
FLOORS = {"nodes": 3, "channels": 4, "resolution": 4, "layers": 1, "classes": 2}


def draw_options(r):
    """A random serenity-pipeline option set (only valid combinations: the
    invalid ones are the bad-input corpus's business)."""
    concat = r.choice(["copy", "inplace", "auto"])
    tile = r.choice(["none", "ffmt", "fdt", "both"]) if concat != "copy" else "none"
    options = {
        "schedule": r.choice(["dp", "dp", "greedy", "kahn", "program-order"]),
        "concat": concat,
        "tile": tile,
        "rewrite": r.choice(["none", "none", "profitable"]),
        "io": r.choice(["caller", "arena"]),
        "alloc": r.choice(["exact", "best-fit", "greedy-size"]),
        "alignment": r.choice([16, 64]),
        "fuse-requantization": r.choice([0, 1]),
        "accumulate-in-place": r.choice([0, 0, 1]),
    }
    if tile != "none":
        options["tile-max-mac-overhead"] = r.choice([20, 100, 1000])
    # Every kernel in a function of its own, or the default threshold.
    options["outline-min-ops"] = r.choice([0, 256])
    # The int8 convolution kernels (plain arithmetic on the host, fused with
    # their accumulator tiles), or the upstream loops.
    options["conv-kernels"] = r.choice(["auto", "dot"])
    return options


def option_text(options):
    return " ".join("%s=%s" % kv for kv in options.items())


class Failure(Exception):
    pass


def run(cmd, timeout=600):
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise Failure("timeout after %d s: %s" % (timeout, " ".join(cmd)))
    crash = proc.returncode < 0 or "LLVM ERROR" in proc.stderr or "Stack dump" in proc.stderr
    if proc.returncode != 0 or crash:
        raise Failure("%s (exit %d): %s\n%s" % ("crash" if crash else "failure", proc.returncode, " ".join(cmd),
                                                proc.stderr[-2000:]))
    return proc.stdout, proc.stderr


def check_graph_passes(tool, path, options):
    """serenity-schedule's reported peak equals the recount of its order;
    rewrite/tile run cleanly on the scheduled network."""
    model = "concat=%s accumulate-in-place=%d fuse-requantization=%d" % (
        options["concat"], options["accumulate-in-place"], options["fuse-requantization"])
    algorithm = options["schedule"] if options["schedule"] != "none" else "dp"
    out, err = run([tool, path, "--serenity-schedule=algorithm=%s %s" % (algorithm, model)])
    peaks = re.findall(r"peak (\d+) -> (\d+) bytes", err)
    if not peaks:
        raise Failure("serenity-schedule reported no peak:\n" + err[-1000:])
    # The independent recount knows the DESIGN.md model only (copies, no
    # fusion): compare under those options.
    if options["concat"] == "copy" and not options["accumulate-in-place"] and not options["fuse-requantization"]:
        recount = simulate(Function(out))[0]
        if recount != int(peaks[-1][1]):
            raise Failure("serenity-schedule reports peak %s, the recount of its order is %d"
                          % (peaks[-1][1], recount))
    passes = []
    if options["rewrite"] != "none":
        passes.append("--serenity-rewrite=mode=%s %s" % (options["rewrite"], model))
    if options["tile"] != "none":
        passes.append("--serenity-tile=method=%s max-mac-overhead=%s %s" % (
            options["tile"], options["tile-max-mac-overhead"], model))
    if passes:
        run([tool, path] + passes + ["--serenity-annotate-lifetimes=%s" % model, "-o", os.devnull])


def check_arena(tool, path, options, workdir):
    """No two buffers live at the same time share bytes; all inside the
    arena, aligned."""
    if options["alloc"] == "none":
        return
    report = os.path.join(workdir, "alloc.json")
    run([tool, path, "--serenity-pipeline=lower-to-llvm=0 %s alloc-report=%s" % (option_text(options), report),
         "-o", os.devnull])
    with open(report) as f:
        error = arena_error(json.load(f), options["alignment"])
    if error:
        raise Failure(error)


def arena_error(report, alignment):
    """What is wrong with a serenity-static-alloc report (JSON), or None."""
    for function in report.get("functions", [report]):
        arena = function["arena_bytes"]
        buffers = function["buffers"]
        for b in buffers:
            if b["offset"] < 0 or b["offset"] + b["size"] > arena or b["offset"] % alignment:
                return ("buffer %s at %d+%d outside the %d-byte arena or misaligned"
                        % (b["name"], b["offset"], b["size"], arena))
        for i, a in enumerate(buffers):
            for b in buffers[i + 1:]:
                if a["first"] <= b["last"] and b["first"] <= a["last"] and \
                        a["offset"] < b["offset"] + b["size"] and b["offset"] < a["offset"] + a["size"]:
                    return "buffers %s and %s overlap in time and in the arena" % (a["name"], b["name"])
    return None


def check_numbers(tool, path, options, dtype):
    tol = ["--atol", "0", "--rtol", "0"] if dtype == "i8" else ["--atol", "1e-4", "--rtol", "1e-4"]
    out, _ = run([sys.executable, COMPARE, path, "--serenity-opt", tool, "--options", option_text(options)] + tol)
    if "PASS" not in out:
        raise Failure("compare_lowering did not pass:\n" + out[-2000:])


def check_case(tool, case, workdir):
    path = os.path.join(workdir, "net.mlir")
    with open(path, "w") as f:
        f.write(generate(case["network"], dtype=case["dtype"], weights="random", seed=case["seed"],
                         **case["params"]))
    check_graph_passes(tool, path, case["options"])
    check_arena(tool, path, case["options"], workdir)
    check_numbers(tool, path, case["options"], case["dtype"])


def draw_case(r):
    network = r.choice(sorted(GENERATORS))
    dtype = r.choice(["f32", "i8"])
    return {"network": network, "dtype": dtype, "seed": r.randint(0, 1000), "params": GENERATORS[network](r),
            "options": draw_options(r)}


def shrink(tool, case, workdir):
    """Halves size parameters while the case still fails; returns the
    smallest failing case and its failure message."""
    try:
        check_case(tool, case, workdir)
        return case, None
    except Failure as failure:
        message = str(failure)
    progress = True
    while progress:
        progress = False
        for key, value in case["params"].items():
            if key not in FLOORS or value // 2 < FLOORS[key]:
                continue
            smaller = dict(case, params=dict(case["params"], **{key: value // 2}))
            try:
                check_case(tool, smaller, workdir)
            except Failure as failure:
                case, message, progress = smaller, str(failure), True
                break
            except Exception:  # the generator rejects the smaller size
                continue
    return case, message


def save(case, message, out_dir, tag):
    os.makedirs(out_dir, exist_ok=True)
    text = generate(case["network"], dtype=case["dtype"], weights="random", seed=case["seed"], **case["params"])
    tol = "--atol 0 --rtol 0" if case["dtype"] == "i8" else "--atol 1e-4 --rtol 1e-4"
    header = ("// Found by scripts/fuzz.py (%s): %s\n// %s\n"
              "// RUN: %%python %%integration/compare_lowering.py %%s %s --options \"%s\" | FileCheck %%s\n"
              "// CHECK: PASS\n" % (tag, json.dumps({k: case[k] for k in ("network", "dtype", "seed", "params")}),
                                   message.splitlines()[0][:300], tol, option_text(case["options"])))
    path = os.path.join(out_dir, "fuzz-%s.mlir" % tag)
    with open(path, "w") as f:
        f.write(header + text)
    return path


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60, help="stop drawing cases after this long")
    parser.add_argument("--cases", type=int, default=0, help="stop after this many cases (0: time only)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default="fuzz-failures", help="directory for shrunk failing cases")
    parser.add_argument("--serenity-opt", default=shutil.which("serenity-opt") or "serenity-opt")
    args = parser.parse_args(argv)
    r = random.Random(args.seed)
    start = time.monotonic()
    passed = failed = 0
    while time.monotonic() - start < args.seconds and (not args.cases or passed + failed < args.cases):
        case = draw_case(r)
        tag = "%d-%d" % (args.seed, passed + failed)
        with tempfile.TemporaryDirectory(prefix="serenity-fuzz-") as workdir:
            try:
                check_case(args.serenity_opt, case, workdir)
                passed += 1
                print("pass %s: %s %s %s | %s" % (tag, case["network"], case["dtype"], case["params"],
                                                  option_text(case["options"])), flush=True)
                continue
            except Failure:
                pass
            small, message = shrink(args.serenity_opt, case, workdir)
        if message is None:  # flaky: passed on the second run
            message = "failed once, passed when re-run"
        failed += 1
        path = save(small, message, args.out, tag)
        print("FAIL %s: %s %s | %s\n  %s\n  saved %s" % (tag, small["network"], small["params"],
                                                       option_text(small["options"]), message.splitlines()[0], path),
              flush=True)
    print("fuzz: %d cases, %d passed, %d failed in %.0f s (seed %d)"
          % (passed + failed, passed, failed, time.monotonic() - start, args.seed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
