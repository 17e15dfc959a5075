"""Test models of group 'int16' (issue 38: sequence models, persistent state, int16 activations):
the 16x8 operators (int16 activations, int8 weights) as TFLite Micro's reference kernels run
them. LOGISTIC and TANH in the power-of-two case (input scale 2^-12, tanh also 2^-11) and with
general, tiny and large scales; SOFTMAX int16 -> int16 (its exp and 1 / (1 + x) tables) with
several scales and betas and int8 -> int16 (the end of keyword_scrambled_8bit, also followed by
its QUANTIZE int16 -> int32); FULLY_CONNECTED, CONV_2D and DEPTHWISE_CONV_2D with int64 biases
(int64 accumulator, 16-bit multiplier), int32 biases (int32 accumulator, double rounding), no
bias, per-tensor and per-channel weight scales, fused activations, extreme requantization
scales, and FULLY_CONNECTED with non-zero zero points (its kernel adds them; the conv kernels
ignore them). The oracle draws int16 inputs over the whole int16 range (make_refs.py); the
output scales are chosen from the expected accumulator spread so that the outputs use most of
the int16 range without saturating everywhere."""

import numpy as np

from . import model
from .common import T, single_op, weights

ACT_NONE, ACT_RELU, ACT_RELU_N1_TO_1, ACT_RELU6 = 0, 1, 2, 3


def _out_scale(s_in: float, w: np.ndarray, spread: float = 12000.0) -> float:
    """An output scale that maps the typical accumulator (full-range int16 inputs, these
    weights, per output channel at most) to about +-``spread``."""
    k = w.size // w.shape[0]
    std = np.sqrt(k) * float(np.abs(w).astype(np.float64).mean()) * 32768 / np.sqrt(3)
    return float(np.float32(s_in * std / spread))


def _bias(seed: int, n: int, scale, spread: float, dtype: str) -> dict:
    b = np.round(np.random.RandomState(seed).uniform(-spread, spread, size=n)).astype(np.int64)
    return T([n], dtype, data=b, scale=scale)


# ------------------------------------------------------------------ LOGISTIC / TANH
def _unary(op: str, shape, scale: float):
    return single_op(op, [T(shape, "int16", scale=scale, zp=0)],
                     [T(shape, "int16", scale=2.0 ** -15, zp=0)])


@model("int16", "logistic_i16_pot")
def logistic_i16_pot():
    # Input scale 2^-12: the kernel's power-of-two case (v = 3 x).
    return _unary("LOGISTIC", [2, 300], 2.0 ** -12)


@model("int16", "logistic_i16_scale_2e_10")
def logistic_i16_scale_2e_10():
    # A power of two other than 2^-12 takes the general path: multiplier 24576, shift 11.
    return _unary("LOGISTIC", [1, 2, 128], 2.0 ** -10)


@model("int16", "logistic_i16_general")
def logistic_i16_general():
    return _unary("LOGISTIC", [3, 97], 0.000371)


@model("int16", "logistic_i16_tiny_scale")
def logistic_i16_tiny_scale():
    # Every input maps into the first table step: the shift loop stops at 31.
    return _unary("LOGISTIC", [200], 3.1e-9)


@model("int16", "logistic_i16_large_scale", refs_args=["--range=0=-8,8"])
def logistic_i16_large_scale():
    # Multiplier 24575 (scale 2 * 12288 truncated), no shift: saturates beyond |x| ~ 5, so
    # the inputs are drawn from [-8, 8].
    return _unary("LOGISTIC", [256], 1.99995)


@model("int16", "tanh_i16_pot_2e_12")
def tanh_i16_pot_2e_12():
    return _unary("TANH", [2, 300], 2.0 ** -12)


@model("int16", "tanh_i16_pot_2e_11")
def tanh_i16_pot_2e_11():
    # tanh's power-of-two case also takes 2^-11: 3 << 1 = 6 x.
    return _unary("TANH", [4, 64], 2.0 ** -11)


@model("int16", "tanh_i16_general")
def tanh_i16_general():
    return _unary("TANH", [5, 41], 0.000213)


@model("int16", "tanh_i16_small_scale")
def tanh_i16_small_scale():
    return _unary("TANH", [128], 2.7e-6)


@model("int16", "tanh_i16_large_scale", refs_args=["--range=0=-9,9"])
def tanh_i16_large_scale():
    # Inputs in [-9, 9] (tanh saturates beyond about 8 LSB here).
    return _unary("TANH", [2, 100], 1.3)


