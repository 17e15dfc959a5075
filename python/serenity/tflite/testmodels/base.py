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
