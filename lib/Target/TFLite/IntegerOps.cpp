//===- IntegerOps.cpp - TFLite's integer roundings in TOSA ----------------===//
//
// python/serenity/tflite/tflite_int.py (--rounding=double, the default):
// TFLite / TFLite Micro's int8 arithmetic in TOSA, bit for bit.
//
// * MultiplyByQuantizedMultiplier (conv, depthwise, fully connected, ADD) is a
//   tosa.rescale with DOUBLE_ROUND and shift 31 - l + r, which computes exactly
//   RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(x << l, m), r) for
//   every int32 x; multiplier and shift from TFLite's QuantizeMultiplier.
// * ADD (TFLite's AddFunc): each input (q - zp) << 20, MultiplyByQuantized-
//   Multiplier to the common scale 2 * max(sa, sb), an exact i32 add, then to
//   the output scale.
// * AVERAGE_POOL_2D: the window sum of the raw int8 values (a depthwise conv
//   with a ones kernel), then (sum +- count/2) / count truncated, count = the
//   window's elements inside the image.
// * SOFTMAX: TFLite's fixed-point int8 softmax; exp_on_negative_values of the
//   difference to the row maximum is a tosa.gather from a 256-entry table
//   computed here with gemmlowp's arithmetic (reference.py), the reciprocal is
//   GetReciprocal's Newton-Raphson in integer TOSA ops.
//
//===----------------------------------------------------------------------===//

#include "Format.h"
#include "Helpers.h"
#include "Importer.h"
#include "Quant.h"

#include "mlir/IR/Diagnostics.h"

#include <cmath>
#include <sstream>

using namespace mlir::serenity::tflite;
using llvm::ArrayRef;
using llvm::SmallVector;

namespace {

constexpr int64_t kInt32Max = quant::kInt32Max;
constexpr int kScaledDiffIntegerBits = 5;
constexpr int kAccumulationIntegerBits = 12;

//===----------------------------------------------------------------------===//
// SOFTMAX's parameters and exp table (gemmlowp's fixed point: quant::)
//===----------------------------------------------------------------------===//

/// TFLite PreprocessSoftmaxScaling + CalculateInputRadius for int8:
/// (input_multiplier, input_left_shift, diff_min).
FailureOr<std::array<int64_t, 3>> softmaxParams(Importer &imp, double beta, double inputScale) {
  double real = std::min(beta * inputScale * double(int64_t(1) << (31 - kScaledDiffIntegerBits)),
                         double((int64_t(1) << 31) - 1));
  auto ms = quant::tfliteQuantizeMultiplier(real);
  if (!ms) {
    // A ValueError in Python: the run loop's "cannot import this" diagnostic.
    std::string msg = llvm::toString(ms.takeError());
    return imp.fail("cannot import this " + imp.currentOp->name() + " (inputs " +
                    shapesRepr(imp, *imp.currentOp) + "): ValueError: " + msg);
  }
  auto [multiplier, shift] = *ms;
  if (shift < 0) {
    // A TFLiteError without the operator prefix in Python.
    mlir::emitError(imp.loc) << "softmax input scale " << pyRepr(inputScale) << " * beta "
                             << pyRepr(beta) << " is too small";
    return mlir::failure();
  }
  double radius = double((int64_t(1) << kScaledDiffIntegerBits) - 1) *
                  double(int64_t(1) << (31 - kScaledDiffIntegerBits)) /
                  double(int64_t(1) << shift);
  return std::array<int64_t, 3>{multiplier, shift,
                                -static_cast<int64_t>(std::floor(radius))};
}

/// exp_on_negative_values of every int8 input difference d = x - max in
/// [-255, 0] (index d + 255); 0 where d < diff_min.
FailureOr<std::vector<int64_t>> softmaxExpTable(Importer &imp, double beta, double inputScale) {
  auto params = softmaxParams(imp, beta, inputScale);
  if (failed(params))
    return mlir::failure();
  auto [multiplier, shift, diffMin] = *params;
  std::vector<int64_t> table(256, 0);
  for (int64_t d = -255; d <= 0; ++d) {
    if (d >= diffMin) {
      int64_t shifted = static_cast<int64_t>(static_cast<uint64_t>(d) << shift);
      int64_t rescaled = quant::srdhm(quant::wrap32(shifted), multiplier);
      table[d + 255] = quant::expOnNegativeValues(rescaled, kScaledDiffIntegerBits);
    }
  }
  return table;
}

SmallVector<int64_t> ones(int64_t rank) { return SmallVector<int64_t>(rank, 1); }

} // namespace

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

