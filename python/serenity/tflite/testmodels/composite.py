"""Small networks of several operators, as users' models combine them: float
input and output around an int8 body (QUANTIZE ... DEQUANTIZE), a MobileNet-
style block, a YOLO-style head (LEAKY_RELU, MAX_POOL_2D, RESIZE_NEAREST_NEIGHBOR,
CONCATENATION, LOGISTIC), several inputs and outputs."""

import numpy as np

from . import model
from ..writer import ModelWriter


class Graph:
    """Builds an int8 (or float32) graph with random weights, layer by layer."""

    def __init__(self, seed: int):
        self.m = ModelWriter()
        self.rs = np.random.RandomState(seed)
        self.count = 0

    def t(self, shape, dtype="int8", q=None):
        self.count += 1
        scale, zp = q if q is not None else (None, None)
        return self.m.tensor(f"t{self.count}", shape, dtype, scale, zp)

    def shape(self, idx):
        return self.m.tensors[idx]["shape"]

    def scale(self, idx):
        return float(self.m.tensors[idx]["quant"][0][0])

    def conv(self, x, oc, k, stride, padding, act, q, depthwise=False):
        n, h, w, c = self.shape(x)
        oh = (h + stride - 1) // stride if padding == 0 else (h - k) // stride + 1
        ow = (w + stride - 1) // stride if padding == 0 else (w - k) // stride + 1
        cout = c if depthwise else oc
        wshape = (1, k, k, cout) if depthwise else (oc, k, k, c)
        scales = self.rs.uniform(0.004, 0.02, size=cout)
        wt = self.m.const(f"w{self.count}", self.rs.randint(-127, 128, size=wshape), "int8",
                          scale=scales, zero_point=0, axis=3 if depthwise else 0)
        bt = self.m.const(f"b{self.count}", self.rs.randint(-800, 800, size=cout), "int32",
                          scale=scales * self.scale(x), zero_point=0)
        y = self.t([n, oh, ow, cout], q=q)
        if depthwise:
            self.m.op("DEPTHWISE_CONV_2D", [x, wt, bt], [y], "DepthwiseConv2DOptions",
                      {0: ("i8", padding), 1: ("i32", stride), 2: ("i32", stride), 3: ("i32", 1),
                       4: ("i8", act)})
        else:
            self.m.op("CONV_2D", [x, wt, bt], [y], "Conv2DOptions",
                      {0: ("i8", padding), 1: ("i32", stride), 2: ("i32", stride), 3: ("i8", act)})
        return y

    def fc(self, x, oc, q):
        ic = self.shape(x)[-1]
        wt = self.m.const(f"w{self.count}", self.rs.randint(-127, 128, size=(oc, ic)), "int8",
                          scale=0.01, zero_point=0)
        bt = self.m.const(f"b{self.count}", self.rs.randint(-500, 500, size=oc), "int32",
                          scale=0.01 * self.scale(x), zero_point=0)
        y = self.t([1, oc], q=q)
        self.m.op("FULLY_CONNECTED", [x, wt, bt], [y], "FullyConnectedOptions", {0: ("i8", 0)})
        return y

    def unary(self, op, x, q, shape=None, dtype="int8", options_type=None, options=None,
              extra=()):
        y = self.t(shape or self.shape(x), dtype, q)
        self.m.op(op, [x, *extra], [y], options_type, options)
        return y


@model("composite", "mobilenet_block_float_io")
def mobilenet_block_float_io():
    g = Graph(21)
    x = g.t([1, 8, 8, 3], "float32")
    q = g.unary("QUANTIZE", x, (0.0078, -1), dtype="int8")
    a = g.conv(q, 8, 3, 2, 0, 3, (0.0235, -128))
    b = g.conv(a, 0, 3, 1, 0, 3, (0.0235, -128), depthwise=True)
    c = g.conv(b, 16, 1, 1, 0, 0, (0.06, 5))
    h = g.unary("HARD_SWISH", c, (0.04, -20))
    axes = g.m.const("axes", np.array([1, 2]), "int32")
    mean = g.unary("MEAN", h, (0.03, -18), shape=[1, 16], options_type="ReducerOptions",
                   options={0: ("bool", False)}, extra=(axes,))
    logits = g.fc(mean, 5, (0.1, 3))
    prob = g.unary("SOFTMAX", logits, (1.0 / 256, -128), options_type="SoftmaxOptions",
                   options={0: ("f32", 1.0)})
    out = g.unary("DEQUANTIZE", prob, None, dtype="float32")
    g.m.inputs, g.m.outputs = [x], [out]
    return g.m


