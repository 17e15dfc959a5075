//===- TableOps.cpp - Unary functions, lookup tables and fixed point ------===//
//
// python/serenity/tflite/ops_table.py: LOGISTIC, TANH, HARD_SWISH, RSQRT, EXP,
// RELU, RELU6, LEAKY_RELU, LOG_SOFTMAX, L2_NORMALIZATION. (RELU_N1_TO_1 is left
// out: TFLite Micro has no kernel for it, so there is nothing to be exact
// against.)
//
// TFLite Micro's semantics (its reference kernels at tflite-micro
// @90b983c2b3f1), int8 bit for bit, float32 as its float kernels.
//
// An int8 -> int8 element-wise operator is a function of 256 values: its
// TFLite Micro arithmetic is evaluated here, at import time, for every int8
// input (the *Table functions below, each a re-implementation of one TFLite
// Micro kernel written from its source) and emitted as one tosa.table. The
// integer graph then holds no float arithmetic and no libm call. LOG_SOFTMAX
// and L2_NORMALIZATION reduce over a row and are emitted as integer TOSA.
//
// int16 (16x8): LOGISTIC and TANH are TFLite Micro's interpolation in
// sigmoid_table_uint16 with the input multiplier of their Prepare
// (sigmoidTanhInt16Params; the TOSA is the LSTM's, in LstmOps.cpp). The int16
// SOFTMAX (reference_ops::SoftmaxInt16, emitted by Importer::tflmSoftmaxInt16
// for the SOFTMAX handler) uses two 513-entry tables that its Prepare fills in
// float32 (softmaxInt16Luts); TFLite's interpolating LUTLookup of them is a
// tosa.table plus a rounding shift (lutInt16), checked on every int16 input.
//
//===----------------------------------------------------------------------===//

#include "Format.h"
#include "Helpers.h"
#include "Importer.h"
#include "Quant.h"

#include "llvm/Support/Error.h"

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <tuple>
#include <vector>

// The float32 table arithmetic must round every operation as numpy does: no
// fused multiply-adds.
#ifdef __clang__
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

using namespace mlir::serenity::tflite;
using mlir::failed;
using mlir::failure;
using quant::kInt32Max;
using quant::kInt32Min;