Value Importer::iconst(ArrayRef<int64_t> values, ArrayRef<int64_t> shape, Type elem) {
  if (!elem)
    elem = i32;
  NdArray<int64_t> arr(std::vector<int64_t>(shape.begin(), shape.end()),
                       std::vector<int64_t>(values.begin(), values.end()));
  return constant(arr, elem, /*cache=*/true);
}

Value Importer::ireduce(llvm::StringRef name, Value x, int64_t axis) {
  SmallVector<int64_t> shape = shapeOf(x);
  shape.back() = 1;
  return op(name, {x}, shape, elemOf(x), {i32Attr("axis", axis)});
}

Value Importer::imul31(Value a, Value c) { return tosaMul(a, c, i32, 31); }

Value Importer::rescaleRaw(Value x, ArrayRef<int64_t> mults, ArrayRef<int64_t> shifts,
                           int64_t inZp, int64_t outZp, Type outElem,
                           llvm::StringRef roundingMode) {
  int64_t n = mults.size();
  Value mult = constant(NdArray<int64_t>::vector({mults.begin(), mults.end()}), i32, true);
  Value shift = constant(NdArray<int64_t>::vector({shifts.begin(), shifts.end()}), i8, true);
  Value izp = scalar1(inZp, elemOf(x));
  Value ozp = scalar1(outZp, outElem);
  return op("rescale", {x, mult, shift, izp, ozp}, shapeOf(x), outElem,
            {boolAttr("input_unsigned", false), boolAttr("output_unsigned", false),
             boolAttr("per_channel", n > 1), roundingModeAttr(roundingMode),
             boolAttr("scale32", true)});
}

//===----------------------------------------------------------------------===//
// MultiplyByQuantizedMultiplier
//===----------------------------------------------------------------------===//

FailureOr<Value> Importer::tfliteRequantize(Value x, ArrayRef<double> scales, int64_t inZp,
                                            int64_t outZp, Type outElem, int preShift) {
  SmallVector<std::pair<int64_t, int64_t>> ms;
  for (double s : scales) {
    auto m = quant::tfliteQuantizeMultiplier(s);
    if (!m)
      return fail(llvm::toString(m.takeError()));
    ms.push_back(*m);
  }
  if (preShift) {
    // (x - zp) << preShift, exact: floor(((x - zp) * 2^30 + 2^(29 - p)) / 2^(30 - p)).
    x = rescaleRaw(x, {int64_t(1) << 30}, {30 - preShift}, inZp, 0, i32, "SINGLE_ROUND");
    inZp = 0;
  }
  SmallVector<int64_t> mults, shifts;
  for (auto [m, s] : ms) {
    mults.push_back(m);
    shifts.push_back(31 - s);
  }
  if (*std::min_element(shifts.begin(), shifts.end()) < 2)
    return fail("requantization scale " +
                pyRepr(*std::max_element(scales.begin(), scales.end())) +
                " is too large for tosa.rescale");
  return rescaleRaw(x, mults, shifts, inZp, outZp, outElem, "DOUBLE_ROUND");
}

Value Importer::saturate(Value v, int64_t zp, Type outElem) {
  int64_t rank = rankOf(v);
  if (zp) {
    Value z = iconst({zp}, ones(rank));
    v = ew("add", {v, z}, i32);
  }
  if (outElem == i32)
    return v;
  return ew("cast", {iclamp(v, -128, 127)}, i8);
}

Value Importer::iclamp(Value v, int64_t lo, int64_t hi) {
  SmallVector<int64_t> one = ones(rankOf(v));
  Value l = iconst({lo}, one);
  v = ew("maximum", {v, l}, i32);
  Value h = iconst({hi}, one);
  return ew("minimum", {v, h}, i32);
}

