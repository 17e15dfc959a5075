#!/usr/bin/env python3
"""Seeded random int8 convolutions and depthwise convolutions on buffers,
through serenity-int8-conv-kernels (target=generic: the DSP kernels' loops,
or generic-vector: the Helium kernels' loops) and through
convert-linalg-to-loops, both run by mlir-runner; prints how many outputs
differ.

Each case draws the window (1-3 x 1-3), strides and dilations (1-2), the
channel counts (1-12, so blocks of 4, 2 and 1 channels and odd run lengths),
the input zero point (0, small, -128, 127), quantized or plain ops, and a
filter that is a view of a constant global: sliced in output channels (with
unit or larger steps), clipped in rows and columns (a border window), or
holding only some of the input channels, as valid IR may have it even where
serenity-pipeline does not make it. `--wide` adds channel counts of 15-40
(whole 16-byte vectors and partial ones).

Usage: int8_conv_views.py [--seed 1] [--cases 60] [--target generic|generic-vector] [--wide]
"""
import argparse
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_lowering as cl  # noqa: E402

LOWER = ("builtin.module(convert-linalg-to-loops,convert-scf-to-cf,expand-strided-metadata,lower-affine,"
         "finalize-memref-to-llvm,convert-arith-to-llvm,convert-cf-to-llvm,convert-func-to-llvm,"
         "convert-to-llvm,reconcile-unrealized-casts)")


def nested(values, dims):
    if len(dims) == 1:
        return "[" + ", ".join(map(str, values)) + "]"
    step = len(values) // dims[0]
    return "[" + ", ".join(nested(values[i * step:(i + 1) * step], dims[1:]) for i in range(dims[0])) + "]"


def shape(dims, element="i8"):
    return "memref<" + "x".join(map(str, dims)) + "x" + element + ">"


def contiguous_strides(dims):
    strides, acc = [], 1
    for d in reversed(dims):
        strides.insert(0, acc)
        acc *= d
    return strides


class Module:
    def __init__(self, rng):
        self.rng = rng
        self.globals = []
        self.body = []

    def constant(self, name, dims):
        count = 1
        for d in dims:
            count *= d
        values = [self.rng.randint(-128, 127) for _ in range(count)]
        self.globals.append('memref.global "private" constant @%s : %s = dense<%s>'
                            % (name, shape(dims), nested(values, dims)))
        self.body.append("  %%%s = memref.get_global @%s : %s" % (name, name, shape(dims)))

    def view(self, name, source, root, offsets, sizes, steps):
        strides = contiguous_strides(root)
        view_strides = [s * t for s, t in zip(strides, steps)]
        offset = sum(o * s for o, s in zip(offsets, strides))
        view_type = "memref<%sxi8, strided<[%s], offset: %d>>" % (
            "x".join(map(str, sizes)), ", ".join(map(str, view_strides)), offset)
        self.body.append("  %%%s = memref.subview %%%s[%s] [%s] [%s] : %s to %s" % (
            name, source, ", ".join(map(str, offsets)), ", ".join(map(str, sizes)),
            ", ".join(map(str, steps)), shape(root), view_type))
        return view_type


