"""numpy models of TFLite Micro's int16 table kernels, the references the tests check the
C++ importer's TOSA against (lib/Target/TFLite/TableOps.cpp and LstmOps.cpp implement the same
arithmetic; docs/TFLiteImport.md has the derivations).

* the int16 LOGISTIC / TANH (reference_integer_ops::Logistic / Tanh): the input multiplier of
  their Prepare (``sigmoid_tanh_int16_params``) and the interpolation in TFLite's
  ``sigmoid_table_uint16`` (``tflm_sigmoid_int16`` / ``tflm_tanh_int16``; the LSTM's gates use
  the same, its cell state with ``cell_tanh_params``);
* the int16 SOFTMAX (reference_ops::SoftmaxInt16): the two 513-entry tables its Prepare fills
  in float32 (``softmax_int16_luts``), TFLite's interpolating LUTLookup (``lut_lookup_int16``),
  the input multiplier (``softmax_int16_params``) and the whole kernel (``softmax_int16``).

TFLite Micro at tflite-micro @90b983c2b3f1, read from its source.
"""

import math
from typing import Tuple

import numpy as np

from .quant import mbqm

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


# ---------------------------------------------------- int16 LOGISTIC, TANH and SOFTMAX
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


# ------------------------------------------------- TFLite Micro's int16 sigmoid and tanh
# TFLite's sigmoid_table_uint16 (tensorflow/lite/kernels/internal/common.h): sigmoid(i / 24) in
# 0.16 fixed point, i = 0..255, used by the int16 LOGISTIC and TANH kernels. Its entries are not
# a rounding of the formula that could be recomputed (44 of them are one above round(),
# others below ceil()), so the numbers are kept here as data.
SIGMOID_TABLE_UINT16 = np.array([
    32768, 33451, 34133, 34813, 35493, 36169, 36843, 37513, 38180, 38841, 39498, 40149,
    40794, 41432, 42064, 42688, 43304, 43912, 44511, 45102, 45683, 46255, 46817, 47369,
    47911, 48443, 48964, 49475, 49975, 50464, 50942, 51409, 51865, 52311, 52745, 53169,
    53581, 53983, 54374, 54755, 55125, 55485, 55834, 56174, 56503, 56823, 57133, 57433,
    57724, 58007, 58280, 58544, 58800, 59048, 59288, 59519, 59743, 59959, 60168, 60370,
    60565, 60753, 60935, 61110, 61279, 61441, 61599, 61750, 61896, 62036, 62172, 62302,
    62428, 62549, 62666, 62778, 62886, 62990, 63090, 63186, 63279, 63368, 63454, 63536,
    63615, 63691, 63765, 63835, 63903, 63968, 64030, 64090, 64148, 64204, 64257, 64308,
    64357, 64405, 64450, 64494, 64536, 64576, 64614, 64652, 64687, 64721, 64754, 64786,
    64816, 64845, 64873, 64900, 64926, 64950, 64974, 64997, 65019, 65039, 65060, 65079,
    65097, 65115, 65132, 65149, 65164, 65179, 65194, 65208, 65221, 65234, 65246, 65258,
    65269, 65280, 65291, 65301, 65310, 65319, 65328, 65337, 65345, 65352, 65360, 65367,
    65374, 65381, 65387, 65393, 65399, 65404, 65410, 65415, 65420, 65425, 65429, 65433,
    65438, 65442, 65445, 65449, 65453, 65456, 65459, 65462, 65465, 65468, 65471, 65474,
    65476, 65479, 65481, 65483, 65485, 65488, 65489, 65491, 65493, 65495, 65497, 65498,
    65500, 65501, 65503, 65504, 65505, 65507, 65508, 65509, 65510, 65511, 65512, 65513,
    65514, 65515, 65516, 65517, 65517, 65518, 65519, 65520, 65520, 65521, 65522, 65522,
    65523, 65523, 65524, 65524, 65525, 65525, 65526, 65526, 65526, 65527, 65527, 65528,
    65528, 65528, 65529, 65529, 65529, 65529, 65530, 65530, 65530, 65530, 65531, 65531,
    65531, 65531, 65531, 65532, 65532, 65532, 65532, 65532, 65532, 65533, 65533, 65533,
    65533, 65533, 65533, 65533, 65533, 65534, 65534, 65534, 65534, 65534, 65534, 65534,
    65534, 65534, 65534, 65535,
], dtype=np.int64)


# ------------------------------------------------- TFLite Micro's int16 sigmoid and tanh
def _normalized(multiplier: int, left_shift: int):
    """The kernels' power-of-two case: multiplier 0 means ``3 << left_shift``, no shift."""
    return (3 << left_shift, 0) if multiplier == 0 else (multiplier, left_shift)


def _scaled(x, multiplier: int, shift: int):
    rnd = (1 << (shift - 1)) if shift > 0 else 0
    return (np.asarray(x, dtype=np.int64) * multiplier + rnd) >> shift


def interpolation_tables(step_bits: int, saturated: int):
    """(base, slope) for a = |v| < 255 << step_bits: base[k] = T[k] << step_bits,
    slope[k] = T[k+1] - T[k]; entry 255 the saturated value with slope 0."""
    t = SIGMOID_TABLE_UINT16
    base = np.append(t[:255] << step_bits, saturated)
    slope = np.append(t[1:] - t[:255], 0)
    return base, slope


def tflm_sigmoid_int16(x, multiplier: int = 0, left_shift: int = 0) -> np.ndarray:
    """reference_integer_ops::Logistic (int16 -> int16) on numpy values."""
    m, s = _normalized(multiplier, left_shift)
    v = _scaled(x, m, s)
    a = np.minimum(np.abs(v), 255 << 9)
    base, slope = interpolation_tables(9, 0x7FFF << 10)
    p = (base[a >> 9] + (a & 511) * slope[a >> 9] + 512) >> 10
    return np.where(v >= 0, p, 32768 - p)


def tflm_tanh_int16(x, multiplier: int = 0, left_shift: int = 0) -> np.ndarray:
    """reference_integer_ops::Tanh (int16 -> int16) on numpy values."""
    m, s = _normalized(multiplier, left_shift)
    v = _scaled(x, m, s)
    a = np.minimum(np.abs(v), 255 << 8)
    base, slope = interpolation_tables(8, 0xFFFF << 8)
    q = ((base[a >> 8] + (a & 255) * slope[a >> 8] + 128) >> 8) - 32768
    return np.where(v >= 0, q, -q)


def lstm_checked_log2(x: float) -> int:
    """TFLite's CheckedLog2 as the LSTM uses it (the cell state scale's power of two): only
    its result, round(logf(x) * (1 / logf(2))) in float32; TFLM's LSTM does not look at
    whether x was a power of two (``checked_log2`` returns both)."""
    f = np.float32
    v = f(np.log(f(x))) * (f(1.0) / f(np.log(f(2.0))))
    return int(np.floor(abs(float(v)) + 0.5)) * (1 if v >= 0 else -1)


def cell_tanh_params(cell_scale_power: int):
    """(multiplier, left_shift) lstm_internal::Tanh passes for the cell state."""
    shift = 15 + cell_scale_power - 3
    return (3, -shift) if shift < 0 else (0, shift)

