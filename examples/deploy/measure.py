#!/usr/bin/env python3
"""Measures the five MLPerf Tiny models compiled by serenity-compile for a
microcontroller target and run on its QEMU board (cortex-m4: mps2-an386,
cortex-m7: mps2-an500, cortex-m33: mps2-an505, cortex-m55: mps3-an547,
cortex-m0plus: ARMv6-M code on mps2-an385, riscv32-imc and riscv32-imac:
virt), and prints a markdown table next to TensorFlow Lite Micro's arenas
(../shared/bench/tflm/README.md) and, where measured on the same board
(python/serenity/data/tflm_cmsis_nn.json), TFLite Micro + CMSIS-NN's
instructions and whole program's flash (on RISC-V, where Arm's CMSIS-NN does
not run, TFLite Micro with its reference kernels):

- arena: NAME_ARENA_BYTES with `--io arena` (inputs and outputs planned in
  the arena, as TFLite Micro does): with the stack, all the RAM the network
  needs (no heap); and with `--io caller`, where the caller holds the input and
  output outside the arena (arena + input + output bytes);
- stack: the deepest stack use of NAME_run (the 16 KiB below the caller's
  stack pointer are painted before the call and scanned after it);
- .text / .rodata: sections of the network object (code; weights and
  constants, which stay in flash); flash is their sum plus .data's initial
  image (a sequence model's state that starts at non-zero zero points; the
  arena column then adds "+ state N", the bytes kept between runs);
- instructions: QEMU with `-icount shift=0` executes one instruction per
  nanosecond of virtual time; the board's timer is read around the call and
  calibrated in the same run (serenity.deploy.board_timer: +- one tick, 40
  instructions on the M4, 31.25 on the M55).

With --all it measures every model that TensorFlow Lite Micro + CMSIS-NN
was measured on for the board (../shared/bench/tflm/README.md, "TensorFlow
Lite Micro + CMSIS-NN on the QEMU boards": the five MLPerf Tiny models and
the zoo's int8 models on the Cortex-M4 and M55; data/tflm_cmsis_nn.json on
the other boards), and adds the model's MACs, our instructions per MAC and the
core's limit (instructions per MAC of its widest multiply-accumulate alone:
SMLAD's two MACs, 0.5, on the M4/M7/M33; VMLADAVA's 16, 0.0625, on the M55;
one MUL per MAC on the M0+ and RISC-V), then the geometric mean of the ratios.

With --per-layer it prints, instead, each model's instructions per TFLite
operator: serenity-compile with `--pipeline profile-marks=FILE`
(serenity-profile-marks) calls serenity_profile_mark(id) before every kernel
of the network function; the program keeps the timer at each mark, minus the
cost of a mark (two marks in a row, measured in the same run); each kernel
names the model's operators it computes (the importer's locations), and the
counts are summed per operator (a kernel fused over several operators: one
row for them; a tiled region's tiles: summed). Beside them: TensorFlow Lite
Micro + CMSIS-NN's count of the same operators where the README's
cmsis-nn-per-op/BOARD.MODEL.txt measured them (the zoo models on the M4 and
M55), the ratio, the operator's MACs, our instructions per MAC and the
core's limit, then the slowest layer against CMSIS-NN.

Usage: measure.py [--target cortex-m4|cortex-m7|cortex-m33|cortex-m55|cortex-m0plus|riscv32-imc|riscv32-imac]
                  [--per-layer] [--models DIR] [--tflm README.md]
(needs the board's C compiler and QEMU: arm-none-eabi-gcc and qemu-system-arm,
riscv64-unknown-elf-gcc and qemu-system-riscv32; serenity-compile on PATH or
in build/)
"""
import argparse
import json
import math
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from serenity.deploy import (BOARDS, ROOT, CommandError, board_timer, check_output, find_compiler,  # noqa: E402
                             link_command, object_tool, instructions, profile_layers, qemu_command, run,
                             targets)

