//===- ReduceOps.cpp - Windows, reductions and matrix products ------------===//
//
// python/serenity/tflite/ops_reduce.py: MAX_POOL_2D, MEAN, SUM, REDUCE_MAX,
// ARG_MAX, RESIZE_BILINEAR, TRANSPOSE_CONV, BATCH_MATMUL.
//
// TFLite Micro's semantics (its reference kernels at tflite-micro @90b983c2b3f1),
// int8 bit for bit, float32 as its float kernels.
//
// * MAX_POOL_2D is tosa.max_pool2d (TFLite Micro skips the padding; TOSA pads
//   with the type's lowest value, which never wins), then the activation
//   clamp. TFLite Micro requires the same input and output quantization.
// * MEAN / SUM (int8, int16): reference_ops::QuantizedMeanOrSum. The integer
//   sum of the raw values minus zp_in * n (exact), then
//   MultiplyByQuantizedMultiplier with TFLite's QuantizeMultiplier of
//   double(s_in) / double(s_out) (one DOUBLE_ROUND rescale); MEAN folds 1/n
//   into the multiplier as TFLite does: shift = min(floor(log2 n), 32,
//   31 + shift_out), m' = (m << shift) / n (int64, truncated),
//   shift_out - shift.
// * REDUCE_MAX: tosa.reduce_max (int8 needs the same quantization in and out).
// * ARG_MAX: tosa.argmax (first maximum on ties, as TFLite); TFLite Micro only
//   produces INT32 indices.
// * Reductions over several axes are one reduction over one axis: the reduced
//   axes are made adjacent (a tosa.transpose only when they are not) and
//   merged by a reshape, so each output sums its inputs in TFLite's row-major
//   order.
// * TRANSPOSE_CONV: TFLite scatters input row y to output rows y*s - p + ky.
//   The importer emits the decomposition itself: output phase r of
//   q*s + r - p is a stride-1 correlation of the input with the flipped
//   sub-kernel w[r + j*s]; one tosa.conv2d computes every phase as channels
//   (r_h, r_w, c), a reshape/transpose interleaves the phases and a slice
//   takes the output window. int8 is CONV_2D's requantization; int16 (16x8)
//   accumulates in i48 and rescales as TFLite's int64
//   MultiplyByQuantizedMultiplier.
// * BATCH_MATMUL is tosa.matmul on [batch, rows, depth] x [batch, depth, cols]
//   (tosa.transpose for adj_x/adj_y, tosa.tile for broadcast batch
//   dimensions); int8 with both zero points in the matmul and TFLite's
//   multiplier float(s_lhs * s_rhs) / s_out; int16 sums in i48.
// * RESIZE_BILINEAR: tosa.resize BILINEAR; int8 with ResizeBilinearInteger's
//   10-bit scales and the division by 2^20 rounding half away from zero,
//   float32 with TFLite's exact ratio as the rational scale.
//
//===----------------------------------------------------------------------===//

#include "Format.h"
#include "Helpers.h"
#include "Importer.h"
#include "Quant.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <numeric>

using namespace mlir::serenity::tflite;

namespace {

//===----------------------------------------------------------------------===//
// Formatting as the Python messages do
//===----------------------------------------------------------------------===//

std::string errorText(llvm::Error err) { return llvm::toString(std::move(err)); }

int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0)))
    --q;
  return q;
}

int64_t ceilDiv(int64_t a, int64_t b) { return -floorDiv(-a, b); }

int64_t prod(llvm::ArrayRef<int64_t> dims) { return product(dims); }

using Shape = llvm::SmallVector<int64_t>;

/// mean_multiplier: QuantizedMeanOrSum's folding of 1/n into (multiplier,
/// shift) (TFLite shift: positive = left).
std::pair<int64_t, int64_t> meanMultiplier(int64_t multiplier, int64_t shift, int64_t n) {
  int64_t bitLength = 0;
  for (uint64_t v = static_cast<uint64_t>(n); v; v >>= 1)
    ++bitLength;
  int64_t s = std::min({bitLength - 1, int64_t(32), 31 + shift});
  __int128 shifted = __int128(multiplier) << s;
  // Python's // (floor) on non-negative values.
  __int128 q = shifted / n;
  if ((shifted % n != 0) && ((shifted < 0) != (n < 0)))
    --q;
  return {static_cast<int64_t>(q), shift - s};
}

//===----------------------------------------------------------------------===//
// The family's helpers (the _rd_* methods)
//===----------------------------------------------------------------------===//

Value rdTranspose(Importer &imp, Value x, llvm::ArrayRef<int64_t> perm) {
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i)
    identity &= perm[i] == static_cast<int64_t>(i);
  if (identity)
    return x;
  Shape xs = Importer::shapeOf(x), shape;
  llvm::SmallVector<int32_t> perms;
  for (int64_t p : perm) {
    shape.push_back(xs[p]);
    perms.push_back(static_cast<int32_t>(p));
  }
  return imp.op("transpose", {x}, shape, Importer::elemOf(x),
                {imp.attr("perms", imp.b.getDenseI32ArrayAttr(perms))});
}

Value rdClamp(Importer &imp, Value x, double lo, double hi) {
  Type elem = Importer::elemOf(x);
  return imp.op("clamp", {x}, Importer::shapeOf(x), elem, imp.clampAttrs(lo, hi, elem));
}

std::pair<int64_t, int64_t> rdQrange(Importer &imp, Type elem) {
  if (elem == imp.i16)
    return {-32768, 32767};
  return {-128, 127};
}

/// Fused activation of float, int8 or int16 results (TFLite's
/// CalculateActivationRange / CalculateActivationRangeQuantized).
FailureOr<Value> rdFused(Importer &imp, Value x, int act, const Tensor &out,
                         llvm::StringRef name) {
  if (act == 0)
    return x;
  if (!quant::hasActivationRange(act))
    return imp.fail(name + ": fused activation " + llvm::Twine(act) + " is not supported");
  Type elem = Importer::elemOf(x);
  if (elem == imp.f32) {
    double lo = act == 2 ? -1.0 : 0.0;
    double hi = act == 1 ? static_cast<double>(std::numeric_limits<float>::max())
                         : act == 2 ? 1.0 : 6.0;
    return rdClamp(imp, x, lo, hi);
  }
  auto st = imp.perTensor(out);
  if (failed(st))
    return mlir::failure();
  auto [qmin, qmax] = rdQrange(imp, elem);
  auto range = quant::activationRange(act, st->first, st->second, qmin, qmax);
  if (!range)
    return imp.fail(name + ": " + errorText(range.takeError()));
  return rdClamp(imp, x, range->first, range->second);
}

