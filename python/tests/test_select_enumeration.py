"""serenity-select-primitives (the ILP, solved by GLPK) against exhaustive
enumeration on small TOSA networks.

For each network every combination of per-convolution primitives is tagged
into the input and measured by ``--serenity-memory-report`` (its peak, with
the selection's memory-model options); its time is the sum of a seeded
random profile's times. The pass must then choose, for every byte budget
(each enumerated peak, the values between them, none, and one below the
least: an error naming the least peak), a combination within the budget
whose time is the least the enumeration finds there; for time budgets with
objective=memory the least peak (ties: less time); its report must predict
the enumerated peak and time of every combination and of its choice, and
its frontier must be the enumerated Pareto frontier. The random problem
instances of unittests/Selection test the ILP alone; this tests the pass
around it (layers, live bytes, workspaces, profile look-up, tags, report).

The feasible budgets of a profile run as one pipeline of pass instances
(each replaces the tags of the one before; --mlir-print-ir-after gives each
one's output), the infeasible ones alone: the whole file takes seconds.
"""

import itertools
import json
import os
import random
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor

import pytest

from serenity.driver import SerenityOpt

# Relative tolerance of time comparisons (GLPK compares times to about 1e-7
# relative; the profiles' integer times differ by far more between choices).
REL = 1e-9
JOBS = 2

_CONV_ATTRS = ("{{acc_type = {acc}, pad = array<i64: {pad}>, stride = array<i64: {stride}>, "
               "dilation = array<i64: 1, 1>}}")


def _conv(result, op, x, w, bias, xt, wt, bt, yt, pad="1, 1, 1, 1", stride="1, 1", zp="%z", zpt="1xf32",
          acc="f32", wzp=None):
    attrs = _CONV_ATTRS.format(acc=acc, pad=pad, stride=stride)
    return ("  %{r} = tosa.{op} %{x}, %{w}, %{b}, {zp}, {wzp} {attrs} : (tensor<{xt}>, tensor<{wt}>, "
            "tensor<{bt}>, tensor<{zpt}>, tensor<{zpt}>) -> tensor<{yt}>\n").format(
                r=result, op=op, x=x, w=w, b=bias, zp=zp, wzp=wzp or zp, attrs=attrs, xt=xt, wt=wt, bt=bt,
                zpt=zpt, yt=yt)


def _const(name, value, type_):
    return '  %{n} = "tosa.const"() <{{values = dense<{v}> : tensor<{t}>}}> : () -> tensor<{t}>\n'.format(
        n=name, v=value, t=type_)


# (a) Four 3x3 convs with a residual add: the live bytes at the convs'
# steps differ (2048, 3072, 4096, 2048), three shapes (the first and the last
# share one: one profile entry for two convs), every f32 primitive applies.
RESIDUAL = (
    "func.func @residual(%x: tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32> {\n"
    + _const("w44", "0.25", "4x3x3x4xf32") + _const("w48", "0.125", "8x3x3x4xf32")
    + _const("w84", "0.0625", "4x3x3x8xf32") + _const("b4", "0.5", "4xf32") + _const("b8", "0.5", "8xf32")
    + _const("z", "0.0", "1xf32")
    + _conv("a", "conv2d", "x", "w44", "b4", "1x8x8x4xf32", "4x3x3x4xf32", "4xf32", "1x8x8x4xf32")
    + _conv("b", "conv2d", "a", "w48", "b8", "1x8x8x4xf32", "8x3x3x4xf32", "8xf32", "1x8x8x8xf32")
    + _conv("c", "conv2d", "b", "w84", "b4", "1x8x8x8xf32", "4x3x3x8xf32", "4xf32", "1x8x8x4xf32")
    + "  %s = tosa.add %a, %c : (tensor<1x8x8x4xf32>, tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>\n"
    + _conv("d", "conv2d", "s", "w44", "b4", "1x8x8x4xf32", "4x3x3x4xf32", "4xf32", "1x8x8x4xf32")
    + "  return %d : tensor<1x8x8x4xf32>\n}\n")