//===----------------------------------------------------------------------===//
// Operators
//===----------------------------------------------------------------------===//

FailureOr<Value> Importer::tfliteAdd(Value a, Value c, double sa, int64_t za, double sc,
                                     int64_t zc, double so, int64_t zo) {
  // As TFLite's AddFunc: both inputs (q - zp) << 20 scaled to the common
  // scale 2*max(sa, sc), an exact int32 add, then to the output scale.
  double fa = static_cast<float>(sa), fc = static_cast<float>(sc);
  double twiceMax = 2 * std::max(fa, fc);
  auto a32 = tfliteRequantize(a, {fa / twiceMax}, za, 0, i32, 20);
  if (failed(a32))
    return mlir::failure();
  auto c32 = tfliteRequantize(c, {fc / twiceMax}, zc, 0, i32, 20);
  if (failed(c32))
    return mlir::failure();
  Value s = ew("add", {*a32, *c32}, i32);
  double outScale = twiceMax / (double(1 << 20) * double(static_cast<float>(so)));
  return tfliteRequantize(s, {outScale}, 0, zo, i8);
}

FailureOr<Value> Importer::tfliteAvgPool(Value x, ArrayRef<int64_t> inShape,
                                         std::array<int64_t, 2> kernel,
                                         std::array<int64_t, 2> stride, Pads pad,
                                         ArrayRef<int64_t> outShape, int64_t actLo,
                                         int64_t actHi, Pads origPad) {
  auto [fh, fw] = kernel;
  int64_t c = shapeOf(x)[3];
  Value onesK = constant(NdArray<int64_t>::full({fh, fw, c, 1}, 1), i8, true);
  Value bias = constant(NdArray<int64_t>::full({c}, 0), i32, true);
  Value zp = scalar1(0, i8);
  SmallVector<int64_t> accShape(outShape.begin(), outShape.begin() + 3);
  accShape.push_back(c);
  Value acc = op("depthwise_conv2d", {x, onesK, bias, zp, zp}, accShape, i32,
                 {typeAttr("acc_type", i32), i64Array("dilation", {1, 1}),
                  i64Array("pad", {pad[0], pad[1], pad[2], pad[3]}),
                  i64Array("stride", {stride[0], stride[1]})});
  // Elements of each window inside the image (TFLite skips the padding).
  int64_t oh = outShape[1], ow = outShape[2];
  int64_t h = inShape[1], w = inShape[2];
  std::vector<int64_t> counts(oh * ow, 0);
  for (int64_t oy = 0; oy < oh; ++oy) {
    int64_t y0 = std::max<int64_t>(oy * stride[0] - origPad[0], 0);
    int64_t y1 = std::min<int64_t>(oy * stride[0] - origPad[0] + fh, h);
    for (int64_t ox = 0; ox < ow; ++ox) {
      int64_t x0 = std::max<int64_t>(ox * stride[1] - origPad[2], 0);
      int64_t x1 = std::min<int64_t>(ox * stride[1] - origPad[2] + fw, w);
      counts[oy * ow + ox] = std::max<int64_t>(y1 - y0, 0) * std::max<int64_t>(x1 - x0, 0);
    }
  }
  if (counts.empty()) // numpy's counts.min() raises ValueError
    return fail("cannot import this " + currentOp->name() + " (inputs " + shapesRepr(*this, *currentOp) +
                "): ValueError: zero-size array to reduction operation minimum which has no "
                "identity");
  if (*std::min_element(counts.begin(), counts.end()) <= 0)
    return fail("a pooling window lies entirely in the padding");
  SmallVector<int64_t> cshape;
  if (std::all_of(counts.begin(), counts.end(), [&](int64_t v) { return v == counts[0]; })) {
    cshape = {1, 1, 1, 1};
    counts.resize(1);
  } else {
    cshape = {1, oh, ow, 1};
  }
  std::vector<int64_t> halves;
  for (int64_t v : counts)
    halves.push_back(v / 2);
  Value n = iconst(counts, cshape);
  Value half = iconst(halves, cshape);
  Value zero = iconst({0}, {1, 1, 1, 1});
  Value pos = ew("greater", {acc, zero}, i1);
  Value up = ew("add", {acc, half}, i32);
  Value down = ew("sub", {acc, half}, i32);
  Value num = ew("select", {pos, up, down}, i32);
  Value q = ew("intdiv", {num, n}, i32);
  return ew("cast", {iclamp(q, actLo, actHi)}, i8);
}

