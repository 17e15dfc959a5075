"""Test models of the shape operators (see lib/Target/TFLite/ShapeOps.cpp).

Data movement copies stored values, so the models vary what decides which value goes where:
shapes, axes (negative ones too), masks, strides, constant and runtime indices, zero points
(PAD's fill value), and the element types TFLite Micro's kernels take. Inputs that are indices
get ``--range`` (make_refs.py input number = position among the model's inputs).
"""

import numpy as np

from . import model
from .common import T, single_op, weights
from ..writer import ModelWriter


def _i32(values):
    return T([len(values)], "int32", data=np.array(values, dtype=np.int32))


def _floats(seed, shape, lo=-1.0, hi=1.0):
    return np.random.RandomState(seed).uniform(lo, hi, size=shape).astype(np.float32)


# ------------------------------------------------------------------ TRANSPOSE
@model("shape", "transpose_int8_nhwc_to_nchw")
def transpose_int8_nhwc_to_nchw():
    return single_op("TRANSPOSE", [T([1, 3, 4, 5], scale=0.05, zp=-7), _i32([0, 3, 1, 2])],
                     [T([1, 5, 3, 4], scale=0.05, zp=-7)], "TransposeOptions", {})


@model("shape", "transpose_float_rank3")
def transpose_float_rank3():
    return single_op("TRANSPOSE", [T([2, 3, 4], "float32"), _i32([2, 0, 1])],
                     [T([4, 2, 3], "float32")], "TransposeOptions", {})


@model("shape", "transpose_int16_rank2")
def transpose_int16_rank2():
    return single_op("TRANSPOSE", [T([5, 7], "int16", scale=0.001), _i32([1, 0])],
                     [T([7, 5], "int16", scale=0.001)], "TransposeOptions", {})


@model("shape", "transpose_int8_rank5")
def transpose_int8_rank5():
    return single_op("TRANSPOSE", [T([2, 1, 3, 2, 4], scale=0.1, zp=127), _i32([4, 2, 0, 3, 1])],
                     [T([4, 3, 2, 2, 1], scale=0.1, zp=127)], "TransposeOptions", {})


# ------------------------------------------------------------------ PAD / PADV2
def _pads(rows):
    return T([len(rows), 2], "int32", data=np.array(rows, dtype=np.int32))


@model("shape", "pad_int8_hw_zp_min")
def pad_int8_hw_zp_min():
    return single_op("PAD", [T([1, 3, 4, 2], scale=0.02, zp=-128),
                             _pads([[0, 0], [1, 2], [2, 0], [0, 0]])],
                     [T([1, 6, 6, 2], scale=0.02, zp=-128)], "PadOptions", {})


@model("shape", "pad_int8_all_dims_zp_max")
def pad_int8_all_dims_zp_max():
    return single_op("PAD", [T([2, 3, 2], scale=0.3, zp=127), _pads([[1, 0], [0, 1], [1, 1]])],
                     [T([3, 4, 4], scale=0.3, zp=127)], "PadOptions", {})


@model("shape", "pad_float_rank2")
def pad_float_rank2():
    return single_op("PAD", [T([3, 4], "float32"), _pads([[2, 1], [0, 3]])],
                     [T([6, 7], "float32")], "PadOptions", {})


@model("shape", "pad_int16_rank5")
def pad_int16_rank5():
    return single_op("PAD", [T([1, 2, 2, 1, 3], "int16", scale=0.001),
                             _pads([[0, 1], [1, 0], [0, 0], [1, 1], [0, 2]])],
                     [T([2, 3, 2, 3, 5], "int16", scale=0.001)], "PadOptions", {})


@model("shape", "padv2_int8_constant")
def padv2_int8_constant():
    return single_op("PADV2", [T([1, 2, 3, 3], scale=0.05, zp=10),
                               _pads([[0, 0], [1, 1], [0, 2], [0, 0]]),
                               T([], data=np.array(-77), scale=0.05, zp=10)],
                     [T([1, 4, 5, 3], scale=0.05, zp=10)], "PadV2Options", {})


@model("shape", "padv2_float_constant")
def padv2_float_constant():
    return single_op("PADV2", [T([2, 3], "float32"), _pads([[1, 1], [2, 0]]),
                               T([1], "float32", data=np.array([-3.25], dtype=np.float32))],
                     [T([4, 5], "float32")], "PadV2Options", {})


@model("shape", "padv2_int16_constant")
def padv2_int16_constant():
    return single_op("PADV2", [T([3, 2], "int16", scale=0.01), _pads([[0, 2], [1, 1]]),
                               T([], "int16", data=np.array(-12345), scale=0.01)],
                     [T([5, 4], "int16", scale=0.01)], "PadV2Options", {})