# (b) Other shapes: a stride-2 conv and a 1x1 conv (direct, im2col), a
# depthwise conv (direct only), a 3x3 stride-1 conv (all four), a residual.
SHAPES = (
    "func.func @shapes(%x: tensor<1x8x8x4xf32>) -> tensor<1x4x4x8xf32> {\n"
    + _const("w1", "0.25", "8x3x3x4xf32") + _const("w2", "0.125", "8x1x1x8xf32")
    + _const("wd", "0.5", "3x3x8x1xf32") + _const("w3", "0.25", "8x3x3x8xf32") + _const("b", "0.5", "8xf32")
    + _const("z", "0.0", "1xf32")
    + _conv("s", "conv2d", "x", "w1", "b", "1x8x8x4xf32", "8x3x3x4xf32", "8xf32", "1x4x4x8xf32",
            pad="0, 1, 0, 1", stride="2, 2")
    + _conv("p", "conv2d", "s", "w2", "b", "1x4x4x8xf32", "8x1x1x8xf32", "8xf32", "1x4x4x8xf32",
            pad="0, 0, 0, 0")
    + _conv("d", "depthwise_conv2d", "p", "wd", "b", "1x4x4x8xf32", "3x3x8x1xf32", "8xf32", "1x4x4x8xf32")
    + _conv("t", "conv2d", "d", "w3", "b", "1x4x4x8xf32", "8x3x3x8xf32", "8xf32", "1x4x4x8xf32")
    + "  %e = tosa.add %s, %t : (tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>\n"
    + "  return %e : tensor<1x4x4x8xf32>\n}\n")

_RESCALE = ("  %{r} = tosa.rescale %{x}, %m, %sh, %zp32, %zp {{scale32 = true, rounding_mode = SINGLE_ROUND, "
            "per_channel = false, input_unsigned = false, output_unsigned = false}} : (tensor<{t}xi32>, "
            "tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<{t}xi8>\n")

# (c) int8: a 3x3 conv with input zero point -3 (direct, dot, im2col), a
# depthwise conv (direct, dot), a 1x1 conv (direct, dot, im2col), each
# requantized; with fuse-requantization each conv is tiled into its rescale.
INT8 = (
    "func.func @int8(%x: tensor<1x8x8x4xi8>) -> tensor<1x8x8x8xi8> {\n"
    + _const("w1", "3", "8x3x3x4xi8") + _const("wd", "2", "3x3x8x1xi8") + _const("w2", "1", "8x1x1x8xi8")
    + _const("b", "7", "8xi32") + _const("zp", "0", "1xi8") + _const("izp", "-3", "1xi8")
    + _const("zp32", "0", "1xi32") + _const("m", "1073741824", "1xi32") + _const("sh", "38", "1xi8")
    + _conv("c1", "conv2d", "x", "w1", "b", "1x8x8x4xi8", "8x3x3x4xi8", "8xi32", "1x8x8x8xi32",
            zp="%izp", wzp="%zp", zpt="1xi8", acc="i32")
    + _RESCALE.format(r="r1", x="c1", t="1x8x8x8")
    + _conv("c2", "depthwise_conv2d", "r1", "wd", "b", "1x8x8x8xi8", "3x3x8x1xi8", "8xi32", "1x8x8x8xi32",
            zp="%zp", zpt="1xi8", acc="i32")
    + _RESCALE.format(r="r2", x="c2", t="1x8x8x8")
    + _conv("c3", "conv2d", "r2", "w2", "b", "1x8x8x8xi8", "8x1x1x8xi8", "8xi32", "1x8x8x8xi32",
            pad="0, 0, 0, 0", zp="%zp", zpt="1xi8", acc="i32")
    + _RESCALE.format(r="r3", x="c3", t="1x8x8x8")
    + "  %k = tosa.clamp %r3 {min_val = -100 : i8, max_val = 100 : i8} : (tensor<1x8x8x8xi8>) -> "
      "tensor<1x8x8x8xi8>\n"
    + "  return %k : tensor<1x8x8x8xi8>\n}\n")

