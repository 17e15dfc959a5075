"""Fixed-point requantization: multiplier/shift derivation and rounding.

Three reference semantics live here so that tests can compare them on
hand-computed cases:

* :func:`quantize_multiplier` -- TFLite's ``QuantizeMultiplier`` (and the TF
  TFL->TOSA legalization's ``computeMultiplierAndShift``): a real scale
  ``m = q * 2**e`` with ``q`` in [0.5, 1) becomes a 31-bit multiplier
  ``round(q * 2**31)`` and a TOSA right shift ``31 - e``.
* :func:`tosa_apply_scale` -- TOSA ``apply_scale_32`` for SINGLE_ROUND and
  DOUBLE_ROUND (the semantics ``tosa.rescale`` lowers to).
* :func:`tflite_multiply_by_quantized_multiplier` -- TFLite's
  ``MultiplyByQuantizedMultiplier`` (SaturatingRoundingDoublingHighMul then
  RoundingDivideByPOT), what TFLite / TFLite Micro reference kernels compute.
"""

import math
from typing import Tuple

import numpy as np

INT32_MIN = -(1 << 31)
INT32_MAX = (1 << 31) - 1


def quantize_multiplier(scale: float) -> Tuple[int, int]:
    """Returns (multiplier, tosa_shift) with scale ~= multiplier * 2**-tosa_shift.

    multiplier is in [2**30, 2**31) (or 0 for scale 0); tosa_shift is a right
    shift clamped to TOSA's legal range [2, 62] for 32-bit multipliers. Raises
    ValueError for scales TOSA cannot represent (negative, >= 2**29).
    """
    if scale < 0 or not math.isfinite(scale):
        raise ValueError(f"cannot requantize with scale {scale}")
    if scale == 0.0:
        return 0, 2
    multiplier, exponent = _q31(scale)
    shift = 31 - exponent
    if shift < 2:
        raise ValueError(f"requantization scale {scale} is too large for tosa.rescale")
    if shift > 62:
        # Too small to represent with shift <= 62: drop low multiplier bits
        # (the legalization does the same); the result rounds to 0 or +-1.
        multiplier >>= min(31, shift - 62)
        shift = 62
    return multiplier, shift


def _q31(scale: float) -> Tuple[int, int]:
    """scale ~= fixed * 2**(exponent - 31), fixed = round(mantissa * 2**31) in
    [2**30, 2**31) (renormalized when the mantissa rounds up to 2**31)."""
    mantissa, exponent = math.frexp(scale)
    fixed = round_half_away(mantissa * (1 << 31))
    if fixed == (1 << 31):
        fixed //= 2
        exponent += 1
    return fixed, exponent


def round_half_away(x: float) -> int:
    """std::round: nearest integer, ties away from zero."""
    return int(math.floor(abs(x) + 0.5)) * (1 if x >= 0 else -1)


def tosa_apply_scale(value: int, multiplier: int, shift: int, double_round: bool) -> int:
    """TOSA apply_scale_32 (spec pseudo-code) on Python integers."""
    assert 2 <= shift <= 62
    rounding = 1 << (shift - 1)
    if double_round and shift > 31:
        rounding += (1 << 30) if value >= 0 else -(1 << 30)
    result = (value * multiplier + rounding) >> shift
    if not INT32_MIN <= result <= INT32_MAX:
        raise OverflowError("apply_scale_32 result does not fit in int32")
    return result


# TFLite / gemmlowp fixed-point primitives, on numpy arrays (or scalars) of
# int64 holding int32 values; reference.py builds TFLite Micro's kernels on them.
def wrap32(x):
    """Two's complement int32 wrap-around of int64 values."""
    return ((np.asarray(x, dtype=np.int64) + (1 << 31)) & 0xFFFFFFFF) - (1 << 31)


def srdhm(a, b):
    """gemmlowp SaturatingRoundingDoublingHighMul (int32 x int32 -> int32)."""
    a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
    ab = a * b
    num = ab + np.where(ab >= 0, 1 << 30, 1 - (1 << 30))
    q = np.where(num >= 0, num >> 31, -((-num) >> 31))  # C++ division truncates
    return np.where((a == INT32_MIN) & (b == INT32_MIN), INT32_MAX, q)


def rdbpot(x, exponent):
    """gemmlowp RoundingDivideByPOT: x / 2^exponent, ties away from zero."""
    x, e = np.asarray(x, dtype=np.int64), np.asarray(exponent, dtype=np.int64)
    mask = (np.int64(1) << e) - 1
    threshold = (mask >> 1) + (x < 0)
    return (x >> e) + ((x & mask) > threshold)


def mbqm(x, multiplier, shift):
    """TFLite MultiplyByQuantizedMultiplier (double rounding), shift > 0 = left
    (``x << shift`` wraps like TFLite's int32 arithmetic)."""
    shift = np.asarray(shift, dtype=np.int64)
    left = np.maximum(shift, 0)
    right = np.maximum(-shift, 0)
    return rdbpot(srdhm(wrap32(np.asarray(x, dtype=np.int64) << left), multiplier), right)


def tflite_multiply_by_quantized_multiplier(x: int, multiplier: int, tflite_shift: int) -> int:
    """TFLite's MultiplyByQuantizedMultiplier; tflite_shift is a left shift (31 - tosa_shift)."""
    return int(mbqm(x, multiplier, tflite_shift))


def tflite_quantize_multiplier(real: float) -> Tuple[int, int]:
    """TFLite's QuantizeMultiplier: (multiplier, shift) with shift > 0 a left
    shift, real ~= multiplier * 2**(shift - 31); scales below 2**-32 flush to
    (0, 0) as TFLite does."""
    if real < 0 or not math.isfinite(real):
        raise ValueError(f"cannot requantize with scale {real}")
    if real == 0.0:
        return 0, 0
    fixed, shift = _q31(real)
    if shift < -31:
        return 0, 0
    if shift > 30:
        raise ValueError(f"requantization scale {real} is too large")
    return fixed, shift


# fused_activation_function values of the TFLite schema with a quantized range.
ACTIVATION_REAL_RANGE = {0: (None, None), 1: (0.0, None), 2: (-1.0, 1.0), 3: (0.0, 6.0)}


def activation_range(act: int, scale: float, zero_point: int, qmin: int = -128, qmax: int = 127):
    """TFLite's CalculateActivationRangeQuantized: the real bounds quantized
    with a float32 division and std::round, intersected with [qmin, qmax]."""
    if act not in ACTIVATION_REAL_RANGE:
        raise ValueError(f"fused activation {act} has no quantized range")
    lo_real, hi_real = ACTIVATION_REAL_RANGE[act]

    def q(real):
        return zero_point + round_half_away(float(np.float32(real) / np.float32(scale)))
    lo = qmin if lo_real is None else max(qmin, q(lo_real))
    hi = qmax if hi_real is None else min(qmax, q(hi_real))
    return lo, hi
