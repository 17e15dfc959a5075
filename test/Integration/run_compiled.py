#!/usr/bin/env python3
"""Compiles a network with serenity-compile (object, C header, JSON), builds a
C program that includes the header and calls NAME_run on seeded inputs with
an arena of NAME_ARENA_BYTES, runs it on the host or on a QEMU board
(python/serenity/deploy.py BOARDS: every target of the table with a board), and
compares the printed outputs with the upstream reference
lowering run by mlir-runner on the same inputs. This is what a C developer
does with the generated files (docs/Deploy.md).

Usage: run_compiled.py NET.mlir|NET.tflite --target host|cortex-m4|cortex-m7|cortex-m33|cortex-m55|cortex-m0plus
           [--io caller|arena] [--pipeline "options"] [--seed 1] [--atol 0] [--rtol 0]
           [--float] [--input-file IN.bin --expect-file OUT.bin]
--float imports a .tflite model as its float32 graph (serenity-compile
--float, import-tflite --float). The program is linked with the report's
link_flags (-lm when the object calls the math library).
With --input-file input 0 is that file's values (little-endian, of the
input's type) instead of seeded values, and with --expect-file output 0 (with
the option repeated, output i the i-th file) is
compared with that file's values (e.g. TFLite Micro's, ../shared/bench/tflm/reference) instead of the
reference lowering.
Exit 0 when every output matches within tolerance.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_lowering as cl  # noqa: E402
from serenity.deploy import TARGETS, link_command, object_tool, qemu_command  # noqa: E402


def int8_file(path):
    """The bytes of `path` as int8 values."""
    with open(path, "rb") as f:
        return [b - 256 if b > 127 else b for b in f.read()]


# C element type of the header -> (struct format, bytes).
C_FORMATS = {"int8_t": ("b", 1), "uint8_t": ("B", 1), "int16_t": ("h", 2), "int32_t": ("i", 4),
             "float": ("f", 4)}


def typed_file(path, ctype):
    """The little-endian values of `path` as elements of C type `ctype`."""
    import struct
    fmt, size = C_FORMATS[ctype]
    with open(path, "rb") as f:
        data = f.read()
    if len(data) % size:
        sys.exit(f"error: {path} holds {len(data)} bytes, not a whole number of {ctype}")
    return list(struct.unpack("<%d%s" % (len(data) // size, fmt), data))


def sequence_program(name, report, steps):
    """A C main running the network once per step of `steps` (dicts with
    "inputs": values per input, "reset": call NAME_reset() first), printing
    each step's outputs after a "Step k" line. The state the object keeps
    between runs (NAME_state) carries from one step to the next."""
    upper = name.upper()
    in_arena = report.get("io") == "arena"
    lines = ["#include <stdint.h>", "#include <stdio.h>", "#include <string.h>", f'#include "{name}.h"', "",
             f"static uint8_t arena[{upper}_ARENA_BYTES] __attribute__((aligned({upper}_ARENA_ALIGNMENT)));"]
    for k, step in enumerate(steps):
        for i, operand in enumerate(report["inputs"]):
            values = step["inputs"][i]
            count = 1
            for dim in operand["shape"]:
                count *= dim
            if len(values) != count:
                sys.exit(f"error: step {k}: input {i} holds {len(values)} values, not {count}")
            lines.append(f"static const {operand['type']} step{k}_input{i}[{upper}_INPUT{i}_ELEMENTS] = "
                         f"{{{', '.join(str(v) for v in values)}}};")
    outputs = []
    if in_arena:
        lines += [f"static {operand['type']} *output{i};" for i, operand in enumerate(report["outputs"])]
    else:
        lines += [f"static {operand['type']} input{i}[{upper}_INPUT{i}_ELEMENTS];"
                  for i, operand in enumerate(report["inputs"])]
        lines += [f"static {operand['type']} output{i}[{upper}_OUTPUT{i}_ELEMENTS];"
                  for i, operand in enumerate(report["outputs"])]
    lines.append("int main(void) {")
    for k, step in enumerate(steps):
        lines.append(f'  printf("Step {k}\\n");')
        if step.get("reset"):
            lines.append(f"  {name}_reset();")
        for i in range(len(report["inputs"])):
            target = f"{name}_input{i}(arena)" if in_arena else f"input{i}"
            lines.append(f"  memcpy({target}, step{k}_input{i}, sizeof step{k}_input{i});")
        if in_arena:
            lines += [f"  output{i} = {name}_output{i}(arena);" for i in range(len(report["outputs"]))]
            args = ["arena"]
        else:
            args = [f"input{i}" for i in range(len(report["inputs"]))] + \
                   [f"output{i}" for i in range(len(report["outputs"]))] + ["arena"]
        lines.append(f"  if ({name}_run({', '.join(args)}) != 0) {{ printf(\"misaligned arena\\n\"); return 1; }}")
        for i, operand in enumerate(report["outputs"]):
            fmt = '"%.9g\\n", (double)' if operand["type"] == "float" else '"%ld\\n", (long)'
            lines += [f'  printf("Output {i}\\n");',
                      f"  for (int k = 0; k < {upper}_OUTPUT{i}_ELEMENTS; ++k) printf({fmt}output{i}[k]);"]
        if report.get("state_bytes"):
            # The state region after the step, as hex.
            lines += ['  printf("State ");',
                      f'  for (int k = 0; k < {upper}_STATE_BYTES; ++k) printf("%02x", {name}_state[k]);',
                      '  printf("\\n");']
    lines += ["  return 0;", "}"]
    return "\n".join(lines) + "\n"


NUMPY_DTYPES = {"int8": ("b", 1), "int16": ("h", 2), "int32": ("i", 4)}


def compare_states(chunk, step, report, label):
    """Compares each variable the program printed (the "State" hex line, cut
    at the offsets of the report's persistent_buffers) with the step's
    reference state; returns whether all are equal (True when the step has
    none)."""
    import struct
    want = step.get("states") or {}
    if not want:
        return True
    line = next((l for l in chunk.splitlines() if l.startswith("State ")), None)
    if line is None:
        print(f"FAIL: {label}: the program printed no state")
        return False
    region = bytes.fromhex(line.split()[1])
    ok = True
    buffers = {b["name"]: b for b in report["allocation"].get("persistent_buffers", [])}
    for name, (dtype, values) in sorted(want.items()):
        buffer = buffers.get(name)
        if buffer is None:
            print(f"FAIL: {label}: no variable {name} in the state region")
            ok = False
            continue
        fmt, size = NUMPY_DTYPES[dtype]
        raw = region[buffer["offset"]:buffer["offset"] + buffer["size"]]
        got = list(struct.unpack("<%d%s" % (len(raw) // size, fmt), raw))
        bad = sum(1 for a, b in zip(got, values) if a != b) + abs(len(got) - len(values))
        print(f"{label} state {name}: {len(values)} values, {len(set(values))} distinct, {bad} differ")
        ok = ok and bad == 0
    return ok


def load_steps(path, report):
    """The steps of a sequence: a JSON file {"steps": [{"inputs": [FILE...],
    "expect": [FILE...], "reset": bool}]} (files relative to it), or a
    directory of test/tflite-seq (NAME.seqS: every step's inputs and outputs
    stacked in inputI.bin/outputI.bin, described with its reset steps in
    ../index.json); typed as the report's inputs and outputs."""
    if os.path.isdir(path):
        with open(os.path.join(os.path.dirname(os.path.abspath(path)), "index.json")) as f:
            index = json.load(f)
        name = os.path.basename(os.path.normpath(path))
        entry = next((e for e in index["sequences"] if e["name"] == name), None)
        if entry is None:
            sys.exit(f"error: {name} is not in the index.json next to it")
        count = entry["steps"]

        def split(file, ctype):
            values = typed_file(os.path.join(path, file), ctype)
            if len(values) % count:
                sys.exit(f"error: {file} does not hold {count} steps")
            n = len(values) // count
            return [values[k * n:(k + 1) * n] for k in range(count)]
        ins = [split(i["file"], o["type"]) for i, o in zip(entry["inputs"], report["inputs"])]
        outs = [split(i["file"], o["type"]) for i, o in zip(entry["outputs"], report["outputs"])]
        ctypes = {"int8": "int8_t", "int16": "int16_t", "int32": "int32_t"}
        states = {f"state{t['tensor']}": (t["dtype"], split(t["file"], ctypes[t["dtype"]]))
                  for t in entry.get("tensors", []) if t.get("kind") == "state"}
        return [{"reset": k in entry["reset_before"], "inputs": [v[k] for v in ins],
                 "expect": [v[k] for v in outs],
                 "states": {n: (d, v[k]) for n, (d, v) in states.items()}} for k in range(count)]
    with open(path) as f:
        spec = json.load(f)
    base = os.path.dirname(os.path.abspath(path))
    steps = []
    for step in spec["steps"]:
        steps.append({
            "reset": bool(step.get("reset")),
            "inputs": [typed_file(os.path.join(base, p), o["type"])
                       for p, o in zip(step["inputs"], report["inputs"])],
            "expect": [typed_file(os.path.join(base, p), o["type"])
                       for p, o in zip(step["expect"], report["outputs"])]})
    return steps


def program(name, report, seed, input_values=None):
    """A C main: seeded inputs (input 0: `input_values` when given), NAME_run,
    outputs printed one per line (with io=arena the inputs are copied into the
    arena and the outputs read there)."""
    upper = name.upper()
    in_arena = report.get("io") == "arena"
    lines = ["#include <stdint.h>", "#include <stdio.h>", "#include <string.h>", f'#include "{name}.h"', "",
             f"static uint8_t arena[{upper}_ARENA_BYTES] __attribute__((aligned({upper}_ARENA_ALIGNMENT)));"]
    for i, operand in enumerate(report["inputs"]):
        # lcg_values: floats in [-1, 1), integers of any width in [-128, 128).
        element = "f32" if operand["type"] == "float" else "i8"
        count = 1
        for dim in operand["shape"]:
            count *= dim
        values = cl.lcg_values(count, element, seed + i)
        if operand["type"] == "uint8_t":
            # The same bytes as the reference lowering's i8 values.
            values = [str(int(v) & 0xFF) for v in values]
        if i == 0 and input_values is not None:
            if len(input_values) != count:
                sys.exit(f"error: the input file holds {len(input_values)} values; input 0 is "
                         f"{count} values of {operand['type']}")
            values = [str(v) for v in input_values]
        lines.append(f"static const {operand['type']} input{i}[{upper}_INPUT{i}_ELEMENTS] = "
                     f"{{{', '.join(values)}}};")
    if in_arena:
        lines += [f"static {operand['type']} *output{i};" for i, operand in enumerate(report["outputs"])]
        lines += ["int main(void) {"]
        lines += [f"  memcpy({name}_input{i}(arena), input{i}, sizeof input{i});"
                  for i in range(len(report["inputs"]))]
        lines += [f"  output{i} = {name}_output{i}(arena);" for i in range(len(report["outputs"]))]
        args = ["arena"]
    else:
        for i, operand in enumerate(report["outputs"]):
            lines.append(f"static {operand['type']} output{i}[{upper}_OUTPUT{i}_ELEMENTS];")
        lines += ["int main(void) {"]
        args = [f"input{i}" for i in range(len(report["inputs"]))] + \
               [f"output{i}" for i in range(len(report["outputs"]))] + ["arena"]
    lines += [f"  if ({name}_run({', '.join(args)}) != 0) {{ printf(\"misaligned arena\\n\"); return 1; }}"]
    for i, operand in enumerate(report["outputs"]):
        fmt = '"%.9g\\n", (double)' if operand["type"] == "float" else '"%ld\\n", (long)'
        lines += [f'  printf("Output {i}\\n");',
                  f"  for (int k = 0; k < {upper}_OUTPUT{i}_ELEMENTS; ++k) printf({fmt}output{i}[k]);"]
    lines += ["  return 0;", "}"]
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("network")
    parser.add_argument("--target", default="host", choices=TARGETS)
    parser.add_argument("--pipeline", default="")
    parser.add_argument("--io", choices=("caller", "arena"), help="default: serenity-compile's (arena)")
    parser.add_argument("--name", default="net")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--atol", type=float, default=0)
    parser.add_argument("--rtol", type=float, default=0)
    parser.add_argument("--float", action="store_true", help="import a .tflite model as float32")
    parser.add_argument("--input-file", help="raw little-endian values of input 0 (its type)")
    parser.add_argument("--expect-file", action="append",
                        help="raw little-endian values output 0 must equal (its type); "
                        "repeated: one file per output, in order")
    parser.add_argument("--sequence", help="JSON {\"steps\": [{\"inputs\": [FILE...], \"expect\": "
                        "[FILE...], \"reset\": bool}]} or a test/tflite-seq directory NAME.seqS: run "
                        "the network once per step in one program (state carries over; reset calls "
                        "NAME_reset() first) and compare every step")
    parser.add_argument("--serenity-compile", default=shutil.which("serenity-compile") or "serenity-compile")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as work:
        out = os.path.join(work, "out")
        cmd = [args.serenity_compile, args.network, "--target", args.target, "--name", args.name, "-o", out]
        if args.io:
            cmd += ["--io", args.io]
        if args.pipeline:
            cmd += ["--pipeline", args.pipeline]
        if args.float:
            cmd.append("--float")
        print(cl.run(cmd).strip())
        with open(os.path.join(out, args.name + ".json")) as f:
            report = json.load(f)
        print(f"arena {report['arena_bytes']} bytes, inputs {[o['shape'] for o in report['inputs']]}, "
              f"outputs {[o['shape'] for o in report['outputs']]}")
        obj = os.path.join(out, args.name + ".o")
        main_c = os.path.join(work, "main.c")
        steps = load_steps(args.sequence, report) if args.sequence else None
        if steps is not None:
            print(f"state {report.get('state_bytes', 0)} bytes, {len(steps)} steps")
        with open(main_c, "w") as f:
            f.write(sequence_program(args.name, report, steps) if steps is not None else
                    program(args.name, report, args.seed,
                            typed_file(args.input_file, report["inputs"][0]["type"])
                            if args.input_file else None))
        if args.target == "host":
            exe = os.path.join(work, "net")
            cl.run([f"{cl.LLVM_BIN}/clang", "-O2", "-I", out, main_c, obj, "-o", exe, *report["link_flags"]])
            printed = cl.run([exe])
        else:
            undefined = cl.run([object_tool(args.target, "nm"), "-u", obj]).split()
            print("undefined symbols of the object:", " ".join(s for s in undefined if s != "U") or "none")
            elf = os.path.join(work, "net.elf")
            cl.run(link_command(out, [main_c, obj], elf, args.target) + report["link_flags"])
            qemu = subprocess.run(qemu_command(elf, icount=False, target=args.target), capture_output=True,
                                  text=True, timeout=300)
            if qemu.returncode != 0:
                print(f"FAIL: QEMU exit code {qemu.returncode}\n{qemu.stdout[-2000:]}{qemu.stderr[-2000:]}")
                return 1
            printed = qemu.stdout
        if steps is not None:
            ok = True
            for k, (chunk, step) in enumerate(zip(printed.split("Step ")[1:], steps)):
                printed_outputs = chunk.split("State ")[0]
                got = [[float(x) for x in c.split()[1:]] for c in printed_outputs.split("Output ")[1:]]
                want = [[float(v) for v in values] for values in step["expect"]]
                label = f"{args.target} step {k}{' (after reset)' if step['reset'] else ''}"
                same = cl.compare_outputs(got, want, len(want), args.atol, args.rtol, label)
                same = compare_states(chunk, step, report, label) and same
                ok = ok and same
            if len(printed.split("Step ")) - 1 != len(steps):
                print(f"FAIL: the program printed {len(printed.split('Step ')) - 1} of {len(steps)} steps")
                ok = False
            print("PASS" if ok else "FAIL")
            return 0 if ok else 1
        got = [[float(x) for x in chunk.split()[1:]] for chunk in printed.split("Output ")[1:]]

        if args.expect_file:
            want = [[float(v) for v in typed_file(path, report["outputs"][i]["type"])]
                    for i, path in enumerate(args.expect_file)]
            ok = cl.compare_outputs(got, want, len(want), args.atol, args.rtol,
                                    f"{args.target} output")
            print("PASS" if ok else "FAIL")
            return 0 if ok else 1
        # The reference: the upstream lowering of the same (imported) network.
        source = args.network
        if source.endswith(".tflite"):
            source = os.path.join(work, "imported.mlir")
            cl.run([sys.executable, "-m", "serenity", "import-tflite", args.network, "-o", source,
                    *(["--float"] if args.float else [])])
        with open(source) as f:
            text = re.sub(r"@main\b", "@net", f.read())
        net = os.path.join(work, "net.mlir")
        with open(net, "w") as f:
            f.write(text)
        reference = cl.reference_lowering(net)
        signature = cl.signature(reference, "net")
        count = len(report["inputs"])
        want = cl.execute(reference, signature[:count], signature[count:], None, args.seed, work, "reference")
        # A uint8 output is i8 bits to the reference lowering.
        want = [[float(int(v) & 0xFF) for v in values] if operand["type"] == "uint8_t" else values
                for values, operand in zip(want, report["outputs"])]

    ok = cl.compare_outputs(got, want, len(report["outputs"]), args.atol, args.rtol, f"{args.target} output")
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
