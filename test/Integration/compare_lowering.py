#!/usr/bin/env python3
"""Runs a TOSA network through serenity-pipeline and through the upstream
reference lowering of ../shared/MLIR22.md, executes both with mlir-runner on
the same seeded inputs, and compares the outputs numerically.

Usage: compare_lowering.py NET.mlir [--options "schedule=dp alloc=exact"]
           [--func main] [--seed 1] [--atol 1e-4] [--rtol 1e-4]
Exit 0 when every output matches within tolerance and the Serenity-lowered
network contains no memref.alloc (all intermediates live in the arena, the
outputs are caller-owned out-parameters); 1 otherwise.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "python"))
from serenity.harness import MEMREF_TO_LLVM, memref_driver  # noqa: E402

LLVM_BIN = "/usr/lib/llvm-22/bin"
LLVM_LIB = "/usr/lib/llvm-22/lib"

# The plain upstream lowering (results copied into the out-parameters; no
# hoisting, which upstream cannot do for a value returned twice).
REFERENCE_TO_MEMREF = (
    "builtin.module(func.func(tosa-to-linalg-named,tosa-to-linalg,"
    "tosa-to-arith{include-apply-rescale=true},tosa-to-tensor),canonicalize,"
    "one-shot-bufferize{bufferize-function-boundaries "
    "function-boundary-type-conversion=identity-layout-map},canonicalize,"
    "buffer-results-to-out-params{modify-public-functions})")


def run(cmd, stdin=None, with_stderr=False):
    proc = subprocess.run(cmd, input=stdin, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"error: {' '.join(cmd[:2])} failed ({proc.returncode}):\n{proc.stderr[:3000]}")
    return (proc.stdout, proc.stderr) if with_stderr else proc.stdout


def serenity_opt():
    """serenity-opt on PATH (lit puts the build's there), else the build
    directory's."""
    root = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    return shutil.which("serenity-opt") or os.path.join(
        os.environ.get("SERENITY_BUILD_DIR", os.path.join(root, "build")), "bin", "serenity-opt")


def printed_memrefs(llvm_module):
    """Runs @main of `llvm_module` (LLVM dialect) with mlir-runner; the data
    of each memref it printed, as text."""
    libs = f"{LLVM_LIB}/libmlir_c_runner_utils.so,{LLVM_LIB}/libmlir_runner_utils.so"
    out = run([f"{LLVM_BIN}/mlir-runner", "-e", "main", "-entry-point-result=void",
               f"-shared-libs={libs}"], stdin=llvm_module)
    return [chunk.split("data =", 1)[1] for chunk in out.split("Unranked Memref")[1:]]


def reference_lowering(path):
    """The upstream lowering (REFERENCE_TO_MEMREF) of the network in `path`,
    without Serenity's attributes (#serenity.primitive: upstream mlir-opt
    does not know the dialect, and the reference is the direct lowering)."""
    with open(path) as f:
        text = f.read()
    stripped = re.sub(r"serenity\.primitive = #serenity\.primitive<\w+>,?\s*", "", text)
    if stripped != text:
        path = path + ".reference.mlir"
        with open(path, "w") as f:
            f.write(stripped)
    return run([f"{LLVM_BIN}/mlir-opt", path, f"--pass-pipeline={REFERENCE_TO_MEMREF}"])


def split_types(text):
    """Splits 'memref<1x2xf32>, memref<3xi8>' at top-level commas."""
    types, depth, current = [], 0, ""
    for ch in text:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        if ch == "," and depth == 0:
            types.append(current.strip())
            current = ""
        else:
            current += ch
    if current.strip():
        types.append(current.strip())
    return types


def signature(module, name):
    """Argument types of `func.func @name(...)` in printed IR."""
    match = re.search(r"func\.func (?:public )?@" + re.escape(name) + r"\((.*?)\)\s*(?:->|attributes|\{)",
                      module)
    if not match:
        sys.exit(f"error: no function @{name} in the lowered module")
    args = re.findall(r"%[\w#]+: ((?:memref|tensor)<[^>]*>)", match.group(1))
    return args


def shape_and_element(memref_type):
    inner = re.match(r"(?:memref|tensor)<(.*)>", memref_type).group(1)
    parts = inner.split("x")
    element = parts[-1]
    dims = [int(d) for d in parts[:-1]]
    return dims, element


def lcg_values(count, element, seed):
    state = (seed * 2654435761 + 12345) & 0xFFFFFFFF
    values = []
    for _ in range(count):
        state = (state * 1664525 + 1013904223) & 0xFFFFFFFF
        unit = state / 2**32
        if element.startswith("f"):
            values.append(f"{unit * 2 - 1:.6f}")
        else:
            values.append(str(int(unit * 256) - 128))
    return values


def nested(values, dims):
    """Formats a flat list as a nested dense literal of shape `dims`."""
    if not dims:
        return values[0]
    if len(dims) == 1:
        return "[" + ", ".join(values) + "]"
    step = len(values) // dims[0]
    return "[" + ", ".join(nested(values[i * step:(i + 1) * step], dims[1:])
                           for i in range(dims[0])) + "]"


def wrap(module, inputs, outputs, arena_bytes, seed):
    """Appends a @main that feeds seeded inputs to @net and prints outputs
    (serenity.harness: with io=arena the inputs are written into the arena at
    their offsets and the outputs read from it, as a deployment would)."""
    literals = []
    for i, ty in enumerate(inputs):
        dims, element = shape_and_element(ty)
        count = 1
        for d in dims:
            count *= d
        literals.append(f"dense<{nested(lcg_values(count, element, seed + i), dims)}>")
    return memref_driver(module, "net", inputs, outputs, [literals], arena_bytes)


def execute(memref_module, inputs, outputs, arena_bytes, seed, workdir, tag):
    wrapped = wrap(memref_module, inputs, outputs, arena_bytes, seed)
    path = os.path.join(workdir, f"{tag}.mlir")
    with open(path, "w") as f:
        f.write(wrapped)
    llvm = run([f"{LLVM_BIN}/mlir-opt", path, f"--pass-pipeline={MEMREF_TO_LLVM}"])
    return [[float(x) for x in re.findall(r"-?(?:nan|inf|\d+(?:\.\d*)?(?:e[-+]?\d+)?)", data)]
            for data in printed_memrefs(llvm)]


def compare_outputs(got, want, expected, atol, rtol, label):
    """Prints one line per output (size, value range, max abs diff, elements
    beyond atol + rtol * |want|); returns whether every output matches."""
    if len(got) != len(want) or len(got) != expected:
        print(f"FAIL: {len(got)} outputs printed, reference {len(want)}, expected {expected}")
        return False
    ok = True
    for i, (a, b) in enumerate(zip(got, want)):
        if len(a) != len(b):
            print(f"FAIL: {label} {i} has {len(a)} elements, reference {len(b)}")
            return False
        diff = max((abs(x - y) for x, y in zip(a, b)), default=0.0)
        bad = sum(1 for x, y in zip(a, b) if abs(x - y) > atol + rtol * abs(y))
        print(f"{label} {i}: {len(a)} elements, {len(set(b))} distinct values in "
              f"[{min(b, default=0):.4g}, {max(b, default=0):.4g}], max abs diff {diff:.3g}, "
              f"{bad} beyond tolerance")
        ok = ok and bad == 0
    return ok


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("network")
    parser.add_argument("--options", default="", help="serenity-pipeline options")
    parser.add_argument("--func", default="main")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--atol", type=float, default=1e-4)
    parser.add_argument("--rtol", type=float, default=1e-4)
    parser.add_argument("--serenity-opt", default=shutil.which("serenity-opt") or "serenity-opt")
    args = parser.parse_args()

    with open(args.network) as f:
        source = f.read()
    source = re.sub(r"@" + re.escape(args.func) + r"\b", "@net", source)
    tensor_args = signature(source, "net")

    with tempfile.TemporaryDirectory() as workdir:
        net = os.path.join(workdir, "net.mlir")
        with open(net, "w") as f:
            f.write(source)
        options = f"lower-to-llvm=0 {args.options}".strip()
        ours, remarks = run([args.serenity_opt, net, f"--serenity-pipeline={options}"], with_stderr=True)
        # The graph rewrites the pipeline applied (a test can check they did).
        for line in remarks.splitlines():
            match = re.search(r"remark: .*?(serenity-tile: .*)", line)
            if match:
                print(match.group(1))
        reference = reference_lowering(net)

        net_body = ours[ours.index("@net("):]
        net_body = net_body[:net_body.find("\n  }\n") if "\n  }\n" in net_body else len(net_body)]
        # memref.alloca: one-element buffers kept in registers (not heap).
        allocs = len(re.findall(r"memref\.alloc\b(?!a)", net_body))
        arena = re.search(r"serenity\.arena_bytes = (\d+)", ours)
        print(f"serenity-pipeline: {allocs} memref.alloc left in @net"
              + (f", arena {arena.group(1)} bytes" if arena else ""))

        ours_sig = signature(ours, "net")
        ref_sig = signature(reference, "net")
        num_inputs = len(tensor_args)
        outputs = ref_sig[num_inputs:]
        arena_bytes = None
        if len(ours_sig) == len(ref_sig) + 1:
            arena_bytes = int(re.match(r"memref<(\d+)xi8>", ours_sig[0]).group(1))
        inputs = ref_sig[:num_inputs]

        got = execute(ours, inputs, outputs, arena_bytes, args.seed, workdir, "serenity")
        want = execute(reference, inputs, outputs, None, args.seed, workdir, "reference")

    ok = compare_outputs(got, want, len(outputs), args.atol, args.rtol, "output")
    ok = ok and allocs == 0
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1

if __name__ == "__main__":
    sys.exit(main())