# ------------------------------------------------------------------ STRIDED_SLICE
def _strided(inp, begin, end, strides, out, begin_mask=0, end_mask=0, shrink=0):
    return single_op("STRIDED_SLICE", [inp, _i32(begin), _i32(end), _i32(strides)], [out],
                     "StridedSliceOptions",
                     {0: ("i32", begin_mask), 1: ("i32", end_mask), 4: ("i32", shrink)})


@model("shape", "strided_slice_int8_stride2_masks")
def strided_slice_int8_stride2_masks():
    # Axis 1: begin masked, stride 2 -> 0, 2, 4; axis 2: 1..end masked, stride 3 -> 1, 4.
    return _strided(T([1, 6, 7, 3], scale=0.04, zp=-3), [0, 5, 1, 0], [1, 6, 0, 3], [1, 2, 3, 1],
                    T([1, 3, 2, 3], scale=0.04, zp=-3), begin_mask=0b0010, end_mask=0b0100)


@model("shape", "strided_slice_float_negative_stride_shrink")
def strided_slice_float_negative_stride_shrink():
    # Axis 0 shrunk at -1 (the last row), axis 1 reversed with stride -2 from -2: 6, 4, 2, 0.
    return _strided(T([3, 8, 2], "float32"), [-1, -2, 0], [0, -100, 2], [1, -2, 1],
                    T([4, 2], "float32"), shrink=0b001)


@model("shape", "strided_slice_int8_negative_indices")
def strided_slice_int8_negative_indices():
    # begin -4, end -1 on axis 1 (elements 2, 3, 4), all of axis 2 reversed (end mask).
    return _strided(T([2, 6, 5], scale=0.1, zp=127), [0, -4, 4], [2, -1, 0], [1, 1, -1],
                    T([2, 3, 5], scale=0.1, zp=127), end_mask=0b100)


@model("shape", "strided_slice_int16_shrink_two")
def strided_slice_int16_shrink_two():
    return _strided(T([4, 5, 6], "int16", scale=0.002), [2, 1, 0], [3, 5, 6], [1, 2, 1],
                    T([2], "int16", scale=0.002), shrink=0b101)


@model("shape", "strided_slice_int32_clamped")
def strided_slice_int32_clamped():
    # Out-of-range begin/end are clamped to the axis.
    return _strided(T([5, 4], "int32"), [-9, 1], [99, 99], [2, 1], T([3, 3], "int32"))


# ------------------------------------------------------------------ SLICE
@model("shape", "slice_int8_size_minus_one")
def slice_int8_size_minus_one():
    return single_op("SLICE", [T([3, 5, 4], scale=0.07, zp=-20), _i32([1, 2, 0]), _i32([2, -1, 3])],
                     [T([2, 3, 3], scale=0.07, zp=-20)], "SliceOptions", {})


@model("shape", "slice_float_rank4")
def slice_float_rank4():
    return single_op("SLICE", [T([1, 4, 5, 3], "float32"), _i32([0, 1, 1, 1]), _i32([1, 2, 4, 2])],
                     [T([1, 2, 4, 2], "float32")], "SliceOptions", {})


@model("shape", "slice_int16")
def slice_int16():
    return single_op("SLICE", [T([6, 4], "int16", scale=0.01), _i32([3, 1]), _i32([3, 2])],
                     [T([3, 2], "int16", scale=0.01)], "SliceOptions", {})


# ------------------------------------------------------------------ CONCATENATION
def _concat(inputs, out, axis, act=0):
    return single_op("CONCATENATION", inputs, [out], "ConcatenationOptions",
                     {0: ("i32", axis), 1: ("i8", act)})


@model("shape", "concatenation_int8_last_axis_const")
def concatenation_int8_last_axis_const():
    c = weights(21, (1, 3, 2))
    return _concat([T([1, 3, 4], scale=0.05, zp=-9), T([1, 3, 2], data=c, scale=0.05, zp=-9),
                    T([1, 3, 1], scale=0.05, zp=-9)], T([1, 3, 7], scale=0.05, zp=-9), -1)


@model("shape", "concatenation_int8_axis1")
def concatenation_int8_axis1():
    return _concat([T([2, 2, 3, 2], scale=0.2, zp=-128), T([2, 1, 3, 2], scale=0.2, zp=-128)],
                   T([2, 3, 3, 2], scale=0.2, zp=-128), 1)