def case(module, i, wide=False):
    r = module.rng
    depthwise = r.random() < 0.4
    kh, kw = r.choice([1, 2, 3]), r.choice([1, 2, 3])
    sh, sw = r.choice([1, 2]), r.choice([1, 2])
    dh, dw = r.choice([1, 1, 2]), r.choice([1, 1, 2])
    c = r.choice([1, 2, 3, 4, 5, 8, 12] + ([15, 16, 17, 24, 33, 40] if wide else []))
    oh, ow = r.choice([1, 2, 3]), r.choice([1, 2, 3])
    zero = r.choice([0, 0, 5, -128, 127, -3])
    quantized = zero != 0 or r.random() < 0.7
    # A border window: the view starts inside the filter's rows/columns.
    kh0 = r.randint(0, kh - 1) if r.random() < 0.3 else 0
    kw0 = r.randint(0, kw - 1) if r.random() < 0.3 else 0
    vkh, vkw = kh - kh0, kw - kw0
    if depthwise:
        croot = c + r.choice([0, 0, 4])
        c0 = r.randint(0, croot - c)
        module.constant("w%d" % i, [kh, kw, croot, 1])
        filter_type = module.view("wv%d" % i, "w%d" % i, [kh, kw, croot, 1], [kh0, kw0, c0, 0],
                                  [vkh, vkw, c, 1], [1, 1, 1, 1])
        out = [1, oh, ow, c, 1]
        name = "linalg.depthwise_conv_2d_nhwc_hwcm"
    else:
        f = r.choice([1, 2, 3, 4, 8])
        fstep = r.choice([1, 1, 2])
        froot = (f - 1) * fstep + 1 + r.choice([0, 0, 4])
        f0 = r.randint(0, froot - ((f - 1) * fstep + 1))
        # Some of the input channels only, or all of them.
        croot = c + (r.choice([0, 0, 4]))
        c0 = r.randint(0, croot - c)
        module.constant("w%d" % i, [froot, kh, kw, croot])
        filter_type = module.view("wv%d" % i, "w%d" % i, [froot, kh, kw, croot], [f0, kh0, kw0, c0],
                                  [f, vkh, vkw, c], [fstep, 1, 1, 1])
        out = [1, oh, ow, f]
        name = "linalg.conv_2d_nhwc_fhwc"
    ih = (oh - 1) * sh + (vkh - 1) * dh + 1
    iw = (ow - 1) * sw + (vkw - 1) * dw + 1
    module.constant("x%d" % i, [1, ih, iw, c])
    out_type = shape(out, "i32")
    b = module.body
    b.append("  %%o%d = memref.alloc() : %s" % (i, out_type))
    b.append("  %%b%d = arith.constant %d : i32" % (i, r.randint(-1000, 1000)))
    b.append("  linalg.fill ins(%%b%d : i32) outs(%%o%d : %s)" % (i, i, out_type))
    b.append("  %%z%d = arith.constant %d : i32" % (i, zero))
    zeros = ", %%z%d, %%c0_i32" % i if quantized else ""
    zero_types = ", i32, i32" if quantized else ""
    b.append("  %s%s {dilations = dense<[%d, %d]> : tensor<2xi64>, strides = dense<[%d, %d]> : tensor<2xi64>} "
             "ins(%%x%d, %%wv%d%s : %s, %s%s) outs(%%o%d : %s)"
             % (name, "_q" if quantized else "", dh, dw, sh, sw, i, i, zeros, shape([1, ih, iw, c]),
                filter_type, zero_types, i, out_type))
    b.append("  %%u%d = memref.cast %%o%d : %s to memref<*xi32>" % (i, i, out_type))
    b.append("  call @printMemrefI32(%%u%d) : (memref<*xi32>) -> ()" % i)


def run(text, opt, target=None):
    if target:
        text = cl.run([opt, "-", "--serenity-int8-conv-kernels=target=" + target], stdin=text)
    lowered = cl.run([cl.LLVM_BIN + "/mlir-opt", "-", "--pass-pipeline=" + LOWER], stdin=text)
    return [data.split() for data in cl.printed_memrefs(lowered)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cases", type=int, default=60)
    parser.add_argument("--target", choices=("generic", "generic-vector"), default="generic")
    parser.add_argument("--wide", action="store_true", help="channel counts up to 40 as well")
    args = parser.parse_args()
    module = Module(random.Random(args.seed))
    for i in range(args.cases):
        case(module, i, args.wide)
    text = "\n".join(module.globals) + "\nfunc.func private @printMemrefI32(memref<*xi32>)\n" + \
        "func.func @main() {\n  %c0_i32 = arith.constant 0 : i32\n" + "\n".join(module.body) + \
        "\n  return\n}\n"
    opt = cl.serenity_opt()
    want, got = run(text, opt), run(text, opt, args.target)
    differ = sum(a != b for a, b in zip(want, got)) + abs(len(want) - len(got))
    print("int8 conv views: %d cases, %d outputs, %d differ (seed %d)" % (args.cases, len(want), differ, args.seed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
