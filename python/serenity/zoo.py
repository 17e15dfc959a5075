"""``bench --suite zoo``: every .tflite model of ../shared/models compiled by
serenity-compile, against TensorFlow Lite Micro (issue 47).

One row per model of the subdirectories of ``--models`` (default
../shared/models: mlperf_tiny, tflite-micro, zoo), one markdown table:

- TFLite Micro activations: what its planner placed (inputs, outputs and
  intermediates, the non-persistent head of the arena), from
  ../shared/bench/tflm/README.md (:func:`serenity.tflite.report.tflm_arenas`);
- ours untiled / ours default: ``arena_bytes`` of the report of
  ``serenity-compile MODEL --target T`` with ``--pipeline tile=none`` / with
  the defaults (io=arena: inputs and outputs live in the arena, as TFLite
  Micro counts them); "state", a column only when some model has one: the
  bytes the object keeps between runs outside the arena (``state_bytes``);
- ratio: ours default / TFLite Micro's activations;
- extra MACs: what fused tiling adds to the default build, from the report's
  ``tiling.macs`` and ``tiling.untiled_macs``; "-" when the report has none;
- bit-exact: the default build's options compiled for the host (for the
  Cortex-M target on its QEMU board with ``--run-on-target``) and run by
  test/Integration/run_compiled.py ``--sequence`` on every seed of
  ../shared/bench/tflm/reference, one program per model, every output
  compared: integers byte for byte, float32 within
  :data:`FLOAT_RTOL` * |reference| + :data:`FLOAT_ATOL`. A stateful model is
  reset before every seed (TFLite Micro's references are one Invoke from the
  initial state). The host build is not weighed against flash
  (serenity-compile's tiling trade), so when the target build kept the
  untiled network the host one is built with ``tile=none`` too;
- compile s: wall time of the default serenity-compile (for a Cortex-M
  target it includes the untiled build the trade weighs).
"""

import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import time

from .deploy import BOARDS, ROOT, TARGETS, find_compiler

DEFAULT_MODELS_DIR = os.path.join(ROOT, "..", "shared", "models")
DEFAULT_TFLM_DIR = os.path.join(ROOT, "..", "shared", "bench", "tflm")
HARNESS = os.path.join(ROOT, "test", "Integration", "run_compiled.py")
# float32 outputs: |ours - TFLite Micro| <= FLOAT_ATOL + FLOAT_RTOL * |TFLite Micro|.
FLOAT_RTOL = 1e-5
FLOAT_ATOL = 1e-6
DEFAULT_TIMEOUT_S = 1800


class Model:
    """A .tflite file: its group (the directory it is in) and name (its stem)."""

    def __init__(self, group, name, path):
        self.group = group
        self.name = name
        self.path = path


def find_models(models_dir, only=()):
    """The .tflite models of ``models_dir`` and of its subdirectories, by
    group then name; ``only`` keeps the models named there (ValueError for a
    name that is not a model)."""
    models = []
    for directory in [models_dir] + sorted(glob.glob(os.path.join(models_dir, "*", ""))):
        directory = os.path.normpath(directory)
        for path in sorted(glob.glob(os.path.join(directory, "*.tflite"))):
            models.append(Model(os.path.basename(directory), os.path.basename(path)[:-len(".tflite")], path))
    if only:
        names = {m.name for m in models}
        unknown = [n for n in only if n not in names]
        if unknown:
            raise ValueError("--only: no model %s in %s (models: %s)"
                             % (", ".join(unknown), models_dir, ", ".join(sorted(names))))
        models = [m for m in models if m.name in only]
    return models


def compile_model(compiler, path, target, out, pipeline="", timeout_s=DEFAULT_TIMEOUT_S):
    """``serenity-compile PATH --target TARGET -o OUT [--pipeline ...]``:
    (its JSON report, wall seconds). RuntimeError with the end of its output
    when it fails."""
    cmd = [compiler, path, "--target", target, "-o", out] + (["--pipeline", pipeline] if pipeline else [])
    start = time.time()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        raise RuntimeError("%s: timeout after %d s" % (" ".join(cmd), timeout_s))
    seconds = time.time() - start
    if proc.returncode != 0:
        raise RuntimeError("%s failed (exit %d):\n%s" % (" ".join(cmd), proc.returncode,
                                                        (proc.stdout + proc.stderr).strip()[-1500:]))
    with open(os.path.join(out, "net.json")) as f:
        return json.load(f), seconds