TFLM_CMSIS_NN = os.path.join(ROOT, "python", "serenity", "data", "tflm_cmsis_nn.json")
# Instructions per MAC of each core's widest multiply-accumulate, by pipeline
# family: SMLAD (2 MACs), Helium's VMLADAVA.S8 (16), MULS / MUL (1).
MAC_LIMIT = {"cortex-m": 0.5, "cortex-m-helium": 0.0625, "cortex-m-baseline": 1.0, "riscv32": 1.0}
# The columns of ../shared/bench/tflm/README.md's CMSIS-NN table that hold
# each board's instructions and flash.
README_COLUMNS = {"cortex-m4": (2, 3), "cortex-m55": (4, 5)}
MODELS = ("ad01_int8", "kws_ref_model", "pretrainedResnet_quant", "str_ww_ref_model", "vww_96_int8")
PAINT = 16384

PROGRAM = r"""
#include <stdint.h>
#include <stdio.h>
#include "net.h"

static uint8_t arena[NET_ARENA_BYTES] __attribute__((aligned(NET_ARENA_ALIGNMENT)));
""" + "BOARD_TIMER" + r"""
__attribute__((noinline)) static void paint(uint8_t *low, uint8_t *high) {
  for (uint8_t *p = low; p < high; ++p)
    *p = 0xA5;
}

int main(void) {
  __auto_type input = net_input0(arena);
  for (int i = 0; i < NET_INPUT0_ELEMENTS; ++i)
    input[i] = (i * 37) % 256 - 128;
  uint8_t *sp;
  BOARD_READ_SP(sp);
  uint8_t *high = sp - 32, *low = high - PAINT;
  uint64_t calibration = board_calibrate();
  paint(low, high);
  uint64_t start = board_timer_now();
  int status = net_run(arena);
  uint64_t end = board_timer_now();
  uint8_t *deepest = low;
  while (deepest < high && *deepest == 0xA5)
    ++deepest;
  printf("status %d ticks %lu calibration %lu stack %ld\n", status, (unsigned long)(end - start),
         (unsigned long)calibration, (long)(sp - deepest));
  return 0;
}
"""


def run_program(program, name, out, report, target, work, pattern):
    """Writes `program` (a C harness for out/net.o, BOARD_TIMER standing
    for the board's timer code), links it for `target`, runs it on QEMU and
    returns (the match of `pattern`, whose first group is the status, which
    must be 0; the printed text)."""
    main_c = os.path.join(work, name + ".c")
    with open(main_c, "w") as f:
        f.write(program.replace("BOARD_TIMER", board_timer(target)))
    elf = os.path.join(work, name + ".elf")
    run(link_command(out, [main_c, os.path.join(out, "net.o")], elf, target) + report["link_flags"])
    printed = run(qemu_command(elf, target=target), timeout=600)
    m = re.search(pattern, printed)
    if not m or m.group(1) != "0":
        sys.exit("error: unexpected output of %s on QEMU: %s" % (name, printed[-500:]))
    return m, printed


# ../shared/bench/tflm/cmsis-nn-per-op/BOARD.MODEL.txt's board of a target.
PER_OP_BOARDS = {"cortex-m4": "an386", "cortex-m55": "an547"}
OPERATOR = re.compile(r"^operator (\d+) (\w+)")


def operator_macs(path):
    """{operator index: MACs} of the .tflite model at `path` (convolutions,
    depthwise convolutions, fully connected layers; the others none), or {}
    when its reader cannot read it. The reader needs numpy: without it here,
    Debian's interpreter (../shared/MLIR22.md) runs this function."""
    try:
        import numpy  # noqa: F401
    except ImportError:
        if os.path.exists("/usr/bin/python3") and os.path.realpath(sys.executable) != "/usr/bin/python3":
            code = ("import json, sys; sys.path.insert(0, %r); import measure; "
                    "print(json.dumps(measure.operator_macs(%r)))" % (os.path.dirname(os.path.abspath(__file__)), path))
            try:
                return {int(k): v for k, v in json.loads(check_output(["/usr/bin/python3", "-c", code])).items()}
            except (CommandError, ValueError):
                return {}
        return {}
    try:
        sys.path.insert(0, os.path.join(ROOT, "python"))
        from serenity.tflite.schema import load_file
        model = load_file(path)
    except Exception:  # a file the reader refuses
        return {}
    graph = model.subgraphs[0]
    macs = {}
    for op in graph.operators:
        if len(op.inputs) < 2 or not op.outputs or op.inputs[1] < 0:
            continue
        out = graph.tensors[op.outputs[0]].shape
        weights = graph.tensors[op.inputs[1]].shape
        elements = math.prod(out) if out else 0
        if op.name == "CONV_2D" and len(weights) == 4:
            macs[op.index] = elements * weights[1] * weights[2] * weights[3]
        elif op.name == "DEPTHWISE_CONV_2D" and len(weights) == 4:
            macs[op.index] = elements * weights[1] * weights[2]
        elif op.name == "FULLY_CONNECTED" and len(weights) == 2:
            macs[op.index] = elements * weights[1]
    return macs