LogicalResult rdSameQuant(Importer &imp, const Operator &op, llvm::StringRef name,
                          bool exact = false) {
  auto q = inOutQuant(imp, imp.tensor(op.inputs[0]), imp.tensor(op.outputs[0]));
  if (failed(q))
    return mlir::failure();
  auto [si, zi] = q->first;
  auto [so, zo] = q->second;
  float fi = static_cast<float>(si), fo = static_cast<float>(so);
  bool same = exact ? fi == fo : static_cast<double>(std::fabs(fi - fo)) <= 1e-6;
  if (!same || zi != zo)
    return imp.fail(name + " needs the same input and output quantization (TFLite Micro "
                    "requires it), not scale " + pyRepr(si) + " zp " + llvm::Twine(zi) +
                    " -> scale " + pyRepr(so) + " zp " + llvm::Twine(zo));
  return mlir::success();
}

/// The constant axis tensor, resolved as TFLite's ResolveAxis (negative axes
/// wrap, duplicates count once), sorted.
FailureOr<std::vector<int64_t>> rdAxes(Importer &imp, const Operator &op, int64_t rank,
                                       llvm::StringRef name) {
  const Tensor &at = imp.tensor(op.inputs[1]);
  if (!at.hasData())
    return imp.fail(name + ": the axis tensor must be constant");
  if (at.type != kInt32)
    return imp.fail(name + ": the axis tensor must be INT32 (TFLite Micro's requirement)");
  std::vector<int64_t> axes;
  for (int64_t a : at.data<int64_t>().data) {
    if (!(-rank <= a && a < rank))
      return imp.fail(name + ": axis " + llvm::Twine(a) + " is out of range for rank " +
                      llvm::Twine(rank));
    if (a < 0)
      a += rank;
    if (std::find(axes.begin(), axes.end(), a) == axes.end())
      axes.push_back(a);
  }
  std::sort(axes.begin(), axes.end());
  return axes;
}

/// x as [A, R, B] with the reduced axes merged into R, in row-major order.
Value rdRows(Importer &imp, Value x, std::vector<int64_t> axes) {
  Shape shape = Importer::shapeOf(x);
  if (axes.empty())
    return imp.reshape(x, {prod(shape), 1, 1});
  bool contiguous = true;
  for (size_t i = 0; i < axes.size(); ++i)
    contiguous &= axes[i] == axes[0] + static_cast<int64_t>(i);
  if (!contiguous) {
    std::vector<int64_t> perm;
    for (int64_t i = 0, e = shape.size(); i < e; ++i)
      if (std::find(axes.begin(), axes.end(), i) == axes.end())
        perm.push_back(i);
    int64_t kept = perm.size();
    perm.insert(perm.end(), axes.begin(), axes.end());
    x = rdTranspose(imp, x, perm);
    shape = Importer::shapeOf(x);
    axes.clear();
    for (int64_t i = kept, e = shape.size(); i < e; ++i)
      axes.push_back(i);
  }
  int64_t a = 1, r = 1, bb = 1;
  for (int64_t i = 0; i < axes.front(); ++i)
    a *= shape[i];
  for (int64_t i : axes)
    r *= shape[i];
  for (int64_t i = axes.back() + 1, e = shape.size(); i < e; ++i)
    bb *= shape[i];
  return imp.reshape(x, {a, r, bb});
}

/// (x reduced over `axes` as [A, 1, B], number of elements reduced).
std::pair<Value, int64_t> rdReduce(Importer &imp, llvm::StringRef kind, Value x,
                                   const std::vector<int64_t> &axes) {
  Value x3 = rdRows(imp, x, axes);
  Shape s3 = Importer::shapeOf(x3);
  Value y = imp.op(kind, {x3}, {s3[0], 1, s3[2]}, Importer::elemOf(x3),
                   {imp.i32Attr("axis", 1)});
  return {y, s3[1]};
}

const Tensor *optionalBias(Importer &imp, const Operator &op) {
  if (op.inputs.size() > 3 && op.inputs[3] >= 0)
    return &imp.tensor(op.inputs[3]);
  return nullptr;
}

//===----------------------------------------------------------------------===//
// MAX_POOL_2D
//===----------------------------------------------------------------------===//

FailureOr<OpResults> importMaxPool(Importer &imp, const Operator &op) {
  OptionReader o = op.options();
  int padding = o.i8(0);
  int64_t sw = o.i32(1), sh = o.i32(2), fw = o.i32(3), fh = o.i32(4);
  int act = o.i8(5);
  return withInput(imp, op, [&](Value x, const Tensor &out) -> FailureOr<OpResults> {
    Shape xs = Importer::shapeOf(x);
    Type elem = Importer::elemOf(x);
    if (xs.size() != 4)
      return imp.fail("MAX_POOL_2D expects a 4-D NHWC input");
    if (elem != imp.f32 && elem != imp.i8 && elem != imp.i16)
      return imp.fail("MAX_POOL_2D on " + elemName(elem) +
                      " is not supported (TFLite Micro: float32, int8, int16)");
    if (elem != imp.f32 && failed(rdSameQuant(imp, op, "MAX_POOL_2D")))
      return mlir::failure();
    Pads pad = imp.pads(padding, xs, fh, fw, sh, sw, 1, 1, out.shape);
    if (pad[0] >= fh || pad[1] >= fh || pad[2] >= fw || pad[3] >= fw)
      return imp.fail("MAX_POOL_2D: a window lies entirely in the padding");
    Shape shape(out.shape.begin(), out.shape.end());
    Value src = fw == 1 && sw == 1 && pad[2] == 0 && pad[3] == 0 ? imp.rowView(x) : Value();
    if (src) {
      // The signal's own layout: the window along W (Conv1D models).
      x = src;
      fw = fh;
      fh = 1;
      sw = sh;
      sh = 1;
      pad = {0, 0, pad[0], pad[1]};
      shape = {shape[0], 1, shape[1], shape[3]};
    }
    auto [fx, fpad] = imp.fitStride(x, pad, {fh, fw}, {sh, sw});
    x = fx;
    Value y = imp.op("max_pool2d", {x}, shape, elem,
                     {imp.i64Array("kernel", {fh, fw}),
                      imp.i64Array("pad", {fpad[0], fpad[1], fpad[2], fpad[3]}),
                      imp.i64Array("stride", {sh, sw})});
    auto f = rdFused(imp, y, act, out, "MAX_POOL_2D");
    if (failed(f))
      return mlir::failure();
    return OpResults{imp.reshape(*f, out.shape)};
  });
}

