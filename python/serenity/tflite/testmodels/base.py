"""The operators of the first import (conv, depthwise, fully connected, ADD,
average pool, reshape, softmax) in shapes the MLPerf Tiny models do not have."""

import numpy as np

from . import model
from .common import T, single_op, weights


@model("base", "fc_per_tensor_relu")
def fc_per_tensor_relu():
    # Per-tensor filter scale: TFLite Micro multiplies input and filter scales in float32.
    w = weights(1, (10, 24))
    b = np.random.RandomState(2).randint(-2000, 2000, size=10)
    return single_op("FULLY_CONNECTED",
                     [T([2, 24], scale=0.0731, zp=-7), T([10, 24], data=w, scale=0.00817),
                      T([10], "int32", data=b, scale=0.0731 * 0.00817)],
                     [T([2, 10], scale=0.1532, zp=-128)], "FullyConnectedOptions", {0: ("i8", 1)})


@model("base", "fc_per_tensor_nobias")
def fc_per_tensor_nobias():
    w = weights(3, (5, 16))
    return single_op("FULLY_CONNECTED",
                     [T([1, 16], scale=0.0213, zp=3), T([5, 16], data=w, scale=0.0371), None],
                     [T([1, 5], scale=0.0457, zp=11)], "FullyConnectedOptions", {0: ("i8", 0)})


@model("base", "fc_float")
def fc_float():
    w = np.random.RandomState(4).uniform(-1, 1, size=(6, 12)).astype(np.float32)
    b = np.random.RandomState(5).uniform(-1, 1, size=6).astype(np.float32)
    return single_op("FULLY_CONNECTED",
                     [T([3, 12], "float32"), T([6, 12], "float32", data=w),
                      T([6], "float32", data=b)],
                     [T([3, 6], "float32")], "FullyConnectedOptions", {0: ("i8", 3)})


@model("base", "add_relu6")
def add_relu6():
    return single_op("ADD", [T([1, 3, 5, 4], scale=0.05, zp=-10), T([1, 3, 5, 4], scale=0.11, zp=4)],
                     [T([1, 3, 5, 4], scale=0.04, zp=-128)], "AddOptions", {0: ("i8", 3)})


@model("base", "conv_per_channel_stride2_same_relu6")
def conv_per_channel_stride2_same_relu6():
    w = weights(6, (4, 3, 3, 3))
    b = np.random.RandomState(7).randint(-500, 500, size=4)
    scales = [0.011, 0.023, 0.0071, 0.019]
    return single_op("CONV_2D",
                     [T([1, 7, 6, 3], scale=0.04, zp=5), T([4, 3, 3, 3], data=w, scale=scales),
                      T([4], "int32", data=b, scale=[0.04 * s for s in scales])],
                     [T([1, 4, 3, 4], scale=0.09, zp=-20)], "Conv2DOptions",
                     {0: ("i8", 0), 1: ("i32", 2), 2: ("i32", 2), 3: ("i8", 3)})


@model("base", "depthwise_multiplier2_valid")
def depthwise_multiplier2_valid():
    w = weights(8, (1, 3, 3, 4))
    b = np.random.RandomState(9).randint(-300, 300, size=4)
    scales = [0.02, 0.013, 0.031, 0.008]
    return single_op("DEPTHWISE_CONV_2D",
                     [T([1, 5, 5, 2], scale=0.05, zp=-3), T([1, 3, 3, 4], data=w, scale=scales, axis=3),
                      T([4], "int32", data=b, scale=[0.05 * s for s in scales])],
                     [T([1, 3, 3, 4], scale=0.07, zp=9)], "DepthwiseConv2DOptions",
                     {0: ("i8", 1), 1: ("i32", 1), 2: ("i32", 1), 3: ("i32", 2), 4: ("i8", 0)})


@model("base", "average_pool_same")
def average_pool_same():
    return single_op("AVERAGE_POOL_2D", [T([1, 5, 5, 3], scale=0.1, zp=-4)],
                     [T([1, 3, 3, 3], scale=0.1, zp=-4)], "Pool2DOptions",
                     {0: ("i8", 0), 1: ("i32", 2), 2: ("i32", 2), 3: ("i32", 3), 4: ("i32", 3),
                      5: ("i8", 0)})


@model("base", "softmax_beta_half")
def softmax_beta_half():
    return single_op("SOFTMAX", [T([2, 10], scale=0.12, zp=3)],
                     [T([2, 10], scale=1.0 / 256, zp=-128)], "SoftmaxOptions", {0: ("f32", 0.5)})


@model("base", "softmax_float")
def softmax_float():
    return single_op("SOFTMAX", [T([3, 7], "float32")], [T([3, 7], "float32")],
                     "SoftmaxOptions", {0: ("f32", 1.0)}, )


@model("base", "reshape_softmax")
def reshape_softmax():
    from ..writer import ModelWriter
    m = ModelWriter()
    x = m.tensor("x", [1, 2, 2, 5], "int8", scale=0.2, zero_point=-1)
    shape = m.const("shape", np.array([4, 5]), "int32")
    r = m.tensor("r", [4, 5], "int8", scale=0.2, zero_point=-1)
    y = m.tensor("y", [4, 5], "int8", scale=1.0 / 256, zero_point=-128)
    m.op("RESHAPE", [x, shape], [r], "ReshapeOptions", {0: ("i32vec", [4, 5])})
    m.op("SOFTMAX", [r], [y], "SoftmaxOptions", {0: ("f32", 1.0)})
    m.inputs, m.outputs = [x], [y]
    return m


@model("base", "depthwise_one_channel_multiplier4_same")
def depthwise_one_channel_multiplier4_same():
    # One input channel (micro_speech's first layer): imported as a convolution.
    w = weights(10, (1, 3, 2, 4))
    b = np.random.RandomState(11).randint(-300, 300, size=4)
    scales = [0.021, 0.014, 0.03, 0.009]
    return single_op("DEPTHWISE_CONV_2D",
                     [T([1, 6, 5, 1], scale=0.06, zp=-128), T([1, 3, 2, 4], data=w, scale=scales, axis=3),
                      T([4], "int32", data=b, scale=[0.06 * s for s in scales])],
                     [T([1, 3, 3, 4], scale=0.05, zp=-128)], "DepthwiseConv2DOptions",
                     {0: ("i8", 0), 1: ("i32", 2), 2: ("i32", 2), 3: ("i32", 4), 4: ("i8", 1)})