# ------------------------------------------------------------------ SOFTMAX
def _softmax16(shape, scale: float, beta: float):
    return single_op("SOFTMAX", [T(shape, "int16", scale=scale, zp=0)],
                     [T(shape, "int16", scale=1.0 / 32768, zp=0)], "SoftmaxOptions",
                     {0: ("f32", beta)})


@model("int16", "softmax_i16_diff_range_10")
def softmax_i16_diff_range_10():
    # Full-range differences span about [-10, 0]: the whole exp table.
    return _softmax16([3, 10], 1.5e-4, 1.0)


@model("int16", "softmax_i16_small_scale")
def softmax_i16_small_scale():
    # Differences below 0.8: many comparable terms, sums up to 16 x 32767.
    return _softmax16([4, 16], 1.2e-5, 1.0)


@model("int16", "softmax_i16_beta")
def softmax_i16_beta():
    return _softmax16([2, 7], 4.1e-5, 2.5)


@model("int16", "softmax_i16_large_scale", refs_args=["--range=0=-200,200"])
def softmax_i16_large_scale():
    # Input multiplier with a left shift of 9 (differences beyond 200 LSB are negligible:
    # inputs in [-200, 200]).
    return _softmax16([2, 12], 0.05, 1.0)


@model("int16", "softmax_i16_long_row")
def softmax_i16_long_row():
    return _softmax16([1, 1, 300], 2.3e-5, 1.0)


@model("int16", "softmax_i16_tiny_scale")
def softmax_i16_tiny_scale():
    # All differences round to 0: the uniform distribution 1/9.
    return _softmax16([3, 9], 1e-9, 1.0)


def _softmax8_16(shape, scale: float, zp: int, beta: float, out_scale=1.0 / 65536):
    return single_op("SOFTMAX", [T(shape, "int8", scale=scale, zp=zp)],
                     [T(shape, "int16", scale=out_scale, zp=-32768)], "SoftmaxOptions",
                     {0: ("f32", beta)})


@model("int16", "softmax_i8_i16")
def softmax_i8_i16():
    return _softmax8_16([2, 10], 0.07, 2, 1.0)


@model("int16", "softmax_i8_i16_beta")
def softmax_i8_i16_beta():
    # keyword_scrambled_8bit's output scale (1.5259022e-05, within TFLM's 0.1 % of 1/65536).
    return _softmax8_16([3, 6], 0.021, -17, 2.0, 1.5259022e-05)


@model("int16", "softmax_i8_i16_quantize_i32")
def softmax_i8_i16_quantize_i32():
    # The last two operators of keyword_scrambled_8bit (its scales and zero points), on
    # wider rows.
    from ..writer import ModelWriter
    m = ModelWriter()
    x = m.tensor("x", [2, 8], "int8", scale=0.06996273, zero_point=2)
    p = m.tensor("p", [2, 8], "int16", scale=1.5259022e-05, zero_point=-32768)
    y = m.tensor("y", [2, 8], "int32", scale=3.051851e-05, zero_point=0)
    m.op("SOFTMAX", [x], [p], "SoftmaxOptions", {0: ("f32", 1.0)})
    m.op("QUANTIZE", [p], [y])
    m.inputs, m.outputs = [x], [y]
    return m


@model("int16", "quantize_i16_i32")
def quantize_i16_i32():
    return single_op("QUANTIZE", [T([3, 11], "int16", scale=0.00037, zp=0)],
                     [T([3, 11], "int32", scale=0.0000913, zp=5)])


# ------------------------------------------------------------------ FULLY_CONNECTED
def _fc(seed: int, n: int, k: int, oc: int, s_in: float, w_scale, bias: str = "int64",
        act: int = ACT_NONE, zp_in: int = 0, zp_out: int = 0, spread: float = 12000.0,
        out_scale=None, bias_type_option=None, bias_spread: float = 1.5e6):
    w = weights(seed, (oc, k))
    ws = np.atleast_1d(np.asarray(w_scale, dtype=np.float64))
    s_out = out_scale or _out_scale(s_in, w, spread) * float(ws.mean())
    wt = T([oc, k], data=w, scale=list(ws) if ws.size > 1 else float(ws[0]))
    bs = [s_in * s for s in ws] if ws.size > 1 else s_in * float(ws[0])
    b = None if bias is None else _bias(seed + 100, oc, bs, bias_spread, bias)
    opts = {0: ("i8", act)}
    if bias_type_option is not None:
        opts[4] = ("i8", bias_type_option)
    return single_op("FULLY_CONNECTED", [T([n, k], "int16", scale=s_in, zp=zp_in), wt, b],
                     [T([n, oc], "int16", scale=s_out, zp=zp_out)],
                     "FullyConnectedOptions", opts)