//===----------------------------------------------------------------------===//
// MEAN and SUM
//===----------------------------------------------------------------------===//

FailureOr<OpResults> importMeanOrSum(Importer &imp, const Operator &op, bool isMean) {
  std::string name = isMean ? "MEAN" : "SUM";
  return withInput(imp, op, [&](Value x, const Tensor &out) -> FailureOr<OpResults> {
    Type elem = Importer::elemOf(x);
    auto axes = rdAxes(imp, op, Importer::rankOf(x), name);
    if (failed(axes))
      return mlir::failure();
    if (elem == imp.f32) {
      auto [s, n] = rdReduce(imp, "reduce_sum", x, *axes);
      if (isMean && n != 1) {
        // TFLite divides the float sum by n: fl(sum / n) exactly.
        s = imp.divExact(s, static_cast<double>(n));
      }
      return OpResults{imp.reshape(s, out.shape)};
    }
    if (elem != imp.i8 && elem != imp.i16)
      return imp.fail(name + " on " + elemName(elem) +
                      " is not supported (TFLite Micro: float32, int8, int16)");
    auto outElem = imp.elemOfTensor(out);
    if (failed(outElem))
      return mlir::failure();
    if (*outElem != elem)
      return imp.fail(name + ": the output type must be the input type");
    auto q = inOutQuant(imp, imp.tensor(op.inputs[0]), out);
    if (failed(q))
      return mlir::failure();
    auto [si, zi] = q->first;
    auto [so, zo] = q->second;
    // PrepareMeanOrSumHelper: QuantizeMultiplier(double(s_in) / double(s_out)).
    double real = static_cast<double>(static_cast<float>(si)) /
                  static_cast<double>(static_cast<float>(so));
    auto ms = quant::tfliteQuantizeMultiplier(real);
    if (!ms)
      return imp.fail(name + ": " + errorText(ms.takeError()));
    auto [m, shift] = *ms;
    Value x32 = imp.op("cast", {x}, Importer::shapeOf(x), imp.i32);
    auto [s, n] = rdReduce(imp, "reduce_sum", x32, *axes);
    if (zi) {
      Value c = imp.iconst({-zi * n}, {1, 1, 1});
      s = imp.ew("add", {s, c}, imp.i32);
    }
    if (isMean)
      std::tie(m, shift) = meanMultiplier(m, shift, n);
    if (!(-31 <= shift && shift <= 29))
      return imp.fail(name + ": the rescale shift " + llvm::Twine(shift) + " of scale " +
                      pyRepr(si) + "/" + pyRepr(so) +
                      " is outside what one tosa.rescale represents");
    Value y = imp.rescaleRaw(s, {m}, {31 - shift}, 0, zo, elem, "DOUBLE_ROUND");
    return OpResults{imp.reshape(y, out.shape)};
  });
}

FailureOr<OpResults> importMean(Importer &imp, const Operator &op) {
  return importMeanOrSum(imp, op, true);
}

FailureOr<OpResults> importSum(Importer &imp, const Operator &op) {
  return importMeanOrSum(imp, op, false);
}

//===----------------------------------------------------------------------===//
// REDUCE_MAX, ARG_MAX
//===----------------------------------------------------------------------===//

FailureOr<OpResults> importReduceMax(Importer &imp, const Operator &op) {
  return withInput(imp, op, [&](Value x, const Tensor &out) -> FailureOr<OpResults> {
    Type elem = Importer::elemOf(x);
    if (elem != imp.f32 && elem != imp.i8)
      return imp.fail("REDUCE_MAX on " + elemName(elem) +
                      " is not supported (TFLite Micro: float32, int8)");
    if (elem == imp.i8 && failed(rdSameQuant(imp, op, "REDUCE_MAX", /*exact=*/true)))
      return mlir::failure();
    auto axes = rdAxes(imp, op, Importer::rankOf(x), "REDUCE_MAX");
    if (failed(axes))
      return mlir::failure();
    Value y = rdReduce(imp, "reduce_max", x, *axes).first;
    return OpResults{imp.reshape(y, out.shape)};
  });
}

std::string typeNameOf(int type) {
  switch (type) {
  case 0:
    return "FLOAT32";
  case 2:
    return "INT32";
  case 4:
    return "INT64";
  case 9:
    return "INT8";
  case 7:
    return "INT16";
  default:
    return std::to_string(type);
  }
}

FailureOr<OpResults> importArgMax(Importer &imp, const Operator &op) {
  return withInput(imp, op, [&](Value x, const Tensor &out) -> FailureOr<OpResults> {
    Type elem = Importer::elemOf(x);
    if (out.type != kInt32)
      return imp.fail("ARG_MAX with " + typeNameOf(out.type) +
                      " output is not supported (TFLite Micro only produces INT32 indices)");
    if (elem != imp.f32 && elem != imp.i8)
      return imp.fail("ARG_MAX on " + elemName(elem) +
                      " is not supported (TFLite Micro: float32, int8)");
    int64_t rank = Importer::rankOf(x);
    if (failed(rdAxes(imp, op, rank, "ARG_MAX")))
      return mlir::failure();
    // TFLite reads the axis tensor's first element only.
    std::vector<int64_t> axisData = imp.tensor(op.inputs[1]).data<int64_t>().data;
    if (axisData.empty())
      return imp.fail("ARG_MAX: the axis tensor is empty");
    int64_t first = axisData[0];
    int64_t axis = ((first % rank) + rank) % rank;
    Shape xs = Importer::shapeOf(x), shape;
    for (int64_t i = 0; i < rank; ++i)
      if (i != axis)
        shape.push_back(xs[i]);
    Value y = imp.op("argmax", {x}, shape, imp.i32, {imp.i32Attr("axis", axis)});
    return OpResults{imp.reshape(y, out.shape)};
  });
}

//===----------------------------------------------------------------------===//
// TRANSPOSE_CONV
//===----------------------------------------------------------------------===//

