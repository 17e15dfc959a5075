#!/usr/bin/env python3
"""Checks that serenity-rewrite preserves a network's results: rewrites it
with `serenity-opt --serenity-rewrite=mode=MODE`, lowers the original and the
rewritten network with the upstream pipeline of ../shared/MLIR22.md, runs both
with mlir-runner on the same seeded non-uniform inputs, and compares.

Usage: compare_rewrite.py NET.mlir [--mode all|profitable] [--func net]
           [--concat copy|inplace] [--accumulate] [--schedule dp|greedy|kahn]
           [--min-rewrites N]
           [--atol 1e-4] [--rtol 1e-4] [--seed 1]
With --concat inplace and/or --accumulate the rewrite measures peaks under
those memory model options and the rewritten network is lowered by
`serenity-pipeline` with the matching options (no arena; scheduled by
serenity-schedule only with --schedule), so the execution also checks those
lowerings; the number of copies left in each lowering is printed.
Prints the applied rewrites, the scheduled peaks the pass reported, the
number of concats before/after and, per output, the max abs difference.
Exit 0 (and a final PASS line) when every output matches within tolerance,
at least N rewrites were applied, and every output is non-trivial (not all
elements equal: a dead network would compare equal whatever the rewrite).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_lowering import (LLVM_BIN, REFERENCE_TO_MEMREF, execute, run,  # noqa: E402
                              signature)


def rewrite(serenity_opt, path, mode, concat, accumulate):
    """Returns (rewritten IR, remarks) of serenity-rewrite on `path`."""
    options = f"mode={mode} concat={concat} accumulate-in-place={int(accumulate)}"
    proc = subprocess.run([serenity_opt, path, f"--serenity-rewrite={options}"],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"error: serenity-rewrite failed ({proc.returncode}):\n{proc.stderr[:3000]}")
    remarks = [line for line in proc.stderr.splitlines()
               if "serenity-rewrite: applied" in line and "rewrites together" not in line]
    return proc.stdout, remarks


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("network")
    parser.add_argument("--mode", default="all", choices=["all", "profitable"])
    parser.add_argument("--func", default="net")
    parser.add_argument("--concat", default="copy", choices=["copy", "inplace"])
    parser.add_argument("--accumulate", action="store_true",
                        help="partial sums accumulate in place (model and lowering)")
    parser.add_argument("--schedule", default="",
                        help="also reorder the rewritten network with serenity-schedule{algorithm=...}")
    parser.add_argument("--min-rewrites", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--atol", type=float, default=1e-4)
    parser.add_argument("--rtol", type=float, default=1e-4)
    parser.add_argument("--serenity-opt", default=shutil.which("serenity-opt") or "serenity-opt")
    args = parser.parse_args()

    with open(args.network) as f:
        source = f.read()
    if args.func != "net":
        source = re.sub(r"@" + re.escape(args.func) + r"\b", "@net", source)
    num_inputs = len(signature(source, "net"))

    with tempfile.TemporaryDirectory() as workdir:
        original = os.path.join(workdir, "original.mlir")
        with open(original, "w") as f:
            f.write(source)
        rewritten_ir, remarks = rewrite(args.serenity_opt, original, args.mode, args.concat,
                                          args.accumulate)
        rewritten = os.path.join(workdir, "rewritten.mlir")
        with open(rewritten, "w") as f:
            f.write(rewritten_ir)

        peaks = [re.search(r"scheduled peak (\d+) -> (\d+)", r) for r in remarks]
        peaks = [m for m in peaks if m]
        print(f"mode={args.mode}: {len(remarks)} rewrites applied")
        for remark in remarks:
            print("  " + remark.split("remark: ", 1)[1])
        if peaks:
            print(f"scheduled peak {peaks[0].group(1)} -> {peaks[-1].group(2)} bytes")
        print(f"concats: {source.count('tosa.concat')} -> {rewritten_ir.count('tosa.concat')}, "
              f"conv2d: {source.count('tosa.conv2d')} -> {rewritten_ir.count('tosa.conv2d')}")

        results = []
        for tag, path in (("original", original), ("rewritten", rewritten)):
            if tag == "rewritten" and (args.concat == "inplace" or args.accumulate or args.schedule):
                memref = run([args.serenity_opt, path, f"--serenity-pipeline=schedule={args.schedule or 'none'} "
                              f"alloc=none lower-to-llvm=0 concat={args.concat} "
                              f"accumulate-in-place={int(args.accumulate)}"])
            else:
                memref = run([f"{LLVM_BIN}/mlir-opt", path, f"--pass-pipeline={REFERENCE_TO_MEMREF}"])
            copies = memref.count("memref.copy") + memref.count("linalg.copy")
            print(f"{tag}: {copies} copies after bufferization")
            sig = signature(memref, "net")
            results.append(execute(memref, sig[:num_inputs], sig[num_inputs:], None,
                                   args.seed, workdir, tag))
            outputs = len(sig) - num_inputs

    want, got = results
    ok = len(remarks) >= args.min_rewrites
    if not ok:
        print(f"FAIL: expected at least {args.min_rewrites} rewrites")
    if len(got) != len(want) or len(got) != outputs:
        print(f"FAIL: {len(got)} outputs printed, original {len(want)}, expected {outputs}")
        return 1
    for i, (a, b) in enumerate(zip(got, want)):
        if len(a) != len(b):
            print(f"FAIL: output {i} has {len(a)} elements, original {len(b)}")
            return 1
        diff = max((abs(x - y) for x, y in zip(a, b)), default=0.0)
        bad = sum(1 for x, y in zip(a, b) if not abs(x - y) <= args.atol + args.rtol * abs(y))
        distinct = len(set(b))
        print(f"output {i}: {len(a)} elements ({distinct} distinct), "
              f"max |original| {max(abs(y) for y in b):.3g}, max abs diff {diff:.3g}, "
              f"{bad} beyond tolerance")
        if distinct < 2:
            print(f"FAIL: output {i} is constant; the comparison would prove nothing")
            ok = False
        ok = ok and bad == 0
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