@model("int16", "fc_i16_per_tensor_int64_bias")
def fc_i16_per_tensor_int64_bias():
    # Per-tensor weights: the scale product in float32 (GetQuantizedConvolutionMultipler).
    return _fc(1, 2, 24, 10, 0.00031, 0.0071)


@model("int16", "fc_i16_per_channel_relu")
def fc_i16_per_channel_relu():
    return _fc(2, 3, 40, 6, 0.000147, [0.004, 0.011, 0.0023, 0.007, 0.0155, 0.0009],
               act=ACT_RELU)


@model("int16", "fc_i16_nobias_relu6")
def fc_i16_nobias_relu6():
    # RELU6 with an output scale that puts 6.0 inside the int16 range.
    return _fc(3, 2, 16, 5, 0.0002, 0.0049, bias=None, act=ACT_RELU6, out_scale=0.00021)


@model("int16", "fc_i16_zero_points")
def fc_i16_zero_points():
    # TFLM's int16 FullyConnected adds the input and output zero points (the conv kernels do
    # not); TFLite never writes such a model, TFLite Micro runs it.
    return _fc(4, 2, 12, 7, 0.00052, 0.0081, zp_in=-311, zp_out=1234)


@model("int16", "fc_i16_int32_bias")
def fc_i16_int32_bias():
    # An INT32 bias: int32 accumulator and the double-rounding MultiplyByQuantizedMultiplier.
    # RELU_N1_TO_1 clamps to +-20000 (real outputs of about +-0.6).
    return _fc(5, 3, 20, 8, 2e-5, [0.006, 0.0031, 0.0094, 0.0017, 0.012, 0.0051, 0.0077,
                                   0.0022], bias="int32", act=ACT_RELU_N1_TO_1,
               out_scale=0.00005)


@model("int16", "fc_i16_nobias_int32_accumulator")
def fc_i16_nobias_int32_accumulator():
    # No bias, quantized_bias_type INT32 in the options: the int32 accumulator path.
    return _fc(6, 2, 18, 4, 0.0003, 0.0045, bias=None, bias_type_option=2)


@model("int16", "fc_i16_left_shift", refs_args=["--range=0=-5,5"])
def fc_i16_left_shift():
    # Requantization scale about 90 (left shift 7, TFLM's limit), on inputs in [-5, 5].
    return _fc(7, 2, 8, 6, 0.0005, 0.0036, out_scale=0.0005 * 0.0036 / 90.0, bias_spread=300.0)


@model("int16", "fc_i16_tiny_scale")
def fc_i16_tiny_scale():
    # Requantization scale 2^-23: outputs within a few LSB of 0 (the bias included).
    return _fc(8, 2, 30, 5, 0.0004, 0.0052, out_scale=0.0004 * 0.0052 * 2.0 ** 23)


# ------------------------------------------------------------------ CONV_2D / DEPTHWISE
def _conv(seed: int, in_shape, oc: int, kh: int, kw: int, stride, padding: int, w_scale,
          bias: str = "int64", act: int = ACT_NONE, dilation=(1, 1), s_in: float = 0.00026,
          spread: float = 12000.0, out_shape=None, out_scale=None):
    ic = in_shape[3]
    w = weights(seed, (oc, kh, kw, ic))
    ws = np.atleast_1d(np.asarray(w_scale, dtype=np.float64))
    s_out = out_scale or _out_scale(s_in, w, spread) * float(ws.mean())
    bs = [s_in * s for s in ws] if ws.size > 1 else s_in * float(ws[0])
    b = None if bias is None else _bias(seed + 100, oc, bs, 3e6, bias)
    return single_op("CONV_2D",
                     [T(in_shape, "int16", scale=s_in, zp=0),
                      T([oc, kh, kw, ic], data=w, scale=list(ws) if ws.size > 1 else float(ws[0])),
                      b],
                     [T(out_shape, "int16", scale=s_out, zp=0)], "Conv2DOptions",
                     {0: ("i8", padding), 1: ("i32", stride[1]), 2: ("i32", stride[0]),
                      3: ("i8", act), 4: ("i32", dilation[1]), 5: ("i32", dilation[0])})


