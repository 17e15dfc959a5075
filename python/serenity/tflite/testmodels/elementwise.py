"""Test models of the elementwise operators (see lib/Target/TFLite/ElementwiseOps.cpp).

Per operator: int8 (same shape, broadcasting, a constant operand, extreme zero
points, fused activations), int16/int32 where TFLite Micro has a kernel, and
float32. Fused activation codes: 0 NONE, 1 RELU, 2 RELU_N1_TO_1, 3 RELU6.
"""

import numpy as np

from . import model
from .common import T, single_op, weights


def _binary(op, a, c, out, options_type=None, act=None):
    opts = None if act is None else {0: ("i8", act)}
    return single_op(op, [a, c], [out], options_type, opts)


def _floats(seed, shape, lo=-1.0, hi=1.0):
    return np.random.RandomState(seed).uniform(lo, hi, size=shape).astype(np.float32)


# ------------------------------------------------------------------ ADD
@model("elementwise", "add_bcast_int8_relu")
def add_bcast_int8_relu():
    return _binary("ADD", T([1, 3, 4, 5], scale=0.05, zp=-10), T([5], scale=0.11, zp=4),
                   T([1, 3, 4, 5], scale=0.07, zp=-20), "AddOptions", 1)


@model("elementwise", "add_bcast_int8_const_bias")
def add_bcast_int8_const_bias():
    bias = weights(11, (1, 3, 1))
    return _binary("ADD", T([2, 3, 4], scale=0.031, zp=-128),
                   T([1, 3, 1], data=bias, scale=0.0125, zp=127),
                   T([2, 3, 4], scale=0.045, zp=-128), "AddOptions", 0)


@model("elementwise", "add_bcast_int8_both_relu_n1")
def add_bcast_int8_both_relu_n1():
    # Both operands broadcast: [3, 1] + [1, 4] -> [3, 4].
    return _binary("ADD", T([3, 1], scale=0.02, zp=3), T([1, 4], scale=0.02, zp=-3),
                   T([3, 4], scale=0.01, zp=0), "AddOptions", 2)


@model("elementwise", "add_bcast_float_relu6")
def add_bcast_float_relu6():
    return _binary("ADD", T([2, 3, 4], "float32"), T([4], "float32"), T([2, 3, 4], "float32"),
                   "AddOptions", 3)


@model("elementwise", "add_bcast_float_rank5")
def add_bcast_float_rank5():
    return _binary("ADD", T([2, 1, 3, 1, 2], "float32"), T([4, 1], "float32"),
                   T([2, 1, 3, 4, 2], "float32"), "AddOptions", 0)


@model("elementwise", "add_int16")
def add_int16():
    return _binary("ADD", T([2, 8], "int16", scale=0.0003), T([1, 8], "int16", scale=0.0007),
                   T([2, 8], "int16", scale=0.0009), "AddOptions", 0)


@model("elementwise", "add_int32_bcast")
def add_int32_bcast():
    # TFLM's int32 ADD ignores the fused activation (RELU here).
    return _binary("ADD", T([3, 4], "int32"), T([1, 4], "int32"), T([3, 4], "int32"),
                   "AddOptions", 1)


# ------------------------------------------------------------------ SUB
@model("elementwise", "sub_int8_relu")
def sub_int8_relu():
    return _binary("SUB", T([2, 4, 5], scale=0.04, zp=-5), T([2, 4, 5], scale=0.09, zp=12),
                   T([2, 4, 5], scale=0.06, zp=-128), "SubOptions", 1)


@model("elementwise", "sub_bcast_int8_const")
def sub_bcast_int8_const():
    c = weights(12, (1, 1, 4))
    return _binary("SUB", T([1, 3, 4], scale=0.0173, zp=127), T([1, 1, 4], data=c, scale=0.0419,
                   zp=-128), T([1, 3, 4], scale=0.1, zp=127), "SubOptions", 0)


@model("elementwise", "sub_int16_relu6")
def sub_int16_relu6():
    return _binary("SUB", T([3, 6], "int16", scale=0.0005), T([3, 6], "int16", scale=0.0002),
                   T([3, 6], "int16", scale=0.0004), "SubOptions", 3)


