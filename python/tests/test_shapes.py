"""Op counts and shapes of generated networks against hand-derived values."""

import networkx as nx
import pytest

from serenity.networks import generate
from serenity.networks.darts import load_genotype, parse_genotypes

from mlir_text import Function, type_shape


def fn(name, **kw):
    return Function(generate(name, **kw))


def test_parse_genotypes_reads_aliases_and_fields():
    text = ("from collections import namedtuple\n"
            "Genotype = namedtuple('Genotype', 'normal normal_concat reduce reduce_concat')\n"
            "A = Genotype(normal=[('sep_conv_3x3', 1), ('skip_connect', 0)], normal_concat=[2],"
            " reduce=[('max_pool_3x3', 0), ('avg_pool_3x3', 1)], reduce_concat=[2])\nB = A\n")
    g = parse_genotypes(text)
    assert set(g) == {"A", "B"}
    assert g["B"].normal == [("sep_conv_3x3", 1), ("skip_connect", 0)]
    assert g["A"].reduce_concat == [2]


def test_darts_v2_genotype():
    g = load_genotype("DARTS_V2")
    assert len(g.normal) == 8 and len(g.reduce) == 8
    assert g.normal[7] == ("dil_conv_3x3", 2)
    assert load_genotype("DARTS").normal == g.normal


def test_builtin_genotypes_equal_the_darts_repository_text(have_shared):
    """The package's genotypes are the ones of the DARTS repository's
    cnn/genotypes.py (the verbatim text in ../shared/models/darts)."""
    from serenity.networks.darts import BUILTIN_GENOTYPES, default_genotype_file
    with open(default_genotype_file()) as f:
        shared = parse_genotypes(f.read())
    builtin = parse_genotypes(BUILTIN_GENOTYPES)
    assert set(builtin) == set(shared)
    for name in shared:
        assert vars(builtin[name]) == vars(shared[name]), name


def test_darts_normal_cell():
    # DARTS_V2 normal: preprocess 2 x (ReLU, 1x1 conv) = 4 ops (2 clamp, 2 conv);
    # node2 = sep(s0) + sep(s1): 2 x 6 + add = 13; node3 same = 13;
    # node4 = sep(s1) + skip(s0): 6 + 0 + add = 7; node5 = skip(s0) + dil(n2): 3 + add = 4;
    # concat of n2..n5 = 1.  Total 42.
    # sep_conv = clamp, dw, conv, clamp, dw, conv; dil_conv = clamp, dw, conv.
    # clamps: 2 + 5 sep x 2 + 1 dil = 13; depthwise: 5 x 2 + 1 = 11; conv2d: 2 + 5 x 2 + 1 = 13.
    f = fn("darts-normal", channels=36, resolution=32)
    assert len(f.scheduled) == 42
    assert f.op_counts() == {"tosa.clamp": 13, "tosa.depthwise_conv2d": 11, "tosa.conv2d": 13,
                             "tosa.add": 4, "tosa.concat": 1}
    assert [type_shape(t)[0] for _, t in f.args] == [(1, 32, 32, 144)] * 2
    assert type_shape(f.result_types[0])[0] == (1, 32, 32, 144)   # 4 nodes x C=36
    dil = [op for op in f.scheduled if op.name == "tosa.depthwise_conv2d"][-1]
    assert type_shape(dil.result_type)[0] == (1, 32, 32, 36)


def test_darts_reduction_cell():
    # DARTS_V2 reduce: preprocess 4; node2 = max(s0) + max(s1) -> 2 pools + add;
    # node3 = skip(n2) (identity) + max(s1) -> 1 + add; node4 = max(s0) + skip(n2) -> 1 + add;
    # node5 = skip(n2) + max(s1) -> 1 + add; concat 1.  Total 4 + 3 + 2 + 2 + 2 + 1 = 14.
    f = fn("darts-reduction", channels=16, resolution=16)
    assert len(f.scheduled) == 14
    assert f.op_counts() == {"tosa.clamp": 2, "tosa.conv2d": 2, "tosa.max_pool2d": 5,
                             "tosa.add": 4, "tosa.concat": 1}
    assert type_shape(f.result_types[0])[0] == (1, 8, 8, 64)


