"""Import canonicalizations that keep tensors out of the arena, checked by running.

An explicit PAD read only by convolutions becomes their padding (no padded copy,
and nothing between the convolutions that fused tiling cannot cross). Each
network here is imported twice, folded (the default) and with every PAD kept
(``canonicalize=False``); both run through the reference lowering and through
``serenity-pipeline`` on the same inputs and must agree bit for bit. The folded
import against TensorFlow Lite Micro itself: ``conv_pad_transpose_fc_tanh`` in
test_tflite_ops.py and the zoo models (fomo_face_detection, id_model,
yolo_face_detect, sscma_fomo_float) in test_tflite_tflm.py.
"""

import os
import re

import numpy as np
import pytest

from serenity.tflite import check
from serenity.tflite.importer import import_model
from serenity.tflite.schema import load_model
from serenity.tflite.testmodels.composite import Graph

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _pads(g, rows):
    return g.m.const(f"pads{g.count}", np.array(rows), "int32")


def pad_then_strided_depthwise():
    """TF's 'same' for a stride-2 3x3 depthwise: PAD one row and column at the bottom
    and right with the zero point, then a VALID depthwise (FOMO, YOLO-face)."""
    g = Graph(41)
    x = g.t([1, 9, 10, 4], q=(0.05, -128))
    a = g.conv(x, 6, 1, 1, 0, 3, (0.04, -128))
    p = g.unary("PAD", a, (0.04, -128), shape=[1, 10, 11, 6], extra=(_pads(g, [[0, 0], [0, 1], [0, 1], [0, 0]]),))
    b = g.conv(p, 0, 3, 2, 1, 3, (0.03, -128), depthwise=True)
    c = g.conv(b, 5, 1, 1, 0, 0, (0.06, 3))
    g.m.inputs, g.m.outputs = [x], [c]
    return g.m


def pad_read_by_two_convs_same():
    """A PAD (top/left 2, bottom/right 1, zero point -9) read by two convolutions, one with
    SAME padding of its own on top (the pads add up), one VALID with stride 2."""
    g = Graph(42)
    x = g.t([1, 7, 7, 3], q=(0.05, -9))
    p = g.unary("PAD", x, (0.05, -9), shape=[1, 10, 10, 3], extra=(_pads(g, [[0, 0], [2, 1], [2, 1], [0, 0]]),))
    a = g.conv(p, 4, 3, 1, 0, 0, (0.05, 1))
    b = g.conv(p, 4, 3, 2, 1, 0, (0.05, 1))
    g.m.inputs, g.m.outputs = [x], [a, b]
    return g.m


def padv2_not_the_zero_point():
    """PADV2 with a value that is not the zero point: its padding is real data and stays."""
    g = Graph(43)
    x = g.t([1, 5, 5, 2], q=(0.05, 3))
    cv = g.m.const("cv", np.array([40]), "int8", scale=0.05, zero_point=3)
    p = g.unary("PADV2", x, (0.05, 3), shape=[1, 7, 7, 2],
                extra=(_pads(g, [[0, 0], [1, 1], [1, 1], [0, 0]]), cv))
    a = g.conv(p, 3, 3, 1, 1, 0, (0.05, 0))
    g.m.inputs, g.m.outputs = [x], [a]
    return g.m


def pad_also_read_by_add():
    """A PAD whose output an ADD reads as well: the padded tensor must exist."""
    g = Graph(44)
    x = g.t([1, 4, 4, 2], q=(0.05, 3))
    p = g.unary("PAD", x, (0.05, 3), shape=[1, 6, 6, 2], extra=(_pads(g, [[0, 0], [1, 1], [1, 1], [0, 0]]),))
    a = g.conv(p, 2, 3, 1, 0, 0, (0.05, 3))
    s = g.t([1, 6, 6, 2], q=(0.06, 0))
    g.m.op("ADD", [p, a], [s], "AddOptions", {0: ("i8", 0)})
    g.m.inputs, g.m.outputs = [x], [s]
    return g.m


def float_pad_then_conv():
    """A float32 model: PAD with 0.0, then a VALID stride-2 convolution (sscma FOMO)."""
    g = Graph(45)
    rs = g.rs
    x = g.t([1, 8, 8, 3], "float32")
    p = g.unary("PAD", x, None, shape=[1, 10, 10, 3], dtype="float32",
                extra=(_pads(g, [[0, 0], [1, 1], [1, 1], [0, 0]]),))
    w = g.m.const("wf", rs.uniform(-1, 1, size=(4, 3, 3, 3)).astype(np.float32), "float32")
    bias = g.m.const("bf", rs.uniform(-1, 1, size=4).astype(np.float32), "float32")
    y = g.t([1, 4, 4, 4], "float32")
    g.m.op("CONV_2D", [p, w, bias], [y], "Conv2DOptions",
           {0: ("i8", 1), 1: ("i32", 2), 2: ("i32", 2), 3: ("i8", 1)})
    g.m.inputs, g.m.outputs = [x], [y]
    return g.m


