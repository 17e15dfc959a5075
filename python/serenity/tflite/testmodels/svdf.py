"""Test models of group 'svdf' (issue 38: sequence models, persistent state):
SVDF as TFLite Micro runs it (see lib/Target/TFLite/SvdfOps.cpp): int8 input, feature
weights and output with an int8 state and time weights (EvalInt8Svdf) or an
int16 state and time weights (EvalInt16Svdf), and float32. Ranks 1 and 2,
batch 1 and 2, memory 1 (no shift) to 6, state zero points far from 0 (the
wrapping add of the state zero point, int8 and int16), a fused RELU (which
TFLite Micro's integer kernel does not apply; the float kernel applies RELU,
RELU6 and TANH). The state is a variable tensor, reset (int8: its zero point,
otherwise 0) before the one invocation the references hold; test/tflite-seq
holds sequences. An int8 SVDF without bias crashes TFLite Micro's oracle at
this commit (Prepare reads the bias scale), so there is no test model of one:
svdf_rank1_b1_zero_bias has an explicit zero bias, and
python/tests/test_tflite_svdf.py checks that the same model without bias
imports to the same outputs (the importer adds no bias, as the kernel's Eval
does)."""

import numpy as np

from . import model
from ..writer import ModelWriter


def svdf(seed: int, batch: int, n_in: int, filters: int, rank: int, memory: int,
         x_q=(0.05, -3), s_q=(0.03, 7), y_q=(0.06, -9), bias=True, act=0,
         feature_scale=0.01, time_scale=0.02, state_type="int8", time_max=8000) -> ModelWriter:
    # time_max bounds int16 time weights so that the int32 time sums cannot overflow.
    rs = np.random.RandomState(seed)
    m = ModelWriter()
    x = m.tensor("x", [batch, n_in], "int8", scale=x_q[0], zero_point=x_q[1])
    wf = m.const("weights_feature", rs.randint(-127, 128, size=(filters, n_in)), "int8",
                 scale=feature_scale, zero_point=0)
    if state_type == "int8":
        wt = m.const("weights_time", rs.randint(-127, 128, size=(filters, memory)), "int8",
                     scale=time_scale, zero_point=0)
    else:
        wt = m.const("weights_time", rs.randint(-time_max, time_max + 1, size=(filters, memory)),
                     state_type, scale=time_scale, zero_point=0)
    units = filters // rank
    b = -1
    if bias:
        bs = s_q[0] * time_scale
        values = np.round(rs.uniform(-3, 3, size=units) / bs)
        if bias == "zero":
            values = np.zeros(units)
        b = m.const("bias", values, "int32", scale=bs, zero_point=0)
    state = m.tensor("state", [batch, filters * memory], state_type, scale=s_q[0],
                     zero_point=s_q[1], variable=True)
    y = m.tensor("y", [batch, units], "int8", scale=y_q[0], zero_point=y_q[1])
    m.op("SVDF", [x, wf, wt, b, state], [y], "SVDFOptions", {0: ("i32", rank), 1: ("i8", act)})
    m.inputs, m.outputs = [x], [y]
    return m


@model("svdf", "svdf_rank1_b1")
def svdf_rank1_b1():
    return svdf(1, batch=1, n_in=12, filters=6, rank=1, memory=5)


@model("svdf", "svdf_rank2_b2")
def svdf_rank2_b2():
    return svdf(2, batch=2, n_in=10, filters=8, rank=2, memory=4, x_q=(0.04, 20), s_q=(0.02, -30),
                y_q=(0.05, 11))


@model("svdf", "svdf_rank2_b1_memory1")
def svdf_rank2_b1_memory1():
    # Memory 1: the state is only the new column (nothing shifts).
    return svdf(3, batch=1, n_in=7, filters=6, rank=2, memory=1)



@model("svdf", "svdf_rank1_b2_wrap")
def svdf_rank1_b2_wrap():
    # State zero point 100 and a small state scale: zs + clamp(d) leaves int8 and wraps
    # (TFLite Micro stores the int32 sum into int8).
    return svdf(4, batch=2, n_in=16, filters=5, rank=1, memory=6, s_q=(0.004, 100),
                feature_scale=0.02)


@model("svdf", "svdf_rank1_b1_relu_ignored")
def svdf_rank1_b1_relu_ignored():
    # A fused RELU: TFLite Micro's integer SVDF does not apply it (negative outputs stay).
    return svdf(5, batch=1, n_in=9, filters=4, rank=1, memory=3, y_q=(0.05, 0), act=1)


@model("svdf", "svdf_rank1_b1_zero_bias")
def svdf_rank1_b1_zero_bias():
    # An explicit zero bias: what TFLite Micro's Eval computes without one (its Prepare crashes).
    return svdf(6, batch=1, n_in=8, filters=4, rank=1, memory=3, bias="zero")


@model("svdf", "svdf_int16_state_rank1_b1")
def svdf_int16_state_rank1_b1():
    # int16 time weights and state (TFLite Micro's EvalInt16SvdfReference).
    return svdf(7, batch=1, n_in=12, filters=6, rank=1, memory=4, s_q=(0.0005, 0),
                time_scale=0.00005, state_type="int16")


@model("svdf", "svdf_int16_state_rank2_b2_wrap")
def svdf_int16_state_rank2_b2_wrap():
    # int16 state with zero point 30000 and a small scale: the feature column saturates at
    # the int16 range and zs + d wraps; the reset state is 0, not the zero point.
    return svdf(8, batch=2, n_in=10, filters=8, rank=2, memory=5, x_q=(0.04, 20),
                s_q=(0.00002, 30000), y_q=(0.5, 3), time_scale=0.0001, state_type="int16",
                time_max=3000)


def svdf_float(seed: int, batch: int, n_in: int, filters: int, rank: int, memory: int,
               act=0, bias=True) -> ModelWriter:
    rs = np.random.RandomState(seed)
    m = ModelWriter()
    x = m.tensor("x", [batch, n_in], "float32")
    wf = m.const("weights_feature", rs.uniform(-0.5, 0.5, size=(filters, n_in)), "float32")
    wt = m.const("weights_time", rs.uniform(-0.5, 0.5, size=(filters, memory)), "float32")
    units = filters // rank
    b = m.const("bias", rs.uniform(-0.3, 0.3, size=units), "float32") if bias else -1
    state = m.tensor("state", [batch, filters * memory], "float32", variable=True)
    y = m.tensor("y", [batch, units], "float32")
    m.op("SVDF", [x, wf, wt, b, state], [y], "SVDFOptions", {0: ("i32", rank), 1: ("i8", act)})
    m.inputs, m.outputs = [x], [y]
    return m


@model("svdf", "svdf_float_rank1_b1")
def svdf_float_rank1_b1():
    return svdf_float(11, batch=1, n_in=12, filters=6, rank=1, memory=5)


@model("svdf", "svdf_float_rank2_b2_relu")
def svdf_float_rank2_b2_relu():
    return svdf_float(12, batch=2, n_in=10, filters=8, rank=2, memory=4, act=1)


@model("svdf", "svdf_float_rank1_b2_relu6_memory1")
def svdf_float_rank1_b2_relu6_memory1():
    return svdf_float(13, batch=2, n_in=7, filters=5, rank=1, memory=1, act=3)


@model("svdf", "svdf_float_rank2_b1_tanh")
def svdf_float_rank2_b1_tanh():
    return svdf_float(14, batch=1, n_in=9, filters=6, rank=2, memory=3, act=4)