def test_darts_stack():
    # 5 cells: reductions at 5 // 3 = 1 and 2 * 5 // 3 = 3.  Cells after a reduction
    # (2 and 4) use FactorizedReduce for input 0: ReLU, crop slice, conv s2, shift
    # slice, conv s2, concat = 6 ops instead of 2.  Normal cells: 42, reduction: 14.
    # Stem conv 1 + cells 42 + 14 + (42 + 4) + 14 + (42 + 4) + pool, fc conv, reshape 3 = 166.
    f = fn("darts-stack", channels=8, resolution=16, cells=5)
    assert len(f.scheduled) == 1 + 42 + 14 + 46 + 14 + 46 + 3
    assert f.op_counts()["tosa.slice"] == 4
    assert type_shape(f.result_types[0])[0] == (1, 10)
    # Channels double at each reduction: C=8 -> 16 -> 32, cell output 4C = 128 at 4x4.
    pool = [op for op in f.scheduled if op.name == "tosa.avg_pool2d"][-1]
    assert type_shape(pool.result_type)[0] == (1, 1, 1, 128)


@pytest.mark.parametrize("seed", [0, 1, 5])
def test_randwire_stage(seed):
    # WS(32, 4, 0.75) has 32 * 4 / 2 = 64 edges (rewiring keeps the count).
    # Node with d > 0 inputs: d - 1 adds + clamp, dw, pw; source: clamp, dw, pw.
    # Output: (sinks - 1) adds + 1 mul.  ops = 3N + (E - (N - S)) + sinks = 2N + E + S + sinks.
    g = nx.connected_watts_strogatz_graph(32, 4, 0.75, tries=200, seed=seed)
    preds = {n: [m for m in g.neighbors(n) if m < n] for n in g}
    succs = {n: [m for m in g.neighbors(n) if m > n] for n in g}
    sources = sum(1 for n in g if not preds[n])
    sinks = sum(1 for n in g if not succs[n])
    assert g.number_of_edges() == 64
    f = fn("randwire-stage", channels=24, resolution=16, seed=seed)
    assert len(f.scheduled) == 2 * 32 + 64 + sources + sinks
    counts = f.op_counts()
    assert counts["tosa.depthwise_conv2d"] == 32 and counts["tosa.conv2d"] == 32
    assert counts["tosa.add"] == (64 - (32 - sources)) + (sinks - 1)
    assert counts["tosa.mul"] == (1 if sinks > 1 else 0)
    # Sources read the 16x16 input with stride 2: every node is 8x8 x C.
    assert type_shape(f.result_types[0])[0] == (1, 8, 8, 24)
    strided = [op for op in f.scheduled if op.name == "tosa.depthwise_conv2d"
               and type_shape(op.result_type)[0] == (1, 8, 8, 24)]
    assert len(strided) == 32


def test_randwire_small_regime():
    # conv1 (C/2, s2) + clamp, conv2 (C, s2), 3 stages, classifier:
    # clamp, 1x1 conv 1280, clamp, avg pool, fc conv, reshape.
    f = fn("randwire", channels=16, resolution=64, seed=2)
    stage_ops = 0
    for i in range(3):
        g = nx.connected_watts_strogatz_graph(32, 4, 0.75, tries=200, seed=2 + i)
        s = sum(1 for n in g if not any(m < n for m in g.neighbors(n)))
        k = sum(1 for n in g if not any(m > n for m in g.neighbors(n)))
        stage_ops += 2 * 32 + 64 + s + k
    assert len(f.scheduled) == 3 + stage_ops + 6
    # 64 -> 32 (conv1) -> 16 (conv2) -> 8, 4, 2 (stages), widths C, 2C, 4C.
    convs = [type_shape(op.result_type)[0] for op in f.scheduled if op.name == "tosa.conv2d"]
    assert convs[0] == (1, 32, 32, 8) and convs[1] == (1, 16, 16, 16)
    assert (1, 2, 2, 64) in convs and (1, 2, 2, 1280) in convs
    assert type_shape(f.result_types[0])[0] == (1, 1000)


