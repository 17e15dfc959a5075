"""UNIDIRECTIONAL_SEQUENCE_LSTM (lib/Target/TFLite/LstmOps.cpp): the numpy models of the int16
sigmoid and tanh (serenity/tflite/tables.py; their TOSA, shared with the int16 LOGISTIC and
TANH, is checked on every int16 input in test_tflite_int16.py), and the variants TFLite Micro
refuses (or this import does not take) refused by name. The LSTM itself is checked against
TFLite Micro by the committed test models (test_tflite_ops.py, group lstm)."""

import numpy as np
import pytest

from serenity.tflite import TFLiteError, check, import_model, load_model
from serenity.tflite.tables import (cell_tanh_params, lstm_checked_log2, tflm_sigmoid_int16,
                                    tflm_tanh_int16)
from serenity.tflite.testmodels.lstm import lstm
from serenity.tflite.writer import TYPE_CODES, ModelWriter


def test_numpy_models_known_values():
    x = np.array([-32768, -1, 0, 1, 4096, 32767])
    # sigmoid(0) = 1/2 in Q0.15; tanh(0) = 0; the ends saturate.
    assert list(tflm_sigmoid_int16(x))[2] == 16384
    assert list(tflm_tanh_int16(x))[2] == 0
    assert tflm_tanh_int16(np.array([32767]))[0] == 32767
    assert tflm_tanh_int16(np.array([-32768]))[0] == -32767
    assert lstm_checked_log2(2.0 ** -12) == -12 and lstm_checked_log2(0.0003) == -12
    assert cell_tanh_params(-12) == (0, 0) and cell_tanh_params(-14) == (3, 2)


def _model(**kw) -> ModelWriter:
    return lstm(1, batch=1, steps=2, n_in=3, units=4, time_major=False, **kw)


def _refused(m: ModelWriter, pattern: str):
    with pytest.raises(TFLiteError, match=r"operator 0 \(UNIDIRECTIONAL_SEQUENCE_LSTM\): .*" + pattern):
        import_model(load_model(m.finish()))


def _add_input(m: ModelWriter, slot: int, shape, dtype="int8", **q):
    m.operators[0]["inputs"][slot] = m.tensor(f"extra{slot}", shape, dtype,
                                              data=np.ones(shape), **q)


def test_lstm_imports_and_verifies(mlir_opt):
    text = import_model(load_model(_model().finish()))
    assert text.count("tosa.variable @") == 2 and text.count("tosa.variable_write @") == 2
    check.verify_mlir(text)


@pytest.mark.parametrize("slot,what", [(9, "peephole"), (16, "projection"),
                                       (20, "layer normalization")])
def test_lstm_variants_tflm_does_not_have(slot, what):
    m = _model()
    _add_input(m, slot, [4, 4] if slot == 16 else [4], "int8" if slot == 16 else "int16",
               scale=0.01, zero_point=0)
    _refused(m, f"LSTM with (a )?{what}.*TFLite Micro supports only the standard LSTM")


def test_lstm_cifg_refused():
    m = _model()
    for slot in (1, 5, 12):
        m.operators[0]["inputs"][slot] = -1
    _refused(m, "LSTM without input gate \\(CIFG")


def test_lstm_int16_activations_refused():
    m = _model()
    m.tensors[m.inputs[0]]["type"] = TYPE_CODES["int16"]
    _refused(m, "int16 activations")


def test_lstm_hybrid_and_float_refused():
    m = _model()
    m.tensors[m.inputs[0]]["type"] = TYPE_CODES["float32"]
    _refused(m, "hybrid operator")
    with pytest.raises(TFLiteError, match="float32 LSTM is not supported"):
        import_model(load_model(_float_model().finish()))


def _float_model() -> ModelWriter:
    m = ModelWriter()
    f = "float32"
    x = m.tensor("x", [1, 2, 3], f)
    w = [m.tensor(f"w{i}", [4, 3], f, data=np.ones((4, 3))) for i in range(4)]
    r = [m.tensor(f"r{i}", [4, 4], f, data=np.ones((4, 4))) for i in range(4)]
    b = [m.tensor(f"b{i}", [4], f, data=np.zeros(4)) for i in range(4)]
    h = m.tensor("h", [1, 4], f, variable=True)
    c = m.tensor("c", [1, 4], f, variable=True)
    y = m.tensor("y", [1, 2, 4], f)
    m.op("UNIDIRECTIONAL_SEQUENCE_LSTM", [x] + w + r + [-1] * 3 + b + [-1, -1, h, c] + [-1] * 4,
         [y], "UnidirectionalSequenceLSTMOptions", {0: ("i8", 4)})
    m.inputs, m.outputs = [x], [y]
    return m


def test_lstm_per_channel_weights_refused():
    m = _model()
    w = m.operators[0]["inputs"][2]
    s, z, _ = m.tensors[w]["quant"]
    m.tensors[w]["quant"] = (np.full(4, s[0], np.float32), np.zeros(4, np.int64), 0)
    _refused(m, "quantized per channel")


def test_lstm_state_must_be_variable():
    m = _model()
    h = m.operators[0]["inputs"][18]
    m.tensors[h]["variable"] = False
    _refused(m, "output state tensor .* is not a variable tensor")


def test_lstm_cell_gate_activation_must_be_tanh():
    m = _model()
    m.operators[0]["options"][0] = ("i8", 1)
    _refused(m, "cell gate activation RELU is not supported")