def extra_macs(report):
    """Percent of MACs fused tiling adds to the build of ``report``, from its
    ``tiling`` object's ``macs`` and ``untiled_macs``; None without them."""
    tiling = report.get("tiling") or {}
    macs, untiled = tiling.get("macs"), tiling.get("untiled_macs")
    if not isinstance(macs, int) or not isinstance(untiled, int) or untiled <= 0:
        return None
    return 100.0 * (macs - untiled) / untiled


def reference_steps(reference_dir, name):
    """TFLite Micro's runs of model ``name``: [(seed, input 0 file, [output
    files])] by seed. Files: NAME.seedK.input.bin, output 0 in NAME.seedK.bin,
    output I >= 1 in NAME.seedK.outputI.bin."""
    steps = []
    pattern = re.compile(re.escape(name) + r"\.seed(\d+)\.input\.bin$")
    for path in glob.glob(os.path.join(reference_dir, name + ".seed*.input.bin")):
        match = pattern.match(os.path.basename(path))
        if not match:
            continue
        seed = int(match.group(1))
        prefix = os.path.join(reference_dir, "%s.seed%d" % (name, seed))
        outputs = [prefix + ".bin"]
        while os.path.exists("%s.output%d.bin" % (prefix, len(outputs))):
            outputs.append("%s.output%d.bin" % (prefix, len(outputs)))
        steps.append((seed, path, outputs))
    return sorted(steps)


class BitExact:
    """Result of :func:`check_bit_exact`: ``failed`` of ``total`` seeds
    differ, or ``error`` (text) when the program did not build or run."""

    def __init__(self, total, failed=0, error=None):
        self.total = total
        self.failed = failed
        self.error = error

    def cell(self):
        if self.error:
            return "error"
        if self.failed:
            return "NO (%d of %d seeds differ)" % (self.failed, self.total)
        return "yes"


def parse_harness_steps(printed, target, count, outputs):
    """Seeds (steps of run_compiled.py --sequence) that differ, from its
    printout: a step matches when each of its ``outputs`` outputs printed a
    line with 0 elements beyond tolerance; None when no step printed one
    (the program did not run)."""
    line = re.compile(r"^%s step (\d+)(?: \(after reset\))? (\d+): .*, (\d+) beyond tolerance$" % re.escape(target))
    seen = {}
    for text in printed.splitlines():
        match = line.match(text)
        if match:
            step, output, bad = (int(g) for g in match.groups())
            seen.setdefault(step, {})[output] = bad
    if not seen:
        return None
    return sum(1 for k in range(count)
               if sorted(seen.get(k, {})) != list(range(outputs)) or any(seen[k].values()))


def check_bit_exact(model, steps, report, target, compiler, pipeline, work, timeout_s=DEFAULT_TIMEOUT_S,
                    log=None):
    """Builds ``model`` for ``target`` with ``pipeline`` through
    run_compiled.py and runs every step of :func:`reference_steps` in one
    program, reset before each seed when the model keeps state; a
    :class:`BitExact`."""
    if len(steps[0][2]) != len(report["outputs"]):
        return BitExact(len(steps), error="TFLite Micro's reference has %d outputs, the model %d"
                        % (len(steps[0][2]), len(report["outputs"])))
    stateful = bool(report.get("state_bytes"))
    spec = {"steps": [{"inputs": [inp], "expect": outs, "reset": stateful and k > 0}
                      for k, (_, inp, outs) in enumerate(steps)]}
    spec_path = os.path.join(work, "seeds.json")
    with open(spec_path, "w") as f:
        json.dump(spec, f)
    cmd = [sys.executable, HARNESS, model.path, "--target", target, "--sequence", spec_path,
           "--serenity-compile", compiler]
    if pipeline:
        cmd += ["--pipeline", pipeline]
    if any(o["type"] == "float" for o in report["outputs"]):
        cmd += ["--rtol", repr(FLOAT_RTOL), "--atol", repr(FLOAT_ATOL)]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [os.path.join(ROOT, "python"), env.get("PYTHONPATH")]))
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s, env=env)
    except subprocess.TimeoutExpired:
        return BitExact(len(steps), error="run_compiled.py: timeout after %d s" % timeout_s)
    failed = parse_harness_steps(proc.stdout, target, len(steps), len(report["outputs"]))
    if failed is None or (proc.returncode != 0 and not failed):
        return BitExact(len(steps), error="run_compiled.py exit %d:\n%s"
                        % (proc.returncode, (proc.stdout + proc.stderr).strip()[-1500:]))
    if failed and log:
        print("\n".join(l for l in proc.stdout.splitlines() if "beyond tolerance" in l or "FAIL" in l), file=log)
    return BitExact(len(steps), failed)


