#!/usr/bin/env python3
"""Seeded random int8 TOSA convolution networks, each compiled by
serenity-compile for a target and run (run_compiled.py: QEMU for Cortex-M)
against the upstream reference lowering run by mlir-runner on the host; prints
one line per network and a summary.

Each network is a conv2d or depthwise_conv2d (optionally followed by a 1x1
conv2d) with what the Helium and DSP kernels must get right: channel counts
that are not multiples of 16 or 4 (vector tails; 1 to 67), odd and non-square windows,
strides, dilations, padding (clipped windows), input zero points 0, -128, 127
and others, and a per-channel requantization (DOUBLE_ROUND) whose
multipliers include 2^30 and whose shifts include 32 and 31 (the rounding
ties of VQRDMULH and of the rounding shift), then a clamp.

Each case also says whether serenity-int8-conv-kernels put a nest's channel
blocks outermost (channel-blocks-first: the loop over blocks of four
channels holding the pixel loops in the kernels serenity-pipeline emits for
the target), and the summary counts those cases: the tests check that both
loop orders are exercised.

Usage: random_conv_nets.py --seed 1 --cases 8 [--target cortex-m55]
"""
import argparse
import math
import os
import random
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def dense(values, element):
    """A dense literal of `values` in hex (any shape)."""
    data = struct.pack("<%d%s" % (len(values), "b" if element == "i8" else "i"), *values)
    return 'dense<"0x%s">' % data.hex().upper()


class Net:
    def __init__(self, rng):
        self.rng = rng
        self.lines = []
        self.count = 0

    def value(self, text, type_):
        name = "%%v%d" % self.count
        self.count += 1
        self.lines.append("  %s = %s" % (name, text))
        return name

    def const(self, values, shape, element):
        type_ = "tensor<%sx%s>" % ("x".join(map(str, shape)), element)
        return self.value('"tosa.const"() {values = %s : %s} : () -> %s' % (
            dense(values, element) if len(values) > 1 else "dense<%d>" % values[0], type_, type_), type_)

    def conv(self, x, shape, depthwise, pointwise=False):
        r = self.rng
        n, h, w, c = shape
        if pointwise:
            kh = kw = sh = sw = dh = dw = 1
            pads = (0, 0, 0, 0)
        else:
            kh, kw = r.choice([1, 2, 3, 5]), r.choice([1, 3, 4])
            sh, sw = r.choice([1, 1, 2]), r.choice([1, 2])
            dh, dw = r.choice([1, 1, 1, 2]), 1
            pads = [r.choice([0, 0, 1, 2]) if kk > 1 else 0 for kk in (kh, kh, kw, kw)]
            # TOSA: the strided window must end exactly at the padded edge.
            while (h - 1 + pads[0] + pads[1] - (kh - 1) * dh) % sh:
                pads[1] += 1
            while (w - 1 + pads[2] + pads[3] - (kw - 1) * dw) % sw:
                pads[3] += 1
        if h - 1 + pads[0] + pads[1] < (kh - 1) * dh or w - 1 + pads[2] + pads[3] < (kw - 1) * dw:
            return None
        oh = (h + pads[0] + pads[1] - (kh - 1) * dh - 1) // sh + 1
        ow = (w + pads[2] + pads[3] - (kw - 1) * dw - 1) // sw + 1
        f = c if depthwise else r.choice([1, 2, 3, 4, 7, 8, 12, 16, 20, 32, 67])
        fshape = (kh, kw, c, 1) if depthwise else (f, kh, kw, c)
        count = 1
        for d in fshape:
            count *= d
        # Small weights too: with the shifts below most outputs stay inside
        # int8 instead of clamping, so the rounding ties show.
        wmax = r.choice([1, 3, 8, 127])
        weights = self.const([r.randint(-wmax, wmax) for _ in range(count)], fshape, "i8")
        taps = kh * kw * (1 if depthwise else c)
        bias = self.const([r.randint(-40 * wmax, 40 * wmax) for _ in range(f)], (f,), "i32")
        izp_value = r.choice([0, -128, 127, 5, -3, 83])
        izp = self.const([izp_value], (1,), "i8")
        wzp = self.const([0], (1,), "i8")
        op = "tosa.depthwise_conv2d" if depthwise else "tosa.conv2d"
        out = (n, oh, ow, f)
        acc = self.value("%s %s, %s, %s, %s, %s {acc_type = i32, pad = array<i64: %d, %d, %d, %d>, "
                         "stride = array<i64: %d, %d>, dilation = array<i64: %d, %d>} : "
                         "(tensor<%s>, tensor<%s>, tensor<%dxi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<%s>"
                         % (op, x, weights, bias, izp, wzp, *pads, sh, sw, dh, dw,
                            "x".join(map(str, shape)) + "xi8", "x".join(map(str, fshape)) + "xi8", f,
                            "x".join(map(str, out)) + "xi32"), None)
        # Per-channel requantization: multipliers 2^30 (VQRDMULH's tie for
        # odd accumulators) or random in [2^30, 2^31); shifts 31 + r where
        # 2^r is about the accumulator's spread / 64 (outputs mostly inside
        # int8; the rounding shift then ties on one output in 2^r), and 31,
        # 32 at times.
        spread = (taps ** 0.5) * 74 * (wmax / 1.7) + 40 * wmax
        fit = max(1, min(31, int(round(math.log2(max(spread / 64, 2))))))
        mults = [r.choice([1 << 30, 1 << 30, r.randint(1 << 30, (1 << 31) - 1)]) for _ in range(f)]
        shifts = [r.choice([31 + fit, 31 + fit, 30 + fit, 32 + fit, 31, 32]) for _ in range(f)]
        if r.random() < 0.15:
            shifts = [31] * f  # one VQRDMULH, no rounding shift
        if r.random() < 0.15:
            mults, shifts = [1 << 30] * f, [shifts[0]] * f  # a power-of-two scale: a shift
        m = self.const(mults, (f,), "i32")
        s = self.const(shifts, (f,), "i8")
        rizp = self.const([0], (1,), "i32")
        ozp_value = r.choice([0, -128, 3, -7])
        ozp = self.const([ozp_value], (1,), "i8")
        t8 = "tensor<%sxi8>" % "x".join(map(str, out))
        y = self.value("tosa.rescale %s, %s, %s, %s, %s {scale32 = true, rounding_mode = DOUBLE_ROUND, "
                       "per_channel = true, input_unsigned = false, output_unsigned = false} : "
                       "(tensor<%sxi32>, tensor<%dxi32>, tensor<%dxi8>, tensor<1xi32>, tensor<1xi8>) -> %s"
                       % (acc, m, s, rizp, ozp, "x".join(map(str, out)), f, f, t8), None)
        low = r.choice([-128, ozp_value])
        y = self.value("tosa.clamp %s {min_val = %d : i8, max_val = 127 : i8} : (%s) -> %s" % (y, low, t8, t8),
                       None)
        return y, out

    def render(self, shape, result, out):
        return ("func.func @main(%%input: tensor<%sxi8>) -> tensor<%sxi8> {\n%s\n  return %s : tensor<%sxi8>\n}\n"
                % ("x".join(map(str, shape)), "x".join(map(str, out)), "\n".join(self.lines), result,
                   "x".join(map(str, out))))


