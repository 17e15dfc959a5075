//===- ElementwiseOps.cpp - Element-wise arithmetic -----------------------===//
//
// python/serenity/tflite/ops_elementwise.py: ADD (broadcasting), SUB, MUL,
// DIV, MINIMUM, MAXIMUM, SQUARED_DIFFERENCE, PRELU, QUANTIZE, DEQUANTIZE,
// CAST with TFLite Micro's semantics (its reference kernels at tflite-micro
// @90b983c2b3f1), integers bit for bit, float32 as its float kernels.
//
// Operands broadcast as in TFLite (numpy rules, shapes aligned at the last
// dimension): the operand of lower rank is reshaped to the higher rank with
// leading 1-dims, then the TOSA element-wise ops broadcast their 1-dims.
// Integer arithmetic happens in i32; every requantization is one
// tosa.rescale with DOUBLE_ROUND (TFLite's MultiplyByQuantizedMultiplier, see
// IntegerOps.cpp). These operators use TFLite Micro's arithmetic under every
// --rounding mode (only ADD without broadcasting keeps the core's
// single/armnn forms).
//
// Per operator:
//  * MUL: int8/int16 (a - za) * (b - zb), MultiplyByQuantizedMultiplier by
//    double(sa) * double(sb) / double(so); int32 wrapping product; float32.
//  * ADD / SUB int8 and int16: TFLite's AddFunc form, inputs << 20 (int16:
//    << 15) scaled to 2 max(sa, sb); ADD derives the multipliers in double,
//    SUB in float32 (sub_common.cc divides floats).
//  * SQUARED_DIFFERENCE int8/int16: the same with << 7 (int16: << 0), the
//    squared i32 difference requantized by (2 max)^2 / (2^14 so).
//  * MINIMUM / MAXIMUM: raw comparison of the stored values.
//  * DIV int8: TFLM's DivElementwise in integer TOSA (reciprocal of the
//    divisor from a 256-entry table, CountLeadingSignBits with tosa.clz,
//    SRDHM as tosa.mul with shift 31, RoundingDivideByPOT by a per-element
//    exponent).
//  * PRELU int8: x >= zx ? MBQM(x - zx, si/so) : MBQM((x - zx)(a - za), si*sa/so).
//  * QUANTIZE: float32 -> int8/int16 as AffineQuantize (float32 division,
//    std::round); integer -> integer as Requantize.
//  * DEQUANTIZE int8/int16 -> float32: float(scale * (q - zp)).
//
//===----------------------------------------------------------------------===//

#include "Format.h"
#include "Helpers.h"
#include "Importer.h"
#include "Quant.h"

#include <cmath>
#include <cstdlib>
#include <cstring>

using namespace mlir::serenity::tflite;