@model("shape", "concatenation_float_axis0")
def concatenation_float_axis0():
    return _concat([T([2, 5], "float32"), T([1, 5], "float32"), T([3, 5], "float32")],
                   T([6, 5], "float32"), 0)


@model("shape", "concatenation_int16_negative_axis")
def concatenation_int16_negative_axis():
    return _concat([T([3, 2, 2], "int16", scale=0.001), T([3, 4, 2], "int16", scale=0.002)],
                   T([3, 6, 2], "int16", scale=0.001), -2)


@model("shape", "concatenation_int32")
def concatenation_int32():
    return _concat([T([2, 3], "int32"), T([2, 2], "int32")], T([2, 5], "int32"), 1)


# ------------------------------------------------------------------ PACK / UNPACK
@model("shape", "pack_int8_axis0")
def pack_int8_axis0():
    return single_op("PACK", [T([3, 4], scale=0.1, zp=5)] * 2, [T([2, 3, 4], scale=0.1, zp=5)],
                     "PackOptions", {0: ("i32", 2), 1: ("i32", 0)})


@model("shape", "pack_float_last_axis")
def pack_float_last_axis():
    return single_op("PACK", [T([2, 3], "float32")] * 3, [T([2, 3, 3], "float32")],
                     "PackOptions", {0: ("i32", 3), 1: ("i32", -1)})


@model("shape", "pack_int16_middle")
def pack_int16_middle():
    return single_op("PACK", [T([4, 2], "int16", scale=0.01)] * 2,
                     [T([4, 2, 2], "int16", scale=0.01)], "PackOptions",
                     {0: ("i32", 2), 1: ("i32", 1)})


@model("shape", "unpack_int8_axis1")
def unpack_int8_axis1():
    return single_op("UNPACK", [T([2, 3, 4], scale=0.1, zp=-1)],
                     [T([2, 4], scale=0.1, zp=-1)] * 3, "UnpackOptions",
                     {0: ("i32", 3), 1: ("i32", 1)})


@model("shape", "unpack_float_last_axis")
def unpack_float_last_axis():
    return single_op("UNPACK", [T([3, 2], "float32")], [T([3], "float32")] * 2, "UnpackOptions",
                     {0: ("i32", 2), 1: ("i32", -1)})


@model("shape", "unpack_int32_axis0")
def unpack_int32_axis0():
    return single_op("UNPACK", [T([2, 5], "int32")], [T([5], "int32")] * 2, "UnpackOptions",
                     {0: ("i32", 2), 1: ("i32", 0)})


# ------------------------------------------------------------------ SPLIT / SPLIT_V
@model("shape", "split_int8_axis1")
def split_int8_axis1():
    return single_op("SPLIT", [T([1], "int32", data=np.array([1])), T([2, 6, 2], scale=0.3, zp=3)],
                     [T([2, 2, 2], scale=0.3, zp=3)] * 3, "SplitOptions", {0: ("i32", 3)})


@model("shape", "split_float_negative_axis")
def split_float_negative_axis():
    return single_op("SPLIT", [T([], "int32", data=np.array(-1)), T([3, 4], "float32")],
                     [T([3, 2], "float32")] * 2, "SplitOptions", {0: ("i32", 2)})


@model("shape", "split_int16_axis0")
def split_int16_axis0():
    return single_op("SPLIT", [T([1], "int32", data=np.array([0])), T([4, 3], "int16", scale=0.1)],
                     [T([1, 3], "int16", scale=0.1)] * 4, "SplitOptions", {0: ("i32", 4)})


@model("shape", "split_v_int8_minus_one")
def split_v_int8_minus_one():
    return single_op("SPLIT_V", [T([1, 7, 2], scale=0.02, zp=-50), _i32([1, -1, 2]),
                                 T([1], "int32", data=np.array([-2]))],
                     [T([1, 1, 2], scale=0.02, zp=-50), T([1, 4, 2], scale=0.02, zp=-50),
                      T([1, 2, 2], scale=0.02, zp=-50)], "SplitVOptions", {0: ("i32", 3)})


@model("shape", "split_v_float_last_axis")
def split_v_float_last_axis():
    return single_op("SPLIT_V", [T([2, 5], "float32"), _i32([3, 2]),
                                 T([1], "int32", data=np.array([1]))],
                     [T([2, 3], "float32"), T([2, 2], "float32")], "SplitVOptions",
                     {0: ("i32", 2)})


@model("shape", "split_v_int32_axis0")
def split_v_int32_axis0():
    return single_op("SPLIT_V", [T([5, 2], "int32"), _i32([2, 3]),
                                 T([1], "int32", data=np.array([0]))],
                     [T([2, 2], "int32"), T([3, 2], "int32")], "SplitVOptions", {0: ("i32", 2)})