@model("composite", "yolo_head_int8")
def yolo_head_int8():
    g = Graph(22)
    x = g.t([1, 8, 8, 4], q=(0.05, -3))
    a = g.conv(x, 8, 3, 1, 0, 0, (0.08, 2))
    leaky = g.unary("LEAKY_RELU", a, (0.05, -10), options_type="LeakyReluOptions",
                    options={0: ("f32", 0.1)})
    pool = g.unary("MAX_POOL_2D", leaky, (0.05, -10), shape=[1, 4, 4, 8],
                   options_type="Pool2DOptions",
                   options={0: ("i8", 0), 1: ("i32", 2), 2: ("i32", 2), 3: ("i32", 2),
                            4: ("i32", 2), 5: ("i8", 0)})
    b = g.conv(pool, 8, 1, 1, 0, 0, (0.05, -10))
    size = g.m.const("size", np.array([8, 8]), "int32")
    up = g.unary("RESIZE_NEAREST_NEIGHBOR", b, (0.05, -10), shape=[1, 8, 8, 8],
                 options_type="ResizeNearestNeighborOptions",
                 options={0: ("bool", False), 1: ("bool", False)}, extra=(size,))
    cat = g.t([1, 8, 8, 16], q=(0.05, -10))
    g.m.op("CONCATENATION", [leaky, up], [cat], "ConcatenationOptions",
           {0: ("i32", 3), 1: ("i8", 0)})
    c = g.conv(cat, 6, 1, 1, 0, 0, (0.1, 0))
    out = g.unary("LOGISTIC", c, (1.0 / 256, -128))
    g.m.inputs, g.m.outputs = [x], [out]
    return g.m


@model("composite", "two_inputs_two_outputs")
def two_inputs_two_outputs():
    g = Graph(23)
    a = g.t([1, 4, 4, 2], q=(0.03, 4))
    b = g.t([1, 4, 4, 2], q=(0.05, -7))
    prod = g.t([1, 4, 4, 2], q=(0.02, -1))
    g.m.op("MUL", [a, b], [prod], "MulOptions", {0: ("i8", 0)})
    s = g.t([1, 4, 4, 2], q=(0.06, 0))
    g.m.op("ADD", [a, b], [s], "AddOptions", {0: ("i8", 1)})
    pooled = g.unary("AVERAGE_POOL_2D", s, (0.06, 0), shape=[1, 2, 2, 2],
                     options_type="Pool2DOptions",
                     options={0: ("i8", 1), 1: ("i32", 2), 2: ("i32", 2), 3: ("i32", 2),
                              4: ("i32", 2), 5: ("i8", 0)})
    g.m.inputs, g.m.outputs = [a, b], [prod, pooled]
    return g.m


@model("composite", "conv_pad_transpose_fc_tanh")
def conv_pad_transpose_fc_tanh():
    g = Graph(24)
    x = g.t([1, 6, 6, 2], q=(0.04, 7))
    a = g.conv(x, 4, 3, 1, 1, 0, (0.05, -5))
    pads = g.m.const("pads", np.array([[0, 0], [1, 1], [1, 1], [0, 0]]), "int32")
    p = g.unary("PAD", a, (0.05, -5), shape=[1, 6, 6, 4], extra=(pads,))
    b = g.conv(p, 4, 3, 1, 1, 1, (0.05, -128))
    perm = g.m.const("perm", np.array([0, 3, 1, 2]), "int32")
    t = g.unary("TRANSPOSE", b, (0.05, -128), shape=[1, 4, 4, 4], extra=(perm,))
    shape = g.m.const("shape", np.array([1, 64]), "int32")
    r = g.unary("RESHAPE", t, (0.05, -128), shape=[1, 64], extra=(shape,))
    logits = g.fc(r, 3, (0.08, 0))
    out = g.unary("TANH", logits, (1.0 / 128, 0))
    g.m.inputs, g.m.outputs = [x], [out]
    return g.m


