"""Import canonicalizations that keep tensors out of the arena, checked by running.

An explicit PAD read only by convolutions becomes their padding (no padded copy,
and nothing between the convolutions that fused tiling cannot cross). Each
network here is imported twice, folded (the default) and with every PAD kept
(``fold_pads=False``); both run through the reference lowering and through
``serenity-pipeline`` on the same inputs and must agree bit for bit. The folded
import against TensorFlow Lite Micro itself: ``conv_pad_transpose_fc_tanh`` in
test_tflite_ops.py and the zoo models (fomo_face_detection, id_model,
yolo_face_detect, sscma_fomo_float) in test_tflite_tflm.py.
"""

import numpy as np
import pytest

from serenity.tflite import check
from serenity.tflite.importer import import_model
from serenity.tflite.schema import load_model
from serenity.tflite.testmodels.composite import Graph


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


# name -> (builder, PADs folded)
CASES = {
    "pad_then_strided_depthwise": (pad_then_strided_depthwise, True),
    "pad_read_by_two_convs_same": (pad_read_by_two_convs_same, True),
    "padv2_not_the_zero_point": (padv2_not_the_zero_point, False),
    "pad_also_read_by_add": (pad_also_read_by_add, False),
    "float_pad_then_conv": (float_pad_then_conv, True),
}


def _inputs(model, seed):
    sg = model.subgraphs[0]
    if sg.tensors[sg.inputs[0]].type == 0:
        rng = np.random.default_rng(seed)
        return [rng.uniform(-1, 1, size=sg.tensors[i].shape).astype(np.float32) for i in sg.inputs]
    return check.seeded_inputs(model, seed)


@pytest.mark.parametrize("name", sorted(CASES))
def test_pad_folding_keeps_the_results(name):
    build, folds = CASES[name]
    model = load_model(build().finish())
    folded, kept = import_model(model), import_model(model, fold_pads=False)
    assert "tosa.pad" in kept
    assert ("tosa.pad" not in folded) == folds, folded
    floats = model.subgraphs[0].tensors[model.subgraphs[0].inputs[0]].type == 0
    batches = [_inputs(model, seed) for seed in (0, 1, 2)]
    want = check.run_mlir(kept, batches, floats)
    got = check.run_mlir(folded, batches, floats) + check.run_pipeline(folded, batches)
    for b, outs in enumerate(got):
        for w, o in zip(want[b % len(batches)], outs):
            assert w.shape == o.shape
            if floats:  # the same terms summed in the same order
                np.testing.assert_allclose(o, w, rtol=1e-5, atol=1e-6)
            else:
                assert np.array_equal(w, o), f"batch {b}: {np.count_nonzero(w != o)} differ"
