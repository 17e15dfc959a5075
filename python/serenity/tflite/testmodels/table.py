"""Test models of the table operators (see lib/Target/TFLite/TableOps.cpp): unary functions (int8 ones are
one tosa.table each, so the larger models draw most of the 256 int8 inputs), LOG_SOFTMAX and
L2_NORMALIZATION."""

from . import model
from .common import T, single_op


def unary(op, shape, inp, out, options_type=None, opts=None):
    return single_op(op, [T(shape, **inp)], [T(shape, **out)], options_type, opts)


def q(scale, zp):
    return dict(dtype="int8", scale=scale, zp=zp)


FLOAT = dict(dtype="float32")


# ------------------------------------------------------------------ LOGISTIC
@model("table", "logistic_int8")
def logistic_int8():
    return unary("LOGISTIC", [1, 8, 32], q(0.0625, -3), q(1.0 / 256, -128))


@model("table", "logistic_int8_saturating")
def logistic_int8_saturating():
    # Scale 0.17: |x| >= 15.9 saturates (TFLite Micro's input radius) within int8.
    return unary("LOGISTIC", [2, 5, 7], q(0.17, 100), q(1.0 / 256, -128))


@model("table", "logistic_int8_fine")
def logistic_int8_fine():
    return unary("LOGISTIC", [4, 30], q(0.0021, -128), q(1.0 / 256, -128))


@model("table", "logistic_float", refs_args=["--float-range=-20,20"])
def logistic_float():
    return unary("LOGISTIC", [3, 40], FLOAT, FLOAT)


# ---------------------------------------------------------------------- TANH
@model("table", "tanh_int8")
def tanh_int8():
    return unary("TANH", [1, 8, 32], q(0.03, 5), q(1.0 / 128, 0))


@model("table", "tanh_int8_saturating")
def tanh_int8_saturating():
    return unary("TANH", [3, 33], q(0.12, -128), q(1.0 / 128, 0))


@model("table", "tanh_int8_other_output_quantization")
def tanh_int8_other_output_quantization():
    # TFLite Micro's int8 TANH reads no output parameters (scale 1/128, zero point 0 assumed).
    return unary("TANH", [2, 50], q(0.011, -17), q(0.01, 7))


@model("table", "tanh_float", refs_args=["--float-range=-6,6"])
def tanh_float():
    return unary("TANH", [3, 40], FLOAT, FLOAT)


# ---------------------------------------------------------------- HARD_SWISH
@model("table", "hard_swish_int8")
def hard_swish_int8():
    # Input scale 0.05: the reluish multiplier has a positive exponent.
    return unary("HARD_SWISH", [1, 8, 32], q(0.05, -10), q(0.03, -100))


@model("table", "hard_swish_int8_small_scale")
def hard_swish_int8_small_scale():
    # Input scale 0.002: negative reluish exponent.
    return unary("HARD_SWISH", [2, 60], q(0.002, 127), q(0.0013, 20))


@model("table", "hard_swish_int8_mid_scale")
def hard_swish_int8_mid_scale():
    # Input scale 0.008: reluish exponent 0; output zero point -128.
    return unary("HARD_SWISH", [4, 25], q(0.008, 0), q(0.0079, -128))


@model("table", "hard_swish_float", refs_args=["--float-range=-5,5"])
def hard_swish_float():
    return unary("HARD_SWISH", [3, 40], FLOAT, FLOAT)


# ---------------------------------------------------------------------- RELU
@model("table", "relu_int8")
def relu_int8():
    return unary("RELU", [1, 8, 32], q(0.05, -7), q(0.03, -128))


@model("table", "relu_int8_same_quantization")
def relu_int8_same_quantization():
    return unary("RELU", [2, 40], q(0.1, 20), q(0.1, 20))


@model("table", "relu_int8_saturating")
def relu_int8_saturating():
    return unary("RELU", [2, 40], q(0.2, -128), q(0.05, 10))


@model("table", "relu_float")
def relu_float():
    return unary("RELU", [3, 20], FLOAT, FLOAT)


# --------------------------------------------------------------------- RELU6
@model("table", "relu6_int8")
def relu6_int8():
    # 6 / 0.04 = 150: the upper bound saturates to 127.
    return unary("RELU6", [2, 50], q(0.04, -20), q(0.04, -20))


@model("table", "relu6_int8_inner")
def relu6_int8_inner():
    return unary("RELU6", [2, 50], q(0.03, -100), q(0.03, -100))


@model("table", "relu6_float", refs_args=["--float-range=-8,8"])
def relu6_float():
    return unary("RELU6", [3, 20], FLOAT, FLOAT)


# ---------------------------------------------------------------- LEAKY_RELU
def leaky(shape, inp, out, alpha):
    return unary("LEAKY_RELU", shape, inp, out, "LeakyReluOptions", {0: ("f32", alpha)})


@model("table", "leaky_relu_int8")
def leaky_relu_int8():
    return leaky([1, 8, 32], q(0.05, 3), q(0.04, -20), 0.2)