# ------------------------------------------------------------------ SQUEEZE / EXPAND_DIMS
@model("shape", "squeeze_int8_all")
def squeeze_int8_all():
    return single_op("SQUEEZE", [T([1, 3, 1, 4], scale=0.1, zp=2)], [T([3, 4], scale=0.1, zp=2)],
                     "SqueezeOptions", {})


@model("shape", "squeeze_float_listed")
def squeeze_float_listed():
    return single_op("SQUEEZE", [T([1, 2, 1, 3, 1], "float32")], [T([1, 2, 3], "float32")],
                     "SqueezeOptions", {0: ("i32vec", [-1, 2])})


@model("shape", "expand_dims_int8_axis0")
def expand_dims_int8_axis0():
    return single_op("EXPAND_DIMS", [T([3, 4], scale=0.2, zp=-100), _i32([0])],
                     [T([1, 3, 4], scale=0.2, zp=-100)], "ExpandDimsOptions", {})


@model("shape", "expand_dims_float_negative")
def expand_dims_float_negative():
    return single_op("EXPAND_DIMS", [T([2, 3], "float32"), T([], "int32", data=np.array(-1))],
                     [T([2, 3, 1], "float32")], "ExpandDimsOptions", {})


@model("shape", "expand_dims_int16_middle")
def expand_dims_int16_middle():
    return single_op("EXPAND_DIMS", [T([2, 5], "int16", scale=0.01), _i32([1])],
                     [T([2, 1, 5], "int16", scale=0.01)], "ExpandDimsOptions", {})


# ------------------------------------------------------------------ SHAPE
@model("shape", "shape_int8_output")
def shape_int8_output():
    # SHAPE's result is the model's output (its input only gives the shape); the second
    # output keeps the graph's input in use.
    m = ModelWriter()
    x = m.tensor("x", [2, 3, 5], "int8", 0.1, 4)
    s = m.tensor("shape", [3], "int32")
    y = m.tensor("y", [2, 15], "int8", 0.1, 4)
    m.op("SHAPE", [x], [s], "ShapeOptions", {0: ("i8", 2)})
    m.op("RESHAPE", [x], [y])
    m.inputs, m.outputs = [x], [s, y]
    return m


@model("shape", "shape_feeds_reshape")
def shape_feeds_reshape():
    # RESHAPE x to the shape of y: SHAPE's result consumed by a later operator.
    m = ModelWriter()
    x = m.tensor("x", [2, 6], "float32")
    y = m.tensor("y", [3, 4], "float32")
    s = m.tensor("shape", [2], "int32")
    z = m.tensor("z", [3, 4], "float32")
    w = m.tensor("w", [3, 4], "float32")
    m.op("SHAPE", [y], [s], "ShapeOptions", {0: ("i8", 2)})
    m.op("RESHAPE", [x, s], [z])
    m.op("ADD", [z, y], [w], "AddOptions", {0: ("i8", 0)})
    m.inputs, m.outputs = [x, y], [w]
    return m


# ------------------------------------------------------------------ GATHER
@model("shape", "gather_int8_const_axis0")
def gather_int8_const_axis0():
    idx = np.array([[3, 0], [3, 1], [4, 4]], dtype=np.int32)
    return single_op("GATHER", [T([5, 4], scale=0.1, zp=-3), T([3, 2], "int32", data=idx)],
                     [T([3, 2, 4], scale=0.1, zp=-3)], "GatherOptions",
                     {0: ("i32", 0), 1: ("i32", 0)})


@model("shape", "gather_float_runtime_axis1", refs_args=["--range", "1=0,5"])
def gather_float_runtime_axis1():
    return single_op("GATHER", [T([2, 6, 3], "float32"), T([4], "int32")],
                     [T([2, 4, 3], "float32")], "GatherOptions", {0: ("i32", 1), 1: ("i32", 0)})


@model("shape", "gather_int8_runtime_batch_dims", refs_args=["--range", "1=0,3"])
def gather_int8_runtime_batch_dims():
    # batch_dims 1, axis 2: each batch row picks its own positions, for each of 3 outer rows.
    return single_op("GATHER", [T([2, 3, 4, 2], scale=0.05, zp=100), T([2, 5], "int32")],
                     [T([2, 3, 5, 2], scale=0.05, zp=100)], "GatherOptions",
                     {0: ("i32", 2), 1: ("i32", 1)})