@model("elementwise", "sub_int32_relu6")
def sub_int32_relu6():
    return _binary("SUB", T([2, 5], "int32"), T([5], "int32"), T([2, 5], "int32"),
                   "SubOptions", 3)


@model("elementwise", "sub_bcast_float_relu_n1")
def sub_bcast_float_relu_n1():
    return _binary("SUB", T([3, 1, 4], "float32"), T([2, 1], "float32"), T([3, 2, 4], "float32"),
                   "SubOptions", 2)


# ------------------------------------------------------------------ MUL
@model("elementwise", "mul_int8")
def mul_int8():
    return _binary("MUL", T([2, 3, 6], scale=0.02, zp=-3), T([2, 3, 6], scale=0.03, zp=5),
                   T([2, 3, 6], scale=0.05, zp=-1), "MulOptions", 0)


@model("elementwise", "mul_bcast_int8_const_relu6")
def mul_bcast_int8_const_relu6():
    c = weights(13, (3,))
    # Both operands <= 0 (zero points 127): products in [0, 6.5], RELU6 clamps the top.
    return _binary("MUL", T([1, 4, 4, 3], scale=0.01, zp=127), T([3], data=c, scale=0.01, zp=127),
                   T([1, 4, 4, 3], scale=0.03, zp=-128), "MulOptions", 3)


@model("elementwise", "mul_int8_scalar_const")
def mul_int8_scalar_const():
    # x * 0.5 with a rank-0 constant, as converters emit for scalar multiplications.
    return _binary("MUL", T([2, 5], scale=0.08, zp=-9), T([], data=np.array(64), scale=1.0 / 128,
                   zp=0), T([2, 5], scale=0.05, zp=3), "MulOptions", 0)


@model("elementwise", "mul_int8_scale_above_one_relu_n1")
def mul_int8_scale_above_one_relu_n1():
    # Real multiplier 0.1 * 0.137 / 0.01 = 1.37: a left shift in
    # MultiplyByQuantizedMultiplier (small products, near-zero-point seed, stay unsaturated).
    return _binary("MUL", T([4, 5], scale=0.1, zp=0), T([4, 5], scale=0.137, zp=-2),
                   T([4, 5], scale=0.01, zp=10), "MulOptions", 2)


@model("elementwise", "mul_int16")
def mul_int16():
    return _binary("MUL", T([3, 7], "int16", scale=0.001), T([3, 7], "int16", scale=0.002),
                   T([3, 7], "int16", scale=0.03), "MulOptions", 0)


@model("elementwise", "mul_int32_relu")
def mul_int32_relu():
    return _binary("MUL", T([3, 5], "int32"), T([5], "int32"), T([3, 5], "int32"), "MulOptions", 1)


@model("elementwise", "mul_bcast_float")
def mul_bcast_float():
    return _binary("MUL", T([2, 3, 4], "float32"), T([3, 1], "float32"), T([2, 3, 4], "float32"),
                   "MulOptions", 0)


# ------------------------------------------------------------------ DIV
@model("elementwise", "div_float_relu")
def div_float_relu():
    return _binary("DIV", T([3, 5], "float32"), T([3, 5], "float32"), T([3, 5], "float32"),
                   "DivOptions", 1)


@model("elementwise", "div_bcast_float_const")
def div_bcast_float_const():
    c = _floats(14, (4,), 0.5, 2.0) * np.array([1, -1, 1, -1], dtype=np.float32)
    return _binary("DIV", T([2, 3, 4], "float32"), T([4], "float32", data=c),
                   T([2, 3, 4], "float32"), "DivOptions", 0)


@model("elementwise", "div_int32", refs_args=["--range", "1=1,40"])
def div_int32():
    return _binary("DIV", T([2, 6], "int32"), T([1, 6], "int32"), T([2, 6], "int32"),
                   "DivOptions", 0)