def conv1d_then_pool_on_the_other_axis():
    """Keras Conv1D as TFLite writes it (HAR models): EXPAND_DIMS on axis 1, a 1xK
    CONV_2D, RESHAPE back to [N, T, C]; then EXPAND_DIMS on axis 2 and a Kx1 MAX_POOL_2D.
    Canonical: the reshape pairs cancel and the pool runs along W like the convolutions,
    so nothing stands between them (no tosa.reshape before the pool)."""
    g = Graph(46)
    x = g.t([1, 16, 3], q=(0.05, 2))

    def expand(v, axis, shape):
        return g.unary("EXPAND_DIMS", v, (g.scale(v), _zp(g, v)),
                       shape=shape, extra=(g.m.const(f"axis{g.count}", np.array([axis]), "int32"),))

    def squeeze(v, shape):
        return g.unary("RESHAPE", v, (g.scale(v), _zp(g, v)), shape=shape,
                       extra=(g.m.const(f"shape{g.count}", np.array(shape), "int32"),))

    a = expand(x, 1, [1, 1, 16, 3])
    a = _conv_1xk(g, a, 8, (1, 3), (0.05, -3))
    a = squeeze(a, [1, 14, 8])
    a = expand(a, 1, [1, 1, 14, 8])
    a = _conv_1xk(g, a, 8, (1, 3), (0.06, -1))
    a = squeeze(a, [1, 12, 8])
    p = expand(a, 2, [1, 12, 1, 8])
    pooled = g.unary("MAX_POOL_2D", p, (0.06, -1), shape=[1, 6, 1, 8], options_type="Pool2DOptions",
                     options={0: ("i8", 1), 1: ("i32", 1), 2: ("i32", 2), 3: ("i32", 1),
                              4: ("i32", 2), 5: ("i8", 1)})
    out = squeeze(pooled, [1, 48])
    g.m.inputs, g.m.outputs = [x], [out]
    return g.m


def _conv_1xk(g, x, oc, k, q):
    """A VALID CONV_2D with a [kh, kw] filter."""
    n, h, w, c = g.shape(x)
    scales = g.rs.uniform(0.004, 0.02, size=oc)
    wt = g.m.const(f"w{g.count}", g.rs.randint(-127, 128, size=(oc, k[0], k[1], c)), "int8",
                   scale=scales, zero_point=0, axis=0)
    bt = g.m.const(f"b{g.count}", g.rs.randint(-800, 800, size=oc), "int32",
                   scale=scales * g.scale(x), zero_point=0)
    y = g.t([n, h - k[0] + 1, w - k[1] + 1, oc], q=q)
    g.m.op("CONV_2D", [x, wt, bt], [y], "Conv2DOptions",
           {0: ("i8", 1), 1: ("i32", 1), 2: ("i32", 1), 3: ("i8", 1)})
    return y


def _zp(g, v):
    return int(g.m.tensors[v]["quant"][1][0])


# name -> (builder, PADs folded)
CASES = {
    "pad_then_strided_depthwise": (pad_then_strided_depthwise, True),
    "pad_read_by_two_convs_same": (pad_read_by_two_convs_same, True),
    "padv2_not_the_zero_point": (padv2_not_the_zero_point, False),
    "pad_also_read_by_add": (pad_also_read_by_add, False),
    "float_pad_then_conv": (float_pad_then_conv, True),
}
# name -> (builder, reshapes before the pool when canonical)
LAYOUT_CASES = {
    "conv1d_then_pool_on_the_other_axis": (conv1d_then_pool_on_the_other_axis, False),
}


def _inputs(model, seed):
    return check.seeded_or_float_inputs(model, seed)


@pytest.mark.parametrize("name", sorted(CASES))
def test_pad_folding_keeps_the_results(name):
    build, folds = CASES[name]
    model = load_model(build().finish())
    folded, kept = import_model(model), import_model(model, canonicalize=False)
    assert "tosa.pad" in kept
    assert ("tosa.pad" not in folded) == folds, folded
    _same_results(model, folded, kept)