def cmsis_per_op(tflm_readme, target, model):
    """{operator index: (builtin, instructions)} of TensorFlow Lite Micro +
    CMSIS-NN on `target`'s board (cmsis-nn-per-op/BOARD.MODEL.txt next to
    the README), or {} where not measured."""
    board = PER_OP_BOARDS.get(target)
    path = os.path.join(os.path.dirname(tflm_readme), "cmsis-nn-per-op", "%s.%s.txt" % (board, model))
    figures = {}
    if board and os.path.exists(path):
        for line in open(path):
            m = re.match(r"^op (\d+) (\w+) (\d+)$", line.strip())
            if m:
                figures[int(m.group(1))] = (m.group(2), int(m.group(3)))
    return figures


def per_layer(model, path, target, pipeline, compiler, work, tflm_readme):
    """Prints `model`'s instructions per TFLite operator on `target`'s board
    (see the module docstring), side by side with TensorFlow Lite Micro +
    CMSIS-NN's where measured; returns our total."""
    # One harness with the frontier's cost model (serenity.deploy.profile_layers);
    # the .tflite compiled directly: its kernels name the model's operators.
    profiled = profile_layers(path, os.path.join(work, model + "-marks"), target, pipeline,
                              compiler=compiler)
    limit = MAC_LIMIT.get(next(t["pipeline_target"] for t in targets() if t["name"] == target))
    # Each kernel's count goes to the operators it holds (a fused kernel: all
    # of them, one row; the tiles of a tiled region: summed).
    groups, builtins = {}, {}
    for kernel in profiled["kernels"]:
        ops = []
        for name in kernel.get("operators", []):
            m = OPERATOR.match(name)
            if m:
                ops.append(int(m.group(1)))
                builtins[int(m.group(1))] = m.group(2)
        key = tuple(sorted(set(ops)))
        groups[key] = groups.get(key, 0) + kernel["instructions"]
    theirs = cmsis_per_op(tflm_readme, target, model)
    for index, (builtin, _) in theirs.items():
        builtins.setdefault(index, builtin)
    macs = operator_macs(path)
    covered = {i for key in groups for i in key}
    # Operators with no kernel of ours (reshapes folded away): their own rows.
    for index in theirs:
        if index not in covered:
            groups[(index,)] = 0
    total = sum(groups.values())
    print("\n%s on %s: %d kernels, %d instructions in them (marks subtracted)%s\n" % (
        model, target, len(profiled["kernels"]), total,
        "; TFLite Micro + CMSIS-NN per operator: %d" % sum(t for _, t in theirs.values()) if theirs else ""))
    print("| TFLite operators | builtin | instructions | TFLM+CMSIS-NN | ratio | MACs | instr/MAC | limit |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    rows = sorted(groups.items(), key=lambda kv: (kv[0][0] if kv[0] else -1, kv[0]))
    slowest = None
    for key, count in rows:
        names = "+".join(sorted({builtins.get(i, "?") for i in key})) if key else "(no operator)"
        cmsis = sum(theirs[i][1] for i in key if i in theirs) if theirs and key else None
        mac = sum(macs.get(i, 0) for i in key)
        ratio = count / cmsis if cmsis else None
        if ratio is not None and mac and (slowest is None or ratio > slowest[1]):
            slowest = (key, ratio)
        print("| %s | %s | %d | %s | %s | %s | %s | %s |" % (
            ",".join(map(str, key)) or "-", names, count, cmsis if cmsis is not None else "-",
            "%.2fx" % ratio if ratio is not None else "-", mac or "-",
            "%.2f" % (count / mac) if mac else "-", limit if mac and limit else "-"))
    if slowest:
        print("\nslowest against CMSIS-NN (layers with MACs): operator %s at %.2fx" % (
            ",".join(map(str, slowest[0])), slowest[1]))
    sys.stdout.flush()
    return total


def tflm_arenas(path):
    """{model: (smallest arena, activations)} from the TFLM README tables
    (for TFLite Micro's example models, whose table lists the ops first, its
    arena_used_bytes stands in for the smallest arena)."""
    result = {}
    if os.path.exists(path):
        for line in open(path):
            m = (re.match(r"\| (\w+) \| (\d+) \| (\d+) \|", line) or
                 re.match(r"\| (\w+) \| [^|]+ \| (\d+) \| (\d+) \| \d+ \|", line))
            if m:
                result[m.group(1)] = (int(m.group(2)), int(m.group(3)))
    return result


def cmsis_figures(readme, target):
    """{model: {"macs", "instructions", "flash"}} of TensorFlow Lite Micro +
    CMSIS-NN on `target`'s board from the README's table (model, MACs, M4
    instructions, M4 flash, M55 instructions, M55 flash; MACs as "2.66M"), the
    model named by its file under ../shared/models ("kws_ref_model",
    "zoo/har_model"). Boards the table lacks: MACs only."""
    figures = {}
    if not os.path.exists(readme):
        return figures
    columns = README_COLUMNS.get(target)
    for line in open(readme):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 6 or not re.match(r"^[\d.]+M$", cells[1]):
            continue
        entry = {"macs": int(round(float(cells[1][:-1]) * 1e6))}
        if columns:
            entry["instructions"] = int(cells[columns[0]].replace(",", ""))
            entry["flash"] = int(cells[columns[1]].replace(",", ""))
        figures[cells[0]] = entry
    return figures


def model_paths(models_dir, only=""):
    """(name, .tflite path) of the models named in the comma-separated
    `only` (any .tflite in `models_dir`), or of the five MLPerf Tiny models;
    an absent file is reported and skipped."""
    for model in (only.split(",") if only else MODELS):
        path = os.path.join(models_dir, model + ".tflite")
        if not os.path.exists(path):
            print("skipped %s: %s is absent" % (model, path), file=sys.stderr)
            continue
        yield model, path


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", choices=sorted(BOARDS), default="cortex-m4")
    parser.add_argument("--models", default=os.path.join(ROOT, "..", "shared", "models", "mlperf_tiny"))
    parser.add_argument("--tflm", default=os.path.join(ROOT, "..", "shared", "bench", "tflm", "README.md"))
    parser.add_argument("--pipeline", default="",
                        help='extra serenity-pipeline options for serenity-compile, e.g. "conv-kernels=loops"')
    parser.add_argument("--only", default="", help="comma-separated model names (default: all five)")
    parser.add_argument("--all", action="store_true",
                        help="every model with TFLite Micro + CMSIS-NN figures for the board, with MACs, "
                             "instructions per MAC, the core's limit and the geometric mean of the ratios")
    parser.add_argument("--per-layer", action="store_true",
                        help="instructions per TFLite operator (ours, TFLite Micro + CMSIS-NN's where measured, "
                             "ratio, MACs, instructions per MAC, the core's limit) instead of the summary table")
    args = parser.parse_args()
    compiler = find_compiler()
    if args.per_layer:
        with tempfile.TemporaryDirectory() as work:
            for model, path in model_paths(args.models, args.only):
                per_layer(model, path, args.target, args.pipeline, compiler, work, args.tflm)
        return 0
    tflm = tflm_arenas(args.tflm)
    # TFLite Micro + CMSIS-NN (TFLite Micro's reference kernels where Arm has
    # no CMSIS-NN) on the same board, where measured.
    with open(TFLM_CMSIS_NN) as f:
        cmsis = json.load(f).get(args.target, {})
    figures = cmsis_figures(args.tflm, args.target)
    models = list(model_paths(args.models, args.only))
    if args.all:
        # Every model with figures for this board: the README's (file names
        # under ../shared/models) or the JSON's (MLPerf Tiny).
        root = os.path.dirname(os.path.normpath(args.models))
        names = [n for n, f in figures.items() if "instructions" in f] or sorted(cmsis)
        models = []
        for name in names:
            path = os.path.join(root, name if "/" in name else "mlperf_tiny/" + name) + ".tflite"
            if os.path.exists(path):
                models.append((name, path))
            else:
                print("skipped %s: %s is absent" % (name, path), file=sys.stderr)
        for name in names:
            cmsis.setdefault(name.split("/")[-1], {}).update(
                {k: v for k, v in figures.get(name, {}).items() if k != "macs"})
    limit = MAC_LIMIT.get(next(t["pipeline_target"] for t in targets() if t["name"] == args.target))
    anchor = "TFLM reference kernels" if BOARDS[args.target].riscv else "TFLM+CMSIS-NN"
    print("| model | arena, io=arena | arena + io, io=caller | TFLM smallest arena | TFLM activations "
          "| stack (bytes) | .text | .rodata | flash | TFLM program flash | instructions "
          "| %s instructions | ratio |%s" % (anchor, " MACs | instr/MAC | limit |" if args.all else ""))
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|" +
          ("---:|---:|---:|" if args.all else ""))
    ratios = []
    with tempfile.TemporaryDirectory() as work:
        for listed, path in models:
            model = listed.split("/")[-1]
            out = os.path.join(work, model)
            extra = ["--pipeline", args.pipeline] if args.pipeline else []
            run([compiler, path, "--target", args.target, "--name", "net", "--io", "arena", *extra, "-o", out])
            with open(os.path.join(out, "net.json")) as f:
                report = json.load(f)
            run([compiler, path, "--target", args.target, "--name", "net", "--io", "caller", *extra,
                 "-o", out + "-caller"])
            with open(os.path.join(out + "-caller", "net.json")) as f:
                caller = json.load(f)
            caller_ram = caller["arena_bytes"] + sum(o["bytes"] for o in caller["inputs"] + caller["outputs"])
            sections = {}
            for line in run([object_tool(args.target, "size"), "-A", os.path.join(out, "net.o")]).splitlines():
                parts = line.split()
                if len(parts) >= 2 and parts[1].isdigit():
                    name = ".rodata" if parts[0].startswith(".rodata") else parts[0]
                    sections[name] = sections.get(name, 0) + int(parts[1])
            m, _ = run_program(PROGRAM.replace("PAINT", str(PAINT)), model, out, report, args.target, work,
                               r"status (-?\d+) ticks (\d+) calibration (\d+) stack (\d+)")
            stack = int(m.group(4))
            smallest, activations = tflm.get(model, (None, None))
            text, rodata = sections.get(".text", 0), sections.get(".rodata", 0)
            # Flash holds .data's initial image too (a sequence model's state
            # that starts at non-zero zero points; 0 for the others).
            data = sections.get(".data", 0)
            state = report.get("state_bytes", 0)
            ours = instructions(int(m.group(2)), int(m.group(3)))
            theirs = cmsis.get(model, {})
            if theirs.get("instructions"):
                ratios.append(ours / theirs["instructions"])
            macs = figures.get(listed, {}).get("macs")
            extra = (" %s | %s | %s |" % (macs or "-", "%.2f" % (ours / macs) if macs else "-",
                                           limit if limit else "-") if args.all else "")
            print("| %s | %s | %d | %s | %s | %d | %d | %d | %d | %s | %d | %s | %s |%s" % (
                model, "%d + state %d" % (report["arena_bytes"], state) if state else report["arena_bytes"],
                caller_ram, smallest or "-", activations or "-", stack,
                text, rodata, text + rodata + data, theirs.get("flash", "-"), ours,
                theirs.get("instructions", "-"),
                "%.2fx" % (ours / theirs["instructions"]) if theirs.get("instructions") else "-", extra))
            sys.stdout.flush()
    if args.all and ratios:
        print("\ngeometric mean of the ratios (%d models): %.3fx" % (
            len(ratios), math.exp(sum(math.log(r) for r in ratios) / len(ratios))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
