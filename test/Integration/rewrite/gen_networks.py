#!/usr/bin/env python3
"""Writes the concat-heavy TOSA test networks of test/Integration/rewrite/.

Each network is a small float32 NHWC graph with non-uniform weights from a
seeded generator (so a wrong channel slice changes the results), in the
shape of a well-known irregular network: three DARTS normal cells, a
DenseNet block, an Inception module, RandWire-like random stages, SqueezeNet
fire modules and a mixed-op graph. Each file carries the RUN lines that
compare it before and after serenity-rewrite (compare_rewrite.py), the last
ones with in-place concatenation and in-place partial sums (peaks and
lowering) and DP scheduling of the rewritten network.

Usage: gen_networks.py [OUTPUT_DIR]   (default: this script's directory)
Deterministic: running it again rewrites identical files.
"""
import os
import sys


class Rng:
    """A 32-bit LCG: reproducible without numpy or Python's hash seeds."""

    def __init__(self, seed):
        self.state = (seed * 2654435761 + 7) & 0xFFFFFFFF

    def unit(self):
        self.state = (self.state * 1664525 + 1013904223) & 0xFFFFFFFF
        return self.state / 2**32

    def uniform(self, lo, hi):
        return lo + (hi - lo) * self.unit()

    def below(self, n):
        return int(self.unit() * n)


def tensor(shape):
    return "tensor<" + "x".join(str(d) for d in shape) + "xf32>"


def literal(values, shape):
    if len(shape) == 1:
        return "[" + ", ".join(values) + "]"
    step = len(values) // shape[0]
    return "[" + ", ".join(literal(values[i * step:(i + 1) * step], shape[1:])
                           for i in range(shape[0])) + "]"


def conv_out(size, k, stride, pad_lo, pad_hi, dilation):
    span = size - 1 + pad_lo + pad_hi - (k - 1) * dilation
    assert span % stride == 0, (size, k, stride, pad_lo, pad_hi, dilation)
    return span // stride + 1