def measure_model(model, args, compiler, tflm, work, log):
    """One row: {"model", "group", "tflm", "untiled", "default", "state",
    "ratio", "macs", "exact", "compile_s", "error"}."""
    row = {"model": model.name, "group": model.group, "tflm": tflm.get(model.name), "untiled": None,
           "default": None, "state": 0, "ratio": None, "macs": None, "exact": "-", "compile_s": None,
           "error": None}
    out = os.path.join(work, model.name)
    try:
        report, row["compile_s"] = compile_model(compiler, model.path, args.target, os.path.join(out, "default"),
                                                 timeout_s=args.timeout_s)
    except RuntimeError as e:
        row["error"] = str(e)
        row["exact"] = "error"
        print("  default build failed: %s" % e, file=log)
        return row
    row["default"] = report["arena_bytes"]
    row["state"] = report.get("state_bytes", 0)
    row["macs"] = extra_macs(report)
    if row["tflm"]:
        row["ratio"] = row["default"] / row["tflm"]
    try:
        untiled, _ = compile_model(compiler, model.path, args.target, os.path.join(out, "untiled"), "tile=none",
                                   args.timeout_s)
        row["untiled"] = untiled["arena_bytes"]
    except RuntimeError as e:
        row["error"] = str(e)
        print("  untiled build failed: %s" % e, file=log)
    steps = reference_steps(os.path.join(args.tflm, "reference"), model.name)
    if not steps:
        print("  no TFLite Micro reference for %s: bit-exact not checked" % model.name, file=log)
        return row
    on_target = args.run_on_target and args.target in BOARDS
    target = args.target if on_target else "host"
    # The host build is not weighed against flash; keep what the target's trade kept.
    pipeline = "" if on_target or (report.get("tiling") or {}).get("kept", True) else "tile=none"
    exact = check_bit_exact(model, steps, report, target, compiler, pipeline, out, args.timeout_s, log)
    if exact.error:
        print("  bit-exact check failed to run: %s" % exact.error, file=log)
    row["exact"] = exact.cell()
    return row


def _fmt(value, pattern="%d"):
    return "-" if value is None else pattern % value


def markdown(rows):
    """The table, with a "state" column when some model keeps state."""
    show_state = any(r["state"] for r in rows)
    header = (["model", "TFLite Micro activations", "ours untiled", "ours default"] + (["state"] if show_state else [])
              + ["ratio (default / TFLM)", "extra MACs", "bit-exact", "compile s"])
    lines = ["| " + " | ".join(header) + " |", "|---|" + "---:|" * (len(header) - 1)]
    for r in rows:
        cells = [r["model"], _fmt(r["tflm"]), _fmt(r["untiled"]),
                 "error" if r["default"] is None else str(r["default"])]
        if show_state:
            cells.append(str(r["state"]) if r["state"] else "-")
        cells += [_fmt(r["ratio"], "%.2f"), _fmt(r["macs"], "%+.1f%%"), r["exact"], _fmt(r["compile_s"], "%.1f")]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def summary(rows):
    """Lines after the table: the geomean of the ratio per group and over
    all, and the models above TFLite Micro's activations."""
    from .bench import geomean
    measured = [r for r in rows if r["ratio"] is not None]
    parts = []
    for group in sorted({r["group"] for r in rows}) + [None]:
        ratios = [r["ratio"] for r in measured if group is None or r["group"] == group]
        parts.append("%s %s (%d model%s)" % (group or "all", _fmt(geomean(ratios), "%.2f"), len(ratios),
                                              "s"[len(ratios) == 1:]))
    above = [r["model"] for r in measured if r["ratio"] > 1]
    return ["Geomean of ours default / TFLite Micro activations: " + ", ".join(parts) + ".",
            "Above TFLite Micro's activations: %d of %d models%s." % (
                len(above), len(measured), " (%s)" % ", ".join(above) if above else "")]


