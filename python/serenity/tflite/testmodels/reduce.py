"""Test models of the reduce operators (see lib/Target/TFLite/ReduceOps.cpp)."""

import numpy as np

from . import model
from .common import T, single_op, weights


def pool(padding, sw, sh, fw, fh, act):
    return {0: ("i8", padding), 1: ("i32", sw), 2: ("i32", sh), 3: ("i32", fw), 4: ("i32", fh),
            5: ("i8", act)}


SAME, VALID = 0, 1
NONE, RELU, RELU_N1_TO_1, RELU6 = 0, 1, 2, 3


# ------------------------------------------------------------------ MAX_POOL_2D
@model("reduce", "max_pool_float_same_s2")
def max_pool_float_same_s2():
    return single_op("MAX_POOL_2D", [T([1, 7, 6, 3], "float32")], [T([1, 4, 3, 3], "float32")],
                     "Pool2DOptions", pool(SAME, 2, 2, 3, 3, NONE))


@model("reduce", "max_pool_float_valid_relu6", refs_args=["--float-range=-4,8"])
def max_pool_float_valid_relu6():
    return single_op("MAX_POOL_2D", [T([2, 6, 5, 2], "float32")], [T([2, 3, 2, 2], "float32")],
                     "Pool2DOptions", pool(VALID, 2, 2, 2, 2, RELU6))


@model("reduce", "max_pool_int8_same_relu")
def max_pool_int8_same_relu():
    return single_op("MAX_POOL_2D", [T([1, 5, 5, 4], scale=0.05, zp=-10)],
                     [T([1, 5, 5, 4], scale=0.05, zp=-10)], "Pool2DOptions",
                     pool(SAME, 1, 1, 3, 2, RELU))


@model("reduce", "max_pool_int8_valid_strides_relu_n1")
def max_pool_int8_valid_strides_relu_n1():
    return single_op("MAX_POOL_2D", [T([1, 8, 9, 2], scale=0.02, zp=5)],
                     [T([1, 3, 3, 2], scale=0.02, zp=5)], "Pool2DOptions",
                     pool(VALID, 3, 2, 3, 3, RELU_N1_TO_1))


@model("reduce", "max_pool_int8_same_s2_zp127")
def max_pool_int8_same_s2_zp127():
    return single_op("MAX_POOL_2D", [T([1, 6, 7, 3], scale=0.11, zp=127)],
                     [T([1, 3, 4, 3], scale=0.11, zp=127)], "Pool2DOptions",
                     pool(SAME, 2, 2, 2, 2, NONE))


@model("reduce", "max_pool_int16")
def max_pool_int16():
    return single_op("MAX_POOL_2D", [T([1, 4, 6, 3], "int16", scale=0.001, zp=0)],
                     [T([1, 2, 3, 3], "int16", scale=0.001, zp=0)], "Pool2DOptions",
                     pool(VALID, 2, 2, 2, 2, RELU))


# ------------------------------------------------------------------ MEAN, SUM
def reducer(op, x, axes, out, keep):
    return single_op(op, [x, T([len(axes)], "int32", data=np.array(axes, dtype=np.int32))], [out],
                     "ReducerOptions", {0: ("bool", keep)})


@model("reduce", "mean_int8_hw_keep")
def mean_int8_hw_keep():
    return reducer("MEAN", T([1, 4, 5, 8], scale=0.05, zp=-3), [1, 2],
                   T([1, 1, 1, 8], scale=0.05, zp=-3), True)


@model("reduce", "mean_int8_hw_requant")
def mean_int8_hw_requant():
    return reducer("MEAN", T([2, 3, 3, 6], scale=0.1, zp=10), [2, 1],
                   T([2, 6], scale=0.03, zp=-20), False)


@model("reduce", "mean_int8_last_axis_extreme_zp")
def mean_int8_last_axis_extreme_zp():
    return reducer("MEAN", T([3, 10], scale=0.02, zp=-128), [-1],
                   T([3, 1], scale=0.021, zp=-128), True)


@model("reduce", "mean_int8_nonadjacent_axes")
def mean_int8_nonadjacent_axes():
    # s_in / s_out = 7: a left shift in the multiplier.
    return reducer("MEAN", T([2, 3, 4, 5], scale=0.07, zp=0), [0, 2],
                   T([3, 5], scale=0.01, zp=3), False)