namespace {

using quant::kInt32Max;
using quant::kInt32Min;

//===----------------------------------------------------------------------===//
// reference.py: GetReciprocal (gemmlowp arithmetic on int64 holding int32)
//===----------------------------------------------------------------------===//

/// gemmlowp: 1 / (1 + a) for a in [0, 1), Q0.31 in and out.
int64_t oneOverOnePlusX(int64_t a) {
  int64_t total = a + kInt32Max; // RoundingHalfSum(a, One) in int64, C++ division
  int64_t num = total + (total >= 0 ? 1 : -1);
  int64_t halfDenominator = num >= 0 ? num / 2 : -((-num) / 2);
  int64_t x = quant::wrap32(1515870810 + quant::srdhm(halfDenominator, -1010580540));
  for (int i = 0; i < 3; ++i) {
    int64_t hdx = quant::srdhm(halfDenominator, x);
    int64_t oneMinus = quant::wrap32((int64_t(1) << 29) - hdx);
    x = quant::wrap32(x + quant::satMulPot(quant::srdhm(x, oneMinus), 2));
  }
  return quant::satMulPot(x, 1);
}

/// TFLite GetReciprocal: (Q0.31 reciprocal, num_bits_over_unit).
std::pair<int64_t, int64_t> getReciprocal(int64_t x, int integerDigits) {
  int bitLength = 0;
  for (int64_t v = x; v > 0; v >>= 1)
    ++bitLength;
  int64_t headroomPlusOne = x > 0 ? 32 - bitLength : (x == 0 ? 32 : 0);
  int64_t numBitsOverUnit = integerDigits - headroomPlusOne;
  int64_t shifted =
      static_cast<int64_t>(((static_cast<uint64_t>(x) << headroomPlusOne) - (uint64_t(1) << 31)) &
                           0xFFFFFFFFu);
  return {oneOverOnePlusX(quant::wrap32(shifted)), numBitsOverUnit};
}

//===----------------------------------------------------------------------===//
// Helpers (ElementwiseOps' private methods)
//===----------------------------------------------------------------------===//

struct Range {
  int64_t lo, hi;
};

Range rangeOf(Importer &imp, Type elem) {
  if (elem == imp.i8)
    return {-128, 127};
  if (elem == imp.i16)
    return {-32768, 32767};
  return {kInt32Min, kInt32Max};
}

/// A cached constant of `values` shaped `shape` (Python's _const).
Value constInt(Importer &imp, std::vector<int64_t> values, std::vector<int64_t> shape,
               Type elem) {
  return imp.constant(NdArray<int64_t>(std::move(shape), std::move(values)), elem, true);
}

/// A cached [1] * rank constant (Python's _scalar).
Value scalarInt(Importer &imp, int64_t value, int64_t rank, Type elem) {
  return constInt(imp, {value}, std::vector<int64_t>(rank, 1), elem);
}
Value scalarF32(Importer &imp, double value, int64_t rank) {
  return imp.constant(NdArray<double>(std::vector<int64_t>(rank, 1), {value}), imp.f32, true);
}

/// x with leading 1-dims up to rank (TFLite's broadcasting aligns the last dims).
Value ranked(Importer &imp, Value x, int64_t rank) {
  llvm::SmallVector<int64_t> s = Importer::shapeOf(x);
  std::vector<int64_t> shape(rank - s.size(), 1);
  shape.insert(shape.end(), s.begin(), s.end());
  return imp.reshape(x, shape);
}

struct Binary {
  Value a, c;
  const Tensor *ta, *tc, *out;
};

/// Both operands at the output's rank.
FailureOr<Binary> binaryOperands(Importer &imp, const Operator &op, bool sameType = true) {
  FailureOr<Value> a = imp.value(op.inputs[0]);
  if (failed(a))
    return mlir::failure();
  FailureOr<Value> c = imp.value(op.inputs[1]);
  if (failed(c))
    return mlir::failure();
  const Tensor &out = imp.tensor(op.outputs[0]);
  int64_t rank = std::max({Importer::rankOf(*a), Importer::rankOf(*c),
                           static_cast<int64_t>(out.shape.size())});
  Value ra = ranked(imp, *a, rank);
  Value rc = ranked(imp, *c, rank);
  llvm::SmallVector<int64_t> sa = Importer::shapeOf(ra), sc = Importer::shapeOf(rc);
  for (int64_t i = 0; i < rank; ++i) {
    if (sa[i] != 1 && sc[i] != 1 && sa[i] != sc[i])
      return imp.fail("shapes " + listRepr(imp.tensor(op.inputs[0]).shape) + " and " +
                      listRepr(imp.tensor(op.inputs[1]).shape) + " do not broadcast");
  }
  Type ea = Importer::elemOf(ra), ec = Importer::elemOf(rc);
  if (sameType && ea != ec)
    return imp.fail("operands of different types (" + elemName(ea) + ", " + elemName(ec) + ")");
  return Binary{ra, rc, &imp.tensor(op.inputs[0]), &imp.tensor(op.inputs[1]), &out};
}

/// The result reshaped to the output tensor's shape (a rank-0 output of rank-0
/// operands was computed at rank 1).
FailureOr<OpResults> result(Importer &imp, FailureOr<Value> y, const Tensor &out) {
  if (failed(y))
    return mlir::failure();
  llvm::SmallVector<int64_t> shape = Importer::shapeOf(*y);
  if (llvm::ArrayRef<int64_t>(shape) != llvm::ArrayRef<int64_t>(out.shape)) {
    if (product(shape) != product(out.shape))
      return imp.fail("result shape " + listRepr(shape) + " differs from the output's " +
                      listRepr(out.shape));
    return OpResults{imp.reshape(*y, out.shape)};
  }
  return OpResults{*y};
}

/// x - zp exactly, as i32.
Value toI32(Importer &imp, Value x, int64_t zp = 0) {
  if (Importer::elemOf(x) != imp.i32)
    x = imp.ew("cast", {x}, imp.i32);
  if (zp) {
    Value z = scalarInt(imp, zp, Importer::rankOf(x), imp.i32);
    x = imp.ew("sub", {x, z}, imp.i32);
  }
  return x;
}

/// Saturating i32 -> elem (TFLM's final clamp to the type's range).
Value narrow(Importer &imp, Value x, Type elem) {
  if (elem == imp.i32)
    return x;
  Range r = rangeOf(imp, elem);
  Value c = imp.iclamp(x, r.lo, r.hi);
  return imp.ew("cast", {c}, elem);
}

/// Per-tensor (scale, zero point); int16 must be symmetric (zero point 0).
FailureOr<std::pair<double, int64_t>> qparamsOf(Importer &imp, const Tensor &t, Type elem) {
  auto sz = imp.perTensor(t);
  if (failed(sz))
    return mlir::failure();
  if (elem == imp.i16 && sz->second != 0)
    return imp.fail("int16 tensor " + std::to_string(t.index) + " '" + t.name +
                    "' has zero point " + std::to_string(sz->second) +
                    "; int16 quantization must be symmetric (zero point 0)");
  return *sz;
}

/// The fused activation where TFLM applies it.
FailureOr<Value> act(Importer &imp, FailureOr<Value> xr, int a, const Tensor &out) {
  if (failed(xr))
    return mlir::failure();
  Value x = *xr;
  if (a == kActNone)
    return x;
  if (a != kActRelu && a != kActRelu6 && a != kActReluN1To1)
    return imp.fail("fused activation " + activationName(a) + " is not supported");
  Type elem = Importer::elemOf(x);
  if (elem == imp.f32)
    return imp.activation(x, a, out);
  if (elem == imp.i32) {
    int64_t lo = 0, hi = kInt32Max;
    if (a == kActRelu6)
      hi = 6;
    else if (a == kActReluN1To1)
      lo = -1, hi = 1;
    return imp.iclamp(x, lo, hi);
  }
  auto sz = imp.perTensor(out);
  if (failed(sz))
    return mlir::failure();
  Range q = rangeOf(imp, elem);
  auto range = quant::activationRange(a, sz->first, sz->second, q.lo, q.hi);
  if (!range)
    return imp.fail(llvm::toString(range.takeError()));
  if (range->first == q.lo && range->second == q.hi)
    return x;
  return imp.ew("clamp", {x}, elem, imp.clampAttrs(range->first, range->second, elem));
}

/// MultiplyByQuantizedMultiplier((x - inZp) << preShift, scale) + outZp,
/// saturated to outElem. TOSA allows zero points on i8 only, so others are
/// subtracted/added in i32.
FailureOr<Value> requant(Importer &imp, Value x, double scale, int64_t inZp, int64_t outZp,
                         Type outElem, int preShift = 0) {
  if (inZp && Importer::elemOf(x) != imp.i8) {
    x = toI32(imp, x, inZp);
    inZp = 0;
  }
  if (outZp && outElem != imp.i8) {
    FailureOr<Value> y = imp.tfliteRequantize(x, {scale}, inZp, 0, imp.i32, preShift);
    if (failed(y))
      return mlir::failure();
    Value z = scalarInt(imp, outZp, Importer::rankOf(*y), imp.i32);
    Value s = imp.ew("add", {*y, z}, imp.i32);
    return narrow(imp, s, outElem);
  }
  return imp.tfliteRequantize(x, {scale}, inZp, outZp, outElem, preShift);
}

/// AddFunc's inputs: MBQM((q - zp) << leftShift, m) for both operands, i32.
FailureOr<std::pair<Value, Value>> scaledPair(Importer &imp, Value a, Value c, double ma,
                                              double mc, int64_t za, int64_t zc, int leftShift) {
  FailureOr<Value> a32 = requant(imp, a, ma, za, 0, imp.i32, leftShift);
  if (failed(a32))
    return mlir::failure();
  FailureOr<Value> c32 = requant(imp, c, mc, zc, 0, imp.i32, leftShift);
  if (failed(c32))
    return mlir::failure();
  return std::make_pair(*a32, *c32);
}

LogicalResult checkIntTypes(Importer &imp, llvm::StringRef name, Type elem,
                            llvm::ArrayRef<llvm::StringRef> allowed) {
  std::string e = elemName(elem);
  if (llvm::is_contained(allowed, e))
    return mlir::success();
  std::string list;
  for (size_t i = 0; i < allowed.size(); ++i)
    list += (i ? ", " : "") + allowed[i].str();
  return imp.fail(name + " with " + e + " operands is not supported by TFLite Micro (supported: " +
                  list + ")");
}

/// The three per-tensor parameters of a quantized binary operator.
struct BinaryParams {
  double sa, sc, so;
  int64_t za, zc, zo;
};
FailureOr<BinaryParams> binaryParams(Importer &imp, const Binary &o, Type elem) {
  auto a = qparamsOf(imp, *o.ta, elem);
  if (failed(a))
    return mlir::failure();
  auto c = qparamsOf(imp, *o.tc, Importer::elemOf(o.c));
  if (failed(c))
    return mlir::failure();
  auto out = qparamsOf(imp, *o.out, elem);
  if (failed(out))
    return mlir::failure();
  return BinaryParams{a->first, c->first, out->first, a->second, c->second, out->second};
}

/// The per-tensor parameters of a quantized binary operator whose operand
/// type must be one of `allowed` (TFLM's kernels reject the others).
FailureOr<BinaryParams> checkedBinaryParams(Importer &imp, llvm::StringRef name,
                                            const Binary &o, Type elem,
                                            llvm::ArrayRef<llvm::StringRef> allowed) {
  if (failed(checkIntTypes(imp, name, elem, allowed)))
    return mlir::failure();
  return binaryParams(imp, o, elem);
}

double f32d(double v) { return static_cast<double>(static_cast<float>(v)); }

/// AddFunc's twice_max as ADD and SQUARED_DIFFERENCE derive it:
/// 2 * double(max(float(sa), float(sb))).
double twiceMaxOf(const BinaryParams &p) {
  return 2.0 * static_cast<double>(std::max(static_cast<float>(p.sa), static_cast<float>(p.sc)));
}

/// AddFunc's scaled inputs (scaledPair) combined by the i32 element-wise op
/// `combine` ("add" or "sub").
FailureOr<Value> combineScaled(Importer &imp, const Binary &o, const BinaryParams &p,
                               llvm::StringRef combine, double ma, double mc, int leftShift) {
  auto pair = scaledPair(imp, o.a, o.c, ma, mc, p.za, p.zc, leftShift);
  if (failed(pair))
    return mlir::failure();
  return imp.ew(combine, {pair->first, pair->second}, imp.i32);
}

/// A binary operator's result: `compute` gets both operands at the output's
/// rank and their element type; its value is reshaped to the output.
FailureOr<OpResults>
importBinary(Importer &imp, const Operator &op,
             llvm::function_ref<FailureOr<Value>(const Binary &, Type)> compute) {
  auto o = binaryOperands(imp, op);
  if (failed(o))
    return mlir::failure();
  return result(imp, compute(*o, Importer::elemOf(o->a)), *o->out);
}

/// A binary operator with a fused activation (SUB, MUL): `direct` computes
/// float32 and int32, `quantized` int8 and int16 from the per-tensor
/// parameters; either clamped to the activation range.
FailureOr<OpResults> activatedBinary(
    Importer &imp, const Operator &op, llvm::StringRef name,
    llvm::function_ref<Value(const Binary &, Type)> direct,
    llvm::function_ref<FailureOr<Value>(const Binary &, const BinaryParams &, Type)> quantized) {
  int a = op.options().i8(0);
  return importBinary(imp, op, [&](const Binary &o, Type elem) -> FailureOr<Value> {
    if (elem == imp.f32 || elem == imp.i32)
      return act(imp, direct(o, elem), a, *o.out);
    auto p = checkedBinaryParams(imp, name, o, elem, {"i8", "i16"});
    if (failed(p))
      return mlir::failure();
    return act(imp, quantized(o, *p, elem), a, *o.out);
  });
}

//===----------------------------------------------------------------------===//
// ADD / SUB
//===----------------------------------------------------------------------===//

/// ADD. int8/int16 as TFLM's CalculateOpDataAdd (add_common.cc): left shift
/// 20 (int16: 15), twice_max = 2 * double(max(sa, sb)), input multipliers
/// double(s) / twice_max, output twice_max / (2^shift * double(so)), then
/// AddElementwise (reference/add.h). int32 wraps and ignores the fused
/// activation. Same-shape ADD under --rounding single/armnn keeps the core
/// import.
FailureOr<OpResults> importAddBroadcast(Importer &imp, const Operator &op, const Handler &core) {
  const Tensor &a0 = imp.tensor(op.inputs[0]), &c0 = imp.tensor(op.inputs[1]);
  if (a0.shape == c0.shape && !imp.tfliteExact) {
    if (!core)
      return imp.fail("ADD is not supported");
    return core(imp, op);
  }
  int a = op.options().i8(0);
  return importBinary(imp, op, [&](const Binary &o, Type elem) -> FailureOr<Value> {
    if (elem == imp.f32)
      return act(imp, imp.ew("add", {o.a, o.c}, imp.f32), a, *o.out);
    if (!imp.tfliteExact)
      return imp.fail("broadcasting integer ADD is imported with TFLite's arithmetic only "
                      "(--rounding=double)");
    if (failed(checkIntTypes(imp, "ADD", elem, {"i8", "i16", "i32"})))
      return mlir::failure();
    if (elem == imp.i32)
      return imp.ew("add", {o.a, o.c}, imp.i32);
    auto p = binaryParams(imp, o, elem);
    if (failed(p))
      return mlir::failure();
    FailureOr<Value> y;
    if (elem == imp.i8) {
      y = imp.tfliteAdd(o.a, o.c, p->sa, p->za, p->sc, p->zc, p->so, p->zo);
    } else {
      double twiceMax = twiceMaxOf(*p);
      FailureOr<Value> s = combineScaled(imp, o, *p, "add", f32d(p->sa) / twiceMax,
                                         f32d(p->sc) / twiceMax, 15);
      if (failed(s))
        return mlir::failure();
      y = requant(imp, *s, twiceMax / (static_cast<double>(1 << 15) * f32d(p->so)), 0, p->zo,
                  imp.i16);
    }
    return act(imp, y, a, *o.out);
  });
}

/// SUB. int8/int16 as TFLM's CalculateOpDataSub (sub_common.cc): like ADD, but
/// twice_max and the three real multipliers are float32 expressions cast to
/// double; then SubElementwise (reference/sub.h). int32 and float32 subtract
/// and clamp to CalculateActivationRange.
FailureOr<OpResults> importSub(Importer &imp, const Operator &op) {
  return activatedBinary(
      imp, op, "SUB", [&](const Binary &o, Type elem) { return imp.ew("sub", {o.a, o.c}, elem); },
      [&](const Binary &o, const BinaryParams &p, Type elem) -> FailureOr<Value> {
        int leftShift = elem == imp.i8 ? 20 : 15;
        float twiceMax = 2.0f * std::max(static_cast<float>(p.sa), static_cast<float>(p.sc));
        double ma = static_cast<float>(p.sa) / twiceMax;
        double mc = static_cast<float>(p.sc) / twiceMax;
        double mo = twiceMax / (static_cast<float>(1 << leftShift) * static_cast<float>(p.so));
        FailureOr<Value> s = combineScaled(imp, o, p, "sub", ma, mc, leftShift);
        if (failed(s))
          return mlir::failure();
        return requant(imp, *s, mo, 0, p.zo, elem);
      });
}

//===----------------------------------------------------------------------===//
// MUL
//===----------------------------------------------------------------------===//

/// MUL. int8/int16 as TFLM's CalculateOpDataMul (mul_common.cc): real
/// multiplier double(sa) * double(sb) / double(so), MulElementwise:
/// MBQM((a - za) * (b - zb)) + zo clamped to the activation range. int32:
/// wrapping product, CalculateActivationRange clamp; float32: product.
FailureOr<OpResults> importMul(Importer &imp, const Operator &op) {
  return activatedBinary(
      imp, op, "MUL", [&](const Binary &o, Type elem) { return imp.tosaMul(o.a, o.c, elem); },
      [&](const Binary &o, const BinaryParams &p, Type elem) {
        Value a32 = toI32(imp, o.a, p.za);
        Value c32 = toI32(imp, o.c, p.zc);
        Value prod = imp.tosaMul(a32, c32, imp.i32);
        return requant(imp, prod, f32d(p.sa) * f32d(p.sc) / f32d(p.so), 0, p.zo, elem);
      });
}

//===----------------------------------------------------------------------===//
// MINIMUM / MAXIMUM
//===----------------------------------------------------------------------===//

/// MAXIMUM / MINIMUM: TFLM (maximum_minimum.cc) compares the stored values,
/// without requantization, whatever the quantization parameters.
FailureOr<OpResults> minMax(Importer &imp, const Operator &op, llvm::StringRef name) {
  return importBinary(imp, op, [&](const Binary &o, Type elem) -> FailureOr<Value> {
    if (elem == imp.f32)
      return imp.ew(name, {o.a, o.c}, imp.f32);
    if (failed(checkIntTypes(imp, op.name(), elem, {"i8", "i16", "i32"})))
      return mlir::failure();
    Value a32 = toI32(imp, o.a);
    Value c32 = toI32(imp, o.c);
    Value y = imp.ew(name, {a32, c32}, imp.i32);
    return elem != imp.i32 ? imp.ew("cast", {y}, elem) : y;
  });
}

FailureOr<OpResults> importMaximum(Importer &imp, const Operator &op) {
  return minMax(imp, op, "maximum");
}

FailureOr<OpResults> importMinimum(Importer &imp, const Operator &op) {
  return minMax(imp, op, "minimum");
}

//===----------------------------------------------------------------------===//
// SQUARED_DIFFERENCE
//===----------------------------------------------------------------------===//

/// SQUARED_DIFFERENCE as TFLM's squared_difference.cc: int8 left shift 7
/// (int16: 0, zero points 0), twice_max = 2 * double(max(sa, sb)), inputs
/// MBQM((q - zp) << shift, double(s) / twice_max), the i32 difference squared,
/// MBQM(d * d, twice_max^2 / double(float(2^(2 shift) * so))) + zo, saturated;
/// no fused activation. int32/float32: (a - b)^2.
FailureOr<OpResults> importSquaredDifference(Importer &imp, const Operator &op) {
  return importBinary(imp, op, [&](const Binary &o, Type elem) -> FailureOr<Value> {
    if (elem == imp.f32 || elem == imp.i32) {
      Value d = imp.ew("sub", {o.a, o.c}, elem);
      return imp.tosaMul(d, d, elem);
    }
    auto p = checkedBinaryParams(imp, "SQUARED_DIFFERENCE", o, elem, {"i8", "i16"});
    if (failed(p))
      return mlir::failure();
    int leftShift = elem == imp.i8 ? 7 : 0;
    double twiceMax = twiceMaxOf(*p);
    FailureOr<Value> d = combineScaled(imp, o, *p, "sub", f32d(p->sa) / twiceMax,
                                       f32d(p->sc) / twiceMax, leftShift);
    if (failed(d))
      return mlir::failure();
    Value sq = imp.tosaMul(*d, *d, imp.i32);
    double denom = static_cast<double>(static_cast<float>(int64_t(1) << (2 * leftShift)) *
                                       static_cast<float>(p->so));
    return requant(imp, sq, twiceMax * twiceMax / denom, 0, p->zo, elem);
  });
}

//===----------------------------------------------------------------------===//
// DIV
//===----------------------------------------------------------------------===//

/// table[q + 128] for int8 q (tosa.gather on a [1, 256, 1] i32 table).
Value gatherTable(Importer &imp, const std::vector<int64_t> &table, Value q) {
  int64_t rank = Importer::rankOf(q);
  Value qi = toI32(imp, q);
  Value off = scalarInt(imp, 128, rank, imp.i32);
  Value idx = imp.ew("add", {qi, off}, imp.i32);
  llvm::SmallVector<int64_t> shape = Importer::shapeOf(q);
  int64_t total = product(shape);
  Value idx2 = imp.reshape(idx, {1, total});
  std::vector<int64_t> values(table.size());
  for (size_t i = 0; i < table.size(); ++i)
    values[i] = static_cast<int32_t>(table[i]); // astype(np.int32)
  Value tv = constInt(imp, values, {1, 256, 1}, imp.i32);
  Value g = imp.op("gather", {tv, idx2}, {1, total, 1}, imp.i32);
  return imp.reshape(g, shape);
}

/// gemmlowp RoundingDivideByPOT(v, e) (half away from zero) for a per-element
/// exponent e in [1, 31] (larger e are clamped to 31): tosa.arithmetic_right_shift
/// with round = true is floor((v + 2^(e-1)) / 2^e) (half up), so negative v
/// are shifted as v - 1.
Value roundingDivideByPot(Importer &imp, Value v, Value e) {
  int64_t rank = Importer::rankOf(v);
  Value zero = scalarInt(imp, 0, rank, imp.i32);
  Value vneg = imp.ew("greater", {zero, v}, imp.i1);
  Value one = scalarInt(imp, 1, rank, imp.i32);
  Value vm1 = imp.ew("sub", {v, one}, imp.i32);
  Value adj = imp.ew("select", {vneg, vm1, v}, imp.i32);
  e = imp.iclamp(e, 1, 31);
  return imp.ew("arithmetic_right_shift", {adj, e}, imp.i32, {imp.boolAttr("round", true)});
}

/// TFLM's int8 DivElementwise (reference/div.h), output multiplier from
/// double(float(sa / (sb * so))) (div.cc computes it in float32): with
/// x = a - za and y = b - zb (both negated when y < 0), inv, rs =
/// GetReciprocal(y, 31), h = CountLeadingSignBits(x), u = SRDHM(x << h, inv),
/// result RoundingDivideByPOT(SRDHM(u, m), rs + h - shift) + zo.
FailureOr<Value> tfliteDivInt8(Importer &imp, const Operator &op, Value a, Value c, double sa,
                               int64_t za, double sc, int64_t zc, double so, int64_t zo) {
  int64_t rank = Importer::rankOf(a);
  double real = static_cast<double>(static_cast<float>(
      static_cast<float>(sa) / (static_cast<float>(sc) * static_cast<float>(so))));
  auto ms = quant::tfliteQuantizeMultiplier(real);
  if (!ms) {
    // An uncaught ValueError in Python: the run loop's "cannot import this"
    // diagnostic, with Python's float repr (Quant.cpp's message differs).
    llvm::consumeError(ms.takeError());
    std::string msg = real < 0 || !std::isfinite(real)
                          ? "cannot requantize with scale " + pyRepr(real)
                          : "requantization scale " + pyRepr(real) + " is too large";
    return imp.fail("cannot import this " + op.name() + " (inputs " + shapesRepr(imp, op) +
                    "): ValueError: " + msg);
  }
  auto [m, shift] = *ms;
  if (shift > 21)
    return imp.fail("int8 DIV with real multiplier " + pyRepr(real) +
                    " is outside TFLite's RoundingDivideByPOT range");
  std::vector<int64_t> inv(256, 0), rsh(256, 0);
  for (int64_t i = 0; i < 256; ++i) {
    int64_t y = std::abs(i - 128 - zc);
    if (y) {
      auto [r, s] = getReciprocal(y, 31);
      inv[i] = r;
      rsh[i] = s;
    }
  }
  Value x = toI32(imp, a, za);
  Value y = toI32(imp, c, zc);
  Value zero = scalarInt(imp, 0, rank, imp.i32);
  Value neg = imp.ew("greater", {zero, y}, imp.i1);
  Value negx = imp.ew("sub", {zero, x}, imp.i32);
  x = imp.ew("select", {neg, negx, x}, imp.i32);
  Value invV = gatherTable(imp, inv, c);
  Value rshV = gatherTable(imp, rsh, c);
  // CountLeadingSignBits(x) = clz(x >= 0 ? x : ~x) - 1 (31 for x = 0).
  Value xneg = imp.ew("greater", {zero, x}, imp.i1);
  Value m1 = scalarInt(imp, -1, rank, imp.i32);
  Value notx = imp.ew("sub", {m1, x}, imp.i32);
  Value pos = imp.ew("select", {xneg, notx, x}, imp.i32);
  Value clz = imp.ew("clz", {pos}, imp.i32);
  Value one = scalarInt(imp, 1, rank, imp.i32);
  Value h = imp.ew("sub", {clz, one}, imp.i32);
  Value xs = imp.ew("logical_left_shift", {x, h}, imp.i32);
  Value u = imp.imul31(xs, invV);
  Value mv = scalarInt(imp, m, rank, imp.i32);
  Value v = imp.imul31(u, mv);
  Value rh = imp.ew("add", {rshV, h}, imp.i32);
  Value sv = scalarInt(imp, shift, rank, imp.i32);
  Value e = imp.ew("sub", {rh, sv}, imp.i32);
  Value r = roundingDivideByPot(imp, v, e);
  Value c31 = scalarInt(imp, 31, rank, imp.i32);
  Value big = imp.ew("greater", {e, c31}, imp.i1);
  r = imp.ew("select", {big, zero, r}, imp.i32);
  Value zov = scalarInt(imp, zo, rank, imp.i32);
  r = imp.ew("add", {r, zov}, imp.i32);
  return narrow(imp, r, imp.i8);
}

/// DIV. float32: a * reciprocal(b); int32: C++ division truncating toward
/// zero (tosa.intdiv); both clamped to CalculateActivationRange. int8: TFLM's
/// DivElementwise (reference/div.h), see tfliteDivInt8.
FailureOr<OpResults> importDiv(Importer &imp, const Operator &op) {
  int a = op.options().i8(0);
  return importBinary(imp, op, [&](const Binary &o, Type elem) -> FailureOr<Value> {
    if (elem == imp.f32) {
      Value r = imp.ew("reciprocal", {o.c}, imp.f32);
      return act(imp, imp.tosaMul(o.a, r, imp.f32), a, *o.out);
    }
    if (failed(checkIntTypes(imp, "DIV", elem, {"i8", "i32"})))
      return mlir::failure();
    if (elem == imp.i32)
      return act(imp, imp.ew("intdiv", {o.a, o.c}, imp.i32), a, *o.out);
    // int8 operands: binaryParams reads them as imp.perTensor does.
    auto p = binaryParams(imp, o, elem);
    if (failed(p))
      return mlir::failure();
    return act(imp, tfliteDivInt8(imp, op, o.a, o.c, p->sa, p->za, p->sc, p->zc, p->so, p->zo), a,
               *o.out);
  });
}

//===----------------------------------------------------------------------===//
// PRELU
//===----------------------------------------------------------------------===//

/// PRELU. float32: x >= 0 ? x : x * alpha. int8 (and int16 input with int8
/// alpha) as TFLM's CalculatePreluParams (prelu_common.cc): multipliers
/// double(si) / double(so) and double(si) * double(sa) / double(so);
/// BroadcastPrelu4DSlow: x - zx >= 0 ? MBQM(x - zx, m1) :
/// MBQM((x - zx) * (alpha - za), m2), + zo, saturated.
FailureOr<OpResults> importPrelu(Importer &imp, const Operator &op) {
  auto o = binaryOperands(imp, op, /*sameType=*/false);
  if (failed(o))
    return mlir::failure();
  Value x = o->a, al = o->c;
  Type xe = Importer::elemOf(x), ae = Importer::elemOf(al);
  const Tensor &out = *o->out;
  int64_t rank = Importer::rankOf(x);
  if (xe == imp.f32) {
    Value zero = scalarF32(imp, 0.0, rank);
    Value ge = imp.ew("greater_equal", {x, zero}, imp.i1);
    Value prod = imp.tosaMul(x, al, imp.f32);
    return result(imp, imp.ew("select", {ge, x, prod}, imp.f32), out);
  }
  if ((xe != imp.i8 && xe != imp.i16) || ae != imp.i8)
    return imp.fail("PRELU with " + elemName(xe) + " input and " + elemName(ae) +
                    " alpha is not supported by TFLite Micro (int8 or int16 input, int8 alpha)");
  // The int8 alpha: binaryParams reads its parameters as imp.perTensor does.
  auto p = binaryParams(imp, *o, xe);
  if (failed(p))
    return mlir::failure();
  auto [si, sa, so, zi, za, zo] = *p;
  Value x32 = toI32(imp, x, zi);
  FailureOr<Value> pos = requant(imp, x32, f32d(si) / f32d(so), 0, zo, xe);
  if (failed(pos))
    return mlir::failure();
  Value a32 = toI32(imp, al, za);
  Value prod = imp.tosaMul(x32, a32, imp.i32);
  FailureOr<Value> neg = requant(imp, prod, f32d(si) * f32d(sa) / f32d(so), 0, zo, xe);
  if (failed(neg))
    return mlir::failure();
  Value zero = scalarInt(imp, 0, rank, imp.i32);
  Value ge = imp.ew("greater_equal", {x32, zero}, imp.i1);
  return result(imp, imp.ew("select", {ge, *pos, *neg}, xe), out);
}

//===----------------------------------------------------------------------===//
// QUANTIZE / DEQUANTIZE
//===----------------------------------------------------------------------===//

/// The input of a one-input conversion (QUANTIZE, CAST) and its output's
/// element type.
FailureOr<std::pair<Value, Type>> conversionOperands(Importer &imp, const Operator &op) {
  FailureOr<Value> x = imp.value(op.inputs[0]);
  if (failed(x))
    return mlir::failure();
  FailureOr<Type> oe = imp.elemOfTensor(imp.tensor(op.outputs[0]));
  if (failed(oe))
    return mlir::failure();
  return std::make_pair(*x, *oe);
}

/// int8 bits with the sign bit flipped: a uint8 value u read as int8, or back
/// (u - 128 <-> u).
Value flipSignBit(Importer &imp, Value x) {
  Value m = scalarInt(imp, -128, Importer::rankOf(x), imp.i8);
  return imp.ew("bitwise_xor", {x, m}, imp.i8);
}

/// QUANTIZE as TFLM's quantize_common.cc. float32 -> int8/int16:
/// AffineQuantize, round(v / float(scale)) + zp (a float32 division,
/// std::round: half away from zero), clamped. Integer -> integer: Requantize,
/// MBQM(q - zi, double(si) / double(so)) + zo, clamped, for the type pairs
/// TFLM accepts.
FailureOr<OpResults> importQuantize(Importer &imp, const Operator &op) {
  auto io = conversionOperands(imp, op);
  if (failed(io))
    return mlir::failure();
  auto [x, oelem] = *io;
  const Tensor &tx = imp.tensor(op.inputs[0]), &out = imp.tensor(op.outputs[0]);
  if (imp.floatMode)
    return OpResults{x};
  Type xe = Importer::elemOf(x);
  if (xe == imp.f32) {
    if (oelem != imp.i8 && oelem != imp.i16)
      return imp.fail("QUANTIZE float32 -> " + elemName(oelem) +
                      " is not supported by TFLite Micro");
    auto po = qparamsOf(imp, out, oelem);
    if (failed(po))
      return mlir::failure();
    auto [so, zo] = *po;
    int64_t rank = Importer::rankOf(x);
    Value y = imp.roundHalfAway(imp.divExact(x, f32d(so)));
    y = imp.fadd(y, imp.fconst(static_cast<double>(zo), rank));
    Range r = rangeOf(imp, oelem);
    y = imp.ew("clamp", {y}, imp.f32,
               imp.clampAttrs(static_cast<double>(r.lo), static_cast<double>(r.hi), imp.f32));
    return OpResults{imp.ew("cast", {y}, oelem)};
  }
  std::string pair = elemName(xe) + ">" + elemName(oelem);
  static const char *const pairs[] = {"i16>i8", "i8>i8",  "i8>i16", "i8>i32",
                                      "i16>i16", "i16>i32", "i32>i8", "i32>i16"};
  if (!llvm::is_contained(pairs, pair))
    return imp.fail("QUANTIZE " + elemName(xe) + " -> " + elemName(oelem) +
                    " is not supported by TFLite Micro");
  auto q = inOutQuant(imp, tx, out);
  if (failed(q))
    return mlir::failure();
  auto [si, zi] = q->first;
  auto [so, zo] = q->second;
  // uint8 <-> int8 (the model's edges): a uint8 u with zero point z is the
  // int8 u - 128 (its bits with the sign bit flipped) with zero point z - 128,
  // and Requantize's clamp to [0, 255] is the int8 one shifted.
  bool uin = tx.type == kUInt8, uout = out.type == kUInt8;
  if (uin && uout)
    return imp.fail("QUANTIZE uint8 -> uint8 is not supported by TFLite Micro");
  if (uin) {
    x = flipSignBit(imp, x);
    zi -= 128;
  }
  FailureOr<Value> y = requant(imp, x, f32d(si) / f32d(so), zi, uout ? zo - 128 : zo, oelem);
  if (failed(y))
    return mlir::failure();
  return OpResults{uout ? flipSignBit(imp, *y) : *y};
}

/// DEQUANTIZE int8/int16 -> float32 as TFLM's reference Dequantize:
/// float(double(scale) * (q - zp)), which equals the f32 product
/// float(q - zp) * scale computed here.
FailureOr<OpResults> importDequantize(Importer &imp, const Operator &op) {
  FailureOr<Value> xr = imp.value(op.inputs[0]);
  if (failed(xr))
    return mlir::failure();
  Value x = *xr;
  const Tensor &tx = imp.tensor(op.inputs[0]), &out = imp.tensor(op.outputs[0]);
  if (imp.floatMode)
    return OpResults{x};
  Type xe = Importer::elemOf(x);
  FailureOr<Type> oe = imp.elemOfTensor(out);
  if (failed(oe))
    return mlir::failure();
  if ((xe != imp.i8 && xe != imp.i16) || *oe != imp.f32)
    return imp.fail("DEQUANTIZE " + elemName(xe) + " -> " + elemName(*oe) +
                    " is not supported by TFLite Micro (int8/int16 -> float32)");
  auto p = imp.perTensor(tx);
  if (failed(p))
    return mlir::failure();
  auto [s, z] = *p;
  int64_t rank = Importer::rankOf(x);
  Value q = imp.ew("cast", {x}, imp.f32);
  if (z)
    q = imp.fsub(q, imp.fconst(static_cast<double>(z), rank));
  return OpResults{imp.fmul(q, imp.fconst(f32d(s), rank))};
}

//===----------------------------------------------------------------------===//
// CAST
//===----------------------------------------------------------------------===//

/// CAST as TFLM's cast.cc: static_cast element by element. Between integer
/// types (and bool) tosa.cast sign-extends or wraps like C++; integer ->
/// float32 rounds to nearest like C++; float32 -> integer truncates toward
/// zero (floor / ceil by sign, then an exact tosa.cast).
FailureOr<OpResults> importCast(Importer &imp, const Operator &op) {
  auto io = conversionOperands(imp, op);
  if (failed(io))
    return mlir::failure();
  auto [x, oelem] = *io;
  Type xe = Importer::elemOf(x);
  if (xe == oelem)
    return OpResults{x};
  if (xe == imp.f32) {
    if (oelem != imp.i8 && oelem != imp.i16 && oelem != imp.i32)
      return imp.fail("CAST float32 -> " + elemName(oelem) + " is not supported");
    Value zero = scalarF32(imp, 0.0, Importer::rankOf(x));
    Value ge = imp.ew("greater_equal", {x, zero}, imp.i1);
    Value fl = imp.ew("floor", {x}, imp.f32);
    Value ce = imp.ew("ceil", {x}, imp.f32);
    x = imp.ew("select", {ge, fl, ce}, imp.f32);
  }
  return OpResults{imp.ew("cast", {x}, oelem)};
}

} // namespace

void mlir::serenity::tflite::addElementwiseHandlers(HandlerTable &table) {
  // ADD replaces the core's handler and falls back to it for same-shape
  // operands under --rounding=single/armnn.
  Handler core;
  if (auto it = table.find("ADD"); it != table.end())
    core = it->second;
  table["ADD"] = [core](Importer &imp, const Operator &op) {
    return importAddBroadcast(imp, op, core);
  };
  table["CAST"] = importCast;
  table["SUB"] = importSub;
  table["MUL"] = importMul;
  table["DIV"] = importDiv;
  table["MINIMUM"] = importMinimum;
  table["MAXIMUM"] = importMaximum;
  table["SQUARED_DIFFERENCE"] = importSquaredDifference;
  table["PRELU"] = importPrelu;
  table["QUANTIZE"] = importQuantize;
  table["DEQUANTIZE"] = importDequantize;
}