@model("shape", "gather_float_const_last_axis")
def gather_float_const_last_axis():
    return single_op("GATHER", [T([3, 5], "float32"), T([], "int32", data=np.array(4))],
                     [T([3], "float32")], "GatherOptions", {0: ("i32", -1), 1: ("i32", 0)})


# ------------------------------------------------------------------ RESIZE_NEAREST_NEIGHBOR
def _resize(inp, size, out, align=False, half=False):
    return single_op("RESIZE_NEAREST_NEIGHBOR", [inp, _i32(size)], [out],
                     "ResizeNearestNeighborOptions", {0: ("bool", align), 1: ("bool", half)})


@model("shape", "resize_nearest_neighbor_int8_upsample")
def resize_nearest_neighbor_int8_upsample():
    return _resize(T([1, 3, 4, 2], scale=0.1, zp=1), [6, 7], T([1, 6, 7, 2], scale=0.1, zp=1))


@model("shape", "resize_nearest_neighbor_float_align_corners")
def resize_nearest_neighbor_float_align_corners():
    return _resize(T([2, 4, 3, 1], "float32"), [7, 5], T([2, 7, 5, 1], "float32"), align=True)


@model("shape", "resize_nearest_neighbor_int8_half_pixel_down")
def resize_nearest_neighbor_int8_half_pixel_down():
    return _resize(T([1, 7, 6, 3], scale=0.3, zp=-60), [3, 4], T([1, 3, 4, 3], scale=0.3, zp=-60),
                   half=True)


@model("shape", "resize_nearest_neighbor_int16_both")
def resize_nearest_neighbor_int16_both():
    return _resize(T([1, 5, 3, 2], "int16", scale=0.01), [9, 5], T([1, 9, 5, 2], "int16", scale=0.01),
                   align=True, half=True)


# ------------------------------------------------------------------ CAST
# CAST is an elementwise operator (tested with those models); these two add conversions its
# models do not reach.
_TYPE = {"float32": 0, "int32": 2, "int16": 7, "int8": 9}


def _cast(inp, out):
    return single_op("CAST", [inp], [out], "CastOptions",
                     {0: ("i8", _TYPE[inp["dtype"]]), 1: ("i8", _TYPE[out["dtype"]])})


@model("shape", "cast_int32_to_float_rounding", refs_args=["--range", "0=-20000000,20000000"])
def cast_int32_to_float_rounding():
    # Beyond 2^24 static_cast<float> rounds to nearest even.
    return _cast(T([3, 4], "int32"), T([3, 4], "float32"))


@model("shape", "cast_float_to_int8", refs_args=["--float-range=-127.9,127.9"])
def cast_float_to_int8():
    # Truncation toward zero into int8.
    return _cast(T([3, 6], "float32"), T([3, 6], scale=1.0, zp=0))


# ------------------------------------------------------------------ rank-0 tensors
# Scalars inside the graph (check-tflite-ops compares outputs of rank >= 1).
@model("shape", "strided_slice_int8_to_scalar")
def strided_slice_int8_to_scalar():
    # STRIDED_SLICE shrinking both axes to a scalar, EXPAND_DIMS back to [1].
    m = ModelWriter()
    x = m.tensor("x", [4, 3], "int8", 0.1, -5)
    b, e, st = (m.const(n, np.array(v, dtype=np.int32), "int32")
                for n, v in (("begin", [-2, 1]), ("end", [0, 0]), ("strides", [1, 1])))
    s = m.tensor("scalar", [], "int8", 0.1, -5)
    ax = m.const("axis", np.array([0], dtype=np.int32), "int32")
    y = m.tensor("y", [1], "int8", 0.1, -5)
    m.op("STRIDED_SLICE", [x, b, e, st], [s], "StridedSliceOptions", {4: ("i32", 0b11)})
    m.op("EXPAND_DIMS", [s, ax], [y], "ExpandDimsOptions", {})
    m.inputs, m.outputs = [x], [y]
    return m


@model("shape", "unpack_pack_scalars_float")
def unpack_pack_scalars_float():
    # UNPACK a vector into three scalars, PACK them back in another order.
    m = ModelWriter()
    x = m.tensor("x", [3], "float32")
    parts = [m.tensor(f"s{i}", [], "float32") for i in range(3)]
    y = m.tensor("y", [3], "float32")
    m.op("UNPACK", [x], parts, "UnpackOptions", {0: ("i32", 3), 1: ("i32", 0)})
    m.op("PACK", [parts[2], parts[0], parts[1]], [y], "PackOptions", {0: ("i32", 3), 1: ("i32", 0)})
    m.inputs, m.outputs = [x], [y]
    return m