def _live_reshapes(text):
    """tosa.reshape ops whose result something reads (superseded ones are dead
    until serenity-pipeline erases them)."""
    names = re.findall(r'(%\w+) = tosa\.reshape ', text)
    return sum(1 for n in names if len(re.findall(re.escape(n) + r'\b', text)) > 1)


def _same_results(model, first, second):
    """``first`` through the reference lowering and serenity-pipeline equals
    ``second`` through the reference lowering on three seeds: int8 bit for bit,
    float32 within 1e-5 (the same terms summed in the same order)."""
    sg = model.subgraphs[0]
    floats = sg.tensors[sg.inputs[0]].type == 0
    batches = [_inputs(model, seed) for seed in (0, 1, 2)]
    want = check.run_mlir(second, batches, floats)
    got = check.run_mlir(first, batches, floats) + check.run_pipeline(first, batches)
    for b, outs in enumerate(got):
        for w, o in zip(want[b % len(batches)], outs):
            assert w.shape == o.shape
            if floats:
                np.testing.assert_allclose(o, w, rtol=1e-5, atol=1e-6)
            else:
                assert np.array_equal(w, o), f"batch {b}: {np.count_nonzero(w != o)} differ"

@pytest.mark.parametrize("name", sorted(LAYOUT_CASES))
def test_layout_canonicalization_keeps_the_results(name):
    build, _ = LAYOUT_CASES[name]
    model = load_model(build().finish())
    canonical, literal = import_model(model), import_model(model, canonicalize=False)
    pool_input = re.search(r'tosa\.max_pool2d (%\w+)\b', canonical).group(1)
    # The pool reads the convolution chain's value itself, not a reshape of it.
    assert not re.search(re.escape(pool_input) + r' = tosa\.reshape ', canonical), canonical
    assert _live_reshapes(canonical) < _live_reshapes(literal)
    _same_results(model, canonical, literal)


@pytest.mark.parametrize("name", ["svdf_int16_state_rank2_b2_wrap", "svdf_int16_state_rank1_b1",
                                  "svdf_float_rank1_b1"])
def test_svdf_time_weights_keep_no_product_tensor(name):
    """SVDF's time weights: TFLite Micro sums state x weights per filter without
    storing the products; so does the import (tosa.matmul, i16 x i16 in i48 whose low
    32 bits are the int32 sum), where it once kept a [batch, filters, memory] i32/f32
    product tensor (4x an int16 state). Equality with TFLite Micro: test_tflite_ops.py's
    svdf group."""
    from serenity.tflite.schema import load_file
    path = os.path.join(ROOT, "test", "tflite-ops", "models", name + ".tflite")
    text = import_model(load_file(path))
    assert "tosa.matmul " in text
    assert not re.search(r'tosa\.mul .*tensor<\d+x\d+x\d+x(i32|f32)>.*\n.*tosa\.reduce_sum ', text)


def float_io_autoencoder():
    """An FC autoencoder with float input and output around its int8 body: QUANTIZE's and
    DEQUANTIZE's float steps are one loop each, so only the float tensor and its int8
    counterpart coexist (issue 47 saw 5760 B here, TFLite Micro 3200 B)."""
    g = Graph(60)
    x = g.t([1, 640], "float32")
    q = g.unary("QUANTIZE", x, (0.05, 3), dtype="int8")
    a = g.fc(q, 128, (0.05, -128))
    b = g.fc(a, 640, (0.06, 1))
    out = g.unary("DEQUANTIZE", b, None, dtype="float32")
    g.m.inputs, g.m.outputs = [x], [out]
    return g.m


@pytest.mark.parametrize("build", [float_io_autoencoder], ids=lambda b: b.__name__)
def test_arena_at_most_the_tflite_tensor_graph(build, tmp_path):
    """serenity-compile's arena (inputs and outputs in it) is at most the TFLite tensor
    graph's max-live (report.tflite_graph_peak: one buffer per tensor, what TFLite
    Micro's planner needs at least)."""
    import json
    import subprocess
    from serenity.tflite.report import tflite_graph_peak
    tool = os.path.join(os.environ.get("SERENITY_BUILD_DIR", os.path.join(ROOT, "build")), "bin",
                        "serenity-compile")
    if not os.path.exists(tool):
        pytest.skip("serenity-compile is not built (scripts/setup.sh)")
    data = build().finish()
    path = tmp_path / "m.tflite"
    path.write_bytes(data)
    proc = subprocess.run([tool, str(path), "--target", "cortex-m4", "-o", str(tmp_path / "out")],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    arena = json.loads((tmp_path / "out" / "net.json").read_text())["arena_bytes"]
    assert arena <= tflite_graph_peak(load_model(data)), arena