def add_arguments(parser):
    """The zoo suite's options of ``bench``."""
    parser.add_argument("--models", metavar="DIR", default=None,
                        help="zoo suite: directory of .tflite models and of subdirectories of them "
                             "(default ../shared/models: mlperf_tiny, tflite-micro, zoo)")
    parser.add_argument("--only", default="", metavar="A,B",
                        help="zoo suite: comma-separated model names (default: every model)")
    parser.add_argument("--tflm", metavar="DIR", default=DEFAULT_TFLM_DIR,
                        help="zoo suite: TFLite Micro's measurements: README.md and reference/ "
                             "(default ../shared/bench/tflm)")
    parser.add_argument("--target", choices=TARGETS, default="cortex-m4",
                        help="zoo suite: serenity-compile --target (default %(default)s)")
    parser.add_argument("--run-on-target", action="store_true",
                        help="zoo suite: check bit-exactness on the target's QEMU board (default: a host build "
                             "of the same options)")
    parser.add_argument("--serenity-compile", metavar="PATH", default=None,
                        help="zoo suite: serenity-compile binary (default: on PATH, else $SERENITY_BUILD_DIR/bin)")
    parser.add_argument("--timeout-s", type=float, default=DEFAULT_TIMEOUT_S,
                        help="zoo suite: wall-clock limit of each build and check (default %(default)s)")


def run_zoo(args, log=None):
    """Prints the table and its summary; 0 when every model built and
    matched TFLite Micro on every seed."""
    from .tflite.report import tflm_arenas
    from .tflite.schema import TFLiteError
    log = log or sys.stderr
    models_dir = args.models or DEFAULT_MODELS_DIR
    if not os.path.isdir(models_dir):
        print("bench --suite zoo: %s does not exist (the shared models, ../shared/models; pass --models DIR)"
              % os.path.normpath(models_dir), file=log)
        return 0 if args.models is None else 1
    only = [n.strip() for n in args.only.split(",") if n.strip()]
    models = find_models(models_dir, only)
    if not models:
        print("bench --suite zoo: no .tflite model in %s" % os.path.normpath(models_dir), file=log)
        return 1
    try:
        tflm = {name: arenas[1] for name, arenas in tflm_arenas(args.tflm).items()}
    except TFLiteError as e:
        print("bench --suite zoo: %s; no TFLite Micro column" % e, file=log)
        tflm = {}
    compiler = args.serenity_compile or find_compiler()
    if not os.path.isfile(compiler):
        raise RuntimeError("serenity-compile not found (%s); put the build's bin on PATH or set SERENITY_BUILD_DIR"
                           % compiler)
    stamp = os.path.getmtime(compiler)
    start = time.time()
    rows = []
    with tempfile.TemporaryDirectory(prefix="serenity-zoo-") as tmp:
        work = args.keep or tmp
        for i, model in enumerate(models):
            print("[%d/%d] %s/%s" % (i + 1, len(models), model.group, model.name), file=log)
            row = measure_model(model, args, compiler, tflm, work, log)
            print("  arena %s (untiled %s), TFLite Micro %s, bit-exact %s, %s s"
                  % (_fmt(row["default"]), _fmt(row["untiled"]), _fmt(row["tflm"]), row["exact"],
                     _fmt(row["compile_s"], "%.1f")), file=log)
            rows.append(row)
    print(markdown(rows))
    print()
    print("\n".join(summary(rows)))
    print("\nsuite zoo: %d models in %.1f s, target %s, bit-exact on %s (%s)"
          % (len(rows), time.time() - start, args.target,
             args.target if args.run_on_target and args.target in BOARDS else "host", compiler), file=log)
    if os.path.getmtime(compiler) != stamp:
        print("warning: %s changed during the run; rows may come from two builds" % compiler, file=log)
    return 0 if all(r["error"] is None and r["exact"] in ("yes", "-") for r in rows) else 1
