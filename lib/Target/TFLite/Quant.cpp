//===- Quant.cpp - Fixed-point requantization arithmetic ------------------===//

#include "Quant.h"
#include "Format.h"

#include "llvm/ADT/Twine.h"

#include <cmath>

using namespace mlir::serenity::tflite;

namespace {
llvm::Error error(const std::string &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}
} // namespace

int64_t quant::roundHalfAway(double x) {
  double r = std::floor(std::fabs(x) + 0.5);
  return static_cast<int64_t>(r) * (x >= 0 ? 1 : -1);
}

std::pair<int64_t, int> quant::q31(double scale) {
  int exponent = 0;
  double mantissa = std::frexp(scale, &exponent);
  int64_t fixed = roundHalfAway(mantissa * static_cast<double>(int64_t(1) << 31));
  if (fixed == (int64_t(1) << 31)) {
    fixed /= 2;
    exponent += 1;
  }
  return {fixed, exponent};
}

llvm::Expected<std::pair<int64_t, int64_t>> quant::quantizeMultiplier(double scale) {
  if (scale < 0 || !std::isfinite(scale))
    return error("cannot requantize with scale " + pyRepr(scale));
  if (scale == 0.0)
    return std::pair<int64_t, int64_t>{0, 2};
  auto [multiplier, exponent] = q31(scale);
  int64_t shift = 31 - exponent;
  if (shift < 2)
    return error("requantization scale " + pyRepr(scale) + " is too large for tosa.rescale");
  if (shift > 62) {
    multiplier >>= std::min<int64_t>(31, shift - 62);
    shift = 62;
  }
  return std::pair<int64_t, int64_t>{multiplier, shift};
}

llvm::Expected<std::pair<int64_t, int64_t>> quant::tfliteQuantizeMultiplier(double real) {
  if (real < 0 || !std::isfinite(real))
    return error("cannot requantize with scale " + pyRepr(real));
  if (real == 0.0)
    return std::pair<int64_t, int64_t>{0, 0};
  auto [fixed, shift] = q31(real);
  if (shift < -31)
    return std::pair<int64_t, int64_t>{0, 0};
  if (shift > 30)
    return error("requantization scale " + pyRepr(real) + " is too large");
  return std::pair<int64_t, int64_t>{fixed, shift};
}

llvm::Expected<int64_t> quant::tosaApplyScale(int64_t value, int64_t multiplier, int64_t shift,
                                              bool doubleRound) {
  if (shift < 2 || shift > 62)
    return error("apply_scale_32 shift outside [2, 62]");
  __int128 rounding = __int128(1) << (shift - 1);
  if (doubleRound && shift > 31)
    rounding += value >= 0 ? (int64_t(1) << 30) : -(int64_t(1) << 30);
  __int128 result = (__int128(value) * multiplier + rounding) >> shift;
  if (result < kInt32Min || result > kInt32Max)
    return error("apply_scale_32 result does not fit in int32");
  return static_cast<int64_t>(result);
}

int64_t quant::wrap32(int64_t x) {
  return static_cast<int64_t>(static_cast<int32_t>(static_cast<uint32_t>(x)));
}

int64_t quant::srdhm(int64_t a, int64_t b) {
  if (a == kInt32Min && b == kInt32Min)
    return kInt32Max;
  int64_t ab = a * b;
  int64_t num = ab + (ab >= 0 ? (int64_t(1) << 30) : 1 - (int64_t(1) << 30));
  return num >= 0 ? (num >> 31) : -((-num) >> 31); // C++ division truncates
}

int64_t quant::rdbpot(int64_t x, int64_t exponent) {
  int64_t mask = (int64_t(1) << exponent) - 1;
  int64_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> exponent) + ((x & mask) > threshold ? 1 : 0);
}

int64_t quant::mbqm(int64_t x, int64_t multiplier, int64_t shift) {
  int64_t left = std::max<int64_t>(shift, 0), right = std::max<int64_t>(-shift, 0);
  // x << left in int64 (numpy's), then wrapped to int32 like TFLite.
  int64_t shifted = static_cast<int64_t>(static_cast<uint64_t>(x) << left);
  return rdbpot(srdhm(wrap32(shifted), multiplier), right);
}

bool quant::hasActivationRange(int act) { return act >= 0 && act <= 3; }

int64_t quant::satMulPot(int64_t x, int exponent) {
  if (exponent <= 0)
    return rdbpot(x, -exponent);
  int64_t threshold = (int64_t(1) << (31 - exponent)) - 1;
  if (x > threshold)
    return kInt32Max;
  if (x < -threshold)
    return kInt32Min;
  return static_cast<int64_t>(static_cast<uint64_t>(x) << exponent);
}

int64_t quant::expOnInterval(int64_t a) {
  auto mul = [](int64_t x, int64_t y) { return srdhm(x, y); };
  const int64_t constantTerm = 1895147668, oneThird = 715827883;
  int64_t x = wrap32(a + (int64_t(1) << 28));
  int64_t x2 = mul(x, x);
  int64_t x3 = mul(x2, x);
  int64_t x4 = mul(x2, x2);
  int64_t x4Over4 = rdbpot(x4, 2);
  int64_t t = rdbpot(wrap32(mul(wrap32(x4Over4 + x3), oneThird) + x2), 1);
  return wrap32(constantTerm + mul(constantTerm, wrap32(x + t)));
}

int64_t quant::expOnNegativeValues(int64_t a, int integerBits) {
  int frac = 31 - integerBits;
  int64_t oneQuarter = int64_t(1) << (frac - 2);
  int64_t mask = oneQuarter - 1;
  int64_t aMod = wrap32((a & mask) - oneQuarter);
  int64_t result = expOnInterval(satMulPot(aMod, integerBits)); // Rescale<0>
  int64_t remainder = wrap32(aMod - a);
  static const std::pair<int, int64_t> kSteps[] = {
      {-2, 1672461947}, {-1, 1302514674}, {0, 790015084}, {1, 290630308},
      {2, 39332535},    {3, 720401},      {4, 242}};
  for (auto [exponent, mult] : kSteps)
    if (integerBits > exponent && (remainder & (int64_t(1) << (frac + exponent))))
      result = srdhm(result, mult);
  if (integerBits > 5 && a < -(int64_t(1) << (36 - integerBits)))
    result = 0;
  if (a == 0)
    result = kInt32Max;
  return result;
}

llvm::Expected<std::pair<int64_t, int64_t>>
quant::activationRange(int act, double scale, int64_t zeroPoint, int64_t qmin, int64_t qmax) {
  if (!hasActivationRange(act))
    return error("fused activation " + std::to_string(act) + " has no quantized range");
  auto q = [&](float real) {
    return zeroPoint + roundHalfAway(static_cast<double>(real / static_cast<float>(scale)));
  };
  int64_t lo = qmin, hi = qmax;
  if (act == 1 || act == 3)
    lo = std::max(qmin, q(0.0f));
  if (act == 2)
    lo = std::max(qmin, q(-1.0f)), hi = std::min(qmax, q(1.0f));
  if (act == 3)
    hi = std::min(qmax, q(6.0f));
  return std::pair<int64_t, int64_t>{lo, hi};
}