/// The flipped sub-kernels of every stride phase, [(sh, sw, oc), jh, jw, ic].
template <typename T>
NdArray<T> phaseKernels(const NdArray<T> &w, int64_t sh, int64_t sw, int64_t jh, int64_t jw) {
  int64_t oc = w.shape[0], kh = w.shape[1], kw = w.shape[2], ic = w.shape[3];
  std::vector<T> sub(sh * sw * oc * jh * jw * ic, T(0));
  auto subAt = [&](int64_t rh, int64_t rw, int64_t o, int64_t a, int64_t c, int64_t i) {
    return ((((rh * sw + rw) * oc + o) * jh + a) * jw + c) * ic + i;
  };
  for (int64_t rh = 0; rh < sh; ++rh)
    for (int64_t a = 0; a < jh; ++a) {
      int64_t ky = rh + (jh - 1 - a) * sh;
      if (ky >= kh)
        continue;
      for (int64_t rw = 0; rw < sw; ++rw)
        for (int64_t c = 0; c < jw; ++c) {
          int64_t kx = rw + (jw - 1 - c) * sw;
          if (kx >= kw)
            continue;
          for (int64_t o = 0; o < oc; ++o)
            for (int64_t i = 0; i < ic; ++i)
              sub[subAt(rh, rw, o, a, c, i)] = w.data[((o * kh + ky) * kw + kx) * ic + i];
        }
    }
  return NdArray<T>({sh * sw * oc, jh, jw, ic}, std::move(sub));
}

template <typename T> NdArray<T> tile(const std::vector<T> &v, int64_t reps) {
  std::vector<T> out;
  for (int64_t r = 0; r < reps; ++r)
    out.insert(out.end(), v.begin(), v.end());
  return NdArray<T>::vector(std::move(out));
}

struct PhaseDim {
  int64_t p, j, q0, qn, top, bottom, keep, s, k, off;
};

/// The 16-bit multiplier and right shift by which TFLM's int16 kernels
/// (TRANSPOSE_CONV, BATCH_MATMUL) requantize: QuantizeMultiplier of `scale`
/// rounded to 16 bits, and 15 - shift; refused for `name` where the shift falls
/// outside TFLite's int64 requantization range.
FailureOr<std::pair<int64_t, int64_t>> int16Multiplier(Importer &imp, double scale,
                                                       const std::string &name) {
  auto ms = quant::tfliteQuantizeMultiplier(scale);
  if (!ms)
    return imp.fail(name + ": " + errorText(ms.takeError()));
  auto [m, shift] = *ms;
  if (!(-31 <= shift && shift < 8))
    return imp.fail(name + ": shift " + llvm::Twine(shift) +
                    " outside TFLite's int64 requantization range");
  int64_t m16 = m < 0x7FFF0000 ? (m + (int64_t(1) << 15)) >> 16 : 0x7FFF;
  return std::make_pair(m16, 15 - shift);
}

/// The i48 accumulator `acc` rescaled to int16 by `mult` and `shift` (zero
/// points 0, one SINGLE_ROUND rescale, per channel or per tensor); the zero
/// point constants cached when `cache`.
Value rescaleToInt16(Importer &imp, Value acc, Value mult, Value shift,
                     llvm::ArrayRef<int64_t> shape, bool perChannel, bool cache = false) {
  Value izp = imp.constant(NdArray<int64_t>::vector({0}), imp.i48, cache);
  Value ozp = imp.scalar1(0, imp.i16);
  return imp.op("rescale", {acc, mult, shift, izp, ozp}, shape, imp.i16,
                {imp.boolAttr("input_unsigned", false), imp.boolAttr("output_unsigned", false),
                 imp.boolAttr("per_channel", perChannel), imp.roundingModeAttr("SINGLE_ROUND"),
                 imp.boolAttr("scale32", false)});
}

/// TFLite Micro's int16 TRANSPOSE_CONV (16x8): int64 sums of input * filter
/// (no zero points), int64 (or int16) bias, the int64
/// MultiplyByQuantizedMultiplier per channel (16-bit multiplier, one
/// rounding), then the activation clamp. tosa.conv2d i16 x i8 accumulates in
/// i48, then one per-channel 16-bit SINGLE_ROUND rescale.
FailureOr<Value> transposeConvInt16(Importer &imp, Value x, const NdArray<int64_t> &sub,
                                    llvm::ArrayRef<int64_t> convShape,
                                    llvm::ArrayRef<NamedAttribute> attrs, const Operator &op,
                                    int64_t phases) {
  const Tensor &wt = imp.tensor(op.inputs[1]), &inT = imp.tensor(op.inputs[2]);
  const Tensor &out = imp.tensor(op.outputs[0]);
  const Tensor *biasT = optionalBias(imp, op);
  auto q = inOutQuant(imp, inT, out);
  if (failed(q))
    return mlir::failure();
  auto wq = imp.qparams(wt);
  if (failed(wq))
    return mlir::failure();
  auto [si, zi] = q->first;
  auto [so, zo] = q->second;
  const std::vector<double> &sW = wq->first;
  const std::vector<int64_t> &zW = wq->second;
  int64_t oc = out.shape[3];
  bool zwNonZero = std::any_of(zW.begin(), zW.end(), [](int64_t z) { return z != 0; });
  if (zi || zo || zwNonZero)
    return imp.fail("int16 TRANSPOSE_CONV needs zero points 0 (TFLite Micro's 16x8 kernel "
                    "ignores them)");
  int64_t nScales = sW.size();
  if (nScales != 1 && nScales != oc)
    return imp.fail("TRANSPOSE_CONV: " + llvm::Twine(nScales) + " weight scales for " +
                    llvm::Twine(oc) + " channels");
  if (biasT && ((biasT->type != kInt64 && biasT->type != kInt16) || !biasT->hasData()))
    return imp.fail("TRANSPOSE_CONV: the int16 bias must be a constant INT64 or INT16 tensor");
  std::vector<int64_t> bias = biasT ? biasT->data<int64_t>().data : std::vector<int64_t>(oc, 0);
  std::vector<int64_t> mults, shifts;
  for (int64_t c = 0; c < oc; ++c) {
    double sc = sW[nScales == 1 ? 0 : c];
    auto ms = int16Multiplier(imp,
                              static_cast<double>(static_cast<float>(si)) * sc /
                                  static_cast<double>(static_cast<float>(so)),
                              "TRANSPOSE_CONV");
    if (failed(ms))
      return mlir::failure();
    mults.push_back(ms->first);
    shifts.push_back(ms->second);
  }
  llvm::SmallVector<NamedAttribute> convAttrs(attrs.begin(), attrs.end());
  convAttrs.push_back(imp.typeAttr("acc_type", imp.i48));
  Value w = imp.constant(sub, imp.i8);
  Value b = imp.constant(tile(bias, phases), imp.i48);
  Value zp16 = imp.scalar1(0, imp.i16);
  Value zp8 = imp.scalar1(0, imp.i8);
  Value acc = imp.op("conv2d", {x, w, b, zp16, zp8}, convShape, imp.i48, convAttrs);
  Value mult = imp.constant(tile(mults, phases), imp.i16);
  Value shift = imp.constant(tile(shifts, phases), imp.i8);
  return rescaleToInt16(imp, acc, mult, shift, convShape, /*perChannel=*/true);
}

