"""``report-tflite``: the docs table of imported models and their memory.

For each model: its TFLite op mix; the memory-model peak of the default int8
import in TFLite's operator order (``--serenity-memory-report``); the peak
after ``--serenity-schedule`` (dp, with whether it is proven optimal); and the
arena that ``serenity-pipeline`` (dp schedule, bufferization, exact static
allocation) plans for all intermediate buffers.
"""

import os
import sys
import tempfile

from .. import driver
from .importer import import_model
from .schema import load_file


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


def model_memory(tool, text):
    """(memory report of @main as imported, dp schedule attrs, allocation)."""
    with tempfile.TemporaryDirectory(prefix="serenity-tflite-") as tmp:
        path = os.path.join(tmp, "model.mlir")
        with open(path, "w") as f:
            f.write(text)
        as_imported = tool.memory_report(path)[0]
        schedule = tool.schedule(path, "dp").schedules["main"]
        allocation = tool.allocate(path, passes=[
            "--serenity-pipeline=lower-to-llvm=0 alloc=none"], options={"algorithm": "exact"})[1][0]
    return as_imported, schedule, allocation


def main(args) -> int:
    tool = driver.SerenityOpt(getattr(args, "serenity_opt", None))
    print("| model | TFLite ops | TOSA ops scheduled | peak as imported (TFLite order) | peak at "
          "| after dp scheduling | arena (serenity-pipeline, exact) | arena lower bound "
          "| TFLite tensor graph, same order |")
    print("|---|---|---|---|---|---|---|---|---|")
    for path in args.models:
        model = load_file(path)
        fn, schedule, allocation = model_memory(tool, import_model(model, rounding=args.rounding))
        ops = ", ".join(f"{k} {v}" for k, v in sorted(model.op_counts.items()))
        peak = fn.peak_bytes
        at = fn.steps[fn.peak_step]["op"] if fn.steps else "-"
        proven = "proven optimal" if schedule.get("optimal") else "not proven"
        print(f"| {os.path.basename(path)} | {ops} | {len(fn.steps)} | {peak} B "
              f"({peak / 1024:.1f} KiB) | step {fn.peak_step} `{at}` "
              f"| {schedule['peak_bytes']} B ({proven}) | {allocation.arena_bytes} B "
              f"| {allocation.lower_bound} B | {tflite_graph_peak(model)} B |")
    sys.stdout.flush()
    return 0