def network(rng):
    """A random network's MLIR text and a one-line description."""
    while True:
        net = Net(rng)
        c = rng.choice([1, 3, 5, 8, 13, 16, 17, 24, 33, 40, 64, 67])
        shape = (1, rng.randint(3, 12), rng.randint(3, 12), c)
        depthwise = rng.random() < 0.4
        made = net.conv("%input", shape, depthwise)
        if made is None:
            continue
        y, out = made
        if rng.random() < 0.4:
            y, out = net.conv(y, out, False, pointwise=True)
        kinds = " ".join(line.split(" = ")[1].split(" ")[0] for line in net.lines if "conv" in line)
        return net.render(shape, y, out), "%s input %s -> %s" % (kinds, shape, out)


def tool(name):
    """A Serenity tool: on PATH, else in $SERENITY_BUILD_DIR/bin."""
    import shutil
    return shutil.which(name) or os.path.join(os.environ.get("SERENITY_BUILD_DIR", "build"), "bin", name)


def pipeline_family(target):
    """serenity-pipeline's target family of a serenity-compile target."""
    import json
    listed = json.loads(subprocess.run([tool("serenity-compile"), "--print-targets"], capture_output=True,
                                       text=True, check=True).stdout)
    return next(t["pipeline_target"] for t in listed["targets"] if t["name"] == target)


def blocks_outermost(path, family):
    """Whether the kernels serenity-pipeline emits for `family` from the
    network at `path` hold a loop over blocks of four channels whose body
    starts with another loop (the pixels: channel-blocks-first)."""
    ir = subprocess.run([tool("serenity-opt"), path, "--serenity-pipeline=target=%s lower-to-llvm=false" % family],
                        capture_output=True, text=True).stdout.splitlines()
    return any(" step %c4 {" in line and "scf.for" in line and i + 1 < len(ir) and "scf.for" in ir[i + 1]
               for i, line in enumerate(ir))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cases", type=int, default=8)
    parser.add_argument("--target", default="cortex-m55")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    passed = reordered = 0
    family = pipeline_family(args.target)
    with tempfile.TemporaryDirectory() as work:
        for i in range(args.cases):
            text, what = network(rng)
            path = os.path.join(work, "net%d.mlir" % i)
            with open(path, "w") as f:
                f.write(text)
            run = subprocess.run([sys.executable, os.path.join(HERE, "run_compiled.py"), path,
                                  "--target", args.target, "--seed", str(args.seed * 100 + i)],
                                 capture_output=True, text=True)
            ok = run.returncode == 0 and run.stdout.rstrip().endswith("PASS")
            passed += ok
            outermost = blocks_outermost(path, family)
            reordered += outermost
            print("%s case %d: %s%s" % ("PASS" if ok else "FAIL", i, what,
                                        ", channel blocks outermost" if outermost else ""))
            if not ok:
                print(run.stdout[-3000:] + run.stderr[-3000:])
    print("random conv nets on %s: %d of %d bit-exact (seed %d); %d with channel blocks outermost" % (
        args.target, passed, args.cases, args.seed, reordered))
    return 0 if passed == args.cases else 1


if __name__ == "__main__":
    sys.exit(main())