@model("reduce", "mean_int16")
def mean_int16():
    return reducer("MEAN", T([1, 3, 4, 5], "int16", scale=0.001, zp=0), [2],
                   T([1, 3, 5], "int16", scale=0.0007, zp=0), False)


@model("reduce", "mean_float_hw_keep")
def mean_float_hw_keep():
    return reducer("MEAN", T([1, 4, 4, 3], "float32"), [1, 2], T([1, 1, 1, 3], "float32"), True)


@model("reduce", "mean_float_nonadjacent")
def mean_float_nonadjacent():
    return reducer("MEAN", T([4, 3, 2], "float32"), [0, 2], T([3], "float32"), False)


@model("reduce", "sum_int8_middle_axis")
def sum_int8_middle_axis():
    return reducer("SUM", T([2, 5, 4], scale=0.02, zp=4), [1], T([2, 4], scale=0.2, zp=-5), False)


@model("reduce", "sum_int8_all_keep")
def sum_int8_all_keep():
    return reducer("SUM", T([3, 4], scale=0.01, zp=-100), [0, 1], T([1, 1], scale=0.5, zp=0), True)


@model("reduce", "sum_int16")
def sum_int16():
    return reducer("SUM", T([4, 6], "int16", scale=0.0005, zp=0), [1],
                   T([4], "int16", scale=0.003, zp=0), False)


@model("reduce", "sum_float")
def sum_float():
    return reducer("SUM", T([2, 3, 4], "float32"), [2, 0], T([1, 3, 1], "float32"), True)


# ------------------------------------------------------------ REDUCE_MAX, ARG_MAX
@model("reduce", "reduce_max_int8_keep")
def reduce_max_int8_keep():
    return reducer("REDUCE_MAX", T([2, 4, 5], scale=0.1, zp=3), [1],
                   T([2, 1, 5], scale=0.1, zp=3), True)


@model("reduce", "reduce_max_int8_two_axes")
def reduce_max_int8_two_axes():
    return reducer("REDUCE_MAX", T([2, 3, 4, 2], scale=0.03, zp=-128), [1, 3],
                   T([2, 4], scale=0.03, zp=-128), False)


@model("reduce", "reduce_max_float")
def reduce_max_float():
    return reducer("REDUCE_MAX", T([3, 5], "float32"), [-1], T([3], "float32"), False)


def arg_max(x, axis, out):
    return single_op("ARG_MAX", [x, T([1], "int32", data=np.array([axis], dtype=np.int32))],
                     [out], "ArgMaxOptions", {0: ("i8", 2)})


@model("reduce", "arg_max_int8_ties")
def arg_max_int8_ties():
    # Near the zero point (seed 10) many rows hold their maximum twice.
    return arg_max(T([6, 7], scale=0.1, zp=0), 1, T([6], "int32"))


@model("reduce", "arg_max_int8_axis0")
def arg_max_int8_axis0():
    return arg_max(T([5, 3, 2], scale=0.05, zp=-7), 0, T([3, 2], "int32"))


@model("reduce", "arg_max_float_last")
def arg_max_float_last():
    return arg_max(T([4, 6], "float32"), -1, T([4], "int32"))


@model("reduce", "arg_max_float_middle")
def arg_max_float_middle():
    return arg_max(T([2, 3, 4], "float32"), 1, T([2, 4], "int32"))


# --------------------------------------------------------------- TRANSPOSE_CONV
def transpose_conv(x, w, bias, out, padding, sw, sh, act):
    shape = T([4], "int32", data=np.array(out["shape"], dtype=np.int32))
    ins = [shape, w, x] + ([bias] if bias is not None else [])
    return single_op("TRANSPOSE_CONV", ins, [out], "TransposeConvOptions",
                     {0: ("i8", padding), 1: ("i32", sw), 2: ("i32", sh), 3: ("i8", act)})


def fweights(seed, shape):
    return np.random.RandomState(seed).uniform(-1, 1, size=shape).astype(np.float32)


@model("reduce", "transpose_conv_float_same_s2")
def transpose_conv_float_same_s2():
    return transpose_conv(T([1, 3, 3, 2], "float32"),
                          T([4, 3, 3, 2], "float32", data=fweights(20, (4, 3, 3, 2))),
                          T([4], "float32", data=fweights(21, (4,))), T([1, 6, 6, 4], "float32"),
                          SAME, 2, 2, NONE)


