//===- Quant.h - Fixed-point requantization arithmetic -----------*- C++ -*-===//
//
// Multiplier/shift derivation and TFLite's (gemmlowp's) fixed-point
// primitives on int64 values holding int32 ones, evaluated at import time for
// tables and constants (python/serenity/tflite/quant.py's semantics).
//
//===----------------------------------------------------------------------===//

#ifndef SERENITY_LIB_TARGET_TFLITE_QUANT_H
#define SERENITY_LIB_TARGET_TFLITE_QUANT_H

#include "llvm/Support/Error.h"

#include <cstdint>
#include <utility>

namespace mlir::serenity::tflite::quant {

constexpr int64_t kInt32Min = -(int64_t(1) << 31);
constexpr int64_t kInt32Max = (int64_t(1) << 31) - 1;

/// TOSA's (multiplier, right shift) for `scale`: multiplier in [2^30, 2^31)
/// (0 for scale 0), shift in [2, 62]; an error for scales tosa.rescale
/// cannot represent.
llvm::Expected<std::pair<int64_t, int64_t>> quantizeMultiplier(double scale);
/// TFLite's QuantizeMultiplier: (multiplier, left shift); scales below 2^-32
/// flush to (0, 0).
llvm::Expected<std::pair<int64_t, int64_t>> tfliteQuantizeMultiplier(double real);
/// scale ~= fixed * 2^(exponent - 31), fixed = round(mantissa * 2^31).
std::pair<int64_t, int> q31(double scale);
/// std::round: nearest integer, ties away from zero.
int64_t roundHalfAway(double x);
/// TOSA apply_scale_32 (checked: the result must fit in int32).
llvm::Expected<int64_t> tosaApplyScale(int64_t value, int64_t multiplier, int64_t shift,
                                       bool doubleRound);
/// Two's complement int32 wrap-around.
int64_t wrap32(int64_t x);
/// gemmlowp SaturatingRoundingDoublingHighMul.
int64_t srdhm(int64_t a, int64_t b);
/// gemmlowp RoundingDivideByPOT: x / 2^exponent, ties away from zero.
int64_t rdbpot(int64_t x, int64_t exponent);
/// TFLite MultiplyByQuantizedMultiplier (shift > 0 = left, wrapping).
int64_t mbqm(int64_t x, int64_t multiplier, int64_t shift);
/// gemmlowp SaturatingRoundingMultiplyByPOT<exponent> on int32.
int64_t satMulPot(int64_t x, int exponent);
/// gemmlowp exp on [-1/4, 0) in Q0.31.
int64_t expOnInterval(int64_t a);
/// gemmlowp exp_on_negative_values: Q(integerBits) input raw -> Q0.31 raw.
int64_t expOnNegativeValues(int64_t a, int integerBits);
/// TFLite's CalculateActivationRangeQuantized for fused activation `act`
/// (NONE, RELU, RELU_N1_TO_1, RELU6); an error for others.
llvm::Expected<std::pair<int64_t, int64_t>> activationRange(int act, double scale,
                                                            int64_t zeroPoint,
                                                            int64_t qmin = -128,
                                                            int64_t qmax = 127);
/// Whether `act` has a quantized range (NONE, RELU, RELU_N1_TO_1, RELU6).
bool hasActivationRange(int act);

} // namespace mlir::serenity::tflite::quant

#endif // SERENITY_LIB_TARGET_TFLITE_QUANT_H
