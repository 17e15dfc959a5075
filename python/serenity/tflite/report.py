"""``report-tflite``: the docs table of imported models and their memory peak.

For each model: its TFLite op mix, and the serenity memory report
(``serenity-opt --serenity-memory-report=format=json``) of the default int8
import, in TFLite's operator order (nothing rescheduled).
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

from .importer import import_model
from .schema import TFLiteError, load_file

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def find_serenity_opt() -> str:
    for d in (os.environ.get("SERENITY_BUILD_DIR"), os.path.join(ROOT, "build")):
        if d and os.path.exists(os.path.join(d, "bin", "serenity-opt")):
            return os.path.join(d, "bin", "serenity-opt")
    found = shutil.which("serenity-opt")
    if found:
        return found
    raise TFLiteError("serenity-opt not found: build it (scripts/setup.sh) or set SERENITY_BUILD_DIR")


def memory_report(text: str) -> dict:
    """The JSON memory report of @main for an MLIR module text."""
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
        f.write(text)
    try:
        r = subprocess.run([find_serenity_opt(), f.name, "--serenity-memory-report=format=json",
                            "-o", os.devnull], capture_output=True, text=True)
    finally:
        os.unlink(f.name)
    if r.returncode != 0:
        raise TFLiteError("serenity-opt failed:\n" + r.stderr)
    return json.loads(r.stdout or r.stderr)["functions"][0]


def tflite_graph_peak(model) -> int:
    """DESIGN.md's memory model applied to the TFLite tensor graph itself:
    one buffer per non-constant tensor (1 byte per int8 element), ops in file
    order, RESHAPE aliasing its input. What a TFLite-Micro-style runtime that
    fuses requantization into each kernel must hold at once."""
    sg = model.subgraphs[0]
    alias = {}

    def root(i):
        while i in alias:
            i = alias[i]
        return i

    def nbytes(i):
        t = sg.tensors[i]
        n = 1
        for d in t.shape:
            n *= d
        return n * {9: 1, 3: 1, 7: 2, 0: 4, 2: 4}.get(t.type, 4)

    last = {}
    for step, op in enumerate(sg.operators):
        if op.name == "RESHAPE":
            alias[op.outputs[0]] = op.inputs[0]
        for i in op.inputs:
            if i >= 0 and sg.tensors[i].data is None:
                last[root(i)] = step
    for i in sg.outputs:
        last[root(i)] = len(sg.operators)
    live = {root(i): nbytes(root(i)) for i in sg.inputs if root(i) in last}
    peak = 0
    for step, op in enumerate(sg.operators):
        new = {} if op.name == "RESHAPE" else {o: nbytes(o) for o in op.outputs}
        peak = max(peak, sum(live.values()) + sum(new.values()))
        live.update(new)
        for b in list(live):
            if last.get(b, -1) <= step:
                del live[b]
    return peak


def main(args) -> int:
    print("| model | TFLite ops | TOSA ops scheduled | peak as imported (TFLite order) | peak at "
          "| TFLite tensor graph, same order |")
    print("|---|---|---|---|---|---|")
    for path in args.models:
        model = load_file(path)
        fn = memory_report(import_model(model, rounding=args.rounding))
        ops = ", ".join(f"{k} {v}" for k, v in sorted(model.op_counts.items()))
        peak = fn["peak_bytes"]
        at = fn["steps"][fn["peak_step"]]["op"] if fn["steps"] else "-"
        print(f"| {os.path.basename(path)} | {ops} | {len(fn['steps'])} | {peak} B "
              f"({peak / 1024:.1f} KiB) | step {fn['peak_step']} `{at}` "
              f"| {tflite_graph_peak(model)} B |")
    sys.stdout.flush()
    return 0
