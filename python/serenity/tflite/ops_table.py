"""Importer mixin, unary functions, lookup tables and fixed point: LOGISTIC, TANH, HARD_SWISH,
RSQRT, EXP, RELU, RELU6, LEAKY_RELU, LOG_SOFTMAX, L2_NORMALIZATION. (RELU_N1_TO_1 is left out:
TFLite Micro has no kernel for it, so there is nothing to be exact against.)

TFLite Micro's semantics (its reference kernels at tflite-micro @90b983c2b3f1), int8 bit for
bit, float32 as its float kernels.

An int8 -> int8 element-wise operator is a function of 256 values: its TFLite Micro arithmetic
is evaluated here, at import time, for every int8 input (the ``*_table`` functions below, each
a numpy re-implementation of one TFLite Micro kernel written from its source) and emitted as
one ``tosa.table``. The integer graph then holds no float arithmetic and no libm call.
LOG_SOFTMAX and L2_NORMALIZATION reduce over a row and are emitted as integer TOSA.

int16 (16x8): LOGISTIC and TANH are TFLite Micro's interpolation in sigmoid_table_uint16 with the
input multiplier of their Prepare (``sigmoid_tanh_int16_params``; the TOSA is the LSTM's, in
ops_lstm.py). The int16 SOFTMAX (reference_ops::SoftmaxInt16, emitted by
``tflm_softmax_int16`` for importer.import_softmax) uses two 513-entry tables that its Prepare
fills in float32 (``softmax_int16_luts``); TFLite's interpolating LUTLookup of them is a
``tosa.table`` plus a rounding shift (``lut_int16``), checked on every int16 input.
"""

import math
from typing import Callable, Tuple

import numpy as np

from .mlir_text import Value, float_literal
from .quant import INT32_MAX, INT32_MIN, mbqm, rdbpot, srdhm, wrap32
from .reference import exp_on_negative_values, sat_mul_pot
from .schema import Operator, options

INT8_VALUES = np.arange(-128, 128, dtype=np.int64)
TYPE_NAMES = {"i8": "int8", "i16": "int16", "i32": "int32", "i1": "bool", "f32": "float32"}
F32 = np.float32


# ------------------------------------------------------------ TFLite Micro's multipliers
def tflm_quantize_multiplier(real: float) -> Tuple[int, int]:
    """TFLite's QuantizeMultiplier (double rounding build): real ~= m * 2^(shift - 31),
    m = round(frexp mantissa * 2^31) with the sign of ``real``; exponents below -31 flush
    to (0, 0). Raises ValueError where TFLite Micro's MultiplyByQuantizedMultiplier would
    hit its shift check (> 30) or the int32 cast of -2^31 (a negative mantissa of -1)."""
    if real == 0.0:
        return 0, 0
    q, shift = math.frexp(real)
    fixed = int(math.floor(abs(q) * (1 << 31) + 0.5)) * (1 if q > 0 else -1)
    if fixed == (1 << 31):
        fixed //= 2
        shift += 1
    if fixed == -(1 << 31):
        raise ValueError(f"multiplier {real} rounds to -2^31")
    if shift < -31:
        return 0, 0
    if shift > 30:
        raise ValueError(f"multiplier {real} needs a left shift of {shift} (> 30)")
    return fixed, shift


def tflm_mbqm(x, multiplier: int, shift: int):
    """TFLite's MultiplyByQuantizedMultiplier(int32 x, multiplier >= 0, shift)."""
    if not -31 <= shift <= 30:
        raise ValueError(f"MultiplyByQuantizedMultiplier shift {shift} outside [-31, 30]")
    return mbqm(x, multiplier, shift)


def frexp_multiplier(real: float) -> Tuple[int, int]:
    """The LOGISTIC/TANH int8 Prepare: frexp of ``real``, multiplier round(q * 2^31)
    (TfLiteRound, no renormalization: TFLite Micro casts 2^31 to int32, refused here)."""
    q, shift = math.frexp(real)
    fixed = int(math.floor(q * (1 << 31) + 0.5))
    if fixed >= (1 << 31):
        raise ValueError(f"input multiplier {real} rounds to 2^31")
    return fixed, shift


def input_radius(integer_bits: int, left_shift: int, total_bits: int = 31) -> int:
    """TFLite's CalculateInputRadius (double arithmetic, floor)."""
    return int(math.floor(((1 << integer_bits) - 1) * float(1 << (total_bits - integer_bits))
                          / float(1 << left_shift)))


# ------------------------------------------------------------ gemmlowp fixed point
def _newton_reciprocal(a: int) -> int:
    """The Newton-Raphson loop shared by gemmlowp's one_over_one_plus_x_for_x_in_0_1 and
    one_minus_x_over_one_plus_x_for_x_in_0_1: x ~= 1 / (1 + a) as raw Q2.29, a raw Q0.31."""
    total = a + INT32_MAX  # RoundingHalfSum(a, One) in 64 bits, C++ division
    num = total + (1 if total >= 0 else -1)
    half_denominator = num // 2 if num >= 0 else -((-num) // 2)
    x = int(wrap32(1515870810 + int(srdhm(half_denominator, -1010580540))))
    for _ in range(3):
        one_minus = int(wrap32((1 << 29) - int(srdhm(half_denominator, x))))
        x = int(wrap32(x + int(sat_mul_pot(int(srdhm(x, one_minus)), 2))))
    return x


def gemmlowp_logistic(a: int, integer_bits: int) -> int:
    """gemmlowp::logistic of a raw Q(integer_bits) value, raw Q0.31 result."""
    if a == 0:
        return 1 << 30
    e = exp_on_negative_values(-abs(a), integer_bits)
    positive = int(sat_mul_pot(_newton_reciprocal(e), 1))  # Rescale<0>(ExactMulByPot<-1>(x))
    return positive if a > 0 else int(wrap32(INT32_MAX - positive))


def gemmlowp_tanh(a: int, integer_bits: int) -> int:
    """gemmlowp::tanh of a raw Q(integer_bits) value, raw Q0.31 result."""
    if a == 0:
        return 0
    # neg_tanh_on_negative_values: exp of ExactMulByPot<1>(-|a|) (one more integer bit),
    # then (1 - e) / (1 + e) = Rescale<0>(x - One) of the Q2.29 reciprocal.
    e = exp_on_negative_values(-abs(a), integer_bits + 1)
    t = int(sat_mul_pot(int(wrap32(_newton_reciprocal(e) - (1 << 29))), 2))
    return -t if a < 0 else t


def inv_sqrt_multiplier_exp(x: int, reverse_shift: int = -1) -> Tuple[int, int]:
    """TFLite's GetInvSqrtQuantizedMultiplierExp: (multiplier, shift) of 1 / sqrt(x)."""
    if x <= 1:
        return INT32_MAX, 0
    shift = 11
    while x >= (1 << 29):
        x //= 4
        shift += 1
    clz = 32 - x.bit_length()
    pairs = (clz - 1) // 2 - 1
    shift -= pairs
    x <<= 2 * pairs
    # Newton-Raphson in Q3.28: x_{n+1} = 1.5 x - (input / 2) x^3, starting at 1.
    half_input = int(rdbpot(x >> 1, 1))
    half_three = (1 << 28) + (1 << 27)
    r = 1 << 28
    for _ in range(5):
        r3 = int(sat_mul_pot(int(srdhm(int(srdhm(r, r)), r)), 6))
        r = int(sat_mul_pot(int(wrap32(int(srdhm(half_three, r)) - int(srdhm(half_input, r3)))), 3))
    r = int(srdhm(r, 1518500250))  # * sqrt(2) / 2
    if shift < 0:
        r = int(wrap32(r << -shift))
        shift = 0
    return r, shift * reverse_shift


