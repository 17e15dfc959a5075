"""int16 activations (16x8): the pieces of the import that the committed test models
(test_tflite_ops.py, group int16) do not pin down alone. The int16 SOFTMAX on every input of
its exp table and LOGISTIC / TANH on every int16 input against the numpy models of
serenity/tflite/tables.py, the parameters of the int16 LOGISTIC/TANH/SOFTMAX Prepare
functions, and the variants TFLite Micro refuses (or runs with arithmetic the import does not
reproduce) refused by name."""

import numpy as np
import pytest

from serenity.tflite import TFLiteError, check, import_model, load_model
from serenity.tflite import tables as OT
from serenity.tflite.testmodels.common import T, single_op
from serenity.tflite.writer import ModelWriter

EVERY_INT16 = np.arange(-32768, 32768, dtype=np.int64)


def test_softmax_luts_known_values():
    exp_lut, recip_lut = OT.softmax_int16_luts()
    assert exp_lut.size == recip_lut.size == 513
    # exp(0) and 1 / (1 + 0) are 32767 (Q0.15, saturated); 1 / (1 + 1) = 16384; exp(-10) ~ 1.5.
    assert exp_lut[512] == 32767 and recip_lut[0] == 32767 and recip_lut[512] == 16384
    assert exp_lut[0] == 2 and np.all(np.diff(exp_lut) >= 0) and np.all(np.diff(recip_lut) <= 0)


def test_softmax_on_every_exp_table_input(mlir_opt):
    """The imported int16 SOFTMAX equals the numpy SoftmaxInt16 on 65,536 rows [x, 32767]
    (input scale 10 / 65535, beta 1: the exp table is read at every int16 input, the
    1 / (1 + x) table at the sums these rows make)."""
    scale = 10.0 / 65535
    m = single_op("SOFTMAX", [T([65536, 2], "int16", scale=scale, zp=0)],
                  [T([65536, 2], "int16", scale=1.0 / 32768, zp=0)], "SoftmaxOptions",
                  {0: ("f32", 1.0)})
    x = np.stack([EVERY_INT16, np.full(65536, 32767)], axis=1)
    got = check.run_mlir(import_model(load_model(m.finish())), [[x.astype(np.int16)]], False)[0]
    assert np.array_equal(got[0].reshape(x.shape).astype(np.int64), OT.softmax_int16(x, scale, 1.0))


@pytest.mark.parametrize("op,scale", [("LOGISTIC", 2.0 ** -12), ("LOGISTIC", 2.0 ** -10),
                                      ("LOGISTIC", 0.000371), ("TANH", 2.0 ** -12),
                                      ("TANH", 2.0 ** -11), ("TANH", 0.000213)])
def test_logistic_and_tanh_on_every_input(mlir_opt, op, scale):
    """The imported int16 LOGISTIC / TANH (the integer TOSA the LSTM's gates use too) equal
    the numpy models of reference_integer_ops::Logistic / Tanh on all 65,536 int16 inputs,
    with the input multiplier of their Prepare: the power-of-two cases and general scales."""
    m = single_op(op, [T([1, 65536], "int16", scale=scale, zp=0)],
                  [T([1, 65536], "int16", scale=2.0 ** -15, zp=0)])
    got = check.run_mlir(import_model(load_model(m.finish())),
                         [[EVERY_INT16.reshape(1, -1).astype(np.int16)]], False)[0]
    multiplier, shift = OT.sigmoid_tanh_int16_params(scale, 2.0 ** -15, op == "TANH")
    want = (OT.tflm_tanh_int16 if op == "TANH" else OT.tflm_sigmoid_int16)(EVERY_INT16,
                                                                           multiplier, shift)
    assert np.array_equal(got[0].reshape(-1).astype(np.int64), want)