namespace {

//===----------------------------------------------------------------------===//
// Errors (Python's ValueError messages)
//===----------------------------------------------------------------------===//

llvm::Error valueError(const std::string &msg) { return llvm::createStringError(msg); }

using MS = std::pair<int64_t, int64_t>;
using Table = std::vector<int64_t>;

//===----------------------------------------------------------------------===//
// TFLite Micro's multipliers
//===----------------------------------------------------------------------===//

/// TFLite's QuantizeMultiplier (double rounding build): real ~= m * 2^(shift -
/// 31), m = round(frexp mantissa * 2^31) with the sign of `real`; exponents
/// below -31 flush to (0, 0). An error where TFLite Micro's
/// MultiplyByQuantizedMultiplier would hit its shift check (> 30) or the int32
/// cast of -2^31 (a negative mantissa of -1).
llvm::Expected<MS> tflmQuantizeMultiplier(double real) {
  if (!std::isfinite(real)) // a zero scale in a damaged file
    return valueError("cannot requantize with scale " + pyRepr(real));
  if (real == 0.0)
    return MS{0, 0};
  int shift = 0;
  double q = std::frexp(real, &shift);
  int64_t fixed = static_cast<int64_t>(std::floor(std::fabs(q) * 2147483648.0 + 0.5)) *
                  (q > 0 ? 1 : -1);
  if (fixed == (int64_t(1) << 31)) {
    fixed /= 2;
    shift += 1;
  }
  if (fixed == -(int64_t(1) << 31))
    return valueError("multiplier " + pyRepr(real) + " rounds to -2^31");
  if (shift < -31)
    return MS{0, 0};
  if (shift > 30)
    return valueError("multiplier " + pyRepr(real) + " needs a left shift of " + str(shift) +
                      " (> 30)");
  return MS{fixed, shift};
}

/// TFLite's MultiplyByQuantizedMultiplier(int32 x, multiplier >= 0, shift).
llvm::Expected<int64_t> tflmMbqm(int64_t x, int64_t multiplier, int64_t shift) {
  if (shift < -31 || shift > 30)
    return valueError("MultiplyByQuantizedMultiplier shift " + str(shift) +
                      " outside [-31, 30]");
  return quant::mbqm(x, multiplier, shift);
}

/// The LOGISTIC/TANH int8 Prepare: frexp of `real`, multiplier round(q * 2^31)
/// (TfLiteRound, no renormalization: TFLite Micro casts 2^31 to int32, refused
/// here).
llvm::Expected<MS> frexpMultiplier(double real) {
  int shift = 0;
  double q = std::frexp(real, &shift);
  int64_t fixed = static_cast<int64_t>(std::floor(q * 2147483648.0 + 0.5));
  if (fixed >= (int64_t(1) << 31))
    return valueError("input multiplier " + pyRepr(real) + " rounds to 2^31");
  return MS{fixed, shift};
}

/// TFLite's CalculateInputRadius (double arithmetic, floor).
llvm::Expected<int64_t> inputRadius(int integerBits, int64_t leftShift, int totalBits = 31) {
  if (leftShift < 0)
    return valueError("negative shift count"); // Python's 1 << negative
  double v = static_cast<double>((int64_t(1) << integerBits) - 1) *
             static_cast<double>(int64_t(1) << (totalBits - integerBits)) /
             std::ldexp(1.0, static_cast<int>(leftShift));
  return static_cast<int64_t>(std::floor(v));
}

//===----------------------------------------------------------------------===//
// gemmlowp fixed point (reference.py's, file-local)
//===----------------------------------------------------------------------===//

/// The Newton-Raphson loop shared by gemmlowp's
/// one_over_one_plus_x_for_x_in_0_1 and one_minus_x_over_one_plus_x_for_x_in_0_1:
/// x ~= 1 / (1 + a) as raw Q2.29, a raw Q0.31.
int64_t newtonReciprocal(int64_t a) {
  int64_t total = a + kInt32Max; // RoundingHalfSum(a, One) in 64 bits, C++ division
  int64_t num = total + (total >= 0 ? 1 : -1);
  int64_t halfDenominator = num / 2;
  int64_t x = quant::wrap32(1515870810 + quant::srdhm(halfDenominator, -1010580540));
  for (int i = 0; i < 3; ++i) {
    int64_t oneMinus = quant::wrap32((int64_t(1) << 29) - quant::srdhm(halfDenominator, x));
    x = quant::wrap32(x + quant::satMulPot(quant::srdhm(x, oneMinus), 2));
  }
  return x;
}

/// gemmlowp::logistic of a raw Q(integerBits) value, raw Q0.31 result.
int64_t gemmlowpLogistic(int64_t a, int integerBits) {
  if (a == 0)
    return int64_t(1) << 30;
  int64_t e = quant::expOnNegativeValues(-std::llabs(a), integerBits);
  int64_t positive = quant::satMulPot(newtonReciprocal(e), 1); // Rescale<0>(ExactMulByPot<-1>(x))
  return a > 0 ? positive : quant::wrap32(kInt32Max - positive);
}

/// gemmlowp::tanh of a raw Q(integerBits) value, raw Q0.31 result.
int64_t gemmlowpTanh(int64_t a, int integerBits) {
  if (a == 0)
    return 0;
  // neg_tanh_on_negative_values: exp of ExactMulByPot<1>(-|a|) (one more
  // integer bit), then (1 - e) / (1 + e) = Rescale<0>(x - One) of the Q2.29
  // reciprocal.
  int64_t e = quant::expOnNegativeValues(-std::llabs(a), integerBits + 1);
  int64_t t = quant::satMulPot(quant::wrap32(newtonReciprocal(e) - (int64_t(1) << 29)), 2);
  return a < 0 ? -t : t;
}

int bitLength(int64_t x) {
  int n = 0;
  for (uint64_t u = static_cast<uint64_t>(x); u; u >>= 1)
    ++n;
  return n;
}

/// TFLite's GetInvSqrtQuantizedMultiplierExp: (multiplier, shift) of
/// 1 / sqrt(x).
MS invSqrtMultiplierExp(int64_t x, int64_t reverseShift = -1) {
  if (x <= 1)
    return {kInt32Max, 0};
  int64_t shift = 11;
  while (x >= (int64_t(1) << 29)) {
    x /= 4;
    shift += 1;
  }
  int64_t clz = 32 - bitLength(x);
  int64_t pairs = (clz - 1) / 2 - 1;
  shift -= pairs;
  x <<= 2 * pairs;
  // Newton-Raphson in Q3.28: x_{n+1} = 1.5 x - (input / 2) x^3, starting at 1.
  int64_t halfInput = quant::rdbpot(x >> 1, 1);
  const int64_t halfThree = (int64_t(1) << 28) + (int64_t(1) << 27);
  int64_t r = int64_t(1) << 28;
  for (int i = 0; i < 5; ++i) {
    int64_t r3 = quant::satMulPot(quant::srdhm(quant::srdhm(r, r), r), 6);
    r = quant::satMulPot(
        quant::wrap32(quant::srdhm(halfThree, r) - quant::srdhm(halfInput, r3)), 3);
  }
  r = quant::srdhm(r, 1518500250); // * sqrt(2) / 2
  if (shift < 0) {
    r = quant::wrap32(r << -shift);
    shift = 0;
  }
  return {r, shift * reverseShift};
}

//===----------------------------------------------------------------------===//
// int8 tables
//===----------------------------------------------------------------------===//

/// The int8 LOGISTIC/TANH pattern of TFLite Micro: the input to Q4.27 by a
/// frexp multiplier of scale * 2^27 (saturating outside the input radius), the
/// gemmlowp function on Q4, RoundingDivideByPOT(., exponent) + offset, clamped
/// to int8.
llvm::Expected<Table> q4FunctionTable(double inputScale, int64_t inputZp,
                                      int64_t (*function)(int64_t, int), int exponent,
                                      int64_t offset) {
  auto ms = frexpMultiplier(inputScale * static_cast<double>(int64_t(1) << 27));
  if (!ms)
    return ms.takeError();
  auto [mult, shift] = *ms;
  auto radius = inputRadius(4, shift);
  if (!radius)
    return radius.takeError();
  Table out(256);
  for (int i = 0; i < 256; ++i) {
    int64_t v = (i - 128) - inputZp;
    if (v <= -*radius) {
      out[i] = -128;
    } else if (v >= *radius) {
      out[i] = 127;
    } else {
      auto q4 = tflmMbqm(v, mult, shift);
      if (!q4)
        return q4.takeError();
      out[i] = std::min<int64_t>(
          std::max<int64_t>(quant::rdbpot(function(*q4, 4), exponent) + offset, -128), 127);
    }
  }
  return out;
}

/// reference_integer_ops::Logistic (int8) with LogisticPrepare's parameters:
/// gemmlowp::logistic, then RoundingDivideByPOT(., 23) - 128 (output scale
/// 1/256 and zero point -128 assumed).
llvm::Expected<Table> logisticInt8Table(double inputScale, int64_t inputZp) {
  return q4FunctionTable(inputScale, inputZp, gemmlowpLogistic, 23, -128);
}

/// reference_integer_ops::Tanh (int8) with TanhPrepare's parameters: as
/// LOGISTIC with gemmlowp::tanh and RoundingDivideByPOT(., 24) (output scale
/// 1/128, zero point 0 assumed; TFLite Micro reads neither).
llvm::Expected<Table> tanhInt8Table(double inputScale, int64_t inputZp) {
  return q4FunctionTable(inputScale, inputZp, gemmlowpTanh, 24, 0);
}

int64_t wrap16(int64_t x) {
  return static_cast<int64_t>(static_cast<int16_t>(static_cast<uint16_t>(x)));
}

/// gemmlowp SaturatingRoundingDoublingHighMul<int16_t>.
int64_t srdhm16(int64_t a, int64_t b) {
  if (a == -(1 << 15) && b == -(1 << 15))
    return (1 << 15) - 1;
  int64_t ab = a * b;
  int64_t num = ab + (ab >= 0 ? (1 << 14) : 1 - (1 << 14));
  return wrap16(num / (1 << 15)); // C++ division
}

/// gemmlowp RoundingDivideByPOT<int16_t>: its mask (2^exponent - 1) is an
/// int16, so from exponent 16 on it is -1 and the result is 1 for x >= 0 and
/// -1 for x < 0.
int64_t rdbpot16(int64_t x, int64_t exponent) {
  int64_t mask = wrap16((int64_t(1) << exponent) - 1);
  int64_t remainder = wrap16(x & mask);
  int64_t threshold = wrap16((mask >> 1) + (x < 0 ? 1 : 0));
  return wrap16((x >> exponent) + (remainder > threshold ? 1 : 0));
}

int64_t satLeftShift16(int64_t v, int64_t amount) {
  return std::min<int64_t>(std::max<int64_t>(v * (int64_t(1) << amount), -(1 << 15)),
                           (1 << 15) - 1);
}

/// TFLite's DownScaleInt32ToInt16Multiplier.
int64_t downscaleMultiplier16(int64_t m) {
  if (m >= kInt32Max - (1 << 15))
    return (1 << 15) - 1;
  return (m + (1 << 15)) >> 16;
}

/// HardSwishPrepare: float32 scale arithmetic, QuantizeMultiplier, int16
/// multipliers. (output multiplier int16, output exponent, reluish multiplier
/// int16, reluish exponent).
llvm::Expected<std::array<int64_t, 4>> hardSwishInt8Params(double inputScale,
                                                          double outputScale) {
  float hires = (1.0f / 128.0f) * static_cast<float>(inputScale);
  float reluishScale = 3.0f / 32768.0f;
  auto out = tflmQuantizeMultiplier(static_cast<double>(hires / static_cast<float>(outputScale)));
  if (!out)
    return out.takeError();
  auto rel = tflmQuantizeMultiplier(static_cast<double>(hires / reluishScale));
  if (!rel)
    return rel.takeError();
  return std::array<int64_t, 4>{downscaleMultiplier16(out->first), out->second,
                                downscaleMultiplier16(rel->first), rel->second};
}

/// reference_ops::HardSwish<int8_t> (quantized): int16 fixed point, wrapping
/// like the kernel's int16_t variables.
llvm::Expected<Table> hardSwishInt8Table(double inputScale, int64_t inputZp, double outputScale,
                                         int64_t outputZp) {
  auto params = hardSwishInt8Params(inputScale, outputScale);
  if (!params)
    return params.takeError();
  auto [mOut, eOut, mRel, eRel] = *params;
  Table out(256);
  for (int i = 0; i < 256; ++i) {
    int64_t v = wrap16((i - 128) - inputZp);
    int64_t hires = wrap16(v * (1 << 7));
    int64_t preshift = srdhm16(hires, mOut);
    int64_t rel = hires;
    if (eRel > 0)
      rel = satLeftShift16(rel, eRel - 1);
    rel = srdhm16(rel, mRel);
    if (eRel > 0)
      rel = satLeftShift16(rel, 1);
    if (eRel < 0)
      rel = rdbpot16(rel, -eRel);
    rel = wrap16((rel + (1 << 15)) >> 1);
    // SaturatingDoublingHighMul: the int32 product / 2^15, truncated.
    int64_t pre;
    if (rel == -(1 << 15) && preshift == -(1 << 15)) {
      pre = (1 << 15) - 1;
    } else {
      int64_t p = rel * preshift;
      pre = wrap16(p / (1 << 15));
    }
    int64_t o = wrap16(rdbpot16(pre, -eOut) + outputZp);
    out[i] = std::min<int64_t>(std::max<int64_t>(o, -128), 127);
  }
  return out;
}

/// tflite::ReluQuantized<int8_t> with CalculateReluOpData: requantize by the
/// float32 quotient of the scales, clamp to [max(-128, output zero point),
/// 127].
llvm::Expected<Table> reluInt8Table(double inputScale, int64_t inputZp, double outputScale,
                                    int64_t outputZp) {
  auto ms = tflmQuantizeMultiplier(
      static_cast<double>(static_cast<float>(inputScale) / static_cast<float>(outputScale)));
  if (!ms)
    return ms.takeError();
  Table out(256);
  for (int i = 0; i < 256; ++i) {
    auto y = tflmMbqm((i - 128) - inputZp, ms->first, ms->second);
    if (!y)
      return y.takeError();
    out[i] = std::min<int64_t>(std::max<int64_t>(outputZp + *y, std::max<int64_t>(-128, outputZp)),
                               127);
  }
  return out;
}

/// reference_ops::QuantizeLeakyRelu<int8_t> with CalculateOpDataLeakyRelu:
/// identity multiplier in_scale / out_scale and alpha multiplier in_scale *
/// alpha / out_scale (float32 arithmetic), a negative alpha applied as the
/// negated product of its magnitude.
llvm::Expected<Table> leakyReluInt8Table(double inputScale, int64_t inputZp, double outputScale,
                                         int64_t outputZp, double alpha) {
  float si = static_cast<float>(inputScale), so = static_cast<float>(outputScale);
  auto id = tflmQuantizeMultiplier(static_cast<double>(si / so));
  if (!id)
    return id.takeError();
  float prod = si * static_cast<float>(alpha);
  auto al = tflmQuantizeMultiplier(static_cast<double>(prod / so));
  if (!al)
    return al.takeError();
  auto [mId, sId] = *id;
  auto [mA, sA] = *al;
  // numpy evaluates both branches for every value (and checks each shift once).
  Table pos(256), neg(256);
  for (int i = 0; i < 256; ++i) {
    auto p = tflmMbqm((i - 128) - inputZp, mId, sId);
    if (!p)
      return p.takeError();
    pos[i] = *p;
  }
  for (int i = 0; i < 256; ++i) {
    auto n = tflmMbqm((i - 128) - inputZp, std::llabs(mA), sA);
    if (!n)
      return n.takeError();
    neg[i] = mA < 0 ? -*n : *n;
  }
  Table out(256);
  for (int i = 0; i < 256; ++i) {
    int64_t v = (i - 128) - inputZp;
    out[i] = std::min<int64_t>(std::max<int64_t>(outputZp + (v >= 0 ? pos[i] : neg[i]), -128),
                               127);
  }
  return out;
}

/// SetRsqrtOutputMultiplier: 1 / (sqrtf(in_scale) * out_scale) (float32
/// product), in double, QuantizeMultiplier.
llvm::Expected<MS> rsqrtInt8Params(double inputScale, double outputScale) {
  float root = std::sqrt(static_cast<float>(inputScale));
  float prod = root * static_cast<float>(outputScale);
  return tflmQuantizeMultiplier(1.0 / static_cast<double>(prod));
}

/// RsqrtEvalQuantized<int8_t>: 127 at the zero point, else
/// MBQM(MBQM(1, inv_sqrt(v), shift + 20), m, s - 20) + out_zp with
/// GetInvSqrtQuantizedMultiplierExp. Inputs below the zero point (TFLite
/// Micro fails Invoke there) give 127.
llvm::Expected<Table> rsqrtInt8Table(double inputScale, int64_t inputZp, double outputScale,
                                     int64_t outputZp) {
  auto ms = rsqrtInt8Params(inputScale, outputScale);
  if (!ms)
    return ms.takeError();
  auto [m, s] = *ms;
  Table out(256, 127);
  for (int i = 0; i < 256; ++i) {
    int64_t v = (i - 128) - inputZp;
    if (v <= 0)
      continue;
    auto [inv, invShift] = invSqrtMultiplierExp(v);
    auto data = tflmMbqm(1, inv, invShift + 20);
    if (!data)
      return data.takeError();
    auto y = tflmMbqm(*data, m, s - 20);
    if (!y)
      return y.takeError();
    out[i] = std::min<int64_t>(std::max<int64_t>(*y + outputZp, -128), 127);
  }
  return out;
}

struct LogSoftmaxParams {
  int64_t mult, shift, multRev, shiftRev, diffMin;
};

/// LOG_SOFTMAX's CalculateOpData (int8, beta 1): PreprocessLogSoftmaxScalingExp
/// and diff_min.
llvm::Expected<LogSoftmaxParams> logSoftmaxInt8Params(double inputScale) {
  double real = std::min(1.0 * inputScale * static_cast<double>(int64_t(1) << 26),
                         static_cast<double>((int64_t(1) << 31) - 1));
  auto ms = tflmQuantizeMultiplier(real);
  if (!ms)
    return ms.takeError();
  auto [mult, shift] = *ms;
  if (shift < 0 || real <= 1.0)
    return valueError("input scale " + pyRepr(inputScale) +
                      " is too small (multiplier below one)");
  double rev = static_cast<double>(int64_t(1) << (31 - shift)) / static_cast<double>(mult);
  if (!(0.0 < rev && rev < 1.0))
    return valueError("reverse scaling divisor " + pyRepr(rev) + " is not below one");
  auto revMs = tflmQuantizeMultiplier(rev);
  if (!revMs)
    return revMs.takeError();
  auto radius = inputRadius(5, shift);
  if (!radius)
    return radius.takeError();
  return LogSoftmaxParams{mult, shift, revMs->first, revMs->second, -*radius};
}

/// The two per-difference functions of reference_ops::LogSoftmaxQuantized<int8_t>
/// for d = x - max in [-255, 0] (index d + 255):
/// Rescale<12>(exp_on_negative_values(MBQM(d))) (0 where d < diff_min: the
/// kernel skips those) and MBQM(d) itself (Q5.26).
llvm::Expected<std::pair<Table, Table>> logSoftmaxInt8Tables(double inputScale) {
  auto params = logSoftmaxInt8Params(inputScale);
  if (!params)
    return params.takeError();
  Table q5(256), expTerms(256), diffs(256);
  for (int i = 0; i < 256; ++i) {
    auto v = tflmMbqm(i - 255, params->mult, params->shift);
    if (!v)
      return v.takeError();
    q5[i] = *v;
  }
  for (int i = 0; i < 256; ++i) {
    int64_t d = i - 255;
    expTerms[i] = d >= params->diffMin ? quant::rdbpot(quant::expOnNegativeValues(q5[i], 5), 12) : 0;
    diffs[i] = quant::wrap32(q5[i]);
  }
  return std::make_pair(expTerms, diffs);
}

//===----------------------------------------------------------------------===//
// int16 (16x8)
//===----------------------------------------------------------------------===//

/// TFLite's CheckedLog2 in float32: (round(logf(x) * (1 / logf(2))),
/// |fraction| < 1e-3), the second telling whether `x` counts as a power of two.
/// (logf is taken as the correctly rounded logarithm.)
llvm::Expected<std::pair<int64_t, bool>> checkedLog2(double x) {
  double xf = static_cast<double>(static_cast<float>(x));
  if (!(xf > 0.0) && !std::isnan(xf))
    return valueError("math domain error");
  float lx = static_cast<float>(std::log(xf));
  float invLog2 = 1.0f / static_cast<float>(std::log(2.0));
  float xLog2 = lx * invLog2;
  float rounded = static_cast<float>(std::floor(std::fabs(static_cast<double>(xLog2)) + 0.5) *
                                     (xLog2 >= 0 ? 1.0 : -1.0));
  return std::make_pair(static_cast<int64_t>(rounded),
                        std::fabs(xLog2 - rounded) < static_cast<float>(1e-3));
}

/// (input_multiplier, input_left_shift) of LogisticPrepare / TanhPrepare for
/// int16, as the kernels reference_integer_ops::Logistic / Tanh take them
/// (multiplier 0: the power-of-two case, `3 << left_shift`).
llvm::Expected<MS> sigmoidTanhInt16Params(double inputScale, double outputScale, bool tanh) {
  auto lg = checkedLog2(inputScale);
  if (!lg)
    return lg.takeError();
  auto [log2, pot] = *lg;
  int64_t left = 12 + log2;
  int64_t multiplier;
  if (pot && (left == 0 || (tanh && left == 1))) {
    multiplier = 0;
  } else {
    double m = static_cast<double>(static_cast<float>(inputScale)) * 4096.0 * 3.0;
    left = 0;
    while (m <= 32767.0 / 2.0 && left <= 30) {
      left += 1;
      m *= 2.0;
    }
    if (m >= 32768.0) {
      char buf[400];
      std::snprintf(buf, sizeof(buf), "%.0f", std::trunc(m));
      return valueError(std::string("input multiplier ") + buf + " above 32767 (input scale " +
                        pyRepr(inputScale) + " above 32767 / 12288)");
    }
    multiplier = static_cast<int64_t>(m);
  }
  auto out = checkedLog2(outputScale);
  if (!out)
    return out.takeError();
  if (!out->second || out->first != -15)
    return valueError("output scale " + pyRepr(outputScale) + " is not 2^-15");
  return MS{multiplier, left};
}

/// TfLiteRound on a float: std::round (half away from zero), float32 result.
float roundf32(float v) {
  double d = static_cast<double>(v);
  return static_cast<float>(std::floor(std::fabs(d) + 0.5) * (d >= 0 ? 1.0 : -1.0));
}

float clampf(float v, float lo, float hi) {
  // Python's max(v, lo) then min(., hi): the first argument unless the second
  // compares greater (resp. smaller).
  float a = lo > v ? lo : v;
  return hi < a ? hi : a;
}

/// TFLite's LUTPopulate<int16_t> (LUTPopulateInt16<float>): 513 samples of
/// `transform` over the input range, each lowered by half the error the linear
/// interpolation makes at the middle of its step, in float32 arithmetic as the
/// C++ does (every product, sum and quotient rounded to float32; TfLiteRound =
/// half away from zero).
Table lutPopulateInt16(float (*transform)(float), float inputScale, int64_t inputZp,
                       float outputScale, int64_t outputZp) {
  float inputMin = inputScale * static_cast<float>(-32768 - inputZp);
  float inputMax = inputScale * static_cast<float>(32767 - inputZp);
  float outputMin = outputScale * static_cast<float>(-32768 - outputZp);
  float outputMax = outputScale * static_cast<float>(32767 - outputZp);
  float step = (inputMax - inputMin) / 512.0f;
  float halfStep = step / 2.0f;
  float inv = 65536.0f / (outputMax - outputMin);
  Table lut(513);
  for (int i = 0; i < 512; ++i) {
    float x0 = inputMin + static_cast<float>(i) * step;
    float val = transform(x0);
    float valMid = transform(x0 + halfStep);
    float valNext = transform(inputMin + static_cast<float>(i + 1) * step);
    float sample = roundf32(val * inv);
    float interp = roundf32((valNext * inv + sample) / 2.0f);
    float bias = roundf32((interp - roundf32(valMid * inv)) / 2.0f);
    lut[i] = static_cast<int64_t>(clampf(sample - bias, -32768.0f, 32767.0f));
  }
  lut[512] = static_cast<int64_t>(
      clampf(roundf32(transform(inputMax) * inv), -32768.0f, 32767.0f));
  return lut;
}

/// expf, correctly rounded (the double exp rounded to float32), as Python's
/// F32(math.exp(float(v))).
float expf32(float v) { return static_cast<float>(std::exp(static_cast<double>(v))); }

float oneOverOnePlus(float v) { return 1.0f / (1.0f + v); }

/// The two tables the int16 SOFTMAX's Prepare fills (InitializeLutForInt16):
/// exp on [-10, 0] (input scale 10 / 65535, zero point 32767) and 1 / (1 + x)
/// on [0, 1] (input scale 1 / 65535, zero point -32768), both to output scale
/// 2 / 65535 (Q0.15). They do not depend on the tensors' parameters.
const std::pair<Table, Table> &softmaxInt16Luts() {
  static const std::pair<Table, Table> luts = [] {
    const float rng = 65535.0f;
    Table expLut = lutPopulateInt16(expf32, 10.0f / rng, 32767, 2.0f / rng, 0);
    Table recipLut = lutPopulateInt16(oneOverOnePlus, 1.0f / rng, -32768, 2.0f / rng, 0);
    return std::make_pair(std::move(expLut), std::move(recipLut));
  }();
  return luts;
}

/// (input_multiplier, input_left_shift) of the int16 SOFTMAX:
/// QuantizeMultiplier of double(s_in) * double(beta) / (10.0 / 65535.0).
/// An error where TFLite Micro's int32 `diff << left_shift` would overflow
/// (left shift above 14).
llvm::Expected<MS> softmaxInt16Params(double inputScale, double beta) {
  double prod = static_cast<double>(static_cast<float>(inputScale)) *
                static_cast<double>(static_cast<float>(beta));
  auto ms = tflmQuantizeMultiplier(prod / (10.0 / 65535.0));
  if (!ms)
    return ms.takeError();
  if (ms->second > 14)
    return valueError("input scale * beta = " + pyRepr(prod) + " needs a left shift of " +
                      str(ms->second) +
                      ": TFLite Micro's int32 difference << shift overflows");
  return *ms;
}

//===----------------------------------------------------------------------===//
// Building blocks (TableOps' helpers)
//===----------------------------------------------------------------------===//

struct UnaryIo {
  Value x;
  const Tensor *it;
  const Tensor *ot;
};

/// (input value, input tensor, output tensor), input and output of the same
/// type.
FailureOr<UnaryIo> unaryIo(Importer &imp, const Operator &op) {
  const Tensor &it = imp.tensor(op.inputs[0]);
  const Tensor &ot = imp.tensor(op.outputs[0]);
  if (it.type != ot.type)
    return imp.fail("input type " + it.typeName() + " differs from output type " +
                    ot.typeName());
  FailureOr<Value> x = imp.value(op.inputs[0]);
  if (failed(x))
    return failure();
  return UnaryIo{*x, &it, &ot};
}

llvm::SmallVector<int64_t> ones(int64_t rank) { return llvm::SmallVector<int64_t>(rank, 1); }

/// tosa.table: y = table[x + 128] for int8 x.
FailureOr<Value> int8Table(Importer &imp, Value x, const Table &table) {
  for (int64_t v : table)
    if (v < -128 || v > 127)
      return imp.fail("internal error: table value outside int8");
  Value t = imp.constant(NdArray<int64_t>::vector(table), imp.i8, /*cache=*/true);
  return imp.op("table", {x, t}, Importer::shapeOf(x), imp.i8);
}

using MakeTable =
    std::function<llvm::Expected<Table>(double si, int64_t zi, double so, int64_t zo)>;
using FloatFn = std::function<FailureOr<Value>(Value)>;
using Int16Fn = std::function<FailureOr<Value>(Value, const Tensor &, const Tensor &)>;

FailureOr<OpResults> result(FailureOr<Value> v) {
  if (failed(v))
    return failure();
  return OpResults{*v};
}

/// A unary operator: `compute` gets unaryIo's operands and the input's element
/// type.
FailureOr<OpResults>
importUnary(Importer &imp, const Operator &op,
            llvm::function_ref<FailureOr<OpResults>(const UnaryIo &, Type)> compute) {
  FailureOr<UnaryIo> io = unaryIo(imp, op);
  if (failed(io))
    return failure();
  return compute(*io, Importer::elemOf(io->x));
}

/// An element-wise operator: `floatFn` for float32, `int16Fn(x, it, ot)` for
/// int16, else the int8 table `make(in_scale, in_zp, out_scale, out_zp)`.
FailureOr<OpResults> tableOp(Importer &imp, const Operator &op, const MakeTable &make,
                             const FloatFn &floatFn, const Int16Fn &int16Fn = nullptr) {
  return importUnary(imp, op, [&](const UnaryIo &io, Type elem) -> FailureOr<OpResults> {
    Value x = io.x;
    if (elem == imp.f32)
      return result(floatFn(x));
    if (elem == imp.i16 && int16Fn)
      return result(int16Fn(x, *io.it, *io.ot));
    if (elem != imp.i8)
      return imp.fail(typeName(imp, elem) + " " + op.name() +
                      " is not supported (int8 and float32 are)");
    auto q = inOutQuant(imp, *io.it, *io.ot);
    if (failed(q))
      return failure();
    auto [si, zi] = q->first;
    auto [so, zo] = q->second;
    llvm::Expected<Table> table = make(si, zi, so, zo);
    if (!table)
      return imp.fail("TFLite Micro cannot run this int8 " + op.name() + ": " +
                      llvm::toString(table.takeError()));
    return result(int8Table(imp, x, *table));
  });
}

Value fclamp(Importer &imp, Value x, double lo, double hi) {
  return imp.ew("clamp", {x}, imp.f32, imp.clampAttrs(lo, hi, imp.f32));
}

Value fscalar(Importer &imp, double v, Value x) { return imp.fconst(v, Importer::rankOf(x)); }

/// gemmlowp SaturatingRoundingMultiplyByPOT<k> (k > 0): v << k, saturated.
Value satShl(Importer &imp, Value v, int64_t k) {
  int64_t rank = Importer::rankOf(v);
  int64_t thr = (int64_t(1) << (31 - k)) - 1;
  Value kc = imp.ic(k, rank);
  Value shl = imp.ew("logical_left_shift", {v, kc}, imp.i32);
  Value thrc = imp.ic(thr, rank);
  Value hi = imp.ew("greater", {v, thrc}, imp.i1);
  Value nthr = imp.ic(-thr, rank);
  Value lo = imp.ew("greater", {nthr, v}, imp.i1);
  Value maxc = imp.ic(kInt32Max, rank);
  Value minc = imp.ic(kInt32Min, rank);
  Value inner = imp.ew("select", {lo, minc, shl}, imp.i32);
  return imp.ew("select", {hi, maxc, inner}, imp.i32);
}

/// gemmlowp RoundingDivideByPOT(v, exponent >= 0) (ties away from zero) with a
/// tensor exponent: tosa.arithmetic_right_shift rounds ties up, so a negative
/// v is lowered by one first when the exponent is positive.
Value rdbpotVar(Importer &imp, Value v, Value exponent) {
  int64_t rank = Importer::rankOf(v);
  Value zero = imp.ic(0, rank);
  Value neg = imp.ew("greater", {zero, v}, imp.i1);
  Value pos = imp.ew("greater", {exponent, zero}, imp.i1);
  Value adjust = imp.ew("logical_and", {neg, pos}, imp.i1);
  Value one = imp.ic(1, rank);
  Value lowered = imp.ew("sub", {v, one}, imp.i32);
  v = imp.ew("select", {adjust, lowered, v}, imp.i32);
  return imp.ew("arithmetic_right_shift", {v, exponent}, imp.i32, {imp.boolAttr("round", true)});
}

/// GetInvSqrtQuantizedMultiplierExp(acc, kReverseShift) in integer TOSA for
/// 1 < acc < 2^29 (the caller bounds acc; acc <= 1 is selected by the caller):
/// (multiplier, right shift >= 0) tensors. Mirrors invSqrtMultiplierExp.
std::pair<Value, Value> invSqrtMultiplierExpTosa(Importer &imp, Value acc) {
  int64_t rank = Importer::rankOf(acc);
  auto c = [&](int64_t v) { return imp.ic(v, rank); };
  Type i32 = imp.i32;
  Value clz = imp.ew("clz", {acc}, i32);
  Value c1 = c(1);
  Value t = imp.ew("sub", {clz, c1}, i32);
  c1 = c(1);
  t = imp.ew("arithmetic_right_shift", {t, c1}, i32, {imp.boolAttr("round", false)});
  c1 = c(1);
  Value pairs = imp.ew("sub", {t, c1}, i32);
  Value c11 = c(11);
  Value shift = imp.ew("sub", {c11, pairs}, i32);
  Value twice = imp.ew("add", {pairs, pairs}, i32);
  Value x = imp.ew("logical_left_shift", {acc, twice}, i32);
  // half_input = RoundingDivideByPOT(x >> 1, 1) of a non-negative value.
  c1 = c(1);
  Value half = imp.ew("arithmetic_right_shift", {x, c1}, i32, {imp.boolAttr("round", false)});
  c1 = c(1);
  Value halfInput =
      imp.ew("arithmetic_right_shift", {half, c1}, i32, {imp.boolAttr("round", true)});
  Value r = c(int64_t(1) << 28);
  for (int i = 0; i < 5; ++i) {
    Value rr = imp.imul31(r, r);
    Value rrr = imp.imul31(rr, r);
    Value r3 = satShl(imp, rrr, 6);
    Value ht = c((int64_t(1) << 28) + (int64_t(1) << 27));
    Value a = imp.imul31(ht, r);
    Value bterm = imp.imul31(halfInput, r3);
    Value d = imp.ew("sub", {a, bterm}, i32);
    r = satShl(imp, d, 3);
  }
  Value s2 = c(1518500250);
  r = imp.imul31(r, s2);
  // A negative shift moves into the multiplier.
  Value c0 = c(0);
  Value negShift = imp.ew("sub", {c0, shift}, i32);
  c0 = c(0);
  Value up = imp.ew("maximum", {negShift, c0}, i32);
  r = imp.ew("logical_left_shift", {r, up}, i32);
  c0 = c(0);
  Value right = imp.ew("maximum", {shift, c0}, i32);
  return {r, right};
}

/// TFLite's SaturatingRoundingMultiplyByPOTParam(v, e) for a tensor exponent
/// e >= 0.
Value satShlVar(Importer &imp, Value v, Value e) {
  int64_t rank = Importer::rankOf(v);
  Value maxc = imp.ic(kInt32Max, rank);
  Value thr = imp.ew("logical_right_shift", {maxc, e}, imp.i32);
  Value shl = imp.ew("logical_left_shift", {v, e}, imp.i32);
  Value hi = imp.ew("greater", {v, thr}, imp.i1);
  Value zero = imp.ic(0, rank);
  Value nthr = imp.ew("sub", {zero, thr}, imp.i32);
  Value lo = imp.ew("greater", {nthr, v}, imp.i1);
  maxc = imp.ic(kInt32Max, rank);
  Value minc = imp.ic(kInt32Min, rank);
  Value inner = imp.ew("select", {lo, minc, shl}, imp.i32);
  return imp.ew("select", {hi, maxc, inner}, imp.i32);
}

/// gemmlowp one_over_one_plus_x_for_x_in_0_1 (raw Q0.31 in and out, a >= 0).
Value oneOverOnePlusX(Importer &imp, Value a) {
  int64_t rank = Importer::rankOf(a);
  auto c = [&](int64_t v) { return imp.ic(v, rank); };
  Type i32 = imp.i32;
  // RoundingHalfSum(a, One) = (a + 2^31) / 2 without leaving int32.
  Value c1 = c(1);
  Value half = imp.ew("arithmetic_right_shift", {a, c1}, i32, {imp.boolAttr("round", false)});
  Value c30 = c(int64_t(1) << 30);
  Value hd = imp.ew("add", {half, c30}, i32);
  Value k1 = c(1515870810);
  Value k2 = c(-1010580540);
  Value m = imp.imul31(hd, k2);
  Value x = imp.ew("add", {k1, m}, i32);
  for (int i = 0; i < 3; ++i) {
    Value c29 = c(int64_t(1) << 29);
    Value hdx = imp.imul31(hd, x);
    Value u = imp.ew("sub", {c29, hdx}, i32);
    Value xu = imp.imul31(x, u);
    Value s = satShl(imp, xu, 2);
    x = imp.ew("add", {x, s}, i32);
  }
  return satShl(imp, x, 1);
}

/// TFLite's log_x_for_x_greater_than_or_equal_to_1_impl<outputBits, inputBits>
/// of a raw Q(inputBits) tensor a >= 1.0, raw Q(outputBits) result, in integer
/// TOSA.
Value logXGe1(Importer &imp, Value a, int64_t inputBits, int64_t outputBits) {
  int64_t rank = Importer::rankOf(a);
  Type i32 = imp.i32;
  auto c = [&](int64_t v) { return imp.ic(v, rank); };
  auto add = [&](Value x, Value y) { return imp.ew("add", {x, y}, i32); };
  auto sub = [&](Value x, Value y) { return imp.ew("sub", {x, y}, i32); };
  auto mul = [&](Value x, Value y) { return imp.imul31(x, y); };
  int64_t accBits = outputBits + 1;
  const int64_t log2 = 1488522236, sqrtSqrtHalf = 1805811301, sqrtHalf = 1518500250;
  const int64_t alphaN = 117049297, alphaD = 127690142, alphaI = 1057819769,
                alphaF = 638450708;
  int64_t shiftedQuarter = quant::rdbpot(536870912, accBits);
  Value h1 = imp.ew("clz", {a}, i32);
  // a << (h1 - 1) keeps the sign bit clear: SaturatingRoundingMultiplyByPOTParam
  // does not saturate there.
  Value t = c(1);
  t = sub(h1, t);
  t = imp.ew("logical_left_shift", {a, t}, i32);
  Value sh = c(sqrtHalf);
  t = mul(t, sh);
  Value rA = satShl(imp, t, 1);
  // (input_bits - headroom) << (31 - acc_bits): small integers, never saturated.
  t = c(inputBits);
  t = sub(t, h1);
  Value k = c(31 - accBits);
  t = imp.ew("logical_left_shift", {t, k}, i32);
  Value q4 = c(shiftedQuarter);
  Value zAAdj = add(t, q4);
  sh = c(sqrtHalf);
  t = mul(a, sh);
  t = imp.ew("clz", {t}, i32);
  Value one = c(1);
  Value hb = sub(t, one);
  Value rB = satShlVar(imp, a, hb);
  t = c(inputBits);
  t = sub(t, hb);
  k = c(31 - accBits);
  t = imp.ew("logical_left_shift", {t, k}, i32);
  q4 = c(shiftedQuarter);
  Value zBAdj = sub(t, q4);
  Value r = imp.ew("minimum", {rA, rB}, i32);
  Value zAdj = imp.ew("maximum", {zAAdj, zBAdj}, i32);
  // RoundingHalfSum(r, sqrt_sqrt_half) of r >= 0 and the odd constant:
  // (r >> 1) + c/2 + 1.
  one = c(1);
  t = imp.ew("arithmetic_right_shift", {r, one}, i32, {imp.boolAttr("round", false)});
  Value hc = c(sqrtSqrtHalf / 2 + 1);
  Value p = add(t, hc);
  Value ssh = c(sqrtSqrtHalf);
  Value q = sub(r, ssh);
  q = add(q, q);
  Value commonSq = mul(q, q);
  Value qr = mul(q, r);
  Value qsq = mul(q, commonSq);
  Value an = c(alphaN);
  Value qsqa = mul(qsq, an);
  Value num = add(qr, qsqa);
  Value ai = c(alphaI);
  Value s1 = add(ai, q);
  Value ad = c(alphaD);
  Value s2 = mul(ad, commonSq);
  Value s3 = add(s1, s2);
  Value s4 = mul(p, s3);
  Value af = c(alphaF);
  Value s5 = mul(af, q);
  Value denomMinusOne = add(s4, s5);
  Value recip = oneOverOnePlusX(imp, denomMinusOne);
  Value ab = c(accBits);
  Value numScaled = rdbpotVar(imp, num, ab);
  Value l2 = c(log2);
  Value z = mul(zAdj, l2);
  Value nr = mul(numScaled, recip);
  Value total = add(z, nr);
  return satShl(imp, total, accBits - outputBits);
}

// ------------------------------------------------------------ int16

/// The input and output scales of an int16 op whose zero points must be 0.
FailureOr<std::pair<double, double>> int16Scales(Importer &imp, const Operator &op,
                                                 const Tensor &it, const Tensor &ot) {
  auto q = inOutQuant(imp, it, ot);
  if (failed(q))
    return failure();
  auto [si, zi] = q->first;
  auto [so, zo] = q->second;
  if (zi != 0 || zo != 0)
    return imp.fail("int16 " + op.name() + " needs zero points 0 (TFLite Micro's requirement), "
                    "not " + str(zi) + " and " + str(zo));
  return std::make_pair(si, so);
}

Value toInt16(Importer &imp, Value v) {
  Value c = imp.iclamp(v, -(1 << 15), (1 << 15) - 1);
  return imp.ew("cast", {c}, imp.i16);
}

/// TFLite's MultiplyByQuantizedMultiplier of an i32 tensor (one DOUBLE_ROUND
/// rescale).
FailureOr<Value> mbqmI32(Importer &imp, Value v, int64_t multiplier, int64_t shift) {
  if (31 - shift < 2)
    return imp.fail("multiplier shift " + str(shift) + " is too large for tosa.rescale");
  return imp.rescaleRaw(v, {multiplier}, {31 - shift}, 0, 0, imp.i32, "DOUBLE_ROUND");
}

/// int16 LOGISTIC / TANH: reference_integer_ops::Logistic / Tanh with the
/// parameters of their Prepare (sigmoidTanhInt16Params): the input scaled by
/// the multiplier and rounding shift, then TFLite's 256-entry
/// sigmoid_table_uint16 interpolated at |v| (integer TOSA shared with the
/// LSTM's gates: tflmSigmoid16 / tflmTanh16).
FailureOr<Value> sigmoidTanhInt16(Importer &imp, const Operator &op, Value x, const Tensor &it,
                                  const Tensor &ot, bool tanh) {
  auto scales = int16Scales(imp, op, it, ot);
  if (failed(scales))
    return failure();
  auto [si, so] = *scales;
  auto params = sigmoidTanhInt16Params(si, so, tanh);
  if (!params)
    return imp.fail("TFLite Micro cannot run this int16 " + op.name() + ": " +
                    llvm::toString(params.takeError()));
  auto [m, shift] = *params;
  Value v = imp.ew("cast", {x}, imp.i32);
  Value y = tanh ? imp.tflmTanh16(v, m, shift) : imp.tflmSigmoid16(v, m, shift);
  return imp.ew("cast", {y}, imp.i16);
}

/// TFLite's LUTLookup(int16_t) of an i16 tensor: tosa.table with the 513
/// entries gives (lut[i] << 7) + (lut[i+1] - lut[i]) * (x & 127),
/// i = (x + 32768) >> 7 (TFLite's 256 + (x >> 7)), in i32; (t + 64) >> 7 is
/// then TFLite's lut[i] + ((slope * (x & 127) + 64) >> 7), as lut[i] << 7 is a
/// multiple of 128 (tosa.arithmetic_right_shift with round = true). Exact while
/// the slopes fit TFLite's int16 (checked) and the sum its int16 result.
FailureOr<Value> lutInt16(Importer &imp, Value x, const Table &lut) {
  int64_t maxSlope = 0;
  for (size_t i = 1; i < lut.size(); ++i)
    maxSlope = std::max<int64_t>(maxSlope, std::llabs(lut[i] - lut[i - 1]));
  if (maxSlope > 32767)
    return imp.fail("internal error: a LUT slope does not fit in int16");
  Value t = imp.constant(NdArray<int64_t>::vector(lut), imp.i16, /*cache=*/true);
  Value res = imp.op("table", {x, t}, Importer::shapeOf(x), imp.i32);
  Value seven = imp.ic(7, Importer::rankOf(x));
  return imp.ew("arithmetic_right_shift", {res, seven}, imp.i32, {imp.boolAttr("round", true)});
}

//===----------------------------------------------------------------------===//
// Operators
//===----------------------------------------------------------------------===//

FailureOr<OpResults> importLogistic(Importer &imp, const Operator &op) {
  auto floatFn = [&](Value x) -> FailureOr<Value> {
    // TFLite Micro's float kernel: exp(x) below -9, 1 above 16.619..., else
    // 1 / (1 + exp(-x)).
    Value s = imp.ew("sigmoid", {x}, imp.f32);
    Value lowC = fscalar(imp, -9.0, x);
    Value low = imp.ew("greater", {lowC, x}, imp.i1);
    Value e = imp.ew("exp", {x}, imp.f32);
    Value y = imp.ew("select", {low, e, s}, imp.f32);
    Value highC = fscalar(imp, static_cast<double>(static_cast<float>(16.619047164916992188)), x);
    Value high = imp.ew("greater", {x, highC}, imp.i1);
    Value one = fscalar(imp, 1.0, x);
    return imp.ew("select", {high, one, y}, imp.f32);
  };
  auto make = [](double si, int64_t zi, double so, int64_t zo) -> llvm::Expected<Table> {
    if (zo != -128)
      return valueError("output zero point must be -128, not " + str(zo));
    return logisticInt8Table(si, zi);
  };
  auto int16Fn = [&](Value x, const Tensor &it, const Tensor &ot) {
    return sigmoidTanhInt16(imp, op, x, it, ot, false);
  };
  return tableOp(imp, op, make, floatFn, int16Fn);
}

FailureOr<OpResults> importTanh(Importer &imp, const Operator &op) {
  auto make = [](double si, int64_t zi, double, int64_t) { return tanhInt8Table(si, zi); };
  auto floatFn = [&](Value x) -> FailureOr<Value> { return imp.ew("tanh", {x}, imp.f32); };
  auto int16Fn = [&](Value x, const Tensor &it, const Tensor &ot) {
    return sigmoidTanhInt16(imp, op, x, it, ot, true);
  };
  return tableOp(imp, op, make, floatFn, int16Fn);
}

FailureOr<OpResults> importHardSwish(Importer &imp, const Operator &op) {
  auto floatFn = [&](Value x) -> FailureOr<Value> {
    // x * min(6, max(0, x + 3)) / 6
    Value three = fscalar(imp, 3.0, x);
    Value sum = imp.ew("add", {x, three}, imp.f32);
    Value r = fclamp(imp, sum, 0.0, 6.0);
    Value p = imp.fmul(x, r);
    Value sixth = fscalar(imp, 1.0 / 6.0, x);
    return imp.fmul(p, sixth);
  };
  auto make = [](double si, int64_t zi, double so, int64_t zo) -> llvm::Expected<Table> {
    auto params = hardSwishInt8Params(si, so);
    if (!params)
      return params.takeError();
    if ((*params)[1] > 0)
      return valueError("output multiplier exponent > 0 (input scale / 128 above the output "
                        "scale)");
    return hardSwishInt8Table(si, zi, so, zo);
  };
  return tableOp(imp, op, make, floatFn);
}

FailureOr<OpResults> importRsqrt(Importer &imp, const Operator &op) {
  auto make = [](double si, int64_t zi, double so, int64_t zo) -> llvm::Expected<Table> {
    auto ms = rsqrtInt8Params(si, so);
    if (!ms)
      return ms.takeError();
    if (ms->second - 20 < -31)
      return valueError("output multiplier shift " + str(ms->second) + " - 20 is below -31");
    return rsqrtInt8Table(si, zi, so, zo);
  };
  auto floatFn = [&](Value x) -> FailureOr<Value> { return imp.ew("rsqrt", {x}, imp.f32); };
  return tableOp(imp, op, make, floatFn);
}

FailureOr<OpResults> importExp(Importer &imp, const Operator &op) {
  FailureOr<UnaryIo> io = unaryIo(imp, op);
  if (failed(io))
    return failure();
  Type elem = Importer::elemOf(io->x);
  if (elem != imp.f32)
    return imp.fail(typeName(imp, elem) + " EXP is not supported: TFLite Micro's EXP is "
                                          "float32 only");
  return OpResults{imp.ew("exp", {io->x}, imp.f32)};
}

FailureOr<OpResults> importRelu(Importer &imp, const Operator &op) {
  auto int16Fn = [&](Value x, const Tensor &it, const Tensor &ot) -> FailureOr<Value> {
    // ReluQuantized<int16_t>: MBQM by the float32 quotient of the scales,
    // clamp to [0, 32767] (zero points 0).
    auto scales = int16Scales(imp, op, it, ot);
    if (failed(scales))
      return failure();
    auto [si, so] = *scales;
    auto ms = tflmQuantizeMultiplier(
        static_cast<double>(static_cast<float>(si) / static_cast<float>(so)));
    if (!ms)
      return imp.fail("TFLite Micro cannot run this int16 RELU: " +
                      llvm::toString(ms.takeError()));
    Value v = imp.ew("cast", {x}, imp.i32);
    FailureOr<Value> scaled = mbqmI32(imp, v, ms->first, ms->second);
    if (failed(scaled))
      return failure();
    Value zero = imp.ic(0, Importer::rankOf(x));
    Value mx = imp.ew("maximum", {*scaled, zero}, imp.i32);
    return toInt16(imp, mx);
  };
  auto floatFn = [&](Value x) -> FailureOr<Value> {
    return fclamp(imp, x, 0.0, static_cast<double>(FLT_MAX));
  };
  return tableOp(imp, op, reluInt8Table, floatFn, int16Fn);
}

FailureOr<OpResults> importRelu6(Importer &imp, const Operator &op) {
  return importUnary(imp, op, [&](const UnaryIo &io, Type elem) -> FailureOr<OpResults> {
    Value x = io.x;
    if (elem == imp.f32)
      return OpResults{fclamp(imp, x, 0.0, 6.0)};
    if (elem != imp.i8 && elem != imp.i16)
      return imp.fail(typeName(imp, elem) +
                      " RELU6 is not supported (int8, int16 and float32 are)");
    // Relu6Quantized: a clamp in the input's quantization to [zp, quantized 6];
    // TFLite Micro does not requantize (the output's parameters are not read).
    auto sz = imp.perTensor(*io.it);
    if (failed(sz))
      return failure();
    auto [s, z] = *sz;
    int bits = elem == imp.i8 ? 8 : 16;
    // FloatToQuantizedType<T>(6.0f, scale, zp): round(6.0f / scale) + zp, clamped.
    float q = 6.0f / static_cast<float>(s);
    int64_t six = static_cast<int64_t>(std::floor(static_cast<double>(q) + 0.5)) + z;
    six = std::min<int64_t>(std::max<int64_t>(six, -(int64_t(1) << (bits - 1))),
                            (int64_t(1) << (bits - 1)) - 1);
    return OpResults{
        imp.op("clamp", {x}, Importer::shapeOf(x), elem, imp.clampAttrs(z, six, elem))};
  });
}

FailureOr<OpResults> importLeakyRelu(Importer &imp, const Operator &op) {
  double alpha = static_cast<double>(static_cast<float>(op.options().f32(0, 0.0f)));

  auto floatFn = [&](Value x) -> FailureOr<Value> {
    Value zero = fscalar(imp, 0.0, x);
    Value pos = imp.ew("greater", {x, zero}, imp.i1);
    Value a = fscalar(imp, alpha, x);
    Value scaled = imp.fmul(x, a);
    return imp.ew("select", {pos, x, scaled}, imp.f32);
  };

  auto int16Fn = [&](Value x, const Tensor &it, const Tensor &ot) -> FailureOr<Value> {
    // QuantizeLeakyRelu<int16_t>: as the int8 table's arithmetic, in i32 TOSA.
    auto q = inOutQuant(imp, it, ot);
    if (failed(q))
      return failure();
    auto [si, zi] = q->first;
    auto [so, zo] = q->second;
    float fsi = static_cast<float>(si), fso = static_cast<float>(so);
    auto id = tflmQuantizeMultiplier(static_cast<double>(fsi / fso));
    if (!id)
      return imp.fail("TFLite Micro cannot run this int16 LEAKY_RELU: " +
                      llvm::toString(id.takeError()));
    float prod = fsi * static_cast<float>(alpha);
    auto al = tflmQuantizeMultiplier(static_cast<double>(prod / fso));
    if (!al)
      return imp.fail("TFLite Micro cannot run this int16 LEAKY_RELU: " +
                      llvm::toString(al.takeError()));
    auto [mId, sId] = *id;
    auto [mA, sA] = *al;
    int64_t rank = Importer::rankOf(x);
    Value xc = imp.ew("cast", {x}, imp.i32);
    Value zic = imp.ic(zi, rank);
    Value v = imp.ew("sub", {xc, zic}, imp.i32);
    FailureOr<Value> pos = mbqmI32(imp, v, mId, sId);
    if (failed(pos))
      return failure();
    FailureOr<Value> neg = mbqmI32(imp, v, std::llabs(mA), sA);
    if (failed(neg))
      return failure();
    Value n = *neg;
    if (mA < 0) {
      Value zero = imp.ic(0, rank);
      n = imp.ew("sub", {zero, n}, imp.i32);
    }
    Value zero = imp.ic(0, rank);
    Value ge = imp.ew("greater_equal", {v, zero}, imp.i1);
    Value y = imp.ew("select", {ge, *pos, n}, imp.i32);
    Value zoc = imp.ic(zo, rank);
    Value sum = imp.ew("add", {y, zoc}, imp.i32);
    return toInt16(imp, sum);
  };

  auto make = [alpha](double si, int64_t zi, double so, int64_t zo) {
    return leakyReluInt8Table(si, zi, so, zo, alpha);
  };
  return tableOp(imp, op, make, floatFn, int16Fn);
}

FailureOr<OpResults> importLogSoftmax(Importer &imp, const Operator &op) {
  return importUnary(imp, op, [&](const UnaryIo &io, Type elem) -> FailureOr<OpResults> {
    Value x = io.x;
    llvm::SmallVector<int64_t> shape = Importer::shapeOf(x);
    int64_t rank = shape.size();
    int64_t axis = rank - 1;
    if (elem == imp.f32) {
      // (x - max) - log(sum(exp(x - max))), as reference_ops::LogSoftmax.
      Value mx = imp.ireduce("reduce_max", x, axis);
      Value d = imp.ew("sub", {x, mx}, imp.f32);
      Value e = imp.ew("exp", {d}, imp.f32);
      Value s = imp.ireduce("reduce_sum", e, axis);
      Value l = imp.ew("log", {s}, imp.f32);
      return OpResults{imp.ew("sub", {d, l}, imp.f32)};
    }
    if (elem != imp.i8)
      return imp.fail(typeName(imp, elem) +
                      " LOG_SOFTMAX is not supported (int8 and float32 are)");
    auto q = inOutQuant(imp, *io.it, *io.ot);
    if (failed(q))
      return failure();
    double si = q->first.first;
    auto [so, zo] = q->second;
    if (static_cast<float>(so) != static_cast<float>(16.0 / 256) || zo != 127)
      return imp.fail("int8 LOG_SOFTMAX needs output scale 16/256 and zero point 127 (TFLite "
                      "Micro's requirement), not " +
                      pyRepr(so) + " and " + str(zo));
    int64_t depth = shape.back();
    if (depth > 4096)
      return imp.fail("int8 LOG_SOFTMAX over " + str(depth) +
                      " elements is not supported (its Q12 sum of exponentials may overflow)");
    auto params = logSoftmaxInt8Params(si);
    if (!params)
      return imp.fail("TFLite Micro cannot run this int8 LOG_SOFTMAX: " +
                      llvm::toString(params.takeError()));
    auto tables = logSoftmaxInt8Tables(si);
    if (!tables)
      return imp.fail("TFLite Micro cannot run this int8 LOG_SOFTMAX: " +
                      llvm::toString(tables.takeError()));
    // reference_ops::LogSoftmaxQuantized: per element of x - max(row) (256
    // values), the Q5.26 rescaled difference and its Rescale<12>(exp) term are
    // table entries.
    Type i32 = imp.i32;
    Value xi = imp.ew("cast", {x}, i32);
    Value mx = imp.ireduce("reduce_max", xi, axis);
    Value diff = imp.ew("sub", {xi, mx}, i32);
    Value c255 = imp.ic(255, rank);
    Value idx0 = imp.ew("add", {diff, c255}, i32);
    int64_t n = product(shape);
    Value idx = imp.reshape(idx0, {1, n});

    auto gather = [&](const Table &table) {
      Value t = imp.constant(NdArray<int64_t>({1, 256, 1}, table), i32, /*cache=*/true);
      Value g = imp.op("gather", {t, idx}, {1, n, 1}, i32);
      return imp.reshape(g, shape);
    };
    Value terms = gather(tables->first);
    Value diffQ5 = gather(tables->second);
    Value sum = imp.ireduce("reduce_sum", terms, axis);
    Value logSum = logXGe1(imp, sum, 12, 5);
    Value minc = imp.ic(kInt32Min, rank);
    Value shifted = imp.ew("add", {logSum, minc}, i32);
    Value bound = imp.rescaleRaw(shifted, {params->multRev}, {31 - params->shiftRev}, 0, 0, i32,
                                 "DOUBLE_ROUND");
    Value dm = imp.ic(params->diffMin - 1, rank);
    Value adjusted = imp.ew("maximum", {bound, dm}, i32);
    Value sub = imp.ew("sub", {diffQ5, logSum}, i32);
    Value c22 = imp.ic(22, rank);
    Value o = rdbpotVar(imp, sub, c22);
    Value c127 = imp.ic(127, rank);
    o = imp.ew("add", {o, c127}, i32);
    o = imp.iclamp(o, -128, 127);
    Value keep = imp.ew("greater", {diff, adjusted}, imp.i1);
    Value cm128 = imp.ic(-128, rank);
    o = imp.ew("select", {keep, o, cm128}, i32);
    return OpResults{imp.ew("cast", {o}, imp.i8)};
  });
}

FailureOr<OpResults> importL2Normalization(Importer &imp, const Operator &op) {
  FailureOr<UnaryIo> io = unaryIo(imp, op);
  if (failed(io))
    return failure();
  Value x = io->x;
  int act = op.options().i8(0);
  if (act != 0)
    return imp.fail("L2_NORMALIZATION with a fused activation is not supported (TFLite Micro "
                    "requires NONE)");
  llvm::SmallVector<int64_t> shape = Importer::shapeOf(x);
  if (shape.size() > 4)
    return imp.fail("L2_NORMALIZATION of more than 4 dimensions (TFLite Micro's limit)");
  int64_t rank = shape.size();
  int64_t axis = rank - 1;
  Type elem = Importer::elemOf(x);
  if (elem == imp.f32) {
    // x / max(sqrt(sum x^2), 1e-6) as x * min(rsqrt(sum x^2), 1 / 1e-6).
    Value sq = imp.fmul(x, x);
    Value s = imp.ireduce("reduce_sum", sq, axis);
    Value rs = imp.ew("rsqrt", {s}, imp.f32);
    Value cap = fscalar(imp, 1.0 / static_cast<double>(static_cast<float>(1e-6)), x);
    Value r = imp.ew("minimum", {rs, cap}, imp.f32);
    return OpResults{imp.fmul(x, r)};
  }
  if (elem != imp.i8)
    return imp.fail(typeName(imp, elem) +
                    " L2_NORMALIZATION is not supported (int8 and float32 are)");
  auto in = imp.perTensor(*io->it);
  if (failed(in))
    return failure();
  int64_t zp = in->second;
  int64_t depth = shape.back();
  if (depth * 255 * 255 >= (int64_t(1) << 29))
    return imp.fail("int8 L2_NORMALIZATION over " + str(depth) +
                    " elements is not supported (sums of squares from 2^29 on)");
  // reference_integer_ops::L2Normalization: acc = sum (q - zp)^2 per row, its
  // inverse square root as a multiplier and shift, MBQM(q - zp, m, shift + 7),
  // saturated (output scale 1/128, zero point 0 assumed: TFLite Micro reads no
  // output parameters).
  Type i32 = imp.i32;
  Value xc = imp.ew("cast", {x}, i32);
  Value zpc = imp.ic(zp, rank);
  Value v = imp.ew("sub", {xc, zpc}, i32);
  Value sq = imp.tosaMul(v, v, i32, 0);
  Value acc = imp.ireduce("reduce_sum", sq, axis);
  auto [inv0, right0] = invSqrtMultiplierExpTosa(imp, acc);
  Value c2 = imp.ic(2, rank);
  Value small = imp.ew("greater", {c2, acc}, imp.i1);
  Value maxc = imp.ic(kInt32Max, rank);
  Value inv = imp.ew("select", {small, maxc, inv0}, i32);
  Value c0 = imp.ic(0, rank);
  Value right = imp.ew("select", {small, c0, right0}, i32);
  // MBQM with shift 7 - right: left shift max(7 - right, 0), right shift
  // max(right - 7, 0).
  Value c7 = imp.ic(7, rank);
  Value l0 = imp.ew("sub", {c7, right}, i32);
  c0 = imp.ic(0, rank);
  Value left = imp.ew("maximum", {l0, c0}, i32);
  c7 = imp.ic(7, rank);
  Value d0 = imp.ew("sub", {right, c7}, i32);
  c0 = imp.ic(0, rank);
  Value down = imp.ew("maximum", {d0, c0}, i32);
  Value shl = imp.ew("logical_left_shift", {v, left}, i32);
  Value p = imp.imul31(shl, inv);
  Value rounded = rdbpotVar(imp, p, down);
  return OpResults{imp.saturate(rounded, 0, imp.i8)};
}

} // namespace

