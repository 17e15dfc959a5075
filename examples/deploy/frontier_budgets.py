#!/usr/bin/env python3
"""The budget decisions of `python3 -m serenity frontier` on the MLPerf Tiny
models: for each model three budget pairs (tight: the least RAM of any
configuration and the least flash at that RAM; middle: the default
configuration's RAM and flash; loose: TFLite Micro's smallest arena and
whole-program flash with CMSIS-NN), the configuration decided (per-layer
widening from QEMU profiles, fused tiling's MAC budget), its measured RAM,
flash and instructions on the QEMU board, the prediction it was chosen by
and its error, the builds the decision measured (from a cache holding the
exploration's builds only) and their time, and whether it computes the
output of TFLite Micro on its seed-0 input (../shared/bench/tflm/reference,
test/Integration/run_compiled.py). One markdown table (docs/Deploy.md
section 7).

Usage: frontier_budgets.py [--target cortex-m4|cortex-m7|cortex-m33|cortex-m55|cortex-m0plus] [--models DIR] [--only a,b] [--cache FILE]
(serenity-compile on PATH or in build/; arm-none-eabi-gcc and qemu-system-arm)
"""
import argparse
import copy
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from serenity import deploy, frontier  # noqa: E402

MODELS = ("ad01_int8", "kws_ref_model", "pretrainedResnet_quant", "str_ww_ref_model", "vww_96_int8")


def budget_pairs(rows, points, tflm):
    """[(label, RAM budget, flash budget)]: tight, middle, loose (module
    docstring)."""
    default = rows[0][1]
    least = min(p["ram"] for p in points)
    pairs = [("tight", least, min(p["flash"] for p in points if p["ram"] == least)),
             ("middle (default's)", default["ram"], default["flash"])]
    if tflm and tflm.get("flash"):
        pairs.append(("loose (TFLite Micro's)", tflm["ram"], tflm["flash"]))
    return pairs


def tflm_exact(path, model, target, options, reference, compiler):
    """Whether the configuration's output equals TFLite Micro's on its seed-0
    input (../shared/bench/tflm/reference; test/Integration/run_compiled.py
    on QEMU); None without the reference."""
    data = os.path.join(reference, model + ".seed0.input.bin")
    expect = os.path.join(reference, model + ".seed0.bin")
    if not (os.path.exists(data) and os.path.exists(expect)):
        return None
    done = subprocess.run([sys.executable, os.path.join(deploy.ROOT, "test", "Integration", "run_compiled.py"),
                           path, "--target", target, "--pipeline", options, "--input-file", data,
                           "--expect-file", expect, "--serenity-compile", compiler],
                          capture_output=True, text=True)
    return done.returncode == 0 and "max abs diff 0, 0 beyond tolerance" in done.stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", choices=sorted(deploy.BOARDS), default="cortex-m4")
    parser.add_argument("--models", default=os.path.join(deploy.ROOT, "..", "shared", "models", "mlperf_tiny"))
    parser.add_argument("--only", default="")
    parser.add_argument("--cache", default=os.path.join(os.path.expanduser("~"), ".cache", "serenity",
                                                        "frontier.json"))
    parser.add_argument("--tflm", default=os.path.join(deploy.ROOT, "..", "shared", "bench", "tflm"))
    args = parser.parse_args()
    compiler = deploy.find_compiler()
    cache = frontier.Cache(args.cache)
    print("| model | budget | RAM budget | flash budget | chosen | RAM | flash | instructions | predicted "
          "| error | builds | decision | = TFLite Micro | default's instructions |")
    print("|---|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---|---:|")
    errors = []
    for model in (args.only.split(",") if args.only else MODELS):
        path = os.path.join(args.models, model + ".tflite")
        if not os.path.exists(path):
            print("skipped %s: %s is absent" % (model, path), file=sys.stderr)
            continue
        with tempfile.TemporaryDirectory() as work:
            rows, points = frontier.explore(path, args.target, cache, compiler, work)
            default = rows[0][1]
            tflm = frontier.tflm_point(model, args.target, args.tflm)
            for label, ram, flash in budget_pairs(rows, points, tflm):
                # Each decision starts from what the exploration measured
                # (its builds counted from there, not from an earlier
                # decision's): a copy of the cache, not saved.
                start = frontier.Cache(None)
                start.data = copy.deepcopy(cache.data)
                _, fresh = frontier.explore(path, args.target, start, compiler, work)
                started = time.time()
                p = frontier.decide(path, args.target, fresh, start, compiler, work, ram, flash)
                seconds = time.time() - started
                pred = p.get("prediction")
                # The exploration measured these (a prediction of them equals
                # the measurement by construction).
                measured_end = p["widen"] in ("widen none", "widen all", "widen auto", "direct convolutions")
                print("| %s | %s | %d | %d | %s, %s | %d | %d | %d | %s | %s | %d%s | %.1f s | %s | %d |" % (
                    model, label, ram, flash, p["tile"], p["widen"], p["ram"], p["flash"], p["instructions"],
                    pred["instructions"] if pred and not measured_end else "(measured)",
                    "%+.2f %%" % (100.0 * (pred["instructions"] - p["instructions"]) / p["instructions"])
                    if pred and not measured_end else "", p["builds"], "" if p["proven"] else " (not proven)", seconds,
                    {True: "yes", False: "**NO**", None: "(no reference)"}[
                        tflm_exact(path, model, args.target, p["options"],
                                   os.path.join(args.tflm, "reference"), compiler)],
                    default["instructions"]))
                sys.stdout.flush()
                # Every predicted point this decision built: its prediction
                # against QEMU.
                for q in fresh:
                    if "prediction" in q and q["widen"] not in ("widen none", "widen all"):
                        errors.append((100.0 * abs(q["prediction"]["instructions"] - q["instructions"])
                                       / q["instructions"],
                                       100.0 * abs(q["prediction"]["flash"] - q["flash"]) / q["flash"]))
    if errors:
        print("\nPredicted points built by the decisions: %d; prediction vs QEMU: instructions within "
              "%.2f %% (median %.2f %%), flash within %.2f %%" % (
                  len(errors), max(e[0] for e in errors), sorted(e[0] for e in errors)[len(errors) // 2],
                  max(e[1] for e in errors)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