@model("composite", "tiled_chain_tables_slices")
def tiled_chain_tables_slices():
    """Large enough for fused tiling: tables, MUL/ADD by constants, MAX_POOL_2D
    and STRIDED_SLICE inside and after the tiled convolutions."""
    g = Graph(25)
    x = g.t([1, 24, 24, 4], q=(0.03, -2))
    a = g.conv(x, 8, 3, 1, 0, 0, (0.06, 1))
    s = g.unary("LOGISTIC", a, (1.0 / 256, -128))
    b = g.conv(s, 0, 3, 1, 0, 0, (0.02, -30), depthwise=True)
    h = g.unary("HARD_SWISH", b, (0.02, -30))
    c = g.conv(h, 8, 3, 2, 0, 3, (0.0235, -128))
    k = g.m.const("k", g.rs.randint(-128, 128, size=(1, 1, 1, 8)), "int8", scale=0.01,
                  zero_point=3)
    m = g.t([1, 12, 12, 8], q=(0.01, 0))
    g.m.op("MUL", [c, k], [m], "MulOptions", {0: ("i8", 0)})
    pool = g.unary("MAX_POOL_2D", m, (0.01, 0), shape=[1, 6, 6, 8], options_type="Pool2DOptions",
                   options={0: ("i8", 1), 1: ("i32", 2), 2: ("i32", 2), 3: ("i32", 2),
                            4: ("i32", 2), 5: ("i8", 0)})
    begin = g.m.const("begin", np.array([0, 1, 0, 2]), "int32")
    end = g.m.const("end", np.array([1, 6, 6, 8]), "int32")
    strides = g.m.const("strides", np.array([1, 2, 1, 1]), "int32")
    sl = g.t([1, 3, 6, 6], q=(0.01, 0))
    g.m.op("STRIDED_SLICE", [pool, begin, end, strides], [sl], "StridedSliceOptions", {})
    g.m.inputs, g.m.outputs = [x], [sl]
    return g.m


@model("composite", "audio_mean_argmax")
def audio_mean_argmax():
    g = Graph(26)
    x = g.t([1, 20, 10], q=(0.1, -128))
    axis = g.m.const("axis", np.array(3), "int32")
    e = g.unary("EXPAND_DIMS", x, (0.1, -128), shape=[1, 20, 10, 1], extra=(axis,))
    a = g.conv(e, 6, 3, 2, 0, 1, (0.07, -128))
    axes = g.m.const("axes", np.array([2]), "int32")
    mean = g.unary("MEAN", a, (0.07, -128), shape=[1, 10, 1, 6], options_type="ReducerOptions",
                   options={0: ("bool", True)}, extra=(axes,))
    sq = g.unary("SQUEEZE", mean, (0.07, -128), shape=[1, 10, 6], options_type="SqueezeOptions",
                 options={0: ("i32vec", [2])})
    shape = g.m.const("shape", np.array([1, 60]), "int32")
    flat = g.unary("RESHAPE", sq, (0.07, -128), shape=[1, 60], extra=(shape,))
    logits = g.fc(flat, 4, (0.2, 0))
    dim = g.m.const("dim", np.array([1]), "int32")
    out = g.unary("ARG_MAX", logits, None, shape=[1], dtype="int32", options_type="ArgMaxOptions",
                  options={0: ("i8", 2)}, extra=(dim,))
    g.m.inputs, g.m.outputs = [x], [logits, out]
    return g.m


@model("composite", "uint8_io_same_scale")
def uint8_io_same_scale():
    """uint8 input and output around an int8 body, as TFLite converters emit them:
    QUANTIZE uint8 -> int8 and int8 -> uint8 at one scale, zero points 128 apart
    (TFLite Micro's Requantize takes its XOR 0x80 fast path)."""
    g = Graph(70)
    x = g.t([1, 4, 4, 3], "uint8", q=(0.05, 128))
    q = g.unary("QUANTIZE", x, (0.05, 0), dtype="int8")
    a = g.conv(q, 4, 1, 1, 0, 0, (0.06, -3))
    out = g.unary("QUANTIZE", a, (0.06, 125), dtype="uint8")
    g.m.inputs, g.m.outputs = [x], [out]
    return g.m


@model("composite", "uint8_io_rescaled")
def uint8_io_rescaled():
    """uint8 edges that change scale and zero point (Requantize's multiplier, and
    its clamp to [0, 255] on the way out), a conv with RELU6 between them."""
    g = Graph(71)
    x = g.t([1, 5, 3, 4], "uint8", q=(0.02, 100))
    q = g.unary("QUANTIZE", x, (0.05, -7), dtype="int8")
    a = g.conv(q, 6, 3, 1, 0, 3, (0.03, -128))
    out = g.unary("QUANTIZE", a, (0.011, 7), dtype="uint8")
    g.m.inputs, g.m.outputs = [x], [out]
    return g.m