@model("elementwise", "div_int8", refs_args=["--range=1=-128,-5"])
def div_int8():
    # Real multiplier 0.5 / (0.1 * 0.1) = 50 keeps TFLM's RoundingDivideByPOT
    # exponent <= 31 for every input; the divisor never equals its zero point.
    return _binary("DIV", T([3, 8], scale=0.5, zp=-3), T([3, 8], scale=0.1, zp=-4),
                   T([3, 8], scale=0.1, zp=6), "DivOptions", 0)


@model("elementwise", "div_bcast_int8_relu", refs_args=["--range", "1=4,6"])
def div_bcast_int8_relu():
    # Divisors q - zp in 1..3 (GetReciprocal's shift <= 1): the exponent stays
    # <= 31 with the real multiplier 0.05 / (0.5 * 0.1) = 1.
    return _binary("DIV", T([2, 3, 4], scale=0.05, zp=2), T([1, 4], scale=0.5, zp=3),
                   T([2, 3, 4], scale=0.1, zp=-9), "DivOptions", 1)


# ------------------------------------------------------- MINIMUM / MAXIMUM
@model("elementwise", "maximum_bcast_int8")
def maximum_bcast_int8():
    return _binary("MAXIMUM", T([2, 3, 4], scale=0.05, zp=-2), T([1, 4], scale=0.05, zp=-2),
                   T([2, 3, 4], scale=0.05, zp=-2))


@model("elementwise", "minimum_int8_const")
def minimum_int8_const():
    c = weights(15, (3, 5))
    return _binary("MINIMUM", T([3, 5], scale=0.1, zp=7), T([3, 5], data=c, scale=0.1, zp=7),
                   T([3, 5], scale=0.1, zp=7))


@model("elementwise", "maximum_int16")
def maximum_int16():
    return _binary("MAXIMUM", T([4, 6], "int16", scale=0.001), T([4, 6], "int16", scale=0.001),
                   T([4, 6], "int16", scale=0.001))


@model("elementwise", "minimum_bcast_int32")
def minimum_bcast_int32():
    return _binary("MINIMUM", T([3, 4], "int32"), T([4], "int32"), T([3, 4], "int32"))


@model("elementwise", "maximum_float")
def maximum_float():
    return _binary("MAXIMUM", T([2, 7], "float32"), T([2, 7], "float32"), T([2, 7], "float32"))


@model("elementwise", "minimum_bcast_float")
def minimum_bcast_float():
    return _binary("MINIMUM", T([2, 1, 3], "float32"), T([4, 1], "float32"),
                   T([2, 4, 3], "float32"))


# --------------------------------------------------- SQUARED_DIFFERENCE
@model("elementwise", "squared_difference_int8")
def squared_difference_int8():
    return _binary("SQUARED_DIFFERENCE", T([2, 4, 5], scale=0.02, zp=-4),
                   T([2, 4, 5], scale=0.03, zp=9), T([2, 4, 5], scale=0.05, zp=-128))


@model("elementwise", "squared_difference_bcast_int8_const")
def squared_difference_bcast_int8_const():
    c = weights(16, (1, 4))
    return _binary("SQUARED_DIFFERENCE", T([3, 4], scale=0.0078, zp=127),
                   T([1, 4], data=c, scale=0.0123, zp=-128), T([3, 4], scale=0.1, zp=-128))


@model("elementwise", "squared_difference_int16")
def squared_difference_int16():
    return _binary("SQUARED_DIFFERENCE", T([3, 5], "int16", scale=0.0004),
                   T([3, 5], "int16", scale=0.0003), T([3, 5], "int16", scale=0.05))


@model("elementwise", "squared_difference_int32")
def squared_difference_int32():
    return _binary("SQUARED_DIFFERENCE", T([2, 5], "int32"), T([2, 5], "int32"),
                   T([2, 5], "int32"))


@model("elementwise", "squared_difference_bcast_float")
def squared_difference_bcast_float():
    return _binary("SQUARED_DIFFERENCE", T([3, 4], "float32"), T([4], "float32"),
                   T([3, 4], "float32"))