FailureOr<Value> Importer::tfliteSoftmax(Value x, double beta, double inputScale,
                                         Type outElem) {
  if (!outElem)
    outElem = i8;
  int bits = outElem == i16 ? 16 : 8;
  SmallVector<int64_t> shape = shapeOf(x);
  int64_t rank = shape.size();
  int64_t axis = rank - 1;
  auto table = softmaxExpTable(*this, beta, inputScale);
  if (failed(table))
    return mlir::failure();
  SmallVector<int64_t> one = ones(rank);
  Value xi = ew("cast", {x}, i32);
  Value mx = ireduce("reduce_max", xi, axis);
  Value diff = ew("sub", {xi, mx}, i32);
  Value c255 = iconst({255}, one);
  Value idx = ew("add", {diff, c255}, i32);
  int64_t total = product(shape);
  Value idx2 = reshape(idx, {1, total});
  Value values = constant(NdArray<int64_t>({1, 256, 1}, *table), i32, true);
  Value g = op("gather", {values, idx2}, {1, total, 1}, i32);
  Value e = reshape(g, shape);
  // Sum of Rescale<12>(exp): exp >= 0, so RoundingDivideByPOT(e, 12) is a
  // half-up rescale.
  Value terms = rescaleRaw(e, {int64_t(1) << 30}, {30 + kAccumulationIntegerBits}, 0, 0, i32,
                           "SINGLE_ROUND");
  Value s = ireduce("reduce_sum", terms, axis);
  // GetReciprocal(sum, 12): normalize, 1 / (1 + a) by Newton-Raphson.
  Value headroom = ew("clz", {s}, i32);
  Value lls = ew("logical_left_shift", {s, headroom}, i32);
  Value maxC = iconst({kInt32Max}, one);
  Value shifted = ew("bitwise_and", {lls, maxC}, i32);
  Value oneC = iconst({1}, one);
  Value ars = ew("arithmetic_right_shift", {shifted, oneC}, i32, {boolAttr("round", false)});
  Value c30 = iconst({int64_t(1) << 30}, one);
  Value hd = ew("add", {ars, c30}, i32);
  Value k0 = iconst({1515870810}, one);
  Value k1 = iconst({-1010580540}, one);
  Value hk = imul31(hd, k1);
  Value xr = ew("add", {k0, hk}, i32);
  for (int it = 0; it < 3; ++it) {
    Value c29 = iconst({int64_t(1) << 29}, one);
    Value hdx = imul31(hd, xr);
    Value u = ew("sub", {c29, hdx}, i32);
    // Rescale<2> of a value far below its saturation bound (|u| <= 1/17).
    Value xu = imul31(xr, u);
    Value two = iconst({2}, one);
    Value sh = ew("logical_left_shift", {xu, two}, i32);
    xr = ew("add", {xr, sh}, i32);
  }
  Value lim = iconst({(int64_t(1) << 30) - 1}, one);
  Value sat = ew("greater", {xr, lim}, i1);
  Value maxV = iconst({kInt32Max}, one);
  Value one1 = iconst({1}, one);
  Value dbl = ew("logical_left_shift", {xr, one1}, i32);
  Value recip = ew("select", {sat, maxV, dbl}, i32);
  // exponent = num_bits_over_unit + 31 - bits = (12 - headroom) + 31 - bits
  Value ec = iconst({kAccumulationIntegerBits + 31 - bits}, one);
  Value exponent = ew("sub", {ec, headroom}, i32);
  Value p = imul31(e, recip);
  Value r = ew("arithmetic_right_shift", {p, exponent}, i32, {boolAttr("round", true)});
  if (bits == 8)
    return saturate(r, -128, i8);
  Value off = iconst({-(int64_t(1) << 15)}, one);
  r = ew("add", {r, off}, i32);
  return ew("cast", {iclamp(r, -(int64_t(1) << 15), (int64_t(1) << 15) - 1)}, i16);
}