@model("int16", "conv_i16_per_channel_same_s2_relu6")
def conv_i16_per_channel_same_s2_relu6():
    # Real outputs of about +-3 and 6.0 at 31579: RELU6 clamps some at both ends.
    return _conv(11, [1, 7, 6, 3], 4, 3, 3, (2, 2), 0, [0.011, 0.023, 0.0071, 0.019],
                 act=ACT_RELU6, s_in=3.2e-5, out_shape=[1, 4, 3, 4], out_scale=0.00019)


@model("int16", "conv_i16_per_tensor_valid_dilation_nobias")
def conv_i16_per_tensor_valid_dilation_nobias():
    return _conv(12, [2, 8, 7, 2], 3, 2, 3, (1, 1), 1, 0.0093, bias=None, dilation=(2, 2),
                 out_shape=[2, 6, 3, 3])


@model("int16", "conv_i16_int32_bias_relu")
def conv_i16_int32_bias_relu():
    # An INT32 bias: int32 accumulator (bounded here), double-rounding requantization.
    return _conv(13, [1, 5, 5, 4], 6, 3, 3, (1, 1), 0, [0.004, 0.008, 0.012, 0.0061, 0.0027,
                                                        0.0099], bias="int32", act=ACT_RELU,
                 out_shape=[1, 5, 5, 6])


@model("int16", "conv_i16_1x1_saturating")
def conv_i16_1x1_saturating():
    # Output scale 40x too small: most outputs saturate at +-32767.
    return _conv(14, [1, 3, 3, 16], 8, 1, 1, (1, 1), 1, 0.0051, spread=480000.0,
                 out_shape=[1, 3, 3, 8])


def _depthwise(seed: int, in_shape, mult: int, kh: int, kw: int, stride, padding: int, w_scale,
               bias="int64", act: int = ACT_NONE, s_in: float = 0.00033, out_shape=None):
    c = in_shape[3]
    w = weights(seed, (1, kh, kw, c * mult))
    ws = np.atleast_1d(np.asarray(w_scale, dtype=np.float64))
    s_out = _out_scale(s_in, w.reshape(kh * kw, c * mult).T.copy(), 9000.0) * float(ws.mean())
    bs = [s_in * s for s in ws] if ws.size > 1 else s_in * float(ws[0])
    b = None if bias is None else _bias(seed + 100, c * mult, bs, 1e6, bias)
    return single_op("DEPTHWISE_CONV_2D",
                     [T(in_shape, "int16", scale=s_in, zp=0),
                      T([1, kh, kw, c * mult], data=w,
                        scale=list(ws) if ws.size > 1 else float(ws[0]), axis=3), b],
                     [T(out_shape, "int16", scale=s_out, zp=0)], "DepthwiseConv2DOptions",
                     {0: ("i8", padding), 1: ("i32", stride[1]), 2: ("i32", stride[0]),
                      3: ("i32", mult), 4: ("i8", act)})


@model("int16", "depthwise_i16_multiplier2_same")
def depthwise_i16_multiplier2_same():
    return _depthwise(21, [1, 6, 5, 3], 2, 3, 3, (1, 1), 0,
                      [0.02, 0.013, 0.031, 0.008, 0.017, 0.0044], out_shape=[1, 6, 5, 6])


@model("int16", "depthwise_i16_stride2_valid_relu")
def depthwise_i16_stride2_valid_relu():
    # (TFLM's 16x8 depthwise kernel needs a bias: it checks the bias shape unconditionally.)
    return _depthwise(22, [2, 7, 7, 4], 1, 3, 3, (2, 2), 1, 0.0067, act=ACT_RELU,
                      out_shape=[2, 3, 3, 4])


@model("int16", "depthwise_i16_one_channel_multiplier4")
def depthwise_i16_one_channel_multiplier4():
    # One input channel: imported as a convolution (as for int8).
    return _depthwise(23, [1, 6, 5, 1], 4, 3, 2, (2, 2), 0, [0.021, 0.014, 0.03, 0.009],
                      out_shape=[1, 3, 3, 4])