# ---------------------------------------------------------------- PRELU
@model("elementwise", "prelu_int8_const_alpha")
def prelu_int8_const_alpha():
    alpha = weights(17, (1, 1, 3), lo=0, hi=127)
    return single_op("PRELU", [T([1, 4, 4, 3], scale=0.04, zp=-20),
                               T([1, 1, 3], data=alpha, scale=0.004, zp=-30)],
                     [T([1, 4, 4, 3], scale=0.03, zp=-40)])


@model("elementwise", "prelu_int8_alpha_input")
def prelu_int8_alpha_input():
    return single_op("PRELU", [T([2, 3, 5], scale=0.1, zp=0), T([2, 3, 5], scale=0.002, zp=-128)],
                     [T([2, 3, 5], scale=0.1, zp=-1)])


@model("elementwise", "prelu_int16")
def prelu_int16():
    alpha = weights(18, (4,))
    return single_op("PRELU", [T([3, 4], "int16", scale=0.0005),
                               T([4], data=alpha, scale=0.01, zp=2)],
                     [T([3, 4], "int16", scale=0.0007)])


@model("elementwise", "prelu_float")
def prelu_float():
    alpha = _floats(19, (1, 1, 3), 0.0, 0.5)
    return single_op("PRELU", [T([1, 2, 4, 3], "float32"), T([1, 1, 3], "float32", data=alpha)],
                     [T([1, 2, 4, 3], "float32")])


# ------------------------------------------------ QUANTIZE / DEQUANTIZE
@model("elementwise", "quantize_float_int8", refs_args=["--float-range=-8,8"])
def quantize_float_int8():
    # Saturates at both ends; scale 1/16 puts many values on exact halves.
    return single_op("QUANTIZE", [T([4, 16], "float32")], [T([4, 16], scale=0.0625, zp=-3)])


@model("elementwise", "quantize_float_int8_odd_scale", refs_args=["--float-range=-3,3"])
def quantize_float_int8_odd_scale():
    return single_op("QUANTIZE", [T([3, 10], "float32")], [T([3, 10], scale=0.0213, zp=17)])


@model("elementwise", "quantize_float_int16", refs_args=["--float-range=-2,2"])
def quantize_float_int16():
    return single_op("QUANTIZE", [T([2, 12], "float32")], [T([2, 12], "int16", scale=0.0001)])


@model("elementwise", "quantize_int8_int8")
def quantize_int8_int8():
    return single_op("QUANTIZE", [T([3, 9], scale=0.037, zp=-11)], [T([3, 9], scale=0.021, zp=40)])


@model("elementwise", "quantize_int8_int16")
def quantize_int8_int16():
    return single_op("QUANTIZE", [T([2, 8], scale=0.05, zp=-128)],
                     [T([2, 8], "int16", scale=0.0004)])


@model("elementwise", "quantize_int16_int8")
def quantize_int16_int8():
    return single_op("QUANTIZE", [T([2, 10], "int16", scale=0.0003)],
                     [T([2, 10], scale=0.05, zp=-6)])


@model("elementwise", "dequantize_int8")
def dequantize_int8():
    return single_op("DEQUANTIZE", [T([3, 11], scale=0.0371, zp=-17)], [T([3, 11], "float32")])


@model("elementwise", "dequantize_int16")
def dequantize_int16():
    return single_op("DEQUANTIZE", [T([2, 9], "int16", scale=0.00031)], [T([2, 9], "float32")])


# ---------------------------------------------------------------- CAST
@model("elementwise", "cast_int8_float32")
def cast_int8_float32():
    return single_op("CAST", [T([3, 7], "int8")], [T([3, 7], "float32")])


@model("elementwise", "cast_float32_int32", refs_args=["--float-range=-100,100"])
def cast_float32_int32():
    return single_op("CAST", [T([4, 6], "float32")], [T([4, 6], "int32")])


@model("elementwise", "cast_int32_int8", refs_args=["--range=0=-400,400"])
def cast_int32_int8():
    # static_cast<int8_t> wraps values outside [-128, 127].
    return single_op("CAST", [T([2, 10], "int32")], [T([2, 10], "int8")])


@model("elementwise", "cast_int16_int32")
def cast_int16_int32():
    return single_op("CAST", [T([2, 8], "int16")], [T([2, 8], "int32")])