# (d) int8: two convs (3x3 padded, 1x1) summed in i32 and requantized,
# then a depthwise conv; with fuse-requantization both convs are tiled into
# the rescale's loop: one layer whose choices are the 9 pairs.
INT8_SUM = (
    "func.func @int8_sum(%x: tensor<1x8x8x4xi8>, %y: tensor<1x8x8x4xi8>) -> tensor<1x8x8x4xi8> {\n"
    + _const("w1", "3", "4x3x3x4xi8") + _const("w2", "1", "4x1x1x4xi8") + _const("wd", "2", "3x3x4x1xi8")
    + _const("b", "7", "4xi32") + _const("zp", "0", "1xi8") + _const("zp32", "0", "1xi32")
    + _const("m", "1073741824", "1xi32") + _const("sh", "38", "1xi8")
    + _conv("c1", "conv2d", "x", "w1", "b", "1x8x8x4xi8", "4x3x3x4xi8", "4xi32", "1x8x8x4xi32",
            zp="%zp", zpt="1xi8", acc="i32")
    + _conv("c2", "conv2d", "y", "w2", "b", "1x8x8x4xi8", "4x1x1x4xi8", "4xi32", "1x8x8x4xi32",
            pad="0, 0, 0, 0", zp="%zp", zpt="1xi8", acc="i32")
    + "  %s = tosa.add %c1, %c2 : (tensor<1x8x8x4xi32>, tensor<1x8x8x4xi32>) -> tensor<1x8x8x4xi32>\n"
    + _RESCALE.format(r="r", x="s", t="1x8x8x4")
    + _conv("d", "depthwise_conv2d", "r", "wd", "b", "1x8x8x4xi8", "3x3x4x1xi8", "4xi32", "1x8x8x4xi32",
            zp="%zp", zpt="1xi8", acc="i32")
    + _RESCALE.format(r="q", x="d", t="1x8x8x4")
    + "  return %q : tensor<1x8x8x4xi8>\n}\n")

# (e) f32 with fuse-requantization: a padded 3x3 conv tiled per pixel into
# its cast to int8; computed whole (Winograd, vector) its f32 result is a
# buffer (the group splits): the choice's bytes come from the model rebuilt
# with the choice.
CONV_CAST = (
    "func.func @conv_cast(%x: tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xi8> {\n"
    + _const("w", "0.25", "4x3x3x4xf32") + _const("b", "0.5", "4xf32") + _const("z", "0.0", "1xf32")
    + _conv("a", "conv2d", "x", "w", "b", "1x8x8x4xf32", "4x3x3x4xf32", "4xf32", "1x8x8x4xf32")
    + "  %r = tosa.cast %a : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xi8>\n"
    + "  return %r : tensor<1x8x8x4xi8>\n}\n")

# (f) f32 with fuse-requantization: two padded 3x3 convs summed (one fused
# layer of two convs), then a 1x1 conv.
CONV_SUM = (
    "func.func @conv_sum(%x: tensor<1x8x8x4xf32>, %y: tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32> {\n"
    + _const("w", "0.25", "4x3x3x4xf32") + _const("w1", "0.5", "4x1x1x4xf32") + _const("b", "0.5", "4xf32")
    + _const("z", "0.0", "1xf32")
    + _conv("a", "conv2d", "x", "w", "b", "1x8x8x4xf32", "4x3x3x4xf32", "4xf32", "1x8x8x4xf32")
    + _conv("c", "conv2d", "y", "w", "b", "1x8x8x4xf32", "4x3x3x4xf32", "4xf32", "1x8x8x4xf32")
    + "  %s = tosa.add %a, %c : (tensor<1x8x8x4xf32>, tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>\n"
    + _conv("d", "conv2d", "s", "w1", "b", "1x8x8x4xf32", "4x1x1x4xf32", "4xf32", "1x8x8x4xf32",
            pad="0, 0, 0, 0")
    + "  return %d : tensor<1x8x8x4xf32>\n}\n")

