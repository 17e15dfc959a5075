"""Depthwise and 1x1 convolutions computed over their own input (serenity-in-place-convs).

A DS-CNN (the MLPerf Tiny KWS model) is a chain of 3x3 depthwise and 1x1 convolutions
whose inputs and results all have one shape: any two of them need input + result, and
fused tiling cannot help (a region's input and result are whole tensors too). Written
over its input, a depthwise conv needs one channel block's scratch copy, a 1x1 conv one
pixel's (TinyEngine's in-place depthwise convolution). Each network here runs through
serenity-pipeline (in place, the default) and through the upstream reference lowering
on three seeds: int8 bit for bit, float32 within 1e-5. The arenas with and without the
option show what it saves, and the memory model's peak equals the arena.
Execution on QEMU (Cortex-M4 and M55): test/Integration/pipeline/in-place-convs.mlir.
"""

import os
import re

import numpy as np
import pytest

from serenity.tflite import check
from serenity.tflite.importer import import_model
from serenity.tflite.schema import load_model
from serenity.tflite.testmodels.composite import Graph


def ds_cnn(channels, seed=50, act=3):
    """A stride-2 conv to `channels` channels, then two depthwise (3x3 SAME) + 1x1
    pairs at that width, average pooling and a classifier: the KWS structure."""
    g = Graph(seed)
    x = g.t([1, 13, 9, 1], q=(0.5, 83))
    a = g.conv(x, channels, 3, 2, 0, 1, (0.05, -128))
    for _ in range(2):
        d = g.conv(a, 0, 3, 1, 0, act, (0.04, -128), depthwise=True)
        a = g.conv(d, channels, 1, 1, 0, 1, (0.05, -128))
    h, w = g.shape(a)[1:3]
    p = g.t([1, 1, 1, channels], q=(0.05, -128))
    g.m.op("AVERAGE_POOL_2D", [a], [p], "Pool2DOptions",
           {0: ("i8", 1), 1: ("i32", 1), 2: ("i32", 1), 3: ("i32", w), 4: ("i32", h), 5: ("i8", 0)})
    shape = g.m.const("shape", np.array([1, channels]), "int32")
    r = g.unary("RESHAPE", p, (0.05, -128), shape=[1, channels], extra=(shape,))
    out = g.fc(r, 4, (0.1, 0))
    g.m.inputs, g.m.outputs = [x], [out]
    return g.m


def depthwise_read_twice():
    """A depthwise conv whose input a residual ADD reads too: it must not be overwritten."""
    g = Graph(51)
    x = g.t([1, 6, 5, 4], q=(0.05, -3))
    a = g.conv(x, 4, 1, 1, 0, 0, (0.05, 2))
    d = g.conv(a, 0, 3, 1, 0, 0, (0.05, 2), depthwise=True)
    s = g.t([1, 6, 5, 4], q=(0.07, -1))
    g.m.op("ADD", [a, d], [s], "AddOptions", {0: ("i8", 0)})
    g.m.inputs, g.m.outputs = [x], [s]
    return g.m


def float_depthwise_chain():
    """float32: a 1x1 expansion (2 -> 5 channels), a depthwise conv with RELU, a 1x1
    projection to one channel."""
    g = Graph(52)
    rs = g.rs
    x = g.t([1, 7, 6, 2], "float32")

    def conv(name, inp, wshape, op, options, fields, channels=5):
        w = g.m.const("w" + name, rs.uniform(-1, 1, size=wshape).astype(np.float32), "float32")
        b = g.m.const("b" + name, rs.uniform(-1, 1, size=wshape[-1 if op == "DEPTHWISE_CONV_2D" else 0])
                      .astype(np.float32), "float32")
        y = g.t([1, 7, 6, channels], "float32")
        g.m.op(op, [inp, w, b], [y], options, fields)
        return y

    a = conv("a", x, (5, 1, 1, 2), "CONV_2D", "Conv2DOptions",
             {0: ("i8", 0), 1: ("i32", 1), 2: ("i32", 1), 3: ("i8", 1)})
    d = conv("d", a, (1, 3, 3, 5), "DEPTHWISE_CONV_2D", "DepthwiseConv2DOptions",
             {0: ("i8", 0), 1: ("i32", 1), 2: ("i32", 1), 3: ("i32", 1), 4: ("i8", 1)})
    e = conv("e", d, (1, 1, 1, 5), "CONV_2D", "Conv2DOptions",
             {0: ("i8", 0), 1: ("i32", 1), 2: ("i32", 1), 3: ("i8", 1)}, channels=1)
    g.m.inputs, g.m.outputs = [x], [e]
    return g.m


CASES = {
    # channel blocks of 4, 3 (6 channels) and 1 (5: a prime), RELU6 and no activation
    "ds_cnn_c8": lambda: ds_cnn(8),
    "ds_cnn_c6": lambda: ds_cnn(6, seed=53, act=0),
    "ds_cnn_c5": lambda: ds_cnn(5, seed=54),
    "depthwise_read_twice": depthwise_read_twice,
    "float_depthwise_chain": float_depthwise_chain,
}


def _inputs(model, seed):
    return check.seeded_or_float_inputs(model, seed)


def _arena(text, options):
    return check.lower_with_pipeline(text, options)[3]


@pytest.mark.parametrize("name", sorted(CASES))
def test_in_place_convs_keep_the_results(name):
    model = load_model(CASES[name]().finish())
    text = import_model(model)
    sg = model.subgraphs[0]
    floats = sg.tensors[sg.inputs[0]].type == 0
    batches = [_inputs(model, seed) for seed in (0, 1, 2)]
    want = check.run_mlir(text, batches, floats)
    for options in ("", "tile-channels=4"):
        got = check.run_pipeline(text, batches, options)
        for b, outs in enumerate(got):
            for w, o in zip(want[b], outs):
                if floats:
                    np.testing.assert_allclose(o, w, rtol=1e-5, atol=1e-6)
                else:
                    assert np.array_equal(w, o), f"{options} batch {b}: {np.count_nonzero(w != o)} differ"


def _peaks(text, options):
    """The pipeline's scheduled peak (memory model) and arena lower bound."""
    lowered = check.lower_with_pipeline(text, options)[0]
    peak = int(re.search(r"peak_bytes = (\d+)", lowered).group(1))
    bound = int(re.search(r"serenity.arena_lower_bound = (\d+)", lowered).group(1))
    return peak, bound


@pytest.mark.parametrize("name,saves", [("ds_cnn_c8", True), ("ds_cnn_c5", True),
                                        ("float_depthwise_chain", True),
                                        ("depthwise_read_twice", False)])
def test_in_place_convs_save_what_the_model_counts(name, saves):
    """In place the arena is smaller (the depthwise and 1x1 results no longer sit next to
    their inputs), and the memory model's peak is the arena's lower bound either way."""
    text = import_model(load_model(CASES[name]().finish()))
    for target in ("host", "cortex-m"):
        on = _peaks(text, f"io=arena tile=none target={target}")
        off = _peaks(text, f"io=arena tile=none target={target} in-place-convs=0")
        assert on[0] == on[1] and off[0] == off[1], (on, off)
        assert (on[1] < off[1]) == saves, (on, off)