# ------------------------------------------------------------ int8 tables
def _q4_function_table(input_scale: float, input_zp: int, function, exponent: int,
                       offset: int) -> np.ndarray:
    """The int8 LOGISTIC/TANH pattern of TFLite Micro: the input to Q4.27 by a frexp
    multiplier of scale * 2^27 (saturating outside the input radius), the gemmlowp
    function on Q4, RoundingDivideByPOT(., exponent) + offset, clamped to int8."""
    mult, shift = frexp_multiplier(float(input_scale) * float(1 << 27))
    radius = input_radius(4, shift)
    out = np.empty(256, dtype=np.int64)
    for i, q in enumerate(INT8_VALUES):
        v = int(q) - input_zp
        if v <= -radius:
            out[i] = -128
        elif v >= radius:
            out[i] = 127
        else:
            q4 = int(tflm_mbqm(v, mult, shift))
            out[i] = min(max(int(rdbpot(function(q4, 4), exponent)) + offset, -128), 127)
    return out


def logistic_int8_table(input_scale: float, input_zp: int) -> np.ndarray:
    """reference_integer_ops::Logistic (int8) with LogisticPrepare's parameters:
    gemmlowp::logistic, then RoundingDivideByPOT(., 23) - 128 (output scale 1/256 and zero
    point -128 assumed)."""
    return _q4_function_table(input_scale, input_zp, gemmlowp_logistic, 23, -128)


def tanh_int8_table(input_scale: float, input_zp: int) -> np.ndarray:
    """reference_integer_ops::Tanh (int8) with TanhPrepare's parameters: as LOGISTIC with
    gemmlowp::tanh and RoundingDivideByPOT(., 24) (output scale 1/128, zero point 0 assumed;
    TFLite Micro reads neither)."""
    return _q4_function_table(input_scale, input_zp, gemmlowp_tanh, 24, 0)


def _wrap16(x: int) -> int:
    return ((int(x) + (1 << 15)) & 0xFFFF) - (1 << 15)


