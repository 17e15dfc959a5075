"""Multiplier/shift derivation and rounding vs hand-computed TFLite cases."""

import pytest

from serenity.tflite.quant import (quantize_multiplier, round_half_away,
                                   tflite_multiply_by_quantized_multiplier, tosa_apply_scale)


@pytest.mark.parametrize("scale, multiplier, shift", [
    # 0.5 = 0.5 * 2^0: mantissa 0.5 -> 2^30, exponent 0 -> right shift 31.
    (0.5, 1 << 30, 31),
    # 0.75 * 2^-2: mantissa 0.75 -> 3 * 2^29 = 1610612736, shift 31 + 2.
    (0.1875, 1610612736, 33),
    # 1.0 = 0.5 * 2^1 -> shift 30.
    (1.0, 1 << 30, 30),
    # 2^19 (the ADD input rescale when both scales are equal): shift 11.
    (float(1 << 19), 1 << 30, 11),
    # 0.3 = 0.6 * 2^-1: round(0.6 * 2^31) = 1288490189 (0.6*2^31 = 1288490188.8).
    (0.3, 1288490189, 32),
    # Mantissa that rounds up to 2^31 is renormalized: (1 - 2^-40) -> 2^30, shift 30.
    (1.0 - 2.0 ** -40, 1 << 30, 30),
])
def test_quantize_multiplier(scale, multiplier, shift):
    assert quantize_multiplier(scale) == (multiplier, shift)


def test_quantize_multiplier_limits():
    assert quantize_multiplier(0.0) == (0, 2)
    # 2^-40 = 0.5 * 2^-39 needs right shift 70 > 62: 8 multiplier bits are dropped.
    assert quantize_multiplier(2.0 ** -40) == (1 << 22, 62)
    with pytest.raises(ValueError):
        quantize_multiplier(float(1 << 30))
    with pytest.raises(ValueError):
        quantize_multiplier(-1.0)


def test_round_half_away():
    assert [round_half_away(x) for x in (2.5, -2.5, 2.4999, -0.5, 0.5, 0.0)] == [3, -3, 2, -1, 1, 0]


# Hand-computed TFLite MultiplyByQuantizedMultiplier cases
# (SaturatingRoundingDoublingHighMul, then RoundingDivideByPOT):
# multiplier 2^30 is 0.5 in Q31, so SRDHM(x, 2^30) = round_half_away(x / 2).
@pytest.mark.parametrize("x, multiplier, tflite_shift, expected", [
    (100, 1 << 30, 0, 50),
    (3, 1 << 30, 0, 2),      # SRDHM: 1.5 -> 2 (nudge 2^30, truncating division)
    # Negative tie: (-3 * 2^30 + 1 - 2^30) / 2^31 = -1.99.. truncates to -1.
    (-3, 1 << 30, 0, -1),
    # Two roundings: SRDHM 2.5 -> 3, RoundingDivideByPOT(3, 1) = 1.5 -> 2
    # (one rounding of 5 / 4 = 1.25 would give 1).
    (5, 1 << 30, -1, 2),
    # 1000 * 0.75 = 750 exactly, then 750 / 4 = 187.5 -> 188 (away from zero).
    (1000, 1610612736, -2, 188),
    # -750 / 4: remainder (-750 & 3) = 2 is not above threshold 1 + 1 -> -188.
    (-1000, 1610612736, -2, -188),
    (7, 1 << 30, 1, 7),      # left shift 1, then * 0.5
])
def test_tflite_mbqm_hand_cases(x, multiplier, tflite_shift, expected):
    assert tflite_multiply_by_quantized_multiplier(x, multiplier, tflite_shift) == expected


@pytest.mark.parametrize("x, multiplier, shift, single, double", [
    # value * 0.25 with exact ties: single rounds half up, double like TFLite.
    (10, 1 << 30, 32, 3, 3),      # 2.5 -> 3 / 3
    (-10, 1 << 30, 32, -2, -3),   # -2.5 -> -2 (half up) / -3 (away from zero)
    # 5 * 0.125: 0.625 -> 1 either way.
    (5, 1 << 30, 33, 1, 1),
    # multiplier 0.75 * 2^31, shift 34: 1000 * 0.75 / 8 = 93.75 -> 94 either way.
    (1000, 1610612736, 34, 94, 94),
    # shift 33: 1000 * 0.75 / 4 = 187.5: single rounds half up, double away from zero.
    (1000, 1610612736, 33, 188, 188),
    (-1000, 1610612736, 33, -187, -188),
    # A case where the two roundings really differ: x=5, m=2^30 (0.5), shift 32
    # (0.25 overall): 1.25 -> 1 single; TFLite: SRDHM 2.5 -> 3, 3/2 = 1.5 -> 2.
    (5, 1 << 30, 32, 1, 2),
])
def test_tosa_apply_scale_single_and_double(x, multiplier, shift, single, double):
    assert tosa_apply_scale(x, multiplier, shift, double_round=False) == single
    assert tosa_apply_scale(x, multiplier, shift, double_round=True) == double
    # DOUBLE_ROUND reproduces TFLite's MultiplyByQuantizedMultiplier (left shift 31 - shift).
    assert tflite_multiply_by_quantized_multiplier(x, multiplier, 31 - shift) == double