@model("reduce", "transpose_conv_float_valid_s1_nobias_relu")
def transpose_conv_float_valid_s1_nobias_relu():
    return transpose_conv(T([1, 4, 3, 3], "float32"),
                          T([2, 2, 3, 3], "float32", data=fweights(22, (2, 2, 3, 3))),
                          None, T([1, 5, 5, 2], "float32"), VALID, 1, 1, RELU)


@model("reduce", "transpose_conv_int8_same_s2_per_channel")
def transpose_conv_int8_same_s2_per_channel():
    scales = [0.011, 0.023, 0.0071, 0.019, 0.03]
    b = np.random.RandomState(24).randint(-800, 800, size=5)
    return transpose_conv(T([1, 4, 4, 3], scale=0.05, zp=-5),
                          T([5, 3, 3, 3], data=weights(23, (5, 3, 3, 3)), scale=scales),
                          T([5], "int32", data=b, scale=[0.05 * s for s in scales]),
                          T([1, 8, 8, 5], scale=0.08, zp=2), SAME, 2, 2, NONE)


@model("reduce", "transpose_conv_int8_valid_s2_extra_row_relu")
def transpose_conv_int8_valid_s2_extra_row_relu():
    # Output row 7 receives no input (VALID; TFLite Micro leaves it at the bias).
    scales = [0.02, 0.013, 0.031]
    b = np.random.RandomState(26).randint(-300, 300, size=3)
    return transpose_conv(T([1, 3, 2, 2], scale=0.1, zp=127),
                          T([3, 3, 3, 2], data=weights(25, (3, 3, 3, 2)), scale=scales),
                          T([3], "int32", data=b, scale=[0.1 * s for s in scales]),
                          T([1, 8, 5, 3], scale=0.06, zp=-128), VALID, 2, 2, RELU)


@model("reduce", "transpose_conv_int8_strides_1x2_per_tensor_relu6")
def transpose_conv_int8_strides_1x2_per_tensor_relu6():
    b = np.random.RandomState(28).randint(-300, 300, size=3)
    return transpose_conv(T([2, 3, 3, 2], scale=0.04, zp=10),
                          T([3, 2, 4, 2], data=weights(27, (3, 2, 4, 2)), scale=0.015),
                          T([3], "int32", data=b, scale=0.04 * 0.015),
                          T([2, 3, 6, 3], scale=0.03, zp=-60), SAME, 2, 1, RELU6)


# ----------------------------------------------------------------- BATCH_MATMUL
def batch_matmul(a, c, out, adj_x=False, adj_y=False):
    return single_op("BATCH_MATMUL", [a, c], [out], "BatchMatMulOptions",
                     {0: ("bool", adj_x), 1: ("bool", adj_y)})


@model("reduce", "batch_matmul_float")
def batch_matmul_float():
    return batch_matmul(T([2, 3, 4], "float32"), T([2, 4, 5], "float32"), T([2, 3, 5], "float32"))


@model("reduce", "batch_matmul_float_adj_broadcast")
def batch_matmul_float_adj_broadcast():
    return batch_matmul(T([2, 1, 4, 3], "float32"), T([3, 5, 4], "float32"),
                        T([2, 3, 3, 5], "float32"), adj_x=True, adj_y=True)


@model("reduce", "batch_matmul_int8")
def batch_matmul_int8():
    return batch_matmul(T([1, 3, 6], scale=0.05, zp=-3), T([1, 6, 4], scale=0.02, zp=7),
                        T([1, 3, 4], scale=0.2, zp=0))


@model("reduce", "batch_matmul_int8_const_rhs")
def batch_matmul_int8_const_rhs():
    return batch_matmul(T([2, 2, 8], scale=0.03, zp=12),
                        T([8, 5], data=weights(30, (8, 5)), scale=0.01, zp=-4),
                        T([2, 2, 5], scale=0.07, zp=-9))


@model("reduce", "batch_matmul_int8_adj_broadcast_extreme_zp")
def batch_matmul_int8_adj_broadcast_extreme_zp():
    return batch_matmul(T([3, 5, 2], scale=0.04, zp=127), T([1, 4, 5], scale=0.03, zp=-128),
                        T([3, 2, 4], scale=1.2, zp=127), adj_x=True, adj_y=True)