# name -> (network, memory-model options given to both the memory report
# and the selection, the number of layers the selection should see).
CASES = {
    "residual": (RESIDUAL, "", 4),
    "shapes": (SHAPES, "", 4),
    "int8": (INT8, "", 3),
    "int8-fused": (INT8, "fuse-requantization=true", 3),
    "int8-sum-fused": (INT8_SUM, "fuse-requantization=true", 2),
    "residual-fused": (RESIDUAL, "fuse-requantization=true", 4),
    "conv-cast-fused": (CONV_CAST, "fuse-requantization=true", 1),
    "conv-sum-fused": (CONV_SUM, "fuse-requantization=true", 2),
}

# (seed, times, drop). Times are integers (sums are exact; different sums
# differ by far more than GLPK's tolerance): "random" in [1, 1000];
# "tradeoff" a per-shape weight times a per-primitive factor (the primitives
# with more workspace faster, as measured) with 20 % noise, so that the
# frontier has several points; "ties" in [1, 4]. With drop, some primitives
# of some shapes are missing from the profile (never all of a shape's): the
# choices using them are unavailable.
SEEDS = [(1, "random", False), (2, "random", True), (3, "tradeoff", False), (4, "tradeoff", False),
         (5, "tradeoff", True), (6, "ties", False), (7, "ties", True)]
FACTORS = {"direct": 10, "vector": 7, "dot": 6, "im2col": 5, "winograd2": 4, "winograd4": 3}

CONV_LINE = re.compile(
    r"tosa\.(conv2d|depthwise_conv2d) [^{]*\{([^}]*)\} : \(tensor<([^>]*)>, tensor<([^>]*)>, [^)]*\) -> "
    r"tensor<([^>]*)>")
CONV_ATTRS = re.compile(r"(tosa\.(?:depthwise_)?conv2d [^{]*\{)")
TAG = re.compile(r"#serenity\.primitive<(\w+)>")
DUMP = re.compile(r"^// -----// IR Dump After .*$", re.M)


def shape_keys(text):
    """getConvShapeKey of every convolution of `text`, in text order."""
    keys = []
    for kind, attrs, x, w, y in CONV_LINE.findall(text):
        def array(name):
            return re.search(name + r" = array<i64: ([^>]*)>", attrs).group(1).replace(" ", "")
        keys.append("%s %s %s %s s%s d%s p%s" % ("depthwise" if kind == "depthwise_conv2d" else "conv2d", x, w, y,
                                                  array("stride").replace(",", "x"),
                                                  array("dilation").replace(",", "x"), array("pad")))
    return keys


# The primitives expected_primitives knows; kernels may list newer ones (they
# are enumerated like the others).
KNOWN = ("direct", "dot", "im2col", "winograd2", "winograd4", "vector")


def expected_primitives(key):
    """isApplicable of the KNOWN primitives, restated for these networks'
    convolutions."""
    kind, x, w, y, stride, dilation, _ = key.split(" + ")[0].split(" ")
    int8 = x.endswith("xi8") and w.endswith("xi8") and y.endswith("xi32")
    f32 = x.endswith("xf32") and w.endswith("xf32") and y.endswith("xf32")
    window = w.split("x")[1:3]
    primitives = ["direct"]
    if int8:
        primitives.append("dot")
    if kind == "conv2d":
        primitives.append("im2col")
        if f32 and window == ["3", "3"] and stride == "s1x1" and dilation == "d1x1":
            primitives += ["winograd2", "winograd4"]
    # vector: f32, depthwise with one channel per group (these networks'
    # filters are constants).
    if f32 and (kind == "conv2d" or w.split("x")[3] == "1"):
        primitives.append("vector")
    return primitives


def tag(text, combination):
    """`text` with its convolutions tagged, in text order."""
    chosen = iter(combination)
    tagged, count = CONV_ATTRS.subn(
        lambda m: m.group(1) + "serenity.primitive = #serenity.primitive<%s>, " % next(chosen), text)
    assert count == len(combination)
    return tagged


def tags(ir):
    """The primitive of every convolution of `ir`, in order (None: no tag)."""
    result = []
    for line in ir.splitlines():
        if re.search(r"tosa\.(conv2d|depthwise_conv2d) ", line):
            m = TAG.search(line)
            result.append(m.group(1) if m else None)
    return tuple(result)


