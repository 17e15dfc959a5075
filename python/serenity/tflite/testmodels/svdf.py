"""Test models of group 'svdf' (issue 38: sequence models, persistent state):
SVDF as TFLite Micro's integer kernel runs it (int8 input, weights and state;
see ../ops_svdf.py). Ranks 1 and 2, batch 1 and 2, memory 1 (no shift) to 6,
state zero points far from 0 (the wrapping add of the
state zero point), a fused RELU (which TFLite Micro's integer kernel does not
apply). The state is a variable tensor, reset to its zero point before the
one invocation the references hold; test/tflite-seq holds sequences. (An SVDF
without bias crashes TFLite Micro's oracle at this commit, so there is no
test model of one; the importer adds no bias then, as the kernel's Eval does.)"""

import numpy as np

from . import model
from ..writer import ModelWriter


def svdf(seed: int, batch: int, n_in: int, filters: int, rank: int, memory: int,
         x_q=(0.05, -3), s_q=(0.03, 7), y_q=(0.06, -9), bias=True, act=0,
         feature_scale=0.01, time_scale=0.02) -> ModelWriter:
    rs = np.random.RandomState(seed)
    m = ModelWriter()
    x = m.tensor("x", [batch, n_in], "int8", scale=x_q[0], zero_point=x_q[1])
    wf = m.const("weights_feature", rs.randint(-127, 128, size=(filters, n_in)), "int8",
                 scale=feature_scale, zero_point=0)
    wt = m.const("weights_time", rs.randint(-127, 128, size=(filters, memory)), "int8",
                 scale=time_scale, zero_point=0)
    units = filters // rank
    b = -1
    if bias:
        bs = s_q[0] * time_scale
        b = m.const("bias", np.round(rs.uniform(-3, 3, size=units) / bs), "int32", scale=bs,
                    zero_point=0)
    state = m.tensor("state", [batch, filters * memory], "int8", scale=s_q[0], zero_point=s_q[1],
                     variable=True)
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