def _srdhm16(a: int, b: int) -> int:
    """gemmlowp SaturatingRoundingDoublingHighMul<int16_t>."""
    if a == b == -(1 << 15):
        return (1 << 15) - 1
    ab = a * b
    num = ab + ((1 << 14) if ab >= 0 else 1 - (1 << 14))
    return _wrap16(num // (1 << 15) if num >= 0 else -((-num) // (1 << 15)))  # C++ division


def _rdbpot16(x: int, exponent: int) -> int:
    """gemmlowp RoundingDivideByPOT<int16_t>: its mask (2^exponent - 1) is an int16, so from
    exponent 16 on it is -1 and the result is 1 for x >= 0 and -1 for x < 0."""
    mask = _wrap16((1 << exponent) - 1)
    remainder = _wrap16(x & mask)
    threshold = _wrap16((mask >> 1) + (1 if x < 0 else 0))
    return _wrap16((x >> exponent) + (1 if remainder > threshold else 0))


def _sat_left_shift16(v: int, amount: int) -> int:
    return min(max(v * (1 << amount), -(1 << 15)), (1 << 15) - 1)


def _downscale_multiplier16(m: int) -> int:
    """TFLite's DownScaleInt32ToInt16Multiplier."""
    if m >= INT32_MAX - (1 << 15):
        return (1 << 15) - 1
    return (m + (1 << 15)) >> 16


def hard_swish_int8_params(input_scale: float, output_scale: float):
    """HardSwishPrepare: float32 scale arithmetic, QuantizeMultiplier, int16 multipliers.
    Returns (output multiplier int16, output exponent, reluish multiplier int16, reluish
    exponent)."""
    hires = F32(F32(1.0) / F32(128.0)) * F32(input_scale)
    reluish_scale = F32(3.0) / F32(32768.0)
    m_out, e_out = tflm_quantize_multiplier(float(F32(hires / F32(output_scale))))
    m_rel, e_rel = tflm_quantize_multiplier(float(F32(hires / reluish_scale)))
    return _downscale_multiplier16(m_out), e_out, _downscale_multiplier16(m_rel), e_rel


def hard_swish_int8_table(input_scale: float, input_zp: int, output_scale: float,
                          output_zp: int) -> np.ndarray:
    """reference_ops::HardSwish<int8_t> (quantized): int16 fixed point, wrapping like the
    kernel's int16_t variables."""
    m_out, e_out, m_rel, e_rel = hard_swish_int8_params(input_scale, output_scale)
    out = np.empty(256, dtype=np.int64)
    for i, q in enumerate(INT8_VALUES):
        v = _wrap16(int(q) - input_zp)
        hires = _wrap16(v * (1 << 7))
        preshift = _srdhm16(hires, m_out)
        rel = hires
        if e_rel > 0:
            rel = _sat_left_shift16(rel, e_rel - 1)
        rel = _srdhm16(rel, m_rel)
        if e_rel > 0:
            rel = _sat_left_shift16(rel, 1)
        if e_rel < 0:
            rel = _rdbpot16(rel, -e_rel)
        rel = _wrap16((rel + (1 << 15)) >> 1)
        # SaturatingDoublingHighMul: the int32 product / 2^15, truncated.
        if rel == preshift == -(1 << 15):
            pre = (1 << 15) - 1
        else:
            p = rel * preshift
            pre = _wrap16(p // (1 << 15) if p >= 0 else -((-p) // (1 << 15)))
        o = _wrap16(_rdbpot16(pre, -e_out) + output_zp)
        out[i] = min(max(o, -128), 127)
    return out


def relu_int8_table(input_scale: float, input_zp: int, output_scale: float,
                    output_zp: int) -> np.ndarray:
    """tflite::ReluQuantized<int8_t> with CalculateReluOpData: requantize by the float32
    quotient of the scales, clamp to [max(-128, output zero point), 127]."""
    m, s = tflm_quantize_multiplier(float(F32(input_scale) / F32(output_scale)))
    y = output_zp + tflm_mbqm(INT8_VALUES - input_zp, m, s)
    return np.clip(y, max(-128, output_zp), 127)


def leaky_relu_int8_table(input_scale: float, input_zp: int, output_scale: float,
                          output_zp: int, alpha: float) -> np.ndarray:
    """reference_ops::QuantizeLeakyRelu<int8_t> with CalculateOpDataLeakyRelu: identity
    multiplier in_scale / out_scale and alpha multiplier in_scale * alpha / out_scale (float32
    arithmetic), a negative alpha applied as the negated product of its magnitude."""
    m_id, s_id = tflm_quantize_multiplier(float(F32(input_scale) / F32(output_scale)))
    m_a, s_a = tflm_quantize_multiplier(
        float(F32(F32(input_scale) * F32(alpha)) / F32(output_scale)))
    v = INT8_VALUES - input_zp
    pos = tflm_mbqm(v, m_id, s_id)
    neg = tflm_mbqm(v, abs(m_a), s_a)
    if m_a < 0:
        neg = -neg
    return np.clip(output_zp + np.where(v >= 0, pos, neg), -128, 127)


def rsqrt_int8_params(input_scale: float, output_scale: float) -> Tuple[int, int]:
    """SetRsqrtOutputMultiplier: 1 / (sqrtf(in_scale) * out_scale) (float32 product), in
    double, QuantizeMultiplier."""
    return tflm_quantize_multiplier(
        1.0 / float(F32(np.sqrt(F32(input_scale))) * F32(output_scale)))


def rsqrt_int8_table(input_scale: float, input_zp: int, output_scale: float,
                     output_zp: int) -> np.ndarray:
    """RsqrtEvalQuantized<int8_t>: 127 at the zero point, else
    MBQM(MBQM(1, inv_sqrt(v), shift + 20), m, s - 20) + out_zp with GetInvSqrtQuantized-
    MultiplierExp. Inputs below the zero point (TFLite Micro fails Invoke there) give 127."""
    m, s = rsqrt_int8_params(input_scale, output_scale)
    out = np.full(256, 127, dtype=np.int64)
    for i, q in enumerate(INT8_VALUES):
        v = int(q) - input_zp
        if v <= 0:
            continue
        inv, inv_shift = inv_sqrt_multiplier_exp(v)
        data = int(tflm_mbqm(1, inv, inv_shift + 20))
        out[i] = min(max(int(tflm_mbqm(data, m, s - 20)) + output_zp, -128), 127)
    return out


def log_softmax_int8_params(input_scale: float):
    """LOG_SOFTMAX's CalculateOpData (int8, beta 1): PreprocessLogSoftmaxScalingExp and
    diff_min. Returns (input multiplier, input left shift, reverse scaling divisor, its
    left shift <= 0, diff_min)."""
    real = min(1.0 * float(input_scale) * float(1 << 26), float((1 << 31) - 1))
    mult, shift = tflm_quantize_multiplier(real)
    if shift < 0 or real <= 1.0:
        raise ValueError(f"input scale {input_scale} is too small (multiplier below one)")
    rev = float(1 << (31 - shift)) / float(mult)
    if not 0.0 < rev < 1.0:
        raise ValueError(f"reverse scaling divisor {rev} is not below one")
    mult_rev, shift_rev = tflm_quantize_multiplier(rev)
    return mult, shift, mult_rev, shift_rev, -input_radius(5, shift)


def log_softmax_int8_tables(input_scale: float):
    """The two per-difference functions of reference_ops::LogSoftmaxQuantized<int8_t> for
    d = x - max in [-255, 0] (index d + 255): Rescale<12>(exp_on_negative_values(MBQM(d)))
    (0 where d < diff_min: the kernel skips those) and MBQM(d) itself (Q5.26)."""
    mult, shift, _, _, diff_min = log_softmax_int8_params(input_scale)
    d = np.arange(-255, 1, dtype=np.int64)
    q5 = tflm_mbqm(d, mult, shift)
    exp_terms = np.array([int(rdbpot(exp_on_negative_values(int(v), 5), 12)) if di >= diff_min
                          else 0 for di, v in zip(d, q5)], dtype=np.int64)
    return exp_terms, wrap32(q5)


# ------------------------------------------------------------ int16 (16x8)
def checked_log2(x: float) -> Tuple[int, bool]:
    """TFLite's CheckedLog2 in float32: (round(logf(x) * (1 / logf(2))), |fraction| < 1e-3),
    the second telling whether ``x`` counts as a power of two. (logf is taken as the
    correctly rounded logarithm.)"""
    lx = F32(math.log(float(F32(x))))
    x_log2 = F32(lx * F32(F32(1.0) / F32(math.log(2.0))))
    rounded = F32(math.floor(abs(float(x_log2)) + 0.5) * (1 if x_log2 >= 0 else -1))
    return int(rounded), bool(abs(F32(x_log2 - rounded)) < F32(1e-3))


def sigmoid_tanh_int16_params(input_scale: float, output_scale: float,
                              tanh: bool) -> Tuple[int, int]:
    """(input_multiplier, input_left_shift) of LogisticPrepare / TanhPrepare for int16, as the
    kernels reference_integer_ops::Logistic / Tanh take them (multiplier 0: the power-of-two
    case, ``3 << left_shift``). Prepare reads the input as Q3.12 (``v = 3 x`` interpolates
    the table at ``|v| >> 9`` resp. ``>> 8``): a power-of-two scale 2^-12 (tanh also 2^-11) is
    taken as is, any other scale becomes ``int(s * 4096 * 3 * 2^k)`` (double, truncated) with
    the smallest k that lifts it above 32767 / 2, and a rounding right shift by k. The output
    scale must be 2^-15 (CheckedLog2), both zero points 0 (checked by the caller). ValueError
    for what Prepare refuses (multiplier above 32767: its DCHECK)."""
    log2, pot = checked_log2(input_scale)
    left = 12 + log2
    if pot and (left == 0 or (tanh and left == 1)):
        multiplier = 0
    else:
        m = float(F32(input_scale)) * 4096.0 * 3.0
        left = 0
        while m <= 32767.0 / 2.0 and left <= 30:
            left += 1
            m *= 2.0
        multiplier = int(m)
        if multiplier > 32767:
            raise ValueError(f"input multiplier {multiplier} above 32767 (input scale "
                             f"{input_scale} above 32767 / 12288)")
    out_log2, out_pot = checked_log2(output_scale)
    if not out_pot or out_log2 != -15:
        raise ValueError(f"output scale {output_scale} is not 2^-15")
    return multiplier, left


def _roundf(v) -> np.float32:
    """TfLiteRound on a float: std::round (half away from zero), float32 result."""
    v = float(v)
    return F32(math.floor(abs(v) + 0.5) * (1.0 if v >= 0 else -1.0))


def lut_populate_int16(transform, input_scale, input_zp: int, output_scale,
                       output_zp: int) -> np.ndarray:
    """TFLite's LUTPopulate<int16_t> (LUTPopulateInt16<float>): 513 samples of ``transform``
    over the input range, each lowered by half the error the linear interpolation makes at the
    middle of its step, in float32 arithmetic as the C++ does (every product, sum and quotient
    rounded to float32; TfLiteRound = half away from zero)."""
    f = F32
    input_min = f(f(input_scale) * f(-32768 - input_zp))
    input_max = f(f(input_scale) * f(32767 - input_zp))
    output_min = f(f(output_scale) * f(-32768 - output_zp))
    output_max = f(f(output_scale) * f(32767 - output_zp))
    step = f(f(input_max - input_min) / f(512))
    half_step = f(step / f(2))
    inv = f(f(65536) / f(output_max - output_min))
    lut = np.empty(513, dtype=np.int64)
    for i in range(512):
        x0 = f(input_min + f(f(i) * step))
        val = transform(x0)
        val_mid = transform(f(x0 + half_step))
        val_next = transform(f(input_min + f(f(i + 1) * step)))
        sample = _roundf(f(val * inv))
        interp = _roundf(f(f(f(val_next * inv) + sample) / f(2)))
        bias = _roundf(f(f(interp - _roundf(f(val_mid * inv))) / f(2)))
        lut[i] = int(min(max(f(sample - bias), f(-32768)), f(32767)))
    lut[512] = int(min(max(_roundf(f(transform(input_max) * inv)), f(-32768)), f(32767)))
    return lut


def _expf(v) -> np.float32:
    """expf, correctly rounded (the double exp rounded to float32)."""
    return F32(math.exp(float(v)))


def _one_over_one_plus(v) -> np.float32:
    return F32(F32(1.0) / F32(F32(1.0) + F32(v)))


def softmax_int16_luts() -> Tuple[np.ndarray, np.ndarray]:
    """The two tables the int16 SOFTMAX's Prepare fills (InitializeLutForInt16): exp on
    [-10, 0] (input scale 10 / 65535, zero point 32767) and 1 / (1 + x) on [0, 1] (input
    scale 1 / 65535, zero point -32768), both to output scale 2 / 65535 (Q0.15). They do not
    depend on the tensors' parameters."""
    rng = 65535
    exp_lut = lut_populate_int16(_expf, F32(F32(10.0) / F32(rng)), 32767,
                                 F32(F32(2.0) / F32(rng)), 0)
    recip_lut = lut_populate_int16(_one_over_one_plus, F32(F32(1.0) / F32(rng)), -32768,
                                   F32(F32(2.0) / F32(rng)), 0)
    return exp_lut, recip_lut


def lut_lookup_int16(x, lut: np.ndarray) -> np.ndarray:
    """TFLite's LUTLookup(int16_t): ``lut[256 + (x >> 7)] + ((slope * (x & 127) + 64) >> 7)``."""
    x = np.asarray(x, dtype=np.int64)
    idx = 256 + (x >> 7)
    base = lut[idx]
    slope = ((lut[idx + 1] - base + (1 << 15)) & 0xFFFF) - (1 << 15)  # int16_t slope
    y = base + ((slope * (x & 127) + 64) >> 7)
    return ((y + (1 << 15)) & 0xFFFF) - (1 << 15)


def softmax_int16_params(input_scale: float, beta: float) -> Tuple[int, int]:
    """(input_multiplier, input_left_shift) of the int16 SOFTMAX: QuantizeMultiplier of
    ``double(s_in) * double(beta) / (10.0 / 65535.0)`` (the difference to the row maximum
    scaled so that [-65535, 0] spans [-10, 0]). ValueError where TFLite Micro's int32
    ``diff << left_shift`` would overflow (left shift above 14)."""
    m, shift = tflm_quantize_multiplier(float(F32(input_scale)) * float(F32(beta))
                                        / (10.0 / 65535.0))
    if shift > 14:
        raise ValueError(f"input scale * beta = {float(F32(input_scale)) * float(F32(beta))} "
                         f"needs a left shift of {shift}: TFLite Micro's int32 difference "
                         "<< shift overflows")
    return m, shift


def softmax_int16(x: np.ndarray, input_scale: float, beta: float) -> np.ndarray:
    """reference_ops::SoftmaxInt16 on numpy values (rows along the last axis)."""
    m, shift = softmax_int16_params(input_scale, beta)
    exp_lut, recip_lut = softmax_int16_luts()
    flat = np.asarray(x, dtype=np.int64).reshape(-1, x.shape[-1])
    out = np.empty_like(flat)
    for i, row in enumerate(flat):
        scaled = tflm_mbqm(row - row.max(), m, shift)
        e = lut_lookup_int16(np.clip(scaled + 32767, -32768, 32767), exp_lut)
        total = int(e.sum())
        h = 32 - total.bit_length()  # CountLeadingZeros(uint32)
        shifted = ((total << (h - 1)) + (1 << 13)) >> 14
        r = int(lut_lookup_int16(min(max(shifted - 98304, -32768), 32767), recip_lut))
        rs = 31 - h
        out[i] = np.clip((e * r + (1 << (rs - 1))) >> rs, 0, 32767)
    return out.reshape(x.shape)


# ------------------------------------------------------------------ the mixin
class TableOps:
    """Mixin for Importer; ``HANDLERS`` maps TFLite op names to methods."""

    # ------------------------------------------------------------ helpers
    def unary_io(self, op: Operator):
        """(input Value, input Tensor, output Tensor), input and output of the same type."""
        it, ot = self.tensor(op.inputs[0]), self.tensor(op.outputs[0])
        if it.type != ot.type:
            raise self.error(f"input type {it.type_name} differs from output type {ot.type_name}")
        return self.value(op.inputs[0]), it, ot

    def int8_table(self, x: Value, table: np.ndarray, comment: str) -> Value:
        """tosa.table: y = table[x + 128] for int8 x."""
        table = np.asarray(table, dtype=np.int64)
        if table.min() < -128 or table.max() > 127:
            raise self.error("internal error: table value outside int8")
        t = self.b.const(table.astype(np.int8), "i8", cache=True)
        res = Value("", x.shape, "i8")
        res.name = self.b.op("table", [x.name, t], [x.type, "tensor<256xi8>"], res.type,
                             comment=comment)
        return res

    def table_op(self, op: Operator, make: Callable[..., np.ndarray], what: str,
                 float_fn: Callable[[Value], Value], int16_fn=None) -> Value:
        """An element-wise operator: ``float_fn`` for float32, ``int16_fn(x, it, ot)`` for
        int16, else the int8 table ``make(in_scale, in_zp, out_scale, out_zp)``."""
        x, it, ot = self.unary_io(op)
        if x.elem == "f32":
            return float_fn(x)
        if x.elem == "i16" and int16_fn is not None:
            return int16_fn(x, it, ot)
        if x.elem != "i8":
            raise self.error(f"{TYPE_NAMES[x.elem]} {op.name} is not supported"
                             " (int8 and float32 are)")
        si, zi = self.per_tensor(it)
        so, zo = self.per_tensor(ot)
        try:
            table = make(si, zi, so, zo)
        except ValueError as e:
            raise self.error(f"TFLite Micro cannot run this int8 {op.name}: {e}") from None
        return self.int8_table(x, table, f"{op.name} #{op.index}: {what}")

    def fclamp(self, x: Value, lo: float, hi: float, comment: str = "") -> Value:
        return self.ew("clamp", [x], "f32",
                       f"max_val = {float_literal(hi)} : f32, min_val = {float_literal(lo)} : f32",
                       comment)

    def fscalar(self, v: float, x: Value) -> Value:
        return self.fconst(v, len(x.shape))

    # ------------------------------------------------------------ operators
    def import_logistic(self, op: Operator):
        def float_fn(x):
            # TFLite Micro's float kernel: exp(x) below -9, 1 above 16.619..., else
            # 1 / (1 + exp(-x)).
            c = f"LOGISTIC #{op.index}"
            s = self.ew("sigmoid", [x], "f32", comment=c)
            low = self.ew("greater", [self.fscalar(-9.0, x), x], "i1")
            y = self.ew("select", [low, self.ew("exp", [x], "f32"), s], "f32")
            high = self.ew("greater", [x, self.fscalar(float(F32(16.619047164916992188)), x)], "i1")
            return self.ew("select", [high, self.fscalar(1.0, x), y], "f32")

        def make(si, zi, so, zo):
            if zo != -128:
                raise ValueError(f"output zero point must be -128, not {zo}")
            return logistic_int8_table(si, zi)
        return self.table_op(op, make, "TFLite Micro's int8 logistic (table)", float_fn,
                             lambda x, it, ot: self.sigmoid_tanh_int16(op, x, it, ot, False))

    def import_tanh(self, op: Operator):
        return self.table_op(op, lambda si, zi, so, zo: tanh_int8_table(si, zi),
                             "TFLite Micro's int8 tanh (table)",
                             lambda x: self.ew("tanh", [x], "f32", comment=f"TANH #{op.index}"),
                             lambda x, it, ot: self.sigmoid_tanh_int16(op, x, it, ot, True))

    def import_hard_swish(self, op: Operator):
        def float_fn(x):
            # x * min(6, max(0, x + 3)) / 6
            r = self.fclamp(self.ew("add", [x, self.fscalar(3.0, x)], "f32"), 0.0, 6.0,
                            f"HARD_SWISH #{op.index}")
            p = self.fmul(x, r)
            return self.fmul(p, self.fscalar(1.0 / 6.0, x))

        def make(si, zi, so, zo):
            if hard_swish_int8_params(si, so)[1] > 0:
                raise ValueError("output multiplier exponent > 0 (input scale / 128 above the "
                                 "output scale)")
            return hard_swish_int8_table(si, zi, so, zo)
        return self.table_op(op, make, "TFLite Micro's int8 hard swish (table)", float_fn)

    def import_rsqrt(self, op: Operator):
        def make(si, zi, so, zo):
            m, s = rsqrt_int8_params(si, so)
            if s - 20 < -31:
                raise ValueError(f"output multiplier shift {s} - 20 is below -31")
            return rsqrt_int8_table(si, zi, so, zo)
        return self.table_op(op, make, "TFLite Micro's int8 rsqrt (table; 127 at and below the "
                             "input zero point)",
                             lambda x: self.ew("rsqrt", [x], "f32", comment=f"RSQRT #{op.index}"))

    def import_exp(self, op: Operator):
        x, _, _ = self.unary_io(op)
        if x.elem != "f32":
            raise self.error(f"{TYPE_NAMES[x.elem]} EXP is not supported"
                             ": TFLite Micro's EXP is float32 only")
        return self.ew("exp", [x], "f32", comment=f"EXP #{op.index}")

    def import_relu(self, op: Operator):
        def int16_fn(x, it, ot):
            # ReluQuantized<int16_t>: MBQM by the float32 quotient of the scales, clamp to
            # [0, 32767] (zero points 0).
            self.int16_zero_points(op, it, ot)
            try:
                m, s = tflm_quantize_multiplier(float(F32(self.per_tensor(it)[0])
                                                      / F32(self.per_tensor(ot)[0])))
            except ValueError as e:
                raise self.error(f"TFLite Micro cannot run this int16 RELU: {e}") from None
            v = self.ew("cast", [x], "i32", comment=f"RELU #{op.index}: int16")
            return self.to_int16(self.ew("maximum", [self.mbqm_i32(v, m, s),
                                                     self.ic(0, len(x.shape))], "i32"))

        return self.table_op(op, relu_int8_table, "TFLite Micro's int8 relu (requantize, table)",
                             lambda x: self.fclamp(x, 0.0, float(np.finfo(np.float32).max),
                                                   f"RELU #{op.index}"), int16_fn)

    def import_relu6(self, op: Operator):
        x, it, ot = self.unary_io(op)
        if x.elem == "f32":
            return self.fclamp(x, 0.0, 6.0, f"RELU6 #{op.index}")
        if x.elem not in ("i8", "i16"):
            raise self.error(f"{TYPE_NAMES[x.elem]} RELU6 is not supported"
                             " (int8, int16 and float32 are)")
        # Relu6Quantized: a clamp in the input's quantization to [zp, quantized 6]; TFLite
        # Micro does not requantize (the output's parameters are not read).
        s, z = self.per_tensor(it)
        bits = 8 if x.elem == "i8" else 16
        # FloatToQuantizedType<T>(6.0f, scale, zp): round(6.0f / scale) + zp, clamped.
        six = min(max(int(math.floor(float(F32(6.0) / F32(s)) + 0.5)) + z, -(1 << (bits - 1))),
                  (1 << (bits - 1)) - 1)
        res = Value("", x.shape, x.elem)
        res.name = self.b.op("clamp", [x.name], [x.type], res.type,
                             f"max_val = {six} : {x.elem}, min_val = {z} : {x.elem}",
                             f"RELU6 #{op.index}: clamp to [zero point, quantized 6]")
        return res

    def import_leaky_relu(self, op: Operator):
        alpha = float(F32(options(self.model, op).f32(0, 0.0)))

        def float_fn(x):
            pos = self.ew("greater", [x, self.fscalar(0.0, x)], "i1",
                          comment=f"LEAKY_RELU #{op.index}")
            return self.ew("select", [pos, x, self.fmul(x, self.fscalar(alpha, x))], "f32")

        def int16_fn(x, it, ot):
            # QuantizeLeakyRelu<int16_t>: as the int8 table's arithmetic, in i32 TOSA.
            si, zi = self.per_tensor(it)
            so, zo = self.per_tensor(ot)
            try:
                m_id, s_id = tflm_quantize_multiplier(float(F32(si) / F32(so)))
                m_a, s_a = tflm_quantize_multiplier(float(F32(F32(si) * F32(alpha)) / F32(so)))
            except ValueError as e:
                raise self.error(f"TFLite Micro cannot run this int16 LEAKY_RELU: {e}") from None
            rank = len(x.shape)
            v = self.ew("sub", [self.ew("cast", [x], "i32", comment=f"LEAKY_RELU #{op.index}: "
                                        "int16"), self.ic(zi, rank)], "i32")
            pos = self.mbqm_i32(v, m_id, s_id)
            neg = self.mbqm_i32(v, abs(m_a), s_a)
            if m_a < 0:
                neg = self.ew("sub", [self.ic(0, rank), neg], "i32")
            y = self.ew("select", [self.ew("greater_equal", [v, self.ic(0, rank)], "i1"), pos, neg],
                        "i32")
            return self.to_int16(self.ew("add", [y, self.ic(zo, rank)], "i32"))

        return self.table_op(op, lambda si, zi, so, zo: leaky_relu_int8_table(si, zi, so, zo,
                                                                               alpha),
                             f"TFLite Micro's int8 leaky relu, alpha {alpha} (table)", float_fn,
                             int16_fn)

    # ------------------------------------------------ integer TOSA building blocks
    def ic(self, value: int, rank: int) -> Value:
        return self.iconst([value], [1] * rank)

    def sat_shl(self, v: Value, k: int) -> Value:
        """gemmlowp SaturatingRoundingMultiplyByPOT<k> (k > 0): v << k, saturated."""
        rank = len(v.shape)
        thr = (1 << (31 - k)) - 1
        shl = self.ew("logical_left_shift", [v, self.ic(k, rank)], "i32")
        hi = self.ew("greater", [v, self.ic(thr, rank)], "i1")
        lo = self.ew("greater", [self.ic(-thr, rank), v], "i1")
        return self.ew("select", [hi, self.ic(INT32_MAX, rank),
                                  self.ew("select", [lo, self.ic(INT32_MIN, rank), shl], "i32")],
                       "i32")

    def rdbpot_var(self, v: Value, exponent: Value) -> Value:
        """gemmlowp RoundingDivideByPOT(v, exponent >= 0) (ties away from zero) with a tensor
        exponent: tosa.arithmetic_right_shift rounds ties up, so a negative v is lowered by
        one first when the exponent is positive."""
        rank = len(v.shape)
        zero = self.ic(0, rank)
        adjust = self.ew("logical_and", [self.ew("greater", [zero, v], "i1"),
                                         self.ew("greater", [exponent, zero], "i1")], "i1")
        v = self.ew("select", [adjust, self.ew("sub", [v, self.ic(1, rank)], "i32"), v], "i32")
        return self.ew("arithmetic_right_shift", [v, exponent], "i32", "round = true")

    def inv_sqrt_multiplier_exp(self, acc: Value, comment: str):
        """GetInvSqrtQuantizedMultiplierExp(acc, kReverseShift) in integer TOSA for
        1 < acc < 2^29 (the caller bounds acc; acc <= 1 is selected by the caller): returns
        (multiplier, right shift >= 0) tensors. Mirrors ``inv_sqrt_multiplier_exp``."""
        rank = len(acc.shape)
        c = lambda v: self.ic(v, rank)  # noqa: E731
        clz = self.ew("clz", [acc], "i32", comment=comment + ": GetInvSqrtQuantizedMultiplierExp")
        pairs = self.ew("sub", [self.ew("arithmetic_right_shift",
                                        [self.ew("sub", [clz, c(1)], "i32"), c(1)], "i32",
                                        "round = false"), c(1)], "i32")
        shift = self.ew("sub", [c(11), pairs], "i32")
        x = self.ew("logical_left_shift", [acc, self.ew("add", [pairs, pairs], "i32")], "i32")
        # half_input = RoundingDivideByPOT(x >> 1, 1) of a non-negative value.
        half_input = self.ew("arithmetic_right_shift",
                             [self.ew("arithmetic_right_shift", [x, c(1)], "i32", "round = false"),
                              c(1)], "i32", "round = true")
        r = c(1 << 28)
        for _ in range(5):
            r3 = self.sat_shl(self.imul31(self.imul31(r, r), r), 6)
            d = self.ew("sub", [self.imul31(c((1 << 28) + (1 << 27)), r),
                                self.imul31(half_input, r3)], "i32")
            r = self.sat_shl(d, 3)
        r = self.imul31(r, c(1518500250))
        # A negative shift moves into the multiplier.
        up = self.ew("maximum", [self.ew("sub", [c(0), shift], "i32"), c(0)], "i32")
        r = self.ew("logical_left_shift", [r, up], "i32")
        return r, self.ew("maximum", [shift, c(0)], "i32")

    def sat_shl_var(self, v: Value, e: Value) -> Value:
        """TFLite's SaturatingRoundingMultiplyByPOTParam(v, e) for a tensor exponent e >= 0."""
        rank = len(v.shape)
        thr = self.ew("logical_right_shift", [self.ic(INT32_MAX, rank), e], "i32")
        shl = self.ew("logical_left_shift", [v, e], "i32")
        hi = self.ew("greater", [v, thr], "i1")
        lo = self.ew("greater", [self.ew("sub", [self.ic(0, rank), thr], "i32"), v], "i1")
        return self.ew("select", [hi, self.ic(INT32_MAX, rank),
                                  self.ew("select", [lo, self.ic(INT32_MIN, rank), shl], "i32")],
                       "i32")

    def one_over_one_plus_x(self, a: Value) -> Value:
        """gemmlowp one_over_one_plus_x_for_x_in_0_1 (raw Q0.31 in and out, a >= 0)."""
        rank = len(a.shape)
        c = lambda v: self.ic(v, rank)  # noqa: E731
        # RoundingHalfSum(a, One) = (a + 2^31) / 2 without leaving int32.
        hd = self.ew("add", [self.ew("arithmetic_right_shift", [a, c(1)], "i32", "round = false"),
                             c(1 << 30)], "i32")
        x = self.ew("add", [c(1515870810), self.imul31(hd, c(-1010580540))], "i32")
        for _ in range(3):
            u = self.ew("sub", [c(1 << 29), self.imul31(hd, x)], "i32")
            x = self.ew("add", [x, self.sat_shl(self.imul31(x, u), 2)], "i32")
        return self.sat_shl(x, 1)

    def log_x_ge_1(self, a: Value, input_bits: int, output_bits: int, comment: str) -> Value:
        """TFLite's log_x_for_x_greater_than_or_equal_to_1_impl<output_bits, input_bits> of a
        raw Q(input_bits) tensor a >= 1.0, raw Q(output_bits) result, in integer TOSA."""
        rank = len(a.shape)
        c = lambda v: self.ic(v, rank)  # noqa: E731
        add = lambda x, y: self.ew("add", [x, y], "i32")  # noqa: E731
        sub = lambda x, y: self.ew("sub", [x, y], "i32")  # noqa: E731
        mul = self.imul31
        acc_bits = output_bits + 1
        log_2, sqrt_sqrt_half, sqrt_half = 1488522236, 1805811301, 1518500250
        alpha_n, alpha_d, alpha_i, alpha_f = 117049297, 127690142, 1057819769, 638450708
        shifted_quarter = int(rdbpot(536870912, acc_bits))
        h1 = self.ew("clz", [a], "i32",
                     comment=comment + ": log_x_for_x_greater_than_or_equal_to_1")
        # a << (h1 - 1) keeps the sign bit clear: SaturatingRoundingMultiplyByPOTParam does
        # not saturate there.
        r_a = self.sat_shl(mul(self.ew("logical_left_shift", [a, sub(h1, c(1))], "i32"),
                               c(sqrt_half)), 1)
        # (input_bits - headroom) << (31 - acc_bits): small integers, never saturated.
        z_a_adj = add(self.ew("logical_left_shift", [sub(c(input_bits), h1), c(31 - acc_bits)],
                              "i32"), c(shifted_quarter))
        hb = sub(self.ew("clz", [mul(a, c(sqrt_half))], "i32"), c(1))
        r_b = self.sat_shl_var(a, hb)
        z_b_adj = sub(self.ew("logical_left_shift", [sub(c(input_bits), hb), c(31 - acc_bits)],
                              "i32"), c(shifted_quarter))
        r = self.ew("minimum", [r_a, r_b], "i32")
        z_adj = self.ew("maximum", [z_a_adj, z_b_adj], "i32")
        # RoundingHalfSum(r, sqrt_sqrt_half) of r >= 0 and the odd constant: (r >> 1) + c/2 + 1.
        p = add(self.ew("arithmetic_right_shift", [r, c(1)], "i32", "round = false"),
                c(sqrt_sqrt_half // 2 + 1))
        q = sub(r, c(sqrt_sqrt_half))
        q = add(q, q)
        common_sq = mul(q, q)
        num = add(mul(q, r), mul(mul(q, common_sq), c(alpha_n)))
        denom_minus_one = add(mul(p, add(add(c(alpha_i), q), mul(c(alpha_d), common_sq))),
                              mul(c(alpha_f), q))
        recip = self.one_over_one_plus_x(denom_minus_one)
        num_scaled = self.rdbpot_var(num, c(acc_bits))
        total = add(mul(z_adj, c(log_2)), mul(num_scaled, recip))
        return self.sat_shl(total, acc_bits - output_bits)

    def import_log_softmax(self, op: Operator):
        x, it, ot = self.unary_io(op)
        rank = len(x.shape)
        axis = f"axis = {rank - 1} : i32"
        comment = f"LOG_SOFTMAX #{op.index}"
        if x.elem == "f32":
            # (x - max) - log(sum(exp(x - max))), as reference_ops::LogSoftmax.
            d = self.ew("sub", [x, self.ireduce("reduce_max", x, axis)], "f32", comment=comment)
            s = self.ireduce("reduce_sum", self.ew("exp", [d], "f32"), axis)
            return self.ew("sub", [d, self.ew("log", [s], "f32")], "f32")
        if x.elem != "i8":
            raise self.error(f"{TYPE_NAMES[x.elem]} LOG_SOFTMAX is not supported"
                             " (int8 and float32 are)")
        si, _ = self.per_tensor(it)
        so, zo = self.per_tensor(ot)
        if F32(so) != F32(16.0 / 256) or zo != 127:
            raise self.error(f"int8 LOG_SOFTMAX needs output scale 16/256 and zero point 127 "
                             f"(TFLite Micro's requirement), not {so} and {zo}")
        depth = x.shape[-1]
        if depth > 4096:
            raise self.error(f"int8 LOG_SOFTMAX over {depth} elements is not supported (its Q12 "
                             "sum of exponentials may overflow)")
        try:
            params = log_softmax_int8_params(si)
        except ValueError as e:
            raise self.error(f"TFLite Micro cannot run this int8 LOG_SOFTMAX: {e}") from None
        exp_table, diff_table = log_softmax_int8_tables(si)
        mult_rev, shift_rev, diff_min = params[2], params[3], params[4]
        # reference_ops::LogSoftmaxQuantized: per element of x - max(row) (256 values), the
        # Q5.26 rescaled difference and its Rescale<12>(exp) term are table entries.
        xi = self.ew("cast", [x], "i32", comment=comment + ": TFLite Micro's int8 log-softmax")
        diff = self.ew("sub", [xi, self.ireduce("reduce_max", xi, axis)], "i32")
        idx = self.reshape(self.ew("add", [diff, self.ic(255, rank)], "i32"),
                           [1, int(np.prod(x.shape))])

        def gather(table, what):
            t = Value(self.b.const(table.reshape(1, 256, 1).astype(np.int32), "i32", cache=True),
                      [1, 256, 1], "i32")
            g = Value("", [1, idx.shape[1], 1], "i32")
            g.name = self.b.op("gather", [t.name, idx.name], [t.type, idx.type], g.type,
                               comment=what)
            return self.reshape(g, x.shape)
        terms = gather(exp_table, "Rescale<12>(exp_on_negative_values) of each difference "
                                  "(0 below diff_min)")
        diff_q5 = gather(diff_table, "MultiplyByQuantizedMultiplier of each difference (Q5.26)")
        log_sum = self.log_x_ge_1(self.ireduce("reduce_sum", terms, axis), 12, 5, comment)
        shifted = self.ew("add", [log_sum, self.ic(INT32_MIN, rank)], "i32")
        bound = self.rescale_raw(shifted, [mult_rev], [31 - shift_rev], 0, 0, "i32",
                                 "DOUBLE_ROUND")
        adjusted = self.ew("maximum", [bound, self.ic(diff_min - 1, rank)], "i32")
        out = self.rdbpot_var(self.ew("sub", [diff_q5, log_sum], "i32"), self.ic(22, rank))
        out = self.iclamp(self.ew("add", [out, self.ic(127, rank)], "i32"), -128, 127)
        keep = self.ew("greater", [diff, adjusted], "i1")
        out = self.ew("select", [keep, out, self.ic(-128, rank)], "i32")
        return self.ew("cast", [out], "i8")

    # ------------------------------------------------------------ int16
    def int16_zero_points(self, op: Operator, it, ot):
        _, zi = self.per_tensor(it)
        _, zo = self.per_tensor(ot)
        if zi != 0 or zo != 0:
            raise self.error(f"int16 {op.name} needs zero points 0 (TFLite Micro's requirement), "
                             f"not {zi} and {zo}")

    def to_int16(self, v: Value) -> Value:
        return self.ew("cast", [self.iclamp(v, -(1 << 15), (1 << 15) - 1)], "i16")

    def mbqm_i32(self, v: Value, multiplier: int, shift: int) -> Value:
        """TFLite's MultiplyByQuantizedMultiplier of an i32 tensor (one DOUBLE_ROUND rescale)."""
        if 31 - shift < 2:
            raise self.error(f"multiplier shift {shift} is too large for tosa.rescale")
        return self.rescale_raw(v, [multiplier], [31 - shift], 0, 0, "i32", "DOUBLE_ROUND")

    def sigmoid_tanh_int16(self, op: Operator, x: Value, it, ot, tanh: bool) -> Value:
        """int16 LOGISTIC / TANH: reference_integer_ops::Logistic / Tanh with the parameters
        of their Prepare (sigmoid_tanh_int16_params): the input scaled by the multiplier and
        rounding shift, then TFLite's 256-entry sigmoid_table_uint16 interpolated at ``|v|``
        (integer TOSA shared with the LSTM's gates: ``tflm_sigmoid16`` / ``tflm_tanh16``)."""
        self.int16_zero_points(op, it, ot)
        try:
            m, shift = sigmoid_tanh_int16_params(self.per_tensor(it)[0], self.per_tensor(ot)[0],
                                                 tanh)
        except ValueError as e:
            raise self.error(f"TFLite Micro cannot run this int16 {op.name}: {e}") from None
        v = self.ew("cast", [x], "i32", comment=f"{op.name} #{op.index}: int16, input multiplier "
                    f"{m} ({'3 << shift' if m == 0 else 'general scale'}), shift {shift}")
        y = self.tflm_tanh16(v, m, shift) if tanh else self.tflm_sigmoid16(v, m, shift)
        return self.ew("cast", [y], "i16")

    def lut_int16(self, x: Value, lut: np.ndarray, comment: str) -> Value:
        """TFLite's LUTLookup(int16_t) of an i16 tensor: ``tosa.table`` with the 513 entries
        gives ``(lut[i] << 7) + (lut[i+1] - lut[i]) * (x & 127)``, ``i = (x + 32768) >> 7``
        (TFLite's ``256 + (x >> 7)``), in i32; ``(t + 64) >> 7`` is then TFLite's
        ``lut[i] + ((slope * (x & 127) + 64) >> 7)``, as ``lut[i] << 7`` is a multiple of 128
        (tosa.arithmetic_right_shift with round = true: ``(t >> 7) + bit 6 of t``). Exact while
        the slopes fit TFLite's int16 (checked) and the sum its int16 result (it interpolates
        between two int16 entries)."""
        lut = np.asarray(lut, dtype=np.int64)
        if np.abs(np.diff(lut)).max() > 32767:
            raise self.error("internal error: a LUT slope does not fit in int16")
        t = self.b.const(lut.astype(np.int16), "i16", cache=True)
        res = Value("", x.shape, "i32")
        res.name = self.b.op("table", [x.name, t], [x.type, "tensor<513xi16>"], res.type,
                             comment=comment)
        return self.ew("arithmetic_right_shift", [res, self.ic(7, len(x.shape))], "i32",
                       "round = true")

    def tflm_softmax_int16(self, x: Value, input_scale: float, beta: float,
                           comment: str) -> Value:
        """reference_ops::SoftmaxInt16 (int16 in and out, output scale 2^-15, zero points 0)
        in integer TOSA, per row (last axis):

        * ``d = x - max(x)`` in [-65535, 0], ``MultiplyByQuantizedMultiplier(d, m, shift)``
          (one DOUBLE_ROUND rescale; ``softmax_int16_params``), ``+ 32767`` saturated to
          int16, and the 513-entry exp table of Prepare (``lut_int16``): ``e`` in Q0.15;
        * ``sum = sum(e)`` (int32), ``h = clz(sum)``, ``(sum << (h - 1) + 2^13) >> 14`` (a
          rounding shift of the normalized sum), ``- 98304`` saturated to int16, and the 1 / (1
          + x) table: ``r``;
        * ``(e * r + 2^(30 - h)) >> (31 - h)`` (``tosa.mul``: exact, both below 2^15; a
          rounding shift: non-negative, so half up is TFLite's ``+ round >> shift``), clamped
          to [0, 32767].
        """
        try:
            m, shift = softmax_int16_params(input_scale, beta)
        except ValueError as e:
            raise self.error(f"TFLite Micro cannot run this int16 SOFTMAX: {e}") from None
        exp_lut, recip_lut = softmax_int16_luts()
        rank = len(x.shape)
        axis = f"axis = {rank - 1} : i32"
        c = lambda v: self.ic(v, rank)  # noqa: E731
        xi = self.ew("cast", [x], "i32", comment=comment + ": TFLite Micro's int16 softmax "
                     "(SoftmaxInt16: exp and 1 / (1 + x) tables of 513 entries, interpolated)")
        d = self.ew("sub", [xi, self.ireduce("reduce_max", xi, axis)], "i32")
        scaled = self.mbqm_i32(d, m, shift)
        sym = self.to_int16(self.ew("add", [scaled, c(32767)], "i32"))
        e = self.lut_int16(sym, exp_lut, "exp of (x - max) on [-10, 0] (Prepare's table)")
        total = self.ireduce("reduce_sum", e, axis)
        h = self.ew("clz", [total], "i32")
        norm = self.ew("logical_left_shift", [total, self.ew("sub", [h, c(1)], "i32")], "i32")
        shifted = self.ew("arithmetic_right_shift", [norm, c(14)], "i32", "round = true")
        sym_sum = self.to_int16(self.ew("sub", [shifted, c(98304)], "i32"))
        r = self.lut_int16(sym_sum, recip_lut, "1 / (1 + x) of the normalized sum (Prepare's "
                           "table)")
        p = self.tosa_mul(e, r, "i32", 0)
        y = self.ew("arithmetic_right_shift", [p, self.ew("sub", [c(31), h], "i32")], "i32",
                    "round = true")
        return self.ew("cast", [self.iclamp(y, 0, 32767)], "i16")

    def import_l2_normalization(self, op: Operator):
        x, it, ot = self.unary_io(op)
        act = options(self.model, op).i8(0)
        if act != 0:
            raise self.error("L2_NORMALIZATION with a fused activation is not supported "
                             "(TFLite Micro requires NONE)")
        if len(x.shape) > 4:
            raise self.error("L2_NORMALIZATION of more than 4 dimensions (TFLite Micro's limit)")
        rank = len(x.shape)
        axis = f"axis = {rank - 1} : i32"
        comment = f"L2_NORMALIZATION #{op.index}"
        if x.elem == "f32":
            # x / max(sqrt(sum x^2), 1e-6) as x * min(rsqrt(sum x^2), 1 / 1e-6).
            s = self.ireduce("reduce_sum", self.fmul(x, x), axis)
            r = self.ew("minimum", [self.ew("rsqrt", [s], "f32"),
                                    self.fscalar(float(1.0 / F32(1e-6)), x)], "f32")
            return self.fmul(x, r)
        if x.elem != "i8":
            raise self.error(f"{TYPE_NAMES[x.elem]} L2_NORMALIZATION is not supported"
                             " (int8 and float32 are)")
        _, zp = self.per_tensor(it)
        depth = x.shape[-1]
        if depth * 255 * 255 >= (1 << 29):
            raise self.error(f"int8 L2_NORMALIZATION over {depth} elements is not supported "
                             "(sums of squares from 2^29 on)")
        # reference_integer_ops::L2Normalization: acc = sum (q - zp)^2 per row, its inverse
        # square root as a multiplier and shift, MBQM(q - zp, m, shift + 7), saturated (output
        # scale 1/128, zero point 0 assumed: TFLite Micro reads no output parameters).
        v = self.ew("sub", [self.ew("cast", [x], "i32", comment=comment), self.ic(zp, rank)],
                    "i32")
        acc = self.ireduce("reduce_sum", self.tosa_mul(v, v, "i32", 0), axis)
        inv, right = self.inv_sqrt_multiplier_exp(acc, comment)
        small = self.ew("greater", [self.ic(2, rank), acc], "i1")
        inv = self.ew("select", [small, self.ic(INT32_MAX, rank), inv], "i32")
        right = self.ew("select", [small, self.ic(0, rank), right], "i32")
        # MBQM with shift 7 - right: left shift max(7 - right, 0), right shift max(right - 7, 0).
        left = self.ew("maximum", [self.ew("sub", [self.ic(7, rank), right], "i32"),
                                   self.ic(0, rank)], "i32")
        down = self.ew("maximum", [self.ew("sub", [right, self.ic(7, rank)], "i32"),
                                   self.ic(0, rank)], "i32")
        p = self.imul31(self.ew("logical_left_shift", [v, left], "i32"), inv)
        return self.saturate(self.rdbpot_var(p, down), 0, "i8")

    HANDLERS = {
        "L2_NORMALIZATION": import_l2_normalization,
        "LOG_SOFTMAX": import_log_softmax,
        "LOGISTIC": import_logistic,
        "TANH": import_tanh,
        "HARD_SWISH": import_hard_swish,
        "RSQRT": import_rsqrt,
        "EXP": import_exp,
        "RELU": import_relu,
        "RELU6": import_relu6,
        "LEAKY_RELU": import_leaky_relu,
    }