FailureOr<OpResults> importTransposeConv(Importer &imp, const Operator &op) {
  OptionReader o = op.options();
  int padding = o.i8(0);
  int64_t sw = o.i32(1, 1), sh = o.i32(2, 1);
  int act = o.i8(3);
  const Tensor &shapeT = imp.tensor(op.inputs[0]), &wt = imp.tensor(op.inputs[1]);
  const Tensor &inT = imp.tensor(op.inputs[2]), &out = imp.tensor(op.outputs[0]);
  const Tensor *biasT = optionalBias(imp, op);
  if (!shapeT.hasData())
    return imp.fail("TRANSPOSE_CONV: the output shape tensor must be constant");
  std::vector<int64_t> shapeData = shapeT.data<int64_t>().data;
  if (shapeData != out.shape)
    return imp.fail("TRANSPOSE_CONV: output shape tensor " + listRepr(shapeData) +
                    " differs from the output tensor's " + listRepr(out.shape));
  auto xv = imp.value(op.inputs[2]);
  if (failed(xv))
    return mlir::failure();
  Value x = *xv;
  auto wv = weights(imp, wt, op);
  if (failed(wv))
    return mlir::failure();
  const Weights &w = *wv;
  Shape xs = Importer::shapeOf(x);
  Type elem = Importer::elemOf(x);
  if (xs.size() != 4 || w.shape().size() != 4)
    return imp.fail("TRANSPOSE_CONV expects a 4-D input and filter");
  if (elem != imp.f32 && elem != imp.i8 && elem != imp.i16)
    return imp.fail("TRANSPOSE_CONV on " + elemName(elem) +
                    " is not supported (float32, int8 and int16 are)");
  int64_t oc = w.shape()[0], kh = w.shape()[1], kw = w.shape()[2], ic = w.shape()[3];
  int64_t n = xs[0], ih = xs[1], iw = xs[2];
  if (out.shape.size() != 4 || out.shape[3] != oc || xs[3] != ic || out.shape[0] != n)
    return imp.fail("TRANSPOSE_CONV shapes do not match: input " + listRepr(xs) + ", filter " +
                    listRepr(w.shape()) + ", output " + listRepr(out.shape));
  int64_t oh = out.shape[1], ow = out.shape[2];
  if (padding != 0 && padding != 1)
    return imp.fail("TRANSPOSE_CONV: unknown padding " + llvm::Twine(padding));
  if (sh <= 0 || sw <= 0)
    return imp.fail("TRANSPOSE_CONV: stride " + listRepr(llvm::ArrayRef<int64_t>({sh, sw})) + " is not positive");

  // ComputePaddingHeightWidth on the *output* size (transpose_conv.cc).
  auto tflmPad = [&](int64_t size, int64_t k, int64_t s) {
    int64_t o_ = padding == 0 ? floorDiv(size + s - 1, s) : floorDiv(size + s - k, s);
    return std::max<int64_t>((o_ - 1) * s + k - size, 0) / 2;
  };
  // Output phase r of dimension d: out[q*s + r - p] = sum_j in[q - j] * w[r + j*s], a
  // stride-1 correlation with the flipped sub-kernel of length J = ceil(k / s); one
  // conv2d computes all s_h * s_w phases as channels (rh, rw, c), then the phases are
  // interleaved and the p-offset window sliced out.
  std::array<PhaseDim, 2> dims;
  std::array<std::array<int64_t, 4>, 2> params = {{{oh, kh, sh, ih}, {ow, kw, sw, iw}}};
  for (int d = 0; d < 2; ++d) {
    auto [size, k, s, insize] = params[d];
    int64_t p = tflmPad(size, k, s);
    int64_t jn = ceilDiv(k, s);
    int64_t q0 = floorDiv(p, s);
    int64_t qn = ceilDiv(p + size, s) - q0;
    int64_t top = jn - 1 - q0;
    int64_t bottom = qn - insize + q0;
    int64_t keep = bottom >= 0 ? insize : insize + bottom;
    dims[d] = PhaseDim{p, jn, q0, qn, top, std::max<int64_t>(bottom, 0), keep, s, k,
                       p - q0 * s};
  }
  for (const PhaseDim &d : dims)
    if (d.top < 0 || d.keep <= 0)
      return imp.fail("TRANSPOSE_CONV: padding larger than the filter is not supported");
  const PhaseDim &dh = dims[0], &dw = dims[1];
  int64_t jh = dh.j, jw = dw.j;
  int64_t nc = sh * sw * oc;
  if (dh.keep != ih || dw.keep != iw) {
    Value start = imp.shapeConst({0, 0, 0, 0});
    Value size = imp.shapeConst({n, dh.keep, dw.keep, ic});
    x = imp.op("slice", {x, start, size}, {n, dh.keep, dw.keep, ic}, elem);
  }
  Shape convShape = {n, dh.qn, dw.qn, nc};
  llvm::SmallVector<NamedAttribute> attrs = {
      imp.i64Array("dilation", {1, 1}),
      imp.i64Array("pad", {dh.top, dh.bottom, dw.top, dw.bottom}),
      imp.i64Array("stride", {1, 1})};
  Value y;
  if (elem == imp.f32) {
    if (wt.type != kFloat32 && !imp.floatMode)
      return imp.hybridError(wt);
    NdArray<float> sub = w.isFloat ? phaseKernels(w.f, sh, sw, jh, jw)
                                   : phaseKernels(w.i, sh, sw, jh, jw).as<float>();
    std::vector<float> bias;
    if (biasT) {
      auto bq = imp.dequantized(*biasT);
      if (failed(bq))
        return mlir::failure();
      bias = bq->data;
    } else {
      bias.assign(oc, 0.0f);
    }
    Value zp = imp.scalar1(0.0, imp.f32);
    Value wc = imp.constant(sub, imp.f32);
    Value bc = imp.constant(tile(bias, sh * sw), imp.f32);
    llvm::SmallVector<NamedAttribute> convAttrs(attrs);
    convAttrs.push_back(imp.typeAttr("acc_type", imp.f32));
    y = imp.op("conv2d", {x, wc, bc, zp, zp}, convShape, imp.f32, convAttrs);
  } else {
    NdArray<int64_t> sub = w.isFloat ? phaseKernels(w.f, sh, sw, jh, jw).as<int64_t>()
                                     : phaseKernels(w.i, sh, sw, jh, jw);
    if (elem == imp.i16) {
      auto r = transposeConvInt16(imp, x, sub, convShape, attrs, op, sh * sw);
      if (failed(r))
        return mlir::failure();
      y = *r;
    } else {
      auto in = imp.perTensor(inT);
      if (failed(in))
        return mlir::failure();
      auto wq = imp.qparams(wt);
      if (failed(wq))
        return mlir::failure();
      auto oq = imp.perTensor(out);
      if (failed(oq))
        return mlir::failure();
      auto [si, zi] = *in;
      auto [so, zo] = *oq;
      const std::vector<double> &sW = wq->first;
      const std::vector<int64_t> &zW = wq->second;
      if (std::any_of(zW.begin(), zW.end(), [](int64_t z) { return z != 0; }))
        return imp.fail("TRANSPOSE_CONV: weight tensor " + llvm::Twine(wt.index) +
                        " has a non-zero zero point");
      int64_t nScales = sW.size();
      if (nScales != 1 && nScales != oc)
        return imp.fail("TRANSPOSE_CONV: " + llvm::Twine(nScales) + " weight scales for " +
                        llvm::Twine(oc) + " channels");
      if (biasT && (biasT->type != kInt32 || !biasT->hasData()))
        return imp.fail("TRANSPOSE_CONV: the int8 bias must be a constant INT32 tensor");
      std::vector<int64_t> bias =
          biasT ? biasT->data<int32_t>().as<int64_t>().data : std::vector<int64_t>(oc, 0);
      Value wc = imp.constant(sub, imp.i8);
      Value bc = imp.constant(tile(bias, sh * sw), imp.i32);
      Value izp = imp.scalar1(zi, imp.i8);
      Value wzp = imp.scalar1(0, imp.i8);
      llvm::SmallVector<NamedAttribute> convAttrs(attrs);
      convAttrs.push_back(imp.typeAttr("acc_type", imp.i32));
      Value acc = imp.op("conv2d", {x, wc, bc, izp, wzp}, convShape, imp.i32, convAttrs);
      // PopulateConvolutionQuantizationParams: double(s_in) * double(s_w[c]) / double(s_out).
      std::vector<double> scales;
      double fsi = static_cast<double>(static_cast<float>(si));
      double fso = static_cast<double>(static_cast<float>(so));
      for (int64_t r = 0; r < sh * sw; ++r)
        for (int64_t c = 0; c < oc; ++c)
          scales.push_back(fsi * sW[nScales == 1 ? 0 : c] / fso);
      auto r = imp.tfliteRequantize(acc, scales, 0, zo, imp.i8);
      if (failed(r))
        return mlir::failure();
      y = *r;
    }
  }
  auto f = rdFused(imp, y, act, out, "TRANSPOSE_CONV");
  if (failed(f))
    return mlir::failure();
  y = *f;
  if (sh * sw > 1) {
    y = imp.reshape(y, {n, dh.qn, dw.qn, sh, sw, oc});
    y = rdTranspose(imp, y, {0, 1, 3, 2, 4, 5});
    y = imp.reshape(y, {n, dh.qn * sh, dw.qn * sw, oc});
  }
  Shape ys = Importer::shapeOf(y);
  if (ys[1] != oh || ys[2] != ow) {
    Value start = imp.shapeConst({0, dh.off, dw.off, 0});
    Value size = imp.shapeConst({n, oh, ow, oc});
    y = imp.op("slice", {y, start, size}, {n, oh, ow, oc}, Importer::elemOf(y));
  }
  return OpResults{y};
}

