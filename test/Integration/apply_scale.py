#!/usr/bin/env python3
"""Checks serenity-apply-scale-32 against the upstream lowering of
tosa.apply_scale (tosa-to-arith{include-apply-rescale=true}): one module
applies both rounding modes to N seeded (value, multiplier, shift) triples
(every shift from 2 to 62, values and multipliers over the whole int32 range
with its extremes), lowered once with the pass and once without, both run by
mlir-runner; prints how many results differ. Two more cases use a constant
shift (45, 20), for which the pass emits one path without a branch, and two a
table of shifts from 32 to 62 (32 in one of every 31: a per-channel table
whose least shift is 32, for which the pass emits the one-bit-lower path).

Usage: apply_scale.py [--count N] [--seed S]
"""
import argparse
import os
import random
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_lowering as cl  # noqa: E402

LOWER = ("func.func(convert-linalg-to-loops,convert-scf-to-cf),finalize-memref-to-llvm,"
         "func.func(convert-arith-to-llvm),convert-cf-to-llvm,convert-func-to-llvm,reconcile-unrealized-casts")


def module(values, multipliers, shifts):
    n = len(values)

    def glob(name, data, ty):
        return (f'memref.global "private" constant @{name} : memref<{n}x{ty}> = '
                f'dense<[{", ".join(str(x) for x in data)}]>')

    body = [glob("v", values, "i32"), glob("m", multipliers, "i32"), glob("s", shifts, "i8"),
            glob("s32", [32 + i % 31 for i in range(n)], "i8"),
            "func.func private @printMemrefI32(memref<*xi32>)",
            "func.func @main() {",
            f"  %v = memref.get_global @v : memref<{n}xi32>",
            f"  %m = memref.get_global @m : memref<{n}xi32>",
            f"  %s = memref.get_global @s : memref<{n}xi8>",
            f"  %s32 = memref.get_global @s32 : memref<{n}xi8>"]
    # The shift loaded per element (the pass branches on it), then constant
    # shifts of 45 and 20 (the pass emits one path, no branch).
    cases = [(mode, None) for mode in ("DOUBLE_ROUND", "SINGLE_ROUND")]
    cases += [("DOUBLE_ROUND", 45), ("DOUBLE_ROUND", 20), ("DOUBLE_ROUND", "s32"), ("SINGLE_ROUND", "s32")]
    for mode, constant in cases:
        table = "%s32" if constant == "s32" else "%s"
        constant = None if constant == "s32" else constant
        tag = mode + ("" if constant is None else "_%d" % constant) + ("_s32" if table == "%s32" else "")
        shift = "%c" if constant is None else "%k"
        const = [] if constant is None else [f"    %k = arith.constant {constant} : i8"]
        body += [f"  %r_{tag} = memref.alloc() : memref<{n}xi32>",
                 "  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, "
                 "affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = [\"parallel\"]} "
                 f"ins(%v, %m, {table} : memref<{n}xi32>, memref<{n}xi32>, memref<{n}xi8>) "
                 f"outs(%r_{tag} : memref<{n}xi32>) {{",
                 "  ^bb0(%a: i32, %b: i32, %c: i8, %o: i32):"] + const + [
                 f"    %x = tosa.apply_scale %a, %b, {shift} {{rounding_mode = {mode}}} : (i32, i32, i8) -> i32",
                 "    linalg.yield %x : i32",
                 "  }",
                 f"  %u_{tag} = memref.cast %r_{tag} : memref<{n}xi32> to memref<*xi32>",
                 f"  call @printMemrefI32(%u_{tag}) : (memref<*xi32>) -> ()"]
    body += ["  return", "}"]
    return "\n".join(body) + "\n"


def run(path, with_pass, opt, split=False):
    passes = ("func.func(serenity-apply-scale-32%s)," % ("{split-multiply=true}" if split else "")
              if with_pass else "")
    lowered = cl.run([opt, path, "--pass-pipeline=builtin.module(" + passes +
                      "func.func(tosa-to-arith{include-apply-rescale=true})," + LOWER + ")"])
    return [data.split() for data in cl.printed_memrefs(lowered)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=6100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--split-multiply", action="store_true",
                        help="the pass's split-multiply option (16-bit products, ARMv6-M)")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    extremes = [-2**31, 2**31 - 1, 0, 1, -1, 2**30, -2**30]
    values, multipliers, shifts = [], [], []
    for i in range(args.count):
        shifts.append(2 + i % 61)
        values.append(rng.choice(extremes) if rng.random() < 0.2 else rng.randint(-2**31, 2**31 - 1))
        # Mostly the normalized multipliers of TFLite ([2^30, 2^31)), some anywhere.
        multipliers.append(rng.choice(extremes) if rng.random() < 0.1 else
                           rng.randint(2**30, 2**31 - 1) if rng.random() < 0.7 else
                           rng.randint(-2**31, 2**31 - 1))
    opt = cl.serenity_opt()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "scale.mlir")
        with open(path, "w") as f:
            f.write(module(values, multipliers, shifts))
        got, want = run(path, True, opt, args.split_multiply), run(path, False, opt)
    labels = ("DOUBLE_ROUND", "SINGLE_ROUND", "DOUBLE_ROUND shift 45", "DOUBLE_ROUND shift 20",
              "DOUBLE_ROUND shifts 32-62", "SINGLE_ROUND shifts 32-62")
    for label, g, w in zip(labels, got, want):
        differ = sum(a != b for a, b in zip(g, w))
        print(f"apply_scale {label}: {len(w)} values, {len(g)} computed, {differ} differ")
    return 0


if __name__ == "__main__":
    sys.exit(main())
