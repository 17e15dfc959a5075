"""SVDF (lib/Target/TFLite/SvdfOps.cpp): what the committed test models (test_tflite_ops.py,
group svdf) cannot show against TFLite Micro, and the variants refused by name.

* An int8 SVDF without bias: TFLite Micro's Prepare reads the bias scale and crashes, so
  there is no reference of one; its Eval would start from 0, and the import (which adds no
  bias) equals TFLite Micro on the same model with an explicit zero bias.
* A hybrid SVDF (float32 input and state, int8 weights) is refused, and imported as float32
  with dequantized weights under --float.
"""

import os
import re

import numpy as np
import pytest

from serenity.tflite import TFLiteError, check, import_model, load_model, opcheck
from serenity.tflite.testmodels.svdf import svdf, svdf_float
from serenity.tflite.writer import ModelWriter

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "test", "tflite-ops")


def _refused(m: ModelWriter, pattern: str, float_mode: bool = False):
    with pytest.raises(TFLiteError, match=r"operator 0 \(SVDF\): .*" + pattern):
        import_model(load_model(m.finish()), float_mode=float_mode)


def _generic(x_type="int8", wf_type="int8", wt_type="int8", state_type="int8",
             out_type="int8", bias_type="int32", batch=1, n_in=4, filters=4, rank=1, memory=3,
             state_shape=None, variable=True, bias_scale=None, act=0, wf_scale=0.01,
             out_shape=None) -> ModelWriter:
    """An SVDF with the given types and shapes (quantization parameters on integer tensors)."""
    rs = np.random.RandomState(0)
    m = ModelWriter()

    def q(dtype, scale, zp=0):
        if dtype == "float32":
            return {}
        return {"scale": scale, "zero_point": zp}
    x = m.tensor("x", [batch, n_in], x_type, **q(x_type, 0.05, -3))
    wf = m.const("weights_feature", rs.randint(-5, 6, size=(filters, n_in)), wf_type,
                 **q(wf_type, wf_scale))
    wt = m.const("weights_time", rs.randint(-5, 6, size=(filters, memory)), wt_type,
                 **q(wt_type, 0.02))
    units = filters // rank if filters % rank == 0 else 1
    b = -1
    if bias_type:
        b = m.const("bias", rs.randint(-5, 6, size=units), bias_type,
                    **q(bias_type, 0.03 * 0.02 if bias_scale is None else bias_scale))
    state = m.tensor("state", state_shape or [batch, filters * memory], state_type,
                     variable=variable, **q(state_type, 0.03, 0))
    y = m.tensor("y", out_shape or [batch, units], out_type, **q(out_type, 0.06, -9))
    m.op("SVDF", [x, wf, wt, b, state], [y], "SVDFOptions", {0: ("i32", rank), 1: ("i8", act)})
    m.inputs, m.outputs = [x], [y]
    return m


def test_generic_builder_imports():
    assert "tosa.variable_write" in import_model(load_model(_generic().finish()))


def test_without_bias_equals_tflite_micro_with_zero_bias():
    """svdf_rank1_b1_zero_bias without its bias tensor (input 3 = -1) gives TFLite Micro's
    outputs of the zero-bias model (same weights: the builder draws the bias after them)."""
    nobias = import_model(load_model(svdf(6, batch=1, n_in=8, filters=4, rank=1, memory=3,
                                          bias=False).finish()))
    assert "SVDF #0: bias" not in nobias
    refs = opcheck.load_refs(os.path.join(DATA, "reference"), "svdf_rank1_b1_zero_bias")
    got = check.run_mlir(nobias, [c.inputs for c in refs], False)
    for case, outs in zip(refs, got):
        assert np.array_equal(outs[0].reshape(-1).astype(np.int8), case.outputs[0].reshape(-1))


def test_hybrid_refused_and_imported_with_float():
    m = _generic(x_type="float32", state_type="float32", out_type="float32",
                 bias_type="float32")
    _refused(m, "hybrid operator: float32 activations with INT8 weights")
    text = import_model(load_model(m.finish()), float_mode=True)
    assert re.search(r"tosa\.variable @\w+ = .* : tensor<[0-9x]*f32>", text), text
    # The dequantized float SVDF equals the float32 model with those weights.
    x = np.random.RandomState(1).uniform(-1, 1, size=(1, 4)).astype(np.float32)
    got = check.run_mlir(text, [[x]], False)[0][0].reshape(-1)
    rs = np.random.RandomState(0)
    wf, wt, bias = (rs.randint(-5, 6, size=(4, 4)) * np.float32(0.01),
                    rs.randint(-5, 6, size=(4, 3)) * np.float32(0.02),
                    rs.randint(-5, 6, size=4).astype(np.float32))
    col = (wf.astype(np.float32) @ x[0]).astype(np.float32)   # the new (last) state column
    want = bias + wt[:, 2].astype(np.float32) * col
    assert np.allclose(got, want, rtol=1e-5, atol=1e-6)


def test_float_model_keeps_float_state():
    text = import_model(load_model(svdf_float(11, batch=1, n_in=4, filters=2, rank=1,
                                              memory=2).finish()))
    assert "tosa.variable @state4 = dense<0.000000e+00> : tensor<1x4xf32>" in text


@pytest.mark.parametrize("kw,pattern", [
    (dict(wt_type="int16"), "int8 or int16 time weights and a state of the same type"),
    (dict(state_type="int16"), "int8 or int16 time weights and a state of the same type"),
    (dict(wt_type="int32", state_type="int32"), "int8 or int16 time weights"),
    (dict(wf_type="int16"), "int8 SVDF needs int8 feature weights, not INT16"),
    (dict(out_type="int16"), "int8 SVDF needs an int8 output, not INT16"),
    (dict(bias_type="int8"), "int8 SVDF needs an INT32 bias, not INT8"),
    (dict(x_type="int16", wf_type="int16"), "SVDF with INT16 input is not supported"),
    (dict(bias_scale=0.01), r"bias scale 0\.01.* Prepare requires them within 1e-5"),
    (dict(variable=False), "is not a variable tensor"),
    (dict(filters=6, rank=4), "SVDF shapes do not fit"),
    (dict(state_shape=[1, 11]), r"SVDF state \[1, 11\] / output \[1, 4\] do not match"),
    (dict(out_shape=[1, 3]), "do not match"),
    (dict(wf_scale=[0.01, 0.02, 0.01, 0.02]), "quantized per axis"),
    (dict(x_type="float32", wf_type="float32", wt_type="float32", state_type="float32",
          out_type="float32", bias_type="float32", act=5), "SIGN_BIT"),
    (dict(x_type="float32", wf_type="float32", wt_type="float32", state_type="int8",
          out_type="float32", bias_type="float32"), "float32 SVDF needs a float32 state"),
])
def test_refused(kw, pattern):
    _refused(_generic(**kw), pattern)


def test_zero_point_outside_the_type_refused():
    _refused(svdf(1, batch=1, n_in=4, filters=2, rank=1, memory=2, s_q=(0.03, 200)),
             "SVDF state zero point 200 lies outside the i8 range")


def test_integer_svdf_refused_with_float():
    _refused(svdf(1, batch=1, n_in=4, filters=2, rank=1, memory=2),
             "an integer SVDF is not imported with --float", float_mode=True)
