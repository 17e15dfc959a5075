"""Test models of group 'lstm' (issue 38: sequence models, persistent state, int16 activations):
UNIDIRECTIONAL_SEQUENCE_LSTM as TFLite Micro runs it (int8 activations and weights, int16 cell
state; see lib/Target/TFLite/LstmOps.cpp). Batch and time major, batch 1 and 2, several sizes,
cell state scales 2^-10 .. 2^-14 (the cell tanh's input shift both ways) and one that is no power of two (TFLM
rounds its log2), cell clipping that bites, non-zero zero points. The
output and cell state are variable tensors (reset before the one invocation the references
hold). TFLite Micro at this commit has no projection, peephole, layer-norm or CIFG LSTM
(its Prepare refuses them), so there are no test models of those."""

import numpy as np

from . import model
from ..writer import ModelWriter

ACT_TANH = 4


def lstm(seed: int, batch: int, steps: int, n_in: int, units: int, time_major: bool,
         x_q=(0.0039215686, -128), h_q=(1.0 / 128, 0), cell_scale=2.0 ** -11, clip=0.0,
         act=ACT_TANH, w_scale=(0.004, 0.02), bias_spread=2.0) -> ModelWriter:
    """One LSTM; weight scales drawn from ``w_scale``, biases about +-``bias_spread`` (real)."""
    rs = np.random.RandomState(seed)
    m = ModelWriter()
    in_shape = [steps, batch, n_in] if time_major else [batch, steps, n_in]
    out_shape = in_shape[:2] + [units]
    x = m.tensor("x", in_shape, "int8", scale=x_q[0], zero_point=x_q[1])

    def weights(name, shape):
        s = float(rs.uniform(*w_scale))
        return m.const(name, rs.randint(-127, 128, size=shape), "int8", scale=s, zero_point=0), s

    w_in = [weights(f"w_{g}", (units, n_in)) for g in ("input", "forget", "cell", "output")]
    w_rec = [weights(f"r_{g}", (units, units)) for g in ("input", "forget", "cell", "output")]
    biases = []
    for g, (_, s) in zip(("input", "forget", "cell", "output"), w_in):
        bs = x_q[0] * s
        b = np.round(rs.uniform(-bias_spread, bias_spread, size=units) / bs)
        biases.append(m.const(f"b_{g}", b, "int32", scale=bs, zero_point=0))
    h = m.tensor("h_state", [batch, units], "int8", scale=h_q[0], zero_point=h_q[1],
                 variable=True)
    c = m.tensor("c_state", [batch, units], "int16", scale=cell_scale, zero_point=0,
                 variable=True)
    y = m.tensor("y", out_shape, "int8", scale=h_q[0], zero_point=h_q[1])
    ins = ([x] + [t for t, _ in w_in] + [t for t, _ in w_rec] + [-1] * 3 + biases + [-1] * 2
           + [h, c] + [-1] * 4)
    m.op("UNIDIRECTIONAL_SEQUENCE_LSTM", ins, [y], "UnidirectionalSequenceLSTMOptions",
         {0: ("i8", act), 1: ("f32", clip), 2: ("f32", 0.0), 3: ("bool", time_major)})
    m.inputs, m.outputs = [x], [y]
    return m


@model("lstm", "lstm_batch_major_b1")
def lstm_batch_major_b1():
    return lstm(1, batch=1, steps=6, n_in=5, units=8, time_major=False, x_q=(0.02, -5))


@model("lstm", "lstm_batch_major_b2_clip10")
def lstm_batch_major_b2_clip10():
    # Cell scale 2^-12 and clip 10 (as trained_lstm_int8): the clip bound is int16(40960) ->
    # 32767, so only -32768 moves (to -32767). Hidden zero point -3.
    return lstm(2, batch=2, steps=5, n_in=7, units=6, time_major=False, x_q=(0.031, 12),
                h_q=(0.0079, -3), cell_scale=2.0 ** -12, clip=10.0, bias_spread=4.0)


@model("lstm", "lstm_time_major_b1_cell_2e14")
def lstm_time_major_b1_cell_2e_14():
    # Cell scale 2^-14: the cell tanh's input is (3 c + 2) >> 2.
    return lstm(3, batch=1, steps=4, n_in=3, units=5, time_major=True, x_q=(0.05, 0),
                cell_scale=2.0 ** -14)


@model("lstm", "lstm_time_major_b2_clip")
def lstm_time_major_b2_clip():
    # Cell scale 2^-10 (tanh input 6 c) and a clip of 2.0 (+-2048) that bites.
    return lstm(4, batch=2, steps=7, n_in=9, units=12, time_major=True, x_q=(0.012, 30),
                h_q=(0.0078125, 9), cell_scale=2.0 ** -10, clip=2.0, bias_spread=3.0)


@model("lstm", "lstm_b1_t16_i16_u32")
def lstm_b1_t16_i16_u32():
    # Larger: wide weight scales drive the gates into saturation.
    return lstm(6, batch=1, steps=16, n_in=16, units=32, time_major=False,
                w_scale=(0.01, 0.05), h_q=(0.0078, -1), cell_scale=2.0 ** -11)


@model("lstm", "lstm_cell_scale_not_pow2")
def lstm_cell_scale_not_pow2():
    # A cell scale that is not a power of two: TFLM's CheckedLog2 rounds log2(0.0003) = -11.7
    # to -12 and its tanh reads the cell state as if its scale were 2^-12.
    return lstm(7, batch=2, steps=4, n_in=6, units=4, time_major=False, cell_scale=0.0003)