def test_double_round_matches_tflite_exhaustively_on_small_values():
    for multiplier, shift in (quantize_multiplier(s) for s in (0.0071, 0.3, 0.049, 0.75, 0.0009)):
        for x in range(-5000, 5000, 7):
            assert tosa_apply_scale(x, multiplier, shift, True) == \
                tflite_multiply_by_quantized_multiplier(x, multiplier, 31 - shift)


def test_double_round_equals_tflite_mbqm_including_ties():
    """tosa.rescale DOUBLE_ROUND with shift 31 - tflite_shift is exactly
    TFLite's MultiplyByQuantizedMultiplier (docs/TFLiteImport.md has the
    proof): random values, and constructed ties of both roundings."""
    import random
    rng = random.Random(7)
    cases = []
    for _ in range(20000):
        m = rng.randrange(1 << 30, 1 << 31)
        cases.append((rng.randrange(-(1 << 31), 1 << 31), m, -rng.randrange(1, 32)))
        cases.append((rng.randrange(-(1 << 16), 1 << 16), m, rng.randrange(-31, 8)))
    # SRDHM ties: x * 2^30 with x odd is exactly half way; second-rounding ties:
    # m = 2^30 (0.5), y = x / 2 lands on k + 1/2 after the power-of-two division.
    for x in range(-4097, 4097):
        for r in (1, 2, 3, 5, 12):
            cases.append((x, 1 << 30, -r))
            cases.append((x * (1 << r), 3 << 29, -r))
    for x, m, shift in cases:
        if shift > 0 and not -(1 << 31) <= x * (1 << shift) < (1 << 31):
            continue  # TFLite's x << shift would overflow int32
        assert tosa_apply_scale(x, m, 31 - shift, double_round=True) == \
            tflite_multiply_by_quantized_multiplier(x, m, shift), (x, m, shift)


def test_add_input_scaling_needs_the_shift_first():
    """TFLite's ADD scales (q - zp) << 20 with MultiplyByQuantizedMultiplier:
    the import shifts first, then rescales with DOUBLE_ROUND (equal for every
    int8 difference); one rescale of q - zp by 2^20 * s (the legalization's
    form) rounds once and differs."""
    from serenity.tflite.quant import tflite_quantize_multiplier
    differ = 0
    for s in (0.5, 0.48021542235016224, 0.3, 0.2500001, 0.0999):
        m, shift = tflite_quantize_multiplier(s)
        m1, s1 = quantize_multiplier((1 << 20) * s)
        for x in range(-255, 256):
            want = tflite_multiply_by_quantized_multiplier(x * (1 << 20), m, shift)
            shifted = tosa_apply_scale(x, 1 << 30, 10, double_round=False)
            assert shifted == x * (1 << 20)
            assert tosa_apply_scale(shifted, m, 31 - shift, double_round=True) == want
            differ += tosa_apply_scale(x, m1, s1, double_round=True) != want
    assert differ > 0


def test_per_tensor_fully_connected_multiplies_scales_in_float32():
    """TFLite Micro's per-tensor FULLY_CONNECTED takes its multiplier from
    GetQuantizedConvolutionMultipler, which multiplies input and filter scales
    in float32 before dividing by the output scale in double. With ad01's last
    layer scales that is 1462485078 (shift -9), not the double product's
    1462485049, and the accumulator -88337 then gives -118, not -117."""
    import numpy as np
    from serenity.tflite import check, import_model, load_model
    from serenity.tflite.writer import ModelWriter

    def f32(bits):
        return float(np.array([bits], dtype=np.uint32).view(np.float32)[0])

    s_in, s_w, s_out = f32(0x3CCB1644), f32(0x3CA03556), f32(0x3EBA9F8B)
    m = ModelWriter()
    x = m.tensor("x", [1, 1], "int8", scale=s_in, zero_point=0)
    w = m.const("w", np.array([[1]]), "int8", scale=s_w, zero_point=0)
    b = m.const("b", np.array([-88337]), "int32", scale=s_in * s_w)
    y = m.tensor("y", [1, 1], "int8", scale=s_out, zero_point=0)
    m.op("FULLY_CONNECTED", [x, w, b], [y], "FullyConnectedOptions", {0: ("i8", 0)})
    m.inputs, m.outputs = [x], [y]
    text = import_model(load_model(m.finish()))
    assert "1462485078" in text and "1462485049" not in text
    got = check.run_mlir(text, [[np.zeros((1, 1), np.int8)]], False)[0][0]
    assert int(got.reshape(-1)[0]) == -118