//===----------------------------------------------------------------------===//
// BATCH_MATMUL
//===----------------------------------------------------------------------===//

/// TFLite Micro's int16 BATCH_MATMUL: zero points 0, an int64 sum, then the
/// int64 MultiplyByQuantizedMultiplier: multiplier reduced to 16 bits
/// m16 = min((m + 2^15) >> 16, 0x7FFF), then
/// (x * m16 + 2^(14 - shift)) >> (15 - shift) (one rounding), clamped to int16.
/// tosa.matmul i16 sums in i48 and a 16-bit SINGLE_ROUND rescale from i48
/// computes exactly that.
FailureOr<Value> matmulInt16(Importer &imp, const Operator &op, Value a3, Value c3,
                             llvm::ArrayRef<int64_t> shape3) {
  std::array<int, 3> idx = {op.inputs[0], op.inputs[1], op.outputs[0]};
  std::array<double, 3> scales;
  bool anyZp = false;
  for (int i = 0; i < 3; ++i) {
    auto q = imp.perTensor(imp.tensor(idx[i]));
    if (failed(q))
      return mlir::failure();
    scales[i] = q->first;
    anyZp |= q->second != 0;
  }
  if (anyZp)
    return imp.fail("int16 BATCH_MATMUL needs zero points 0 (TFLite Micro's requirement)");
  float prodScale = static_cast<float>(scales[0]) * static_cast<float>(scales[1]);
  double scale =
      static_cast<double>(prodScale) / static_cast<double>(static_cast<float>(scales[2]));
  auto ms = int16Multiplier(imp, scale, "BATCH_MATMUL");
  if (failed(ms))
    return mlir::failure();
  auto [m16, shift] = *ms;
  Value zp16 = imp.scalar1(0, imp.i16);
  Value acc = imp.op("matmul", {a3, c3, zp16, zp16}, shape3, imp.i48);
  Value mult = imp.constant(NdArray<int64_t>::vector({m16}), imp.i16, /*cache=*/true);
  Value sh = imp.constant(NdArray<int64_t>::vector({shift}), imp.i8, /*cache=*/true);
  return rescaleToInt16(imp, acc, mult, sh, shape3, /*perChannel=*/false, /*cache=*/true);
}