@model("reduce", "batch_matmul_int8_batch_broadcast_lhs")
def batch_matmul_int8_batch_broadcast_lhs():
    return batch_matmul(T([1, 2, 3], scale=0.05, zp=1), T([4, 3, 2], scale=0.05, zp=-2),
                        T([4, 2, 2], scale=0.3, zp=3))


# -------------------------------------------------------------- RESIZE_BILINEAR
def resize_bilinear(x, size, out, align=False, half=False):
    return single_op("RESIZE_BILINEAR", [x, T([2], "int32", data=np.array(size, dtype=np.int32))],
                     [out], "ResizeBilinearOptions", {2: ("bool", align), 3: ("bool", half)})


@model("reduce", "resize_bilinear_float_up")
def resize_bilinear_float_up():
    return resize_bilinear(T([1, 3, 4, 2], "float32"), [7, 6], T([1, 7, 6, 2], "float32"))


@model("reduce", "resize_bilinear_float_align_corners")
def resize_bilinear_float_align_corners():
    return resize_bilinear(T([2, 4, 3, 3], "float32"), [6, 8], T([2, 6, 8, 3], "float32"),
                           align=True)


@model("reduce", "resize_bilinear_float_half_pixel_down")
def resize_bilinear_float_half_pixel_down():
    return resize_bilinear(T([1, 8, 7, 2], "float32"), [3, 5], T([1, 3, 5, 2], "float32"),
                           half=True)


@model("reduce", "resize_bilinear_int8_up")
def resize_bilinear_int8_up():
    return resize_bilinear(T([1, 3, 4, 2], scale=0.05, zp=-3), [7, 6],
                           T([1, 7, 6, 2], scale=0.05, zp=-3))


@model("reduce", "resize_bilinear_int8_align_corners")
def resize_bilinear_int8_align_corners():
    return resize_bilinear(T([2, 4, 3, 3], scale=0.1, zp=127), [6, 8],
                           T([2, 6, 8, 3], scale=0.1, zp=127), align=True)


@model("reduce", "resize_bilinear_int8_half_pixel")
def resize_bilinear_int8_half_pixel():
    return resize_bilinear(T([1, 5, 3, 4], scale=0.02, zp=10), [8, 7],
                           T([1, 8, 7, 4], scale=0.02, zp=10), half=True)


@model("reduce", "resize_bilinear_int8_half_pixel_down")
def resize_bilinear_int8_half_pixel_down():
    return resize_bilinear(T([1, 8, 7, 2], scale=0.03, zp=-128), [3, 5],
                           T([1, 3, 5, 2], scale=0.03, zp=-128), half=True)


@model("reduce", "resize_bilinear_float_half_pixel_up")
def resize_bilinear_float_half_pixel_up():
    return resize_bilinear(T([1, 3, 3, 2], "float32"), [5, 7], T([1, 5, 7, 2], "float32"),
                           half=True)


@model("reduce", "batch_matmul_int16")
def batch_matmul_int16():
    return batch_matmul(T([2, 3, 4], "int16", scale=0.0005, zp=0),
                        T([2, 4, 3], "int16", scale=0.0007, zp=0),
                        T([2, 3, 3], "int16", scale=0.02, zp=0))


@model("reduce", "transpose_conv_int16_same_s2")
def transpose_conv_int16_same_s2():
    scales = [0.012, 0.02, 0.009]
    b = np.random.RandomState(32).randint(-20000, 20000, size=3)
    return transpose_conv(T([1, 3, 3, 2], "int16", scale=0.0004, zp=0),
                          T([3, 3, 3, 2], data=weights(31, (3, 3, 3, 2)), scale=scales),
                          T([3], "int64", data=b, scale=[0.0004 * s for s in scales]),
                          T([1, 6, 6, 3], "int16", scale=0.002, zp=0), SAME, 2, 2, RELU)


@model("reduce", "transpose_conv_int16_valid_nobias")
def transpose_conv_int16_valid_nobias():
    return transpose_conv(T([1, 3, 2, 3], "int16", scale=0.0003, zp=0),
                          T([2, 2, 3, 3], data=weights(33, (2, 2, 3, 3)), scale=0.01),
                          None, T([1, 4, 5, 2], "int16", scale=0.001, zp=0), VALID, 2, 1, NONE)