def test_prepare_parameters():
    # LOGISTIC: 2^-12 is the power-of-two case; 2^-11 only for TANH.
    assert OT.sigmoid_tanh_int16_params(2.0 ** -12, 2.0 ** -15, False) == (0, 0)
    assert OT.sigmoid_tanh_int16_params(2.0 ** -11, 2.0 ** -15, True) == (0, 1)
    assert OT.sigmoid_tanh_int16_params(2.0 ** -11, 2.0 ** -15, False) == (24576, 12)
    assert OT.sigmoid_tanh_int16_params(2.0 ** -10, 2.0 ** -15, False) == (24576, 11)
    with pytest.raises(ValueError, match="above 32767"):
        OT.sigmoid_tanh_int16_params(3.0, 2.0 ** -15, False)
    with pytest.raises(ValueError, match="2\\^-15"):
        OT.sigmoid_tanh_int16_params(2.0 ** -12, 2.0 ** -14, True)
    # SOFTMAX: s * beta = 10 / 65535 is multiplier 2^30 with shift 1 (QuantizeMultiplier of 1).
    assert OT.softmax_int16_params(10.0 / 65535, 1.0)[1] == 1
    with pytest.raises(ValueError, match="left shift of 15"):
        OT.softmax_int16_params(3.0, 1.0)


def _refused(m: ModelWriter, op: str, pattern: str):
    with pytest.raises(TFLiteError, match=rf"operator 0 \({op}\): .*" + pattern):
        import_model(load_model(m.finish()))


def test_refusals():
    x16 = T([1, 4, 4, 2], "int16", scale=0.001, zp=0)
    w = T([1, 3, 3, 2], data=np.ones((1, 3, 3, 2)), scale=0.01, axis=3)
    out = T([1, 2, 2, 2], "int16", scale=0.01, zp=0)
    dw = {0: ("i8", 1), 1: ("i32", 1), 2: ("i32", 1), 3: ("i32", 1), 4: ("i8", 0)}
    _refused(single_op("DEPTHWISE_CONV_2D", [x16, w, None], [out], "DepthwiseConv2DOptions", dw),
             "DEPTHWISE_CONV_2D", "without a bias")
    _refused(single_op("DEPTHWISE_CONV_2D", [x16, w, T([2], "int32", data=[1, 2], scale=1e-5)],
                       [out], "DepthwiseConv2DOptions", dw), "DEPTHWISE_CONV_2D", "INT32 bias")
    conv = {0: ("i8", 1), 1: ("i32", 1), 2: ("i32", 1), 3: ("i8", 0)}
    _refused(single_op("CONV_2D", [T([1, 4, 4, 2], "int16", scale=0.001, zp=3),
                                   T([2, 3, 3, 2], data=np.ones((2, 3, 3, 2)), scale=0.01), None],
                       [out], "Conv2DOptions", conv), "CONV_2D", "ignores them")
    _refused(single_op("LOGISTIC", [T([4], "int16", scale=0.001, zp=0)],
                       [T([4], "int16", scale=2.0 ** -14, zp=0)]), "LOGISTIC", "2\\^-15")
    _refused(single_op("TANH", [T([4], "int16", scale=0.001, zp=1)],
                       [T([4], "int16", scale=2.0 ** -15, zp=0)]), "TANH", "zero points 0")
    _refused(single_op("SOFTMAX", [T([2, 4], "int16", scale=0.001, zp=0)],
                       [T([2, 4], "int16", scale=1.0 / 65536, zp=0)], "SoftmaxOptions",
                       {0: ("f32", 1.0)}), "SOFTMAX", "1/32768")
    _refused(single_op("SOFTMAX", [T([2, 4], "int8", scale=0.1, zp=0)],
                       [T([2, 4], "int16", scale=1.0 / 65536, zp=0)], "SoftmaxOptions",
                       {0: ("f32", 1.0)}), "SOFTMAX", "-32768")
    # A requantization scale of 300 needs a left shift of 9: TFLM's int64 MBQM stops at 7.
    _refused(single_op("FULLY_CONNECTED", [T([1, 4], "int16", scale=0.3, zp=0),
                                           T([2, 4], data=np.ones((2, 4)), scale=0.01), None],
                       [T([1, 2], "int16", scale=0.00001, zp=0)], "FullyConnectedOptions",
                       {0: ("i8", 0)}), "FULLY_CONNECTED", "left shift of 8 or more")