FailureOr<OpResults> importBatchMatmul(Importer &imp, const Operator &op) {
  OptionReader o = op.options();
  bool adjX = o.boolean(0), adjY = o.boolean(1);
  auto av = imp.value(op.inputs[0]);
  if (failed(av))
    return mlir::failure();
  auto cv = imp.value(op.inputs[1]);
  if (failed(cv))
    return mlir::failure();
  Value a = *av, c = *cv;
  const Tensor &out = imp.tensor(op.outputs[0]);
  Type elem = Importer::elemOf(a);
  if (elem != Importer::elemOf(c) || (elem != imp.f32 && elem != imp.i8 && elem != imp.i16))
    return imp.fail("BATCH_MATMUL on " + elemName(elem) + " x " + elemName(Importer::elemOf(c)) +
                    " is not supported (float32, int8 and int16 are)");
  int64_t ra = Importer::rankOf(a), rc = Importer::rankOf(c);
  if (!(2 <= ra && ra <= 5 && 2 <= rc && rc <= 5))
    return imp.fail("BATCH_MATMUL takes operands of rank 2 to 5 (TFLite Micro's limit)");
  int64_t rank = std::max(ra, rc);
  auto padded = [&](Value v, int64_t r) {
    Shape s(rank - r, 1);
    Shape vs = Importer::shapeOf(v);
    s.append(vs.begin(), vs.end());
    return s;
  };
  a = imp.reshape(a, padded(a, ra));
  c = imp.reshape(c, padded(c, rc));
  std::vector<int64_t> swap;
  for (int64_t i = 0; i < rank - 2; ++i)
    swap.push_back(i);
  swap.push_back(rank - 1);
  swap.push_back(rank - 2);
  if (adjX)
    a = rdTranspose(imp, a, swap);
  if (adjY)
    c = rdTranspose(imp, c, swap);
  Shape as = Importer::shapeOf(a), cs = Importer::shapeOf(c);
  Shape ba(as.begin(), as.end() - 2), bc(cs.begin(), cs.end() - 2);
  for (int64_t i = 0; i < rank - 2; ++i)
    if (ba[i] != bc[i] && ba[i] != 1 && bc[i] != 1)
      return imp.fail("BATCH_MATMUL batch dimensions " + listRepr(ba) + " and " + listRepr(bc) +
                      " do not broadcast");
  Shape batch;
  for (int64_t i = 0; i < rank - 2; ++i)
    batch.push_back(std::max(ba[i], bc[i]));
  int64_t m = as[rank - 2], k = as[rank - 1];
  int64_t k2 = cs[rank - 2], n = cs[rank - 1];
  if (k != k2)
    return imp.fail("BATCH_MATMUL depths differ: " + llvm::Twine(k) + " and " + llvm::Twine(k2));
  int64_t nb = prod(batch);
  Value a3, c3;
  if (llvm::all_of(bc, [](int64_t d) { return d == 1; })) {
    // One right-hand matrix for every batch: the batches are more rows.
    a3 = imp.reshape(a, {1, nb * m, k});
    c3 = imp.reshape(c, {1, k, n});
  } else {
    auto broadcast = [&](Value v, const Shape &b, int64_t rows, int64_t cols) {
      Shape mult;
      for (int64_t i = 0; i < rank - 2; ++i)
        mult.push_back(batch[i] / b[i]);
      mult.push_back(1);
      mult.push_back(1);
      Shape shape = batch;
      shape.push_back(rows);
      shape.push_back(cols);
      Value multiples = imp.shapeConst(mult);
      return imp.op("tile", {v, multiples}, shape, Importer::elemOf(v));
    };
    if (ba != batch)
      a = broadcast(a, ba, m, k);
    if (bc != batch)
      c = broadcast(c, bc, k, n);
    a3 = imp.reshape(a, {nb, m, k});
    c3 = imp.reshape(c, {nb, k, n});
  }
  Shape s3 = Importer::shapeOf(a3);
  Shape shape3 = {s3[0], s3[1], n};
  Value y;
  if (elem == imp.f32) {
    Value zp = imp.scalar1(0.0, imp.f32);
    y = imp.op("matmul", {a3, c3, zp, zp}, shape3, imp.f32);
  } else if (elem == imp.i16) {
    auto r = matmulInt16(imp, op, a3, c3, shape3);
    if (failed(r))
      return mlir::failure();
    y = *r;
  } else {
    auto qa = imp.perTensor(imp.tensor(op.inputs[0]));
    if (failed(qa))
      return mlir::failure();
    auto qc = imp.perTensor(imp.tensor(op.inputs[1]));
    if (failed(qc))
      return mlir::failure();
    auto qo = imp.perTensor(out);
    if (failed(qo))
      return mlir::failure();
    Value za = imp.scalar1(qa->second, imp.i8);
    Value zc = imp.scalar1(qc->second, imp.i8);
    Value acc = imp.op("matmul", {a3, c3, za, zc}, shape3, imp.i32);
    // GetQuantizedConvolutionMultipler without bias: the scales' product in
    // float32, divided by the output scale in double.
    float prodScale = static_cast<float>(qa->first) * static_cast<float>(qc->first);
    double scale =
        static_cast<double>(prodScale) / static_cast<double>(static_cast<float>(qo->first));
    auto r = imp.tfliteRequantize(acc, {scale}, 0, qo->second, imp.i8);
    if (failed(r))
      return mlir::failure();
    y = *r;
  }
  return OpResults{imp.reshape(y, out.shape)};
}

//===----------------------------------------------------------------------===//
// RESIZE_BILINEAR
//===----------------------------------------------------------------------===//

/// tosa.resize BILINEAR with scale [n_y, d_y, n_x, d_x] and offset
/// [off_y, off_x]; the border makes TOSA's output size the requested one.
FailureOr<Value> rdResize(Importer &imp, Value x, int64_t oh, int64_t ow,
                          std::array<int64_t, 4> scale, std::array<int64_t, 2> offset,
                          Type elem) {
  int64_t ny = scale[0], dy = scale[1], nx = scale[2], dx = scale[3];
  Type xe = Importer::elemOf(x);
  for (auto [axis, n_] : {std::pair<int64_t, int64_t>{1, ny}, {2, nx}}) {
    if (offset[axis - 1] < 0) {
      // Half-pixel centers put the first outputs before row 0, where TFLite
      // reads row 0 alone; MLIR's lowering of a negative position weighs rows
      // 0 and 1. A copy of row 0 in front and the offset one row later give
      // TFLite's values with non-negative positions.
      Shape edge = Importer::shapeOf(x);
      edge[axis] = 1;
      Value start = imp.shapeConst({0, 0, 0, 0});
      Value size = imp.shapeConst(edge);
      Value first = imp.op("slice", {x, start, size}, edge, xe);
      Shape shape = Importer::shapeOf(x);
      shape[axis] += 1;
      x = imp.op("concat", {first, x}, shape, xe, {imp.i32Attr("axis", axis)});
      offset[axis - 1] += n_;
    }
  }
  Shape xs = Importer::shapeOf(x);
  int64_t ih = xs[1], iw = xs[2];
  std::array<int64_t, 2> border = {(oh - 1) * dy + offset[0] - (ih - 1) * ny,
                                   (ow - 1) * dx + offset[1] - (iw - 1) * nx};
  std::array<std::array<int64_t, 4>, 2> checks = {
      {{ny, dy, offset[0], border[0]}, {nx, dx, offset[1], border[1]}}};
  for (auto [n_, d_, off, bd] : checks)
    if (!(0 < n_ && n_ <= 2048 && 0 < d_ && d_ < 16 * n_ && -n_ <= off && off < 16 * n_ &&
          -16 * n_ <= bd && bd < n_))
      return imp.fail("RESIZE_BILINEAR from " + listRepr(llvm::ArrayRef<int64_t>({ih, iw})) + " to " + listRepr(llvm::ArrayRef<int64_t>({oh, ow})) +
                      " is outside tosa.resize's limits (scale numerator <= 2048, downscale "
                      "< 16)");
  Value sc = imp.shapeConst(scale);
  Value of = imp.shapeConst(offset);
  Value bd = imp.shapeConst(border);
  return imp.op("resize", {x, sc, of, bd}, {xs[0], oh, ow, xs[3]}, elem,
                {imp.attr("mode", mlir::tosa::ResizeModeAttr::get(
                                      imp.ctx, mlir::tosa::ResizeMode::BILINEAR))});
}