@model("table", "leaky_relu_int8_negative_alpha")
def leaky_relu_int8_negative_alpha():
    return leaky([2, 50], q(0.07, -30), q(0.06, 0), -0.5)


@model("table", "leaky_relu_int8_alpha_above_one")
def leaky_relu_int8_alpha_above_one():
    return leaky([2, 50], q(0.02, 60), q(0.05, -128), 1.7)


@model("table", "leaky_relu_float", refs_args=["--float-range=-4,4"])
def leaky_relu_float():
    return leaky([3, 20], FLOAT, FLOAT, 0.1)


# --------------------------------------------------------------------- RSQRT
# TFLite Micro fails Invoke on an input below the zero point: inputs from there up.
@model("table", "rsqrt_int8", refs_args=["--range=0=-128,127"])
def rsqrt_int8():
    return unary("RSQRT", [1, 8, 32], q(0.05, -128), q(0.02, -100))


@model("table", "rsqrt_int8_small_scale", refs_args=["--range=0=-20,127"])
def rsqrt_int8_small_scale():
    return unary("RSQRT", [2, 50], q(0.003, -20), q(0.1, 0))


@model("table", "rsqrt_int8_large_scale", refs_args=["--range=0=10,127"])
def rsqrt_int8_large_scale():
    return unary("RSQRT", [2, 50], q(0.9, 10), q(0.004, -128))


@model("table", "rsqrt_float", refs_args=["--float-range=0.05,9"])
def rsqrt_float():
    return unary("RSQRT", [3, 20], FLOAT, FLOAT)


# ----------------------------------------------------------------------- EXP
@model("table", "exp_float", refs_args=["--float-range=-5,5"])
def exp_float():
    return unary("EXP", [3, 20], FLOAT, FLOAT)


# ---------------------------------------------------------- L2_NORMALIZATION
def l2norm(shape, inp, out):
    return unary("L2_NORMALIZATION", shape, inp, out, "L2NormOptions", {0: ("i8", 0)})


@model("table", "l2_normalization_int8")
def l2_normalization_int8():
    return l2norm([1, 4, 3, 16], q(0.05, 3), q(1.0 / 128, 0))


@model("table", "l2_normalization_int8_long_rows")
def l2_normalization_int8_long_rows():
    # Rows of 100: sums of squares up to 6.5e6 (the inverse square root's right shifts).
    return l2norm([3, 100], q(0.1, -128), q(1.0 / 128, 0))


@model("table", "l2_normalization_int8_short_rows", refs_args=["--spread=2"])
def l2_normalization_int8_short_rows():
    # Rows of 2; seed 10 within 2 of the zero point: sums of squares of 0 and 1 (TFLite
    # Micro's special case) and below 8 (a negative shift moved into the multiplier).
    return l2norm([40, 2], q(0.02, -5), q(1.0 / 128, 0))


@model("table", "l2_normalization_float", refs_args=["--float-range=-3,3"])
def l2_normalization_float():
    return l2norm([2, 3, 10], FLOAT, FLOAT)


# --------------------------------------------------------------- LOG_SOFTMAX
# TFLite Micro's int8 LOG_SOFTMAX requires output scale 16/256 and zero point 127.
@model("table", "log_softmax_int8")
def log_softmax_int8():
    return unary("LOG_SOFTMAX", [4, 10], q(0.1, -5), q(16.0 / 256, 127))


@model("table", "log_softmax_int8_wide_rows")
def log_softmax_int8_wide_rows():
    # Large input scale: most differences fall below diff_min.
    return unary("LOG_SOFTMAX", [2, 3, 33], q(0.37, 20), q(16.0 / 256, 127))


@model("table", "log_softmax_int8_fine")
def log_softmax_int8_fine():
    # Small input scale: every difference contributes; rows of 100 sum to ~2^26.
    return unary("LOG_SOFTMAX", [3, 100], q(0.011, -128), q(16.0 / 256, 127))


@model("table", "log_softmax_float", refs_args=["--float-range=-6,6"])
def log_softmax_float():
    return unary("LOG_SOFTMAX", [3, 2, 9], FLOAT, FLOAT)


# ------------------------------------------------- int16 RELU, RELU6, LEAKY_RELU
def q16(scale, zp=0):
    return dict(dtype="int16", scale=scale, zp=zp)


@model("table", "relu_int16")
def relu_int16():
    # TFLite Micro's int16 RELU requires zero points 0.
    return unary("RELU", [2, 40], q16(0.0011), q16(0.0007))


@model("table", "relu6_int16")
def relu6_int16():
    # 6 / 0.0004 = 15000 above the zero point.
    return unary("RELU6", [2, 40], q16(0.0004, 30), q16(0.0004, 30))


@model("table", "leaky_relu_int16")
def leaky_relu_int16():
    return leaky([2, 40], q16(0.0009, 0), q16(0.0012, 0), 0.3)


@model("table", "leaky_relu_int16_negative_alpha")
def leaky_relu_int16_negative_alpha():
    return leaky([2, 40], q16(0.002, 100), q16(0.0015, -50), -1.3)
