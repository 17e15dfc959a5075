"""``report-tflite``: the docs table of imported models and their memory.

For each model: its TFLite op mix; the memory-model peak of the default int8
import in TFLite's operator order (``--serenity-memory-report``); the peak
after ``--serenity-schedule`` (dp, with whether it is proven optimal); and the
arena that ``serenity-pipeline`` (dp schedule, bufferization, exact static
allocation) plans for all intermediate buffers.
"""

import re
import os
import sys
import tempfile

from .. import driver
from .importer import import_model
from .schema import TFLiteError, load_file


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


def tflm_arenas(directory: str):
    """TFLite Micro's measured arenas from DIR/README.md (../shared/bench/tflm):
    {model: (smallest arena, activations, max-live of its plan)}; for the
    example models (second table) the arena is arena_used_bytes and there is no
    max-live; for the model zoo (third table: arena_used_bytes, activations,
    persistent, seeds) likewise."""
    path = os.path.join(directory, "README.md")
    if not os.path.exists(path):
        raise TFLiteError(f"{path}: no such file (expected ../shared/bench/tflm)")
    out = {}
    with open(path) as f:
        for line in f:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) == 5 and all(c.isdigit() for c in cells[1:]):
                out[cells[0]] = (int(cells[1]), int(cells[2]), int(cells[4]))
            elif len(cells) == 5 and all(c.isdigit() for c in cells[1:4]):
                # The model zoo: arena_used_bytes, activations, persistent, seeds.
                out[cells[0]] = (int(cells[1]), int(cells[2]), None)
            elif len(cells) == 6 and all(c.isdigit() for c in cells[2:5]):
                # TFLite Micro's example models: arena_used_bytes, activations, persistent.
                out[cells[0]] = (int(cells[2]), int(cells[3]), None)
    return out


# serenity-pipeline options before this work (row tiles, whole padded inputs,
# inputs/outputs held by the caller) and now (the defaults plus io=arena).
BEFORE = "tile-cols=0 fuse-padding=0 io=caller"
AFTER = "io=arena"


def ram_table(args) -> int:
    """Activation RAM against TFLite Micro: arena + caller-held I/O bytes."""
    from .runtime import host_time_ms
    tool = driver.SerenityOpt(getattr(args, "serenity_opt", None))
    # "before": another build's serenity-opt with its defaults, or this one
    # with the options that reproduce the earlier lowering.
    old = getattr(args, "before_serenity_opt", None)
    before_tool = driver.SerenityOpt(old) if old else tool
    before = "" if old else BEFORE
    tflm = tflm_arenas(args.versus_tflm)
    print("| model | TFLite Micro activations (I/O included) | TFLite Micro whole arena "
          "| TFLite tensor graph max-live | Serenity RAM before (arena + I/O) "
          "| Serenity RAM after (io=arena) | host ms before | host ms after |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for path in args.models:
        name = os.path.splitext(os.path.basename(path))[0]
        model = load_file(path)
        text = import_model(model, rounding=args.rounding)
        ram = []
        for t, options in ((before_tool, before), (tool, AFTER)):
            report = allocation_report(t, text, options)
            io = report.get("io_bytes")
            if io is None:  # a build without io accounting: the I/O tensors' bytes
                io = io_tensor_bytes(model)
            ram.append(f"{report['arena_bytes'] + io} ({report['arena_bytes']} + {io})")
        times = [f"{host_time_ms(text, o, serenity_opt=t.path):.3f}"
                 for t, o in ((before_tool, before), (tool, AFTER))]
        arena, activations, _ = tflm.get(name, (None, None, None))
        print(f"| {name} | {activations} | {arena} | {tflite_graph_peak(model)} | {ram[0]} | {ram[1]} "
              f"| {times[0]} | {times[1]} |")
        sys.stdout.flush()
    return 0


def io_tensor_bytes(model) -> int:
    sg = model.subgraphs[0]
    total = 0
    for i in list(sg.inputs) + list(sg.outputs):
        n = 1
        for d in sg.tensors[i].shape:
            n *= d
        total += n * {9: 1, 3: 1, 7: 2, 0: 4, 2: 4}.get(sg.tensors[i].type, 4)
    return total


def allocation_report(tool, text: str, options: str) -> dict:
    """The static allocation report (JSON) of serenity-pipeline with options."""
    with tempfile.TemporaryDirectory(prefix="serenity-tflite-") as tmp:
        path = os.path.join(tmp, "model.mlir")
        with open(path, "w") as f:
            f.write(text)
        return tool.pipeline_alloc_reports(path, options)[0][0]


def buffer_table(args) -> int:
    """Every arena buffer of each model with its origin (alloc-report)."""
    tool = driver.SerenityOpt(getattr(args, "serenity_opt", None))
    for path in args.models:
        name = os.path.splitext(os.path.basename(path))[0]
        text = import_model(load_file(path), rounding=args.rounding)
        report = allocation_report(tool, text, args.pipeline_options)
        lines = text.splitlines()

        def source(loc: str) -> str:
            """'line L: tosa.op' of the imported text (import-tflite prints the same)."""
            m = re.search(r":(\d+):\d+$", loc)
            if not m or not 0 < int(m.group(1)) <= len(lines):
                return loc
            op = re.search(r'"?(tosa\.\w+)', lines[int(m.group(1)) - 1])
            return f"line {m.group(1)}" + (f" `{op.group(1)}`" if op else "")

        print(f"### {name}: arena {report['arena_bytes']} B (lower bound "
              f"{report['lower_bound']} B), I/O outside {report.get('io_bytes', 0)} B, "
              f"serenity-pipeline {args.pipeline_options}\n")
        print("| buffer | kind | op | imported from | bytes | offset | steps |")
        print("|---|---|---|---|---:|---:|---|")
        rows = [(b["name"], b.get("kind", "?"), b.get("op", ""), source(b.get("loc", "")), b["size"],
                 b["offset"], f"{b['first']}-{b['last']}") for b in report["buffers"]]
        rows += [(f"arg {b['argument']}", b["kind"], "", "", b["size"], b["offset"], "")
                 for b in report.get("io_buffers", [])]
        for row in sorted(rows, key=lambda r: r[5]):
            print("| " + " | ".join(str(c) for c in row) + " |")
        registers = report.get("register_buffers", [])
        kinds = sorted({r["kind"] for r in registers})
        print(f"\nkept in registers (not in the arena): {len(registers)} one-element buffers"
              + (f" ({', '.join(kinds)})" if kinds else "") + "\n")
        sys.stdout.flush()
    return 0


def main(args) -> int:
    if getattr(args, "versus_tflm", None):
        return ram_table(args)
    if getattr(args, "buffers", False):
        return buffer_table(args)
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