FailureOr<OpResults> importResizeBilinear(Importer &imp, const Operator &op) {
  OptionReader o = op.options();
  bool align = o.boolean(2), half = o.boolean(3);
  auto xv = imp.value(op.inputs[0]);
  if (failed(xv))
    return mlir::failure();
  Value x = *xv;
  const Tensor &sizeT = imp.tensor(op.inputs[1]), &out = imp.tensor(op.outputs[0]);
  if (align && half)
    return imp.fail("RESIZE_BILINEAR: half_pixel_centers needs align_corners false (TFLite "
                    "Micro refuses both)");
  if (!sizeT.hasData() || sizeT.type != kInt32 || sizeT.data<int64_t>().size() != 2)
    return imp.fail("RESIZE_BILINEAR: the size must be a constant INT32 tensor of 2 elements "
                    "(TFLite Micro's requirement)");
  Shape xs = Importer::shapeOf(x);
  Type elem = Importer::elemOf(x);
  if (xs.size() != 4)
    return imp.fail("RESIZE_BILINEAR expects a 4-D NHWC input");
  std::vector<int64_t> size = sizeT.data<int64_t>().data;
  int64_t oh = size[0], ow = size[1];
  if (std::vector<int64_t>{xs[0], oh, ow, xs[3]} != out.shape)
    return imp.fail("RESIZE_BILINEAR: size " + listRepr(llvm::ArrayRef<int64_t>({oh, ow})) + " does not match output " +
                    listRepr(out.shape));
  int64_t ih = xs[1], iw = xs[2];
  if (oh <= 0 || ow <= 0 || ih <= 0 || iw <= 0)
    return imp.fail("RESIZE_BILINEAR: empty sizes are not supported");
  if (elem == imp.f32) {
    // TFLite: y_in = y * in/out (align_corners: (in-1)/(out-1)); half-pixel
    // centers: (y + 0.5) * in/out - 0.5. As TOSA's rational y * d / n + off / n.
    auto ratio = [&](int64_t i, int64_t o_) -> std::array<int64_t, 3> {
      int64_t n_, d_, off;
      if (align && o_ > 1) {
        if (i == 1)
          return {o_, 1, 0}; // y = oy / o_ < 1: every output reads row 0
        n_ = o_ - 1, d_ = i - 1, off = 0;
      } else if (half) {
        n_ = 2 * o_, d_ = 2 * i, off = i - o_;
      } else {
        n_ = o_, d_ = i, off = 0;
      }
      int64_t g = std::gcd(std::gcd(std::abs(n_), std::abs(d_)), std::abs(off));
      return {floorDiv(n_, g), floorDiv(d_, g), floorDiv(off, g)};
    };
    auto [ny, dy, offy] = ratio(ih, oh);
    auto [nx, dx, offx] = ratio(iw, ow);
    auto r = rdResize(imp, x, oh, ow, {ny, dy, nx, dx}, {offy, offx}, imp.f32);
    if (failed(r))
      return mlir::failure();
    return OpResults{*r};
  }
  if (elem != imp.i8)
    return imp.fail("RESIZE_BILINEAR on " + elemName(elem) +
                    " is not supported (float32 and int8 are)");
  auto scale10 = [&](int64_t i, int64_t o_) {
    // ResizeBilinearInteger's 10-bit fixed-point scale.
    if (align && o_ > 1)
      return floorDiv((int64_t(1) << 10) * (i - 1) + floorDiv(o_ - 1, 2), o_ - 1);
    return floorDiv((int64_t(1) << 10) * i + floorDiv(o_, 2), o_);
  };
  int64_t sy = scale10(ih, oh), sx = scale10(iw, ow);
  int64_t offy = half ? floorDiv(sy, 2) - (1 << 9) : 0;
  int64_t offx = half ? floorDiv(sx, 2) - (1 << 9) : 0;
  if (sy == 0 || sx == 0)
    return imp.fail("RESIZE_BILINEAR: a zero fixed-point scale (one input row or column with "
                    "align_corners) is not supported");
  auto accv = rdResize(imp, x, oh, ow, {1024, sy, 1024, sx}, {offy, offx}, imp.i32);
  if (failed(accv))
    return mlir::failure();
  Value acc = *accv;
  // (acc +- 2^19) / 2^20 truncated = floor((acc - (acc < 0) + 2^19) / 2^20).
  Value c31 = imp.iconst({31}, {1, 1, 1, 1});
  Value neg = imp.ew("arithmetic_right_shift", {acc, c31}, imp.i32,
                     {imp.boolAttr("round", false)});
  acc = imp.ew("add", {acc, neg}, imp.i32);
  return OpResults{imp.rescaleRaw(acc, {int64_t(1) << 30}, {50}, 0, 0, imp.i8, "SINGLE_ROUND")};
}

} // namespace

void mlir::serenity::tflite::addReduceHandlers(HandlerTable &table) {
  table["RESIZE_BILINEAR"] = importResizeBilinear;
  table["BATCH_MATMUL"] = importBatchMatmul;
  table["TRANSPOSE_CONV"] = importTransposeConv;
  table["MAX_POOL_2D"] = importMaxPool;
  table["MEAN"] = importMean;
  table["SUM"] = importSum;
  table["REDUCE_MAX"] = importReduceMax;
  table["ARG_MAX"] = importArgMax;
}