def test_mobilenetv2():
    # Stem conv + relu6 = 2.  17 inverted residual blocks: the first (t=1) is
    # dw, relu6, project = 3; the other 16 are expand, relu6, dw, relu6, project = 5;
    # residual adds where stride 1 and in == out: repeats of 24 (1), 32 (2), 64 (3),
    # 96 (2), 160 (2) = 10.  Head: conv 1280 + relu6, pool, fc conv, reshape = 5.
    # 2 + 3 + 80 + 10 + 5 = 100.
    f = fn("mobilenetv2")
    assert len(f.scheduled) == 100
    c = f.op_counts()
    assert c["tosa.add"] == 10
    assert c["tosa.depthwise_conv2d"] == 17
    assert c["tosa.conv2d"] == 1 + 16 + 17 + 1 + 1
    dws = [type_shape(op.result_type)[0] for op in f.scheduled if op.name == "tosa.depthwise_conv2d"]
    # 224 -> 112 (stem); strides 2 at the first block of 24, 32, 64, 160.
    assert dws[0] == (1, 112, 112, 32)
    assert dws[1] == (1, 56, 56, 96)      # expand 16 x 6, stride 2
    assert dws[-1] == (1, 7, 7, 960)      # expand 160 x 6
    assert type_shape(f.result_types[0])[0] == (1, 1000)


def test_resnet8():
    # stem conv + relu 2; stack1: conv, relu, conv, add, relu = 5;
    # stacks 2 and 3: conv s2, relu, conv, crop slice + 1x1 s2 shortcut, add, relu = 7
    # (a 1x1 stride-2 conv on an even size never reads the last row/column: TOSA
    # needs it cropped); pool, fc conv, reshape 3.  2 + 5 + 7 + 7 + 3 = 24.
    f = fn("resnet8")
    assert len(f.scheduled) == 24
    c = f.op_counts()
    assert c["tosa.conv2d"] == 1 + 2 + 3 + 3 + 1
    assert c["tosa.add"] == 3 and c["tosa.slice"] == 2
    convs = [type_shape(op.result_type)[0] for op in f.scheduled if op.name == "tosa.conv2d"]
    assert convs[:3] == [(1, 32, 32, 16)] * 3
    assert (1, 16, 16, 32) in convs and (1, 8, 8, 64) in convs
    pool = [op for op in f.scheduled if op.name == "tosa.avg_pool2d"][0]
    assert type_shape(pool.result_type)[0] == (1, 1, 1, 64)
    assert type_shape(f.result_types[0])[0] == (1, 10)


def test_mlperf_tiny_shapes():
    # VWW: 96 -> 48 (conv1) -> strides 2 in layers 2, 4, 6, 12 -> 3x3x256; 2 + 13 x 4 + 3 = 57 ops.
    v = fn("vww")
    assert len(v.scheduled) == 57 and type_shape(v.result_types[0])[0] == (1, 2)
    # KWS: 49x10 -> conv 10x4 s2 'same' -> 25x5x64; pool (24, 5) reads 24 rows: crop + pool.
    k = fn("kws-dscnn")
    assert type_shape(k.args[0][1])[0] == (1, 49, 10, 1)
    assert len(k.scheduled) == 2 + 16 + 2 + 2
    # FC autoencoder: reshape, 10 dense (conv), 9 ReLU, reshape.
    a = fn("fc-autoencoder")
    assert a.op_counts() == {"tosa.reshape": 2, "tosa.conv2d": 10, "tosa.clamp": 9}
    widths = [type_shape(op.result_type)[0][3] for op in a.scheduled if op.name == "tosa.conv2d"]
    assert widths == [128, 128, 128, 128, 8, 128, 128, 128, 128, 640]


def test_i8_convs_are_rescaled():
    f = fn("resnet8", dtype="i8")
    c = f.op_counts()
    # Every conv2d produces i32 and is followed by a rescale; each add rescales
    # both inputs and its i32 sum (3 rescales per add).
    assert c["tosa.rescale"] == c["tosa.conv2d"] + 3 * c["tosa.add"]
    assert type_shape(f.result_types[0])[1] == "i8"