class Net:
    """Emits one `func.func @net` in TOSA; values carry NHWC shapes."""

    def __init__(self, name, seed, inputs):
        self.name = name
        self.rng = Rng(seed)
        self.lines = []
        self.consts = []
        self.count = 0
        self.shapes = {}
        self.args = []
        for i, shape in enumerate(inputs):
            value = f"%arg{i}"
            self.shapes[value] = list(shape)
            self.args.append(value)
        self.zp = self.const([1], ["0.0"])

    def fresh(self):
        self.count += 1
        return f"%v{self.count}"

    def const(self, shape, values):
        value = self.fresh()
        text = literal(values, shape) if len(set(values)) > 1 else values[0]
        self.consts.append(f'  {value} = "tosa.const"() <{{values = dense<{text}> : '
                           f'{tensor(shape)}}}> : () -> {tensor(shape)}')
        self.shapes[value] = shape
        return value

    def random_const(self, shape, scale):
        n = 1
        for d in shape:
            n *= d
        return self.const(shape, [f"{self.rng.uniform(-scale, scale):.4f}" for _ in range(n)])

    def op(self, text, shape):
        value = self.fresh()
        self.lines.append(f"  {value} = {text}")
        self.shapes[value] = shape
        return value

    def conv(self, x, oc, k=1, stride=1, pad=None, dilation=1):
        n, h, w, ic = self.shapes[x]
        pad = pad or [dilation * (k - 1) // 2] * 4
        weight = self.random_const([oc, k, k, ic], 1.5 / (k * k * ic) ** 0.5)
        bias = self.random_const([oc], 0.2)
        out = [n, conv_out(h, k, stride, pad[0], pad[1], dilation),
               conv_out(w, k, stride, pad[2], pad[3], dilation), oc]
        attrs = (f"{{acc_type = f32, dilation = array<i64: {dilation}, {dilation}>, "
                 f"pad = array<i64: {', '.join(map(str, pad))}>, stride = array<i64: {stride}, {stride}>}}")
        return self.op(f"tosa.conv2d {x}, {weight}, {bias}, {self.zp}, {self.zp} {attrs} : "
                       f"({tensor(self.shapes[x])}, {tensor([oc, k, k, ic])}, {tensor([oc])}, "
                       f"tensor<1xf32>, tensor<1xf32>) -> {tensor(out)}", out)

    def depthwise(self, x, k=3, multiplier=1, stride=1, pad=None, dilation=1):
        n, h, w, c = self.shapes[x]
        pad = pad or [dilation * (k - 1) // 2] * 4
        weight = self.random_const([k, k, c, multiplier], 1.5 / k)
        bias = self.random_const([c * multiplier], 0.2)
        out = [n, conv_out(h, k, stride, pad[0], pad[1], dilation),
               conv_out(w, k, stride, pad[2], pad[3], dilation), c * multiplier]
        attrs = (f"{{acc_type = f32, dilation = array<i64: {dilation}, {dilation}>, "
                 f"pad = array<i64: {', '.join(map(str, pad))}>, stride = array<i64: {stride}, {stride}>}}")
        return self.op(f"tosa.depthwise_conv2d {x}, {weight}, {bias}, {self.zp}, {self.zp} {attrs} : "
                       f"({tensor(self.shapes[x])}, {tensor([k, k, c, multiplier])}, "
                       f"{tensor([c * multiplier])}, tensor<1xf32>, tensor<1xf32>) -> {tensor(out)}", out)

    def unary(self, name, x, attrs=""):
        t = tensor(self.shapes[x])
        return self.op(f"tosa.{name} {x}{attrs} : ({t}) -> {t}", self.shapes[x])

    def relu(self, x):
        return self.unary("clamp", x, " {max_val = 3.40282347E+38 : f32, min_val = 0.0 : f32}")

    def relu6(self, x):
        return self.unary("clamp", x, " {max_val = 6.0 : f32, min_val = 0.0 : f32}")

    def negate(self, x):
        t = tensor(self.shapes[x])
        return self.op(f"tosa.negate {x}, {self.zp}, {self.zp} : ({t}, tensor<1xf32>, tensor<1xf32>) -> {t}",
                       self.shapes[x])

    def pool(self, kind, x, k=3, stride=1, pad=None):
        n, h, w, c = self.shapes[x]
        pad = pad or [(k - 1) // 2] * 4
        out = [n, conv_out(h, k, stride, pad[0], pad[1], 1), conv_out(w, k, stride, pad[2], pad[3], 1), c]
        attrs = (f"kernel = array<i64: {k}, {k}>, pad = array<i64: {', '.join(map(str, pad))}>, "
                 f"stride = array<i64: {stride}, {stride}>")
        if kind == "max":
            return self.op(f"tosa.max_pool2d {x} {{{attrs}}} : ({tensor(self.shapes[x])}) -> {tensor(out)}", out)
        return self.op(f"tosa.avg_pool2d {x}, {self.zp}, {self.zp} {{acc_type = f32, {attrs}}} : "
                       f"({tensor(self.shapes[x])}, tensor<1xf32>, tensor<1xf32>) -> {tensor(out)}", out)

    def add(self, a, b):
        t = tensor(self.shapes[a])
        return self.op(f"tosa.add {a}, {b} : ({t}, {t}) -> {t}", self.shapes[a])

    def concat(self, values):
        if len(values) == 1:
            return values[0]
        shape = list(self.shapes[values[0]])
        shape[3] = sum(self.shapes[v][3] for v in values)
        types = ", ".join(tensor(self.shapes[v]) for v in values)
        return self.op(f"tosa.concat {', '.join(values)} {{axis = 3 : i32}} : ({types}) -> {tensor(shape)}",
                       shape)

    def text(self, outputs, run_lines, description):
        args = ", ".join(f"{a}: {tensor(self.shapes[a])}" for a in self.args)
        results = ", ".join(tensor(self.shapes[o]) for o in outputs)
        header = [f"// {line}" if line else "//" for line in description.strip().splitlines()]
        body = (header + ["//", "// Generated by gen_networks.py; regenerate rather than edit.", ""]
                + run_lines + [""]
                + [f"func.func @net({args}) -> ({results}) {{"] + self.consts + self.lines
                + [f"  return {', '.join(outputs)} : {results}", "}", ""])
        return "\n".join(body)


def run_lines(min_all, min_profitable):
    compare = "python3 %S/../compare_rewrite.py %s"
    return [f"// RUN: {compare} --mode all --min-rewrites {min_all} | FileCheck %s",
            f"// RUN: {compare} --mode profitable --min-rewrites {min_profitable} | FileCheck %s",
            f"// RUN: {compare} --mode profitable --concat inplace --min-rewrites 1 | FileCheck %s",
            f"// RUN: {compare} --mode profitable --concat inplace --accumulate --schedule dp "
            "--min-rewrites 1 | FileCheck %s",
            "// CHECK: 0 beyond tolerance",
            "// CHECK: PASS"]


def sep_conv(net, x, c, k=3, dilation=1):
    """DARTS sep_conv: (ReLU, depthwise, pointwise) twice."""
    for _ in range(2):
        x = net.conv(net.depthwise(net.relu(x), k=k, dilation=dilation), c)
    return x


def darts():
    net = Net("darts_normal_cells", 11, [[1, 6, 6, 8]])
    c = 4

    def cell(s0, s1):
        # DARTS_V2 normal genotype (../shared/models/darts): preprocess
        # ReLU-conv1x1 on both inputs, four intermediate nodes, concat of all.
        p0 = net.conv(net.relu(s0), c)
        p1 = net.conv(net.relu(s1), c)
        n2 = net.add(sep_conv(net, p0, c), sep_conv(net, p1, c))
        n3 = net.add(sep_conv(net, p0, c), sep_conv(net, p1, c))
        n4 = net.add(sep_conv(net, p1, c), p0)
        dil = net.conv(net.depthwise(net.relu(n2), k=3, dilation=2), c)
        n5 = net.add(p0, dil)
        return net.concat([n2, n3, n4, n5])

    x = net.args[0]
    c1 = cell(x, x)
    c2 = cell(x, c1)
    c3 = cell(c1, c2)
    out = net.conv(net.relu(c3), 4)
    return net.text([out], run_lines(3, 2), """
DARTS-like: three DARTS_V2 normal cells (C = 4) where each cell output (a
concat of four nodes) feeds the ReLU-conv1x1 preprocessing of the next two
cells, as in DARTS; sep/dil convs are depthwise + pointwise.""")


def densenet():
    net = Net("densenet_block", 12, [[1, 6, 6, 4]])
    features = [net.args[0]]
    for _ in range(4):
        x = net.concat(features)
        x = net.conv(net.relu(x), 8)              # bottleneck 1x1 (4 * growth / 2)
        x = net.conv(net.relu(x), 4, k=3)         # growth 4
        features.append(x)
    x = net.concat(features)
    x = net.conv(net.relu(x), 8)                  # transition
    out = net.pool("avg", x, k=2, stride=2, pad=[0, 0, 0, 0])
    return net.text([out], run_lines(4, 1), """
DenseNet-BC-like dense block: four layers (ReLU-conv1x1-ReLU-conv3x3, growth
4), each reading the concat of all earlier features, then a transition
(ReLU-conv1x1-avgpool 2x2/2).""")


def inception():
    net = Net("inception_module", 13, [[1, 8, 8, 6]])
    x = net.args[0]
    b1 = net.conv(x, 4)
    b2 = net.conv(net.relu(net.conv(x, 3)), 5, k=3)
    b3 = net.conv(net.relu(net.conv(net.relu(net.conv(x, 2)), 3, k=3)), 3, k=3)
    b4 = net.conv(net.pool("max", x), 2)
    y = net.concat([b1, b2, b3, b4])
    # Separable head: ReLU, depthwise 3x3 stride 2, pointwise.
    head = net.depthwise(net.relu(y), k=3, stride=2, pad=[0, 1, 0, 1])
    out = net.conv(head, 6)
    return net.text([out], run_lines(1, 1), """
Inception-v1-like module: 1x1 / 1x1-3x3 / 1x1-3x3-3x3 / maxpool-1x1
branches concatenated, followed by a separable head (ReLU, depthwise 3x3
stride 2, pointwise 1x1).""")


def randwire(seed, nodes, name, min_all):
    net = Net(name, seed, [[1, 8, 8, 4]])
    rng = Rng(seed * 7 + 1)
    c = 4
    x = net.args[0]
    outputs = {}
    used = set()
    for i in range(nodes):
        if i == 0:
            preds = []
        else:
            # Random DAG: edges from lower to higher index, up to 3 inputs.
            preds = sorted({rng.below(i) for _ in range(1 + rng.below(3))})
        used.update(preds)
        inputs = [outputs[p] for p in preds] or [x]
        # Aggregate by concatenation, then ReLU, separable conv (dw + pw).
        y = net.concat(inputs)
        y = net.conv(net.depthwise(net.relu(y), k=3), c)
        outputs[i] = y
    sinks = [outputs[i] for i in range(nodes) if i not in used]
    y = net.concat(sinks)
    out = net.conv(net.relu(y), 6)
    return net.text([out], run_lines(min_all, 1), f"""
RandWire-stage-like: {nodes} nodes on a seeded random DAG (edges from lower
to higher index); a node concatenates its inputs, then ReLU, depthwise 3x3,
pointwise 1x1. The stage output concatenates the sinks, then ReLU-conv1x1.
(RandWire sums its inputs; concatenation is the variant SERENITY rewrites.)""")


def squeezenet():
    net = Net("squeezenet_fire", 14, [[1, 8, 8, 8]])
    x = net.args[0]
    for squeeze, expand in ((3, 4), (4, 5)):
        s = net.relu(net.conv(x, squeeze))
        e1 = net.relu(net.conv(s, expand))
        e3 = net.relu(net.conv(s, expand, k=3))
        x = net.concat([e1, e3])
    x = net.pool("max", x, k=3, stride=2, pad=[0, 1, 0, 1])
    out = net.conv(x, 4)
    return net.text([out], run_lines(2, 2), """
SqueezeNet-like: two fire modules (squeeze 1x1, expand 1x1 and 3x3, ReLU,
concat), the second followed by maxpool 3x3/2 and a 1x1 conv.""")


def mixed():
    net = Net("mixed_ops", 15, [[1, 9, 9, 3]])
    x = net.args[0]
    a = net.conv(x, 2, k=3)
    b = net.conv(x, 3, k=1)
    c = net.depthwise(x, k=3, multiplier=2)
    y = net.concat([a, b, c])
    y = net.unary("sigmoid", y)
    y = net.unary("tanh", y)
    y = net.negate(y)
    y = net.unary("abs", y)
    y = net.pool("avg", y, k=3, stride=1)
    # Two users of one concat, with stride, asymmetric padding and dilation.
    z1 = net.conv(y, 4, k=3, stride=2, pad=[2, 0, 1, 1], dilation=2)
    z2 = net.conv(y, 3, k=3, stride=1, pad=[0, 1, 1, 0], dilation=1)
    d = net.concat([net.relu6(z2), net.unary("exp", z2)])
    d = net.depthwise(d, k=3, multiplier=2, stride=2, pad=[0, 1, 1, 0], dilation=1)
    return net.text([z1, d], run_lines(2, 1), """
Mixed ops: a concat pushed through sigmoid, tanh, negate, abs and avg_pool2d,
read by two convs (stride 2, asymmetric padding, dilation 2); a second
concat feeding a depthwise conv with multiplier 2 and stride 2.""")


def int8():
    """Hand-built int8 graph: the generic Net helper is float-only."""
    rng = Rng(16)

    def ints(n, lo, hi):
        return [str(lo + rng.below(hi - lo + 1)) for _ in range(n)]

    def const(name, shape, element, values):
        ty = "tensor<" + "x".join(map(str, shape)) + f"x{element}>"
        return (f'  %{name} = "tosa.const"() <{{values = dense<{literal(values, shape)}> : {ty}}}> '
                f": () -> {ty}")

    conv_attrs = ("{acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, "
                  "stride = array<i64: 1, 1>}")
    lines = [
        const("w", [4, 3, 3, 8], "i8", ints(4 * 3 * 3 * 8, -127, 127)),
        const("bias", [4], "i32", ints(4, -1000, 1000)),
        const("dw", [3, 3, 8, 1], "i8", ints(3 * 3 * 8, -127, 127)),
        const("dbias", [8], "i32", ints(8, -1000, 1000)),
        '  %izp = "tosa.const"() <{values = dense<-5> : tensor<1xi8>}> : () -> tensor<1xi8>',
        '  %wzp = "tosa.const"() <{values = dense<3> : tensor<1xi8>}> : () -> tensor<1xi8>',
        "  %c = tosa.concat %arg0, %arg1 {axis = 3 : i32} : (tensor<1x6x6x3xi8>, tensor<1x6x6x5xi8>) "
        "-> tensor<1x6x6x8xi8>",
        "  %m = tosa.clamp %c {max_val = 90 : i8, min_val = -100 : i8} : (tensor<1x6x6x8xi8>) "
        "-> tensor<1x6x6x8xi8>",
        f"  %y = tosa.conv2d %m, %w, %bias, %izp, %wzp {conv_attrs} : (tensor<1x6x6x8xi8>, "
        "tensor<4x3x3x8xi8>, tensor<4xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x6x6x4xi32>",
        "  %c2 = tosa.concat %arg1, %arg0 {axis = 3 : i32} : (tensor<1x6x6x5xi8>, tensor<1x6x6x3xi8>) "
        "-> tensor<1x6x6x8xi8>",
        "  %p = tosa.max_pool2d %c2 {kernel = array<i64: 3, 3>, pad = array<i64: 0, 1, 0, 1>, "
        "stride = array<i64: 2, 2>} : (tensor<1x6x6x8xi8>) -> tensor<1x3x3x8xi8>",
        f"  %d = tosa.depthwise_conv2d %p, %dw, %dbias, %izp, %wzp {conv_attrs} : (tensor<1x3x3x8xi8>, "
        "tensor<3x3x8x1xi8>, tensor<8xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x3x3x8xi32>",
    ]
    header = """// int8: a clamp and a conv2d 3x3 (zero points -5 and 3, i32 results) on one
// concat, a max_pool2d and a depthwise conv on another. Integer rewrites
// must be bit-exact: compared with atol 0 (the second run also accumulates
// the partial i32 convs in place). No rewrite lowers the peak here (graph
// inputs, i32 results), so only mode=all is exercised.
//
// Generated by gen_networks.py; regenerate rather than edit.
"""
    compare = "python3 %S/../compare_rewrite.py %s --atol 0 --rtol 0"
    runs = [f"// RUN: {compare} --mode all --min-rewrites 2 | FileCheck %s",
            f"// RUN: {compare} --mode all --accumulate --min-rewrites 2 | FileCheck %s",
            "// CHECK: max abs diff 0, 0 beyond tolerance",
            "// CHECK: max abs diff 0, 0 beyond tolerance",
            "// CHECK: PASS"]
    return "\n".join([header] + runs + [
        "",
        "func.func @net(%arg0: tensor<1x6x6x3xi8>, %arg1: tensor<1x6x6x5xi8>) "
        "-> (tensor<1x6x6x4xi32>, tensor<1x3x3x8xi32>) {"] + lines + [
        "  return %y, %d : tensor<1x6x6x4xi32>, tensor<1x3x3x8xi32>", "}", ""])


NETWORKS = {
    "int8-conv-pool": int8,
    "darts-normal-cells": darts,
    "densenet-block": densenet,
    "inception-module": inception,
    "randwire-stage-a": lambda: randwire(21, 8, "randwire_stage_a", 3),
    "randwire-stage-b": lambda: randwire(22, 10, "randwire_stage_b", 6),
    "squeezenet-fire": squeezenet,
    "mixed-ops": mixed,
}


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    for name, build in NETWORKS.items():
        with open(os.path.join(out_dir, f"{name}.mlir"), "w") as f:
            f.write(build())


if __name__ == "__main__":
    main()
