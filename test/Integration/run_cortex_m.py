#!/usr/bin/env python3
"""Builds a TOSA network for Cortex-M4 with scripts/cortex-m/build-object.sh,
links it with a generated C harness (seeded inputs, outputs printed over
semihosting), runs it on QEMU's mps2-an386 board, and compares the printed
outputs with the upstream reference lowering run on the host by mlir-runner.

Usage: run_cortex_m.py NET.mlir [--options "schedule=dp alloc=exact"]
           [--seed 1] [--atol 1e-4] [--rtol 1e-4]
Exit 0 when every output matches within tolerance.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_lowering as cl  # noqa: E402
from serenity.deploy import CORTEX_M, link_command, qemu_command  # noqa: E402

C_TYPES = {"f32": "float", "f64": "double", "i8": "int8_t", "i16": "int16_t",
           "i32": "int32_t", "i64": "int64_t"}


def expanded(name, memref_type):
    """C arguments of one memref under the expanded LLVM calling convention."""
    dims, _ = cl.shape_and_element(memref_type)
    strides, acc = [], 1
    for d in reversed(dims):
        strides.insert(0, acc)
        acc *= d
    return [name, name, "0"] + [str(d) for d in dims] + [str(s) for s in strides]


def parameters(ctype, memref_type):
    dims, _ = cl.shape_and_element(memref_type)
    return [f"{ctype} *", f"{ctype} *", "int32_t"] + ["int32_t"] * (2 * len(dims))


def harness(inputs, outputs, arena_bytes, seed):
    lines = ["#include <stdint.h>", "#include <stdio.h>", ""]
    call_args, proto = [], []
    if arena_bytes is not None:
        lines.append(f"static int8_t arena[{arena_bytes}] __attribute__((aligned(64)));")
        call_args += expanded("arena", f"memref<{arena_bytes}xi8>")
        proto += parameters("int8_t", f"memref<{arena_bytes}xi8>")
    for i, ty in enumerate(inputs):
        dims, element = cl.shape_and_element(ty)
        count = 1
        for d in dims:
            count *= d
        values = cl.lcg_values(count, element, seed + i)
        ctype = C_TYPES[element]
        lines.append(f"static {ctype} in{i}[{count}] = {{{', '.join(values)}}};")
        call_args += expanded(f"in{i}", ty)
        proto += parameters(ctype, ty)
    for i, ty in enumerate(outputs):
        dims, element = cl.shape_and_element(ty)
        count = 1
        for d in dims:
            count *= d
        ctype = C_TYPES[element]
        lines.append(f"static {ctype} out{i}[{count}];")
        call_args += expanded(f"out{i}", ty)
        proto += parameters(ctype, ty)
    lines.append(f"void net({', '.join(proto)});")
    lines.append("int main(void) {")
    lines.append(f"  net({', '.join(call_args)});")
    for i, ty in enumerate(outputs):
        dims, element = cl.shape_and_element(ty)
        count = 1
        for d in dims:
            count *= d
        fmt = '"%.9g\\n", (double)' if element.startswith("f") else '"%ld\\n", (long)'
        lines.append(f'  printf("Output {i}\\n");')
        lines.append(f"  for (int k = 0; k < {count}; ++k) printf({fmt}out{i}[k]);")
    lines.append("  return 0;")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("network")
    parser.add_argument("--options", default="")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--atol", type=float, default=1e-4)
    parser.add_argument("--rtol", type=float, default=1e-4)
    parser.add_argument("--serenity-opt", default=cl.shutil.which("serenity-opt") or "serenity-opt")
    args = parser.parse_args()

    with open(args.network) as f:
        source = re.sub(r"@main\b", "@net", f.read())
    num_inputs = len(cl.signature(source, "net"))
    with tempfile.TemporaryDirectory() as work:
        net = os.path.join(work, "net.mlir")
        with open(net, "w") as f:
            f.write(source)
        memref_ir = cl.run([args.serenity_opt, net,
                            f"--serenity-pipeline=lower-to-llvm=0 target=cortex-m {args.options}"])
        sig = cl.signature(memref_ir, "net")
        reference = cl.run([f"{cl.LLVM_BIN}/mlir-opt", net, f"--pass-pipeline={cl.REFERENCE_TO_MEMREF}"])
        ref_sig = cl.signature(reference, "net")
        arena_bytes = None
        if len(sig) == len(ref_sig) + 1:
            arena_bytes = int(re.match(r"memref<(\d+)xi8>", sig[0]).group(1))
        inputs, outputs = ref_sig[:num_inputs], ref_sig[num_inputs:]

        obj = os.path.join(work, "net.o")
        env = dict(os.environ, SERENITY_OPT=args.serenity_opt)
        build = subprocess.run([os.path.join(CORTEX_M, "build-object.sh"), "-p", args.options, net, obj],
                               capture_output=True, text=True, env=env)
        if build.returncode != 0:
            sys.exit(f"error: build-object.sh failed:\n{build.stderr[:3000]}")
        undefined = cl.run(["arm-none-eabi-nm", "-u", obj]).split()
        print("undefined symbols of the network object:", " ".join(
            s for s in undefined if s not in ("U",)) or "none")
        with open(os.path.join(work, "main.c"), "w") as f:
            f.write(harness(inputs, outputs, arena_bytes, args.seed))
        elf = os.path.join(work, "net.elf")
        cl.run(link_command(work, [os.path.join(work, "main.c"), obj, "-lm"], elf))
        try:
            qemu = subprocess.run(qemu_command(elf, icount=False), capture_output=True, text=True,
                                  timeout=300)
        except subprocess.TimeoutExpired:
            print("FAIL: QEMU did not finish within 300 s")
            return 1
        if qemu.returncode != 0:
            print(f"FAIL: QEMU exit code {qemu.returncode}\n{qemu.stdout[-2000:]}{qemu.stderr[-2000:]}")
            return 1
        got = [[float(x) for x in chunk.split()] for chunk in qemu.stdout.split("Output ")[1:]]
        got = [values[1:] for values in got]  # drop the output index
        want = cl.execute(reference, inputs, outputs, None, args.seed, work, "reference")

    ok = cl.compare_outputs(got, want, len(outputs), args.atol, args.rtol, "cortex-m output")
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