def json_documents(text):
    decoder = json.JSONDecoder()
    documents, at = [], 0
    while True:
        while at < len(text) and text[at].isspace():
            at += 1
        if at == len(text):
            return documents
        document, at = decoder.raw_decode(text, at)
        documents.append(document)


def run(tool, args):
    proc = subprocess.run([tool] + args, capture_output=True, text=True, timeout=300)
    return proc.returncode, proc.stdout, proc.stderr


def pareto(points):
    """By increasing peak, the (peak, time) points strictly faster than every
    smaller peak (equal times: the smaller peak)."""
    frontier = []
    for peak, time in sorted(points):
        if not frontier or time < frontier[-1][1]:
            frontier.append((peak, time))
    return frontier


def report_combination(function):
    """The per-convolution primitives of a report's "chosen" layers."""
    return tuple(p for layer in function["layers"] for p in layer["chosen"].split("+"))


@pytest.fixture(scope="module")
def tool(serenity_opt):
    if not SerenityOpt(serenity_opt).has_pass("serenity-select-primitives"):
        pytest.skip("this serenity-opt has no --serenity-select-primitives")
    return serenity_opt


class Case:
    """A network, its combinations with their enumerated peaks, and the
    selection's runs for each seed."""

    def __init__(self, name, tool, work):
        self.name, self.tool, self.work = name, tool, work
        self.text, self.model, self.layer_count = CASES[name]
        self.path = os.path.join(work, "net.mlir")
        with open(self.path, "w") as f:
            f.write(self.text)
        kernels_path = os.path.join(work, "kernels.json")
        code, _, err = run(tool, [self.path, "--serenity-select-primitives=kernels=%s %s" % (kernels_path, self.model),
                                  "-o", os.devnull])
        assert code == 0, err
        with open(kernels_path) as f:
            self.kernels = {k["key"]: k for k in json.load(f)["kernels"]}
        # A kernel's key is its shape key, plus " + ops" for the pointwise
        # ops fused into its loop under fuse-requantization.
        self.keys = []
        for shape in shape_keys(self.text):
            (key,) = [k for k in self.kernels if k == shape or k.startswith(shape + " + ")]
            self.keys.append(key)
        self.combinations = list(itertools.product(
            *[self.kernels[key]["primitives"] if key in self.kernels else ["direct"] for key in self.keys]))
        # Every combination's peak: one serenity-opt run over all of them.
        split = os.path.join(work, "combinations.mlir")
        with open(split, "w") as f:
            f.write("\n// -----\n".join(tag(self.text, c) for c in self.combinations))
        code, out, err = run(tool, [split, "--split-input-file",
                                    "--serenity-memory-report=format=json " + self.model, "-o", os.devnull])
        assert code == 0, err
        reports = json_documents(out)
        assert len(reports) == len(self.combinations)
        self.peaks = {c: r["functions"][0]["peak_bytes"] for c, r in zip(self.combinations, reports)}
        self.seeds = {}

    def profile(self, seed, kind, drop):
        """Writes the seed's profile; returns its path and times."""
        rng = random.Random(seed)
        times = {}
        for key in sorted(self.kernels):
            primitives = self.kernels[key]["primitives"]
            kept = [p for p in primitives if not (drop and rng.random() < 0.4)] or [rng.choice(primitives)]
            weight = rng.randint(20, 200)
            if kind == "tradeoff":
                times[key] = {p: round(weight * FACTORS.get(p, 8) * rng.uniform(0.8, 1.2)) for p in kept}
            else:
                times[key] = {p: rng.randint(1, 1000 if kind == "random" else 4) for p in kept}
        path = os.path.join(self.work, "profile-%d.json" % seed)
        with open(path, "w") as f:
            json.dump({"unit": "ns", "target": "host", "times": times}, f)
        return path, times

    def time(self, times, combination):
        """The profile's time of `combination` (None: a primitive is missing)."""
        total = 0
        for key, primitive in zip(self.keys, combination):
            if primitive not in times[key]:
                return None
            total += times[key][primitive]
        return total

    def select(self, runs, profile, name):
        """Runs the selections with the options `runs` one after the other
        in one serenity-opt (each instance of the pass replaces the tags of
        the one before); returns, per run, (exit code, the primitives it
        chose, stderr, its report): on a failure no choice and no report."""
        reports = [os.path.join(self.work, "report-%s-%d.json" % (name, i)) for i in range(len(runs))]
        passes = ",".join("serenity-select-primitives{profile=%s report=%s %s %s}" % (profile, report, options,
                                                                                    self.model)
                          for options, report in zip(runs, reports))
        code, _, err = run(self.tool, [self.path, "--pass-pipeline=builtin.module(%s)" % passes,
                                       "--mlir-print-ir-after=serenity-select-primitives", "-o", os.devnull])
        if code != 0:
            return [(code, None, err, None)] * len(runs)
        dumps = DUMP.split(err)[1:]
        assert len(dumps) == len(runs), err
        results = []
        for dump, report in zip(dumps, reports):
            with open(report) as f:
                results.append((code, tags(dump), err, json.load(f)))
        return results