//===----------------------------------------------------------------------===//
// Cross-family members
//===----------------------------------------------------------------------===//

Value Importer::ic(int64_t value, int64_t rank) {
  return iconst({value}, ones(rank));
}

/// reference_ops::SoftmaxInt16 (int16 in and out, output scale 2^-15, zero
/// points 0) in integer TOSA, per row (last axis):
///  * d = x - max(x) in [-65535, 0], MultiplyByQuantizedMultiplier(d, m,
///    shift) (one DOUBLE_ROUND rescale; softmaxInt16Params), + 32767
///    saturated to int16, and the 513-entry exp table of Prepare (lutInt16):
///    e in Q0.15;
///  * sum = sum(e) (int32), h = clz(sum), (sum << (h - 1) + 2^13) >> 14 (a
///    rounding shift of the normalized sum), - 98304 saturated to int16, and
///    the 1 / (1 + x) table: r;
///  * (e * r + 2^(30 - h)) >> (31 - h) (tosa.mul: exact, both below 2^15; a
///    rounding shift: non-negative, so half up is TFLite's + round >> shift),
///    clamped to [0, 32767].
FailureOr<Value> Importer::tflmSoftmaxInt16(Value x, double inputScale, double beta) {
  auto params = softmaxInt16Params(inputScale, beta);
  if (!params)
    return fail("TFLite Micro cannot run this int16 SOFTMAX: " +
                llvm::toString(params.takeError()));
  auto [m, shift] = *params;
  const auto &[expLut, recipLut] = softmaxInt16Luts();
  int64_t rank = rankOf(x);
  int64_t axis = rank - 1;
  auto c = [&](int64_t v) { return ic(v, rank); };
  Value xi = ew("cast", {x}, i32);
  Value mx = ireduce("reduce_max", xi, axis);
  Value d = ew("sub", {xi, mx}, i32);
  FailureOr<Value> scaled = mbqmI32(*this, d, m, shift);
  if (failed(scaled))
    return failure();
  Value k = c(32767);
  Value sym = toInt16(*this, ew("add", {*scaled, k}, i32));
  FailureOr<Value> e = lutInt16(*this, sym, expLut);
  if (failed(e))
    return failure();
  Value total = ireduce("reduce_sum", *e, axis);
  Value h = ew("clz", {total}, i32);
  Value one = c(1);
  Value hm1 = ew("sub", {h, one}, i32);
  Value norm = ew("logical_left_shift", {total, hm1}, i32);
  Value c14 = c(14);
  Value shifted = ew("arithmetic_right_shift", {norm, c14}, i32, {boolAttr("round", true)});
  Value k2 = c(98304);
  Value symSum = toInt16(*this, ew("sub", {shifted, k2}, i32));
  FailureOr<Value> r = lutInt16(*this, symSum, recipLut);
  if (failed(r))
    return failure();
  Value p = tosaMul(*e, *r, i32, 0);
  Value c31 = c(31);
  Value rs = ew("sub", {c31, h}, i32);
  Value y = ew("arithmetic_right_shift", {p, rs}, i32, {boolAttr("round", true)});
  return ew("cast", {iclamp(y, 0, 32767)}, i16);
}

void mlir::serenity::tflite::addTableHandlers(HandlerTable &table) {
  table["L2_NORMALIZATION"] = importL2Normalization;
  table["LOG_SOFTMAX"] = importLogSoftmax;
  table["LOGISTIC"] = importLogistic;
  table["TANH"] = importTanh;
  table["HARD_SWISH"] = importHardSwish;
  table["RSQRT"] = importRsqrt;
  table["EXP"] = importExp;
  table["RELU"] = importRelu;
  table["RELU6"] = importRelu6;
  table["LEAKY_RELU"] = importLeakyRelu;
}