@pytest.fixture(scope="module", params=sorted(CASES))
def case(request, tool, tmp_path_factory):
    """The case with, for every seed, the selection's result at each byte
    budget ("bytes", B) and each time budget ("time", T): the feasible ones
    in one serenity-opt per seed, each infeasible one alone."""
    case = Case(request.param, tool, str(tmp_path_factory.mktemp("select-" + request.param)))
    jobs = []
    for seed, kind, drop in SEEDS:
        profile, times = case.profile(seed, kind, drop)
        available = {c: case.time(times, c) for c in case.combinations if case.time(times, c) is not None}
        peaks = sorted({case.peaks[c] for c in available})
        budgets = [None, peaks[0] - 1] + peaks + [(a + b) // 2 for a, b in zip(peaks, peaks[1:]) if b - a > 1] \
            + [peaks[-1] + 1000]
        frontier_times = [t for _, t in pareto((case.peaks[c], t) for c, t in available.items())]
        least_time = min(available.values())
        time_budgets = sorted(set(frontier_times) | {t + 0.5 for t in frontier_times}) + [least_time - 0.5]
        case.seeds[seed] = dict(times=times, available=available, budgets=budgets, time_budgets=time_budgets,
                                runs={})
        runs = [(("bytes", b), "" if b is None else "budget-bytes=%d" % b) for b in budgets] \
            + [(("time", t), "objective=memory budget-time=%r" % t) for t in time_budgets]
        feasible = [r for r in runs if (r[0][0] == "bytes" and (r[0][1] is None or r[0][1] >= peaks[0]))
                    or (r[0][0] == "time" and r[0][1] >= least_time)]
        jobs.append((seed, feasible, profile, "%d" % seed))
        jobs += [(seed, [r], profile, "%d-%d" % (seed, i)) for i, r in enumerate(runs) if r not in feasible]
    with ThreadPoolExecutor(max_workers=JOBS) as pool:
        results = list(pool.map(lambda job: case.select([options for _, options in job[1]], job[2], job[3]), jobs))
    for (seed, runs, _, _), result in zip(jobs, results):
        for (budget, _), one in zip(runs, result):
            case.seeds[seed]["runs"][budget] = one
    return case


def test_kernels_list_every_shape_with_its_primitives(case):
    assert set(case.kernels) == set(case.keys)
    for key in case.keys:
        listed = case.kernels[key]["primitives"]
        assert [p for p in listed if p in KNOWN] == expected_primitives(key), key
    assert len(case.combinations) == len(set(case.combinations)) > 1
    # The memory model counts the workspaces: some combination costs more
    # than direct everywhere.
    direct = tuple("direct" for _ in case.keys)
    assert max(case.peaks.values()) > case.peaks[direct]


def test_report_predicts_every_combination(case):
    """The report's layers (live bytes at each step, workspaces, times) give
    each combination the peak the memory model enumerates and its time."""
    for seed, data in case.seeds.items():
        code, _, err, report = data["runs"][("bytes", None)]
        assert code == 0, err
        (function,) = report["functions"]
        layers = function["layers"]
        assert len(layers) == case.layer_count
        assert [k for layer in layers for k in layer["convs"]] == case.keys
        for combination in case.combinations:
            at, peak, time = 0, function["other_peak"], 0
            for layer in layers:
                part = "+".join(combination[at:at + len(layer["convs"])])
                at += len(layer["convs"])
                (choice,) = [c for c in layer["choices"] if c["primitives"] == part]
                peak = max(peak, layer["base"] + choice["bytes"])
                time = None if time is None or choice["time"] is None else time + choice["time"]
            assert peak == case.peaks[combination], (seed, combination)
            expected = data["available"].get(combination)
            assert (time is None) == (expected is None), (seed, combination)
            if expected is not None:
                assert time == pytest.approx(expected, rel=REL), (seed, combination)


def test_least_time_within_each_byte_budget(case):
    checked = 0
    for seed, data in case.seeds.items():
        available = data["available"]
        least_peak = min(case.peaks[c] for c in available)
        least_time = min(available.values())
        for budget in data["budgets"]:
            code, chosen, err, report = data["runs"][("bytes", budget)]
            within = [t for c, t in available.items() if budget is None or case.peaks[c] <= budget]
            context = (case.name, seed, budget)
            if not within:
                assert code != 0, context
                assert ("budget-bytes=%d is below the least achievable peak, %d bytes" % (budget, least_peak)) \
                    in err, (context, err)
                continue
            assert code == 0, (context, err)
            (function,) = report["functions"]
            assert chosen == report_combination(function), context
            assert chosen in available, (context, chosen)
            peak, time = case.peaks[chosen], available[chosen]
            assert budget is None or peak <= budget, (context, chosen, peak)
            assert time == pytest.approx(min(within), rel=REL), (context, chosen, time, min(within))
            assert function["peak"] == peak and function["time"] == pytest.approx(time, rel=REL), context
            assert function["optimal"] is True
            assert function["least_peak"] == least_peak, context
            assert function["least_time"] == pytest.approx(least_time, rel=REL), context
            checked += 1
    assert checked >= 3 * len(SEEDS)


def test_least_peak_within_each_time_budget(case):
    for seed, data in case.seeds.items():
        available = data["available"]
        for budget in data["time_budgets"]:
            code, chosen, err, report = data["runs"][("time", budget)]
            context = (case.name, seed, budget)
            fast = [(case.peaks[c], t) for c, t in available.items() if t <= budget]
            if not fast:
                assert code != 0, context
                m = re.search(r"budget-time=(\S+) is below the least achievable time, (\S+) ns", err)
                assert m, (context, err)
                assert float(m.group(1)) == budget, (context, err)
                assert float(m.group(2)) == pytest.approx(min(available.values()), rel=REL), (context, err)
                continue
            assert code == 0, (context, err)
            (function,) = report["functions"]
            assert chosen == report_combination(function), context
            assert chosen in available, (context, chosen)
            least = min(fast)
            assert (case.peaks[chosen], available[chosen]) == (least[0], pytest.approx(least[1], rel=REL)), \
                (context, chosen)
            assert function["peak"] == least[0] and function["time"] == pytest.approx(least[1], rel=REL)
            assert function["optimal"] is True


def test_frontier_is_the_enumerated_pareto_frontier(case):
    for seed, data in case.seeds.items():
        expected = pareto((case.peaks[c], t) for c, t in data["available"].items())
        for budget, (code, _, err, report) in data["runs"].items():
            if code != 0:
                continue
            (function,) = report["functions"]
            frontier = function["frontier"]
            context = (case.name, seed, budget)
            assert [p["peak"] for p in frontier] == [p for p, _ in expected], (context, frontier, expected)
            assert [p["time"] for p in frontier] == pytest.approx([t for _, t in expected], rel=REL), context
            for point in frontier:
                combination = tuple(p for layer in point["choice"] for p in layer.split("+"))
                assert (case.peaks[combination], data["available"].get(combination)) == \
                    (point["peak"], pytest.approx(point["time"], rel=REL)), (context, point)
