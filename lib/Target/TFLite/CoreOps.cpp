//===- CoreOps.cpp - CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED, ... -----===//
//
// The core operators of python/serenity/tflite/importer.py: CONV_2D,
// DEPTHWISE_CONV_2D and FULLY_CONNECTED (a 1x1 conv2d) as tosa.conv2d /
// depthwise_conv2d plus a requantizing rescale and the fused activation,
// int16 activations with int8 weights ("16x8") with an i48 accumulator, ADD,
// AVERAGE_POOL_2D, RESHAPE and SOFTMAX; float graphs as f32 TOSA.
//
//===----------------------------------------------------------------------===//

#include "Format.h"
#include "Helpers.h"
#include "Importer.h"
#include "Quant.h"

#include <cmath>
#include <cstdlib>

using namespace mlir::serenity::tflite;
using llvm::ArrayRef;
using llvm::SmallVector;
using mlir::failure;

namespace {

struct ConvQuant {
  double sIn;
  int64_t zIn;
  std::vector<double> sW;
  double sOut;
  int64_t zOut;
};

/// (s_in, z_in, s_w, s_out, z_out) of a quantized conv / fully connected
/// layer: per-tensor activations, weights per tensor or per output channel
/// with zero point 0.
FailureOr<ConvQuant> convQuantization(Importer &imp, const Tensor &inT, const Tensor &wt,
                                      const Tensor &out, int64_t oc) {
  auto in = imp.perTensor(inT);
  if (failed(in))
    return failure();
  auto w = imp.qparams(wt);
  if (failed(w))
    return failure();
  for (int64_t z : w->second)
    if (z != 0)
      return imp.fail("weight tensor " + str(wt.index) + " '" + wt.name +
                      "' has a non-zero zero point");
  auto o = imp.perTensor(out);
  if (failed(o))
    return failure();
  int64_t n = w->first.size();
  if (n != 1 && n != oc)
    return imp.fail("weight tensor " + str(wt.index) + " has " + str(n) + " scales for " +
                    str(oc) + " channels");
  return ConvQuant{in->first, in->second, w->first, o->first, o->second};
}

/// The requantization scales s_in * s_w / s_out (double), or for a
/// per-tensor FULLY_CONNECTED the scale product in float32.
std::vector<double> convScales(const ConvQuant &q, bool floatProduct) {
  std::vector<double> scale;
  if (floatProduct && q.sW.size() == 1) {
    float p = static_cast<float>(q.sIn) * static_cast<float>(q.sW[0]);
    scale.push_back(static_cast<double>(p) / q.sOut);
    return scale;
  }
  for (double sw : q.sW)
    scale.push_back(q.sIn * sw / q.sOut);
  return scale;
}

SmallVector<NamedAttribute> convAttrs(Importer &imp, Type acc, std::array<int64_t, 2> dilation,
                                      const Pads &pad, std::array<int64_t, 2> stride) {
  return {imp.typeAttr("acc_type", acc), imp.i64Array("dilation", {dilation[0], dilation[1]}),
          imp.i64Array("pad", {pad[0], pad[1], pad[2], pad[3]}),
          imp.i64Array("stride", {stride[0], stride[1]})};
}

/// A tensor<Nxi48> constant (not shared).
Value constI48(Importer &imp, const std::vector<int64_t> &values) {
  return imp.constant(NdArray<int64_t>::vector(values), imp.i48);
}

/// tosa.rescale of an i48 tensor with 16-bit multipliers (scale32 = false),
/// SINGLE_ROUND: (x * m + 2^(s-1)) >> s per channel, saturated to outElem.
FailureOr<Value> rescale16(Importer &imp, Value x, ArrayRef<int64_t> mults,
                           ArrayRef<int64_t> shifts, Type outElem) {
  int64_t n = mults.size();
  if (*std::min_element(shifts.begin(), shifts.end()) < 2 ||
      *std::max_element(shifts.begin(), shifts.end()) > 62)
    return imp.fail("rescale shift outside [2, 62]: " + listRepr(shifts));
  Value mult =
      imp.constant(NdArray<int64_t>::vector({mults.begin(), mults.end()}), imp.i16, true);
  Value shift =
      imp.constant(NdArray<int64_t>::vector({shifts.begin(), shifts.end()}), imp.i8, true);
  Value zi = constI48(imp, {0});
  Value zo = imp.scalar1(0, outElem);
  return imp.op("rescale", {x, mult, shift, zi, zo}, Importer::shapeOf(x), outElem,
                {imp.boolAttr("input_unsigned", false), imp.boolAttr("output_unsigned", false),
                 imp.boolAttr("per_channel", n > 1), imp.roundingModeAttr("SINGLE_ROUND"),
                 imp.boolAttr("scale32", false)});
}

/// CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED with int16 activations and
/// int8 weights, as TFLite Micro's reference kernels (importer.py's
/// conv_like_16x8 documents the arithmetic).
FailureOr<Value> convLike16x8(Importer &imp, const Operator &op, llvm::StringRef kind, Value x,
                              const Tensor &inT, const Weights &weight, const Tensor &wt,
                              const Tensor *biasT, const Tensor &out, const Pads &pad,
                              std::array<int64_t, 2> stride, std::array<int64_t, 2> dilation,
                              int act, bool floatProduct) {
  int64_t oc = out.shape.back();
  std::string name = op.name();
  if (!imp.tfliteExact)
    return imp.fail("int16 " + name + " is imported with --rounding=double only");
  auto q = convQuantization(imp, inT, wt, out, oc);
  if (failed(q))
    return failure();
  auto outElem = imp.elemOfTensor(out);
  if (failed(outElem))
    return failure();
  if (*outElem != imp.i16)
    return imp.fail("int16 " + name + " needs an int16 output, not " + out.typeName());
  int64_t zIn = q->zIn, zOut = q->zOut;
  bool isFc = name == "FULLY_CONNECTED";
  if (!isFc && (zIn || zOut))
    return imp.fail("int16 " + name + " with zero points " + str(zIn) + " (input) and " +
                    str(zOut) +
                    " (output): TFLite Micro's 16x8 kernel ignores them (int16 activations "
                    "are quantized with zero point 0); not supported");
  bool acc64;
  std::vector<int64_t> bias;
  if (biasT) {
    if (!biasT->hasData() || (biasT->type != kInt32 && biasT->type != kInt64))
      return imp.fail("bias tensor " + str(biasT->index) + " of an int16 " + name +
                      " must be a constant INT64 or INT32 tensor");
    acc64 = biasT->type == kInt64;
    bias = biasT->data<int64_t>().data;
  } else {
    int slot = name == "CONV_2D" ? 6 : name == "FULLY_CONNECTED" ? 4 : -1;
    acc64 = slot < 0 || op.options().i8(slot) != 2; // INT32
    bias.assign(oc, 0);
  }
  if (name == "DEPTHWISE_CONV_2D" && !biasT)
    return imp.fail("int16 DEPTHWISE_CONV_2D without a bias: TFLite Micro's 16x8 depthwise "
                    "kernel aborts (it checks the bias shape unconditionally); not supported");
  if (name == "DEPTHWISE_CONV_2D" && !acc64)
    return imp.fail("int16 DEPTHWISE_CONV_2D with an INT32 bias: TFLite Micro's 16x8 "
                    "depthwise kernel reads the bias as int64; not supported");
  // Weights per output channel, [OC, K], in the layout of each kind.
  NdArray<int64_t> wi = weight.asInt();
  int64_t k = oc ? wi.size() / oc : 0;
  auto wAt = [&](int64_t c, int64_t j) {
    return kind == "conv2d" ? wi[c * k + j] : wi[j * oc + c];
  };
  if (zIn)
    for (int64_t c = 0; c < oc; ++c) {
      int64_t sum = 0;
      for (int64_t j = 0; j < k; ++j)
        sum += wAt(c, j);
      bias[c] -= zIn * sum;
    }
  int64_t maxAbs = 0;
  for (int64_t v : bias)
    maxAbs = std::max<int64_t>(maxAbs, std::llabs(v));
  if (maxAbs >= (int64_t(1) << 47))
    return imp.fail("bias outside the 48-bit accumulator of TOSA (TFLM requires |acc| < 2^47)");
  std::vector<double> scale = convScales(*q, floatProduct);
  SmallVector<std::pair<int64_t, int64_t>> ms;
  for (double v : scale) {
    auto m = quant::tfliteQuantizeMultiplier(v);
    if (!m)
      return imp.fail(llvm::toString(m.takeError()));
    ms.push_back(*m);
  }
  Value wname = imp.constant(wi, imp.i8);
  Value bname = constI48(imp, bias);
  Value zpIn = imp.scalar1(0, imp.i16);
  Value zpW = imp.scalar1(0, imp.i8);
  Value acc = imp.op(kind, {x, wname, bname, zpIn, zpW}, out.shape, imp.i48,
                     convAttrs(imp, imp.i48, dilation, pad, stride));
  Type yElem = zOut == 0 ? imp.i16 : imp.i32;
  FailureOr<Value> y;
  if (acc64) {
    int64_t maxShift = ms[0].second;
    for (auto [m, sh] : ms)
      maxShift = std::max(maxShift, sh);
    if (maxShift >= 8)
      return imp.fail("requantization scale " +
                      pyRepr(*std::max_element(scale.begin(), scale.end())) +
                      " needs a left shift of 8 or more (TFLite Micro's int64 "
                      "MultiplyByQuantizedMultiplier allows up to 7)");
    SmallVector<int64_t> m16, shifts;
    for (auto [m, sh] : ms) {
      m16.push_back(m >= 0x7FFF0000 ? 0x7FFF : (m + (int64_t(1) << 15)) >> 16);
      shifts.push_back(15 - sh);
    }
    y = rescale16(imp, acc, m16, shifts, yElem);
  } else {
    int64_t bound = std::numeric_limits<int64_t>::min();
    for (int64_t c = 0; c < oc; ++c) {
      int64_t sum = 0;
      for (int64_t j = 0; j < k; ++j)
        sum += std::llabs(wAt(c, j));
      bound = std::max<int64_t>(bound, sum * (int64_t(1) << 15) + std::llabs(bias[c]));
    }
    if (bound >= (int64_t(1) << 31))
      return imp.fail("int16 " + name + " with an INT32 bias: TFLite Micro's int32 "
                      "accumulator can overflow (bound " + str(bound) + "); not supported");
    auto a32 = rescale16(imp, acc, {int64_t(1) << 14}, {14}, imp.i32);
    if (failed(a32))
      return failure();
    y = imp.tfliteRequantize(*a32, scale, 0, 0, yElem);
  }
  if (failed(y))
    return failure();
  Value r = *y;
  if (zOut) {
    Value z = imp.iconst({zOut}, SmallVector<int64_t>(Importer::rankOf(r), 1));
    r = imp.ew("add", {r, z}, imp.i32);
    r = imp.ew("cast", {imp.iclamp(r, -(int64_t(1) << 15), (int64_t(1) << 15) - 1)}, imp.i16);
  }
  if (act == kActNone)
    return r;
  if (act != kActRelu && act != kActRelu6 && act != kActReluN1To1)
    return imp.fail("fused activation " + activationName(act) + " is not supported");
  auto range =
      quant::activationRange(act, q->sOut, zOut, -(int64_t(1) << 15), (int64_t(1) << 15) - 1);
  if (!range)
    return imp.fail(llvm::toString(range.takeError()));
  return imp.op("clamp", {r}, Importer::shapeOf(r), imp.i16,
                imp.clampAttrs(range->first, range->second, imp.i16));
}

/// conv2d / depthwise_conv2d (weights already in TOSA layout) + rescale + clamp.
FailureOr<Value> convLike(Importer &imp, const Operator &op, llvm::StringRef kind, Value x,
                          const Tensor &inT, const Weights &weight, const Tensor &wt,
                          int biasIdx, const Tensor &out, Pads pad,
                          std::array<int64_t, 2> stride, std::array<int64_t, 2> dilation,
                          int act, bool floatProduct = false) {
  const std::vector<int64_t> &ws = weight.shape();
  int64_t kh = kind == "conv2d" ? ws[1] : ws[0];
  int64_t kw = kind == "conv2d" ? ws[2] : ws[1];
  std::array<int64_t, 2> keff = {(kh - 1) * dilation[0] + 1, (kw - 1) * dilation[1] + 1};
  std::tie(x, pad) = imp.fitStride(x, pad, keff, stride);
  int64_t oc = out.shape.back();
  const Tensor *biasT = biasIdx >= 0 ? &imp.tensor(biasIdx) : nullptr;
  const std::vector<int64_t> &accShape = out.shape;
  Type xElem = Importer::elemOf(x);
  if (xElem == imp.f32) {
    if (wt.type != kFloat32 && !imp.floatMode)
      return imp.hybridError(wt);
    Value wname = imp.constant(weight.asFloat(), imp.f32);
    NdArray<float> bias;
    if (biasT) {
      if (biasT->type != kFloat32 && !biasT->quant)
        return imp.fail("bias tensor " + str(biasT->index) +
                        " is quantized without parameters");
      auto d = imp.dequantized(*biasT);
      if (failed(d))
        return failure();
      bias = d->reshape({-1});
    } else {
      bias = NdArray<float>::full({oc}, 0.0f);
    }
    Value bname = imp.constant(bias, imp.f32);
    Value zp = imp.scalar1(0.0, imp.f32);
    Value res = imp.op(kind, {x, wname, bname, zp, zp}, accShape, imp.f32,
                       convAttrs(imp, imp.f32, dilation, pad, stride));
    return imp.activation(res, act, out);
  }
  if (xElem == imp.i16)
    return convLike16x8(imp, op, kind, x, inT, weight, wt, biasT, out, pad, stride, dilation,
                        act, floatProduct);
  auto q = convQuantization(imp, inT, wt, out, oc);
  if (failed(q))
    return failure();
  NdArray<int64_t> bias;
  if (biasT) {
    if (biasT->type != kInt32 || !biasT->hasData())
      return imp.fail("bias tensor " + str(biasT->index) +
                      " must be a constant INT32 tensor");
    bias = biasT->data<int64_t>().reshape({-1});
  } else {
    bias = NdArray<int64_t>::full({oc}, 0);
  }
  if (imp.emulate) {
    NdArray<float> wf = weight.asFloat();
    int64_t n = q->sW.size();
    for (int64_t e = 0; e < wf.size(); ++e) {
      int64_t c = 0;
      if (n > 1)
        c = kind == "conv2d" ? e / (wf.size() / n) : e % n;
      wf[e] = wf[e] * static_cast<float>(q->sW[c]);
    }
    auto y = imp.emulatedConv(kind, x, wf, biasT, accShape, pad, stride, dilation, q->sIn,
                              q->zIn, q->sOut, q->zOut);
    if (failed(y))
      return failure();
    return imp.activation(*y, act, out);
  }
  Value wname = imp.constant(weight.asInt(), imp.i8);
  Value bname = imp.constant(bias, imp.i32);
  Value izp = imp.scalar1(q->zIn, imp.i8);
  Value wzp = imp.scalar1(0, imp.i8);
  Value acc = imp.op(kind, {x, wname, bname, izp, wzp}, accShape, imp.i32,
                     convAttrs(imp, imp.i32, dilation, pad, stride));
  // Scales are float32 in the file; the real multiplier is computed in
  // double from them, as TFLite and the legalization do.
  FailureOr<Value> y;
  if (imp.tfliteExact)
    y = imp.tfliteRequantize(acc, convScales(*q, floatProduct), 0, q->zOut, imp.i8);
  else
    y = imp.rescale(acc, convScales(*q, false), 0, q->zOut, imp.i8);
  if (failed(y))
    return failure();
  return imp.activation(*y, act, out);
}

OpResults one(Value v) { return OpResults{v}; }

//===----------------------------------------------------------------------===//
// Handlers
//===----------------------------------------------------------------------===//

FailureOr<OpResults> importConv2d(Importer &imp, const Operator &op) {
  OptionReader o = op.options();
  int padding = o.i8(0), sw = o.i32(1, 1), sh = o.i32(2, 1), act = o.i8(3);
  int dw = o.i32(4, 1), dh = o.i32(5, 1);
  const Tensor &wt = imp.tensor(op.inputs[1]);
  const Tensor &out = imp.tensor(op.outputs[0]);
  auto w = weights(imp, wt, op);
  if (failed(w))
    return failure();
  if (imp.tensor(op.inputs[0]).shape.size() != 4 || w->rank() != 4)
    return imp.fail("CONV_2D expects 4-D input and filter");
  int64_t kh = w->shape()[1], kw = w->shape()[2];
  auto in = imp.windowInput(op, kh, kw, sh, sw, dh, dw, padding);
  if (failed(in))
    return failure();
  int bias = op.inputs.size() > 2 ? op.inputs[2] : -1;
  auto y = convLike(imp, op, "conv2d", in->first, imp.tensor(op.inputs[0]), *w, wt, bias, out,
                    in->second, {sh, sw}, {dh, dw}, act);
  if (failed(y))
    return failure();
  return one(*y);
}

FailureOr<OpResults> importDepthwise(Importer &imp, const Operator &op) {
  OptionReader o = op.options();
  int padding = o.i8(0), sw = o.i32(1, 1), sh = o.i32(2, 1);
  int act = o.i8(4), dw = o.i32(5, 1), dh = o.i32(6, 1);
  const Tensor &wt = imp.tensor(op.inputs[1]);
  const Tensor &out = imp.tensor(op.outputs[0]);
  auto w = weights(imp, wt, op);
  if (failed(w))
    return failure();
  if (imp.tensor(op.inputs[0]).shape.size() != 4 || w->rank() != 4 || w->shape()[0] != 1)
    return imp.fail("DEPTHWISE_CONV_2D expects 4-D input and a [1, KH, KW, C*M] filter");
  int64_t kh = w->shape()[1], kw = w->shape()[2], cm = w->shape()[3];
  auto in = imp.windowInput(op, kh, kw, sh, sw, dh, dw, padding);
  if (failed(in))
    return failure();
  int64_t c = Importer::shapeOf(in->first)[3];
  if (cm % c)
    return imp.fail("filter has " + str(cm) + " channels, not a multiple of the input's " +
                    str(c));
  int bias = op.inputs.size() > 2 ? op.inputs[2] : -1;
  FailureOr<Value> y;
  if (c == 1) {
    // One input channel with a depth multiplier (micro_speech's first layer):
    // the same sums as a convolution with M output channels, [M, KH, KW, 1].
    Weights w1 = w->reshape({kh, kw, cm}).transpose({2, 0, 1}).reshape({cm, kh, kw, 1});
    y = convLike(imp, op, "conv2d", in->first, imp.tensor(op.inputs[0]), w1, wt, bias, out,
                 in->second, {sh, sw}, {dh, dw}, act);
  } else {
    // TFLite [1, KH, KW, C*M] -> TOSA [KH, KW, C, M]; output channel c*M+m in both.
    Weights w4 = w->reshape({kh, kw, c, cm / c});
    y = convLike(imp, op, "depthwise_conv2d", in->first, imp.tensor(op.inputs[0]), w4, wt,
                 bias, out, in->second, {sh, sw}, {dh, dw}, act);
  }
  if (failed(y))
    return failure();
  return one(*y);
}

FailureOr<OpResults> importFullyConnected(Importer &imp, const Operator &op) {
  OptionReader o = op.options();
  int act = o.i8(0), wformat = o.i8(1);
  if (wformat != 0)
    return imp.fail("only the DEFAULT weights format is supported");
  auto x = imp.value(op.inputs[0]);
  if (failed(x))
    return failure();
  const Tensor &wt = imp.tensor(op.inputs[1]);
  const Tensor &out = imp.tensor(op.outputs[0]);
  auto w = weights(imp, wt, op);
  if (failed(w))
    return failure();
  if (w->rank() != 2)
    return imp.fail("FULLY_CONNECTED expects a 2-D weight matrix");
  int64_t oc = w->shape()[0], ic = w->shape()[1];
  int64_t total = product(Importer::shapeOf(*x));
  if (total % ic)
    return imp.fail("input of " + str(total) + " elements is not a multiple of " + str(ic));
  int64_t n = total / ic;
  // As the legalization: reshape to NHWC [N,1,1,IC] and use a 1x1 conv2d.
  Value x4 = imp.reshape(*x, {n, 1, 1, ic});
  int bias = op.inputs.size() > 2 ? op.inputs[2] : -1;
  Tensor out4 = out;
  out4.shape = {n, 1, 1, oc};
  auto y = convLike(imp, op, "conv2d", x4, imp.tensor(op.inputs[0]), w->reshape({oc, 1, 1, ic}),
                    wt, bias, out4, {0, 0, 0, 0}, {1, 1}, {1, 1}, act, /*floatProduct=*/true);
  if (failed(y))
    return failure();
  return one(imp.reshape(*y, out.shape));
}

FailureOr<OpResults> importAdd(Importer &imp, const Operator &op) {
  int act = op.options().i8(0);
  auto a = imp.value(op.inputs[0]);
  if (failed(a))
    return failure();
  auto c = imp.value(op.inputs[1]);
  if (failed(c))
    return failure();
  const Tensor &out = imp.tensor(op.outputs[0]);
  SmallVector<int64_t> as = Importer::shapeOf(*a), cs = Importer::shapeOf(*c);
  if (as != cs)
    return imp.fail("broadcasting ADD (" + listRepr(as) + " + " + listRepr(cs) +
                    ") is not supported");
  FailureOr<Value> y;
  if (Importer::elemOf(*a) == imp.f32) {
    Value res = imp.op("add", {*a, *c}, as, imp.f32);
    y = imp.activation(res, act, out);
  } else {
    auto qa = imp.perTensor(imp.tensor(op.inputs[0]));
    if (failed(qa))
      return failure();
    auto qc = imp.perTensor(imp.tensor(op.inputs[1]));
    if (failed(qc))
      return failure();
    auto qo = imp.perTensor(out);
    if (failed(qo))
      return failure();
    auto [sa, za] = *qa;
    auto [sc, zc] = *qc;
    auto [so, zo] = *qo;
    if (imp.emulate) {
      y = imp.activation(imp.emulatedAdd(*a, *c, sa, za, sc, zc, so, zo), act, out);
    } else if (imp.tfliteExact) {
      auto s = imp.tfliteAdd(*a, *c, sa, za, sc, zc, so, zo);
      if (failed(s))
        return failure();
      y = imp.activation(*s, act, out);
    } else {
      // The legalization's (and TFLite's) int8 add: both inputs to int32 at
      // a common scale 2*max(sa, sc) / 2**20, exact int32 add, rescale out.
      const double two20 = double(1 << 20);
      double max2 = 2.0 * std::max(sa, sc);
      auto a32 = imp.rescale(*a, {two20 * sa / max2}, za, 0, imp.i32);
      if (failed(a32))
        return failure();
      auto c32 = imp.rescale(*c, {two20 * sc / max2}, zc, 0, imp.i32);
      if (failed(c32))
        return failure();
      Value s = imp.op("add", {*a32, *c32}, as, imp.i32);
      auto r = imp.rescale(s, {max2 / (so * two20)}, 0, zo, imp.i8);
      if (failed(r))
        return failure();
      y = imp.activation(*r, act, out);
    }
  }
  if (failed(y))
    return failure();
  return one(*y);
}

FailureOr<OpResults> importAveragePool(Importer &imp, const Operator &op) {
  OptionReader o = op.options();
  int padding = o.i8(0), sw = o.i32(1), sh = o.i32(2), fw = o.i32(3), fh = o.i32(4);
  int act = o.i8(5);
  return withInput(imp, op, [&](Value x, const Tensor &out) -> FailureOr<OpResults> {
    SmallVector<int64_t> inShape = Importer::shapeOf(x);
    Pads pad = imp.pads(padding, inShape, fh, fw, sh, sw, 1, 1, out.shape);
    Pads origPad = pad;
    std::tie(x, pad) = imp.fitStride(x, pad, {fh, fw}, {sh, sw});
    SmallVector<NamedAttribute> attrs = {imp.i64Array("kernel", {fh, fw}),
                                         imp.i64Array("pad", {pad[0], pad[1], pad[2], pad[3]}),
                                         imp.i64Array("stride", {sh, sw})};
    FailureOr<Value> y;
    if (Importer::elemOf(x) == imp.f32) {
      Value zp = imp.scalar1(0.0, imp.f32);
      attrs.push_back(imp.typeAttr("acc_type", imp.f32));
      Value res = imp.op("avg_pool2d", {x, zp, zp}, out.shape, imp.f32, attrs);
      y = imp.activation(res, act, out);
    } else {
      auto q = inOutQuant(imp, imp.tensor(op.inputs[0]), out);
      if (failed(q))
        return failure();
      auto [si, zi] = q->first;
      auto [so, zo] = q->second;
      if (si != so)
        return imp.fail("int8 AVERAGE_POOL_2D with different input and output scales is not "
                        "supported");
      if (imp.tfliteExact) {
        if (!quant::hasActivationRange(act))
          return imp.fail("fused activation " + activationName(act) + " is not supported");
        auto range = quant::activationRange(act, so, zo);
        if (!range)
          return imp.fail(llvm::toString(range.takeError()));
        y = imp.tfliteAvgPool(x, inShape, {fh, fw}, {sh, sw}, pad, out.shape, range->first,
                              range->second, origPad);
      } else if (imp.emulate) {
        auto e = imp.emulatedAvgPool(x, {fh, fw}, {sh, sw}, pad, out.shape, si, zi, zo);
        if (failed(e))
          return failure();
        y = imp.activation(*e, act, out);
      } else {
        Value izp = imp.scalar1(zi, imp.i8);
        Value ozp = imp.scalar1(zo, imp.i8);
        attrs.push_back(imp.typeAttr("acc_type", imp.i32));
        Value res = imp.op("avg_pool2d", {x, izp, ozp}, out.shape, Importer::elemOf(x), attrs);
        y = imp.activation(res, act, out);
      }
    }
    if (failed(y))
      return failure();
    return one(*y);
  });
}

FailureOr<OpResults> importReshape(Importer &imp, const Operator &op) {
  auto x = imp.value(op.inputs[0]);
  if (failed(x))
    return failure();
  const Tensor &out = imp.tensor(op.outputs[0]);
  SmallVector<int64_t> xs = Importer::shapeOf(*x);
  if (product(out.shape) != product(xs))
    return imp.fail("cannot reshape " + listRepr(xs) + " to " + listRepr(out.shape));
  if (Importer::elemOf(*x) == imp.i8) {
    auto q = inOutQuant(imp, imp.tensor(op.inputs[0]), out);
    if (failed(q))
      return failure();
    if (q->first != q->second)
      return imp.fail("RESHAPE that changes quantization is not supported");
  }
  return one(imp.reshape(*x, out.shape));
}

/// TFLite Micro's SOFTMAX with an int16 output (CalculateSoftmaxParams'
/// checks): int8 -> int16 is the int8 kernel with OutputT = int16_t; int16 ->
/// int16 is SoftmaxInt16 (TableOps.cpp's tflmSoftmaxInt16).
FailureOr<Value> softmaxInt16Output(Importer &imp, Value x, const Operator &op, double beta) {
  const Tensor &it = imp.tensor(op.inputs[0]);
  const Tensor &out = imp.tensor(op.outputs[0]);
  auto oelem = imp.elemOfTensor(out);
  if (failed(oelem))
    return failure();
  if (*oelem != imp.i16)
    return imp.fail("int16 SOFTMAX needs an int16 output, not " + out.typeName());
  auto q = inOutQuant(imp, it, out);
  if (failed(q))
    return failure();
  auto [si, zi] = q->first;
  auto [so, zo] = q->second;
  float fso = static_cast<float>(so);
  if (Importer::elemOf(x) == imp.i8) {
    // TF_LITE_ENSURE_NEAR in float: |s_out - 1/65536| <= 0.001 / 65536.
    if (zo != -(int64_t(1) << 15) ||
        std::fabs(fso - 1.0f / 65536.0f) > 0.001f / 65536.0f)
      return imp.fail("int8 -> int16 SOFTMAX needs output scale 1/65536 and zero point "
                      "-32768 (TFLite Micro's requirement), not " +
                      pyRepr(so) + " and " + str(zo));
    return imp.tfliteSoftmax(x, beta, si, imp.i16);
  }
  if (zi != 0 || zo != 0 || std::fabs(fso - 1.0f / 32768.0f) > 0.001f / 32768.0f)
    return imp.fail("int16 SOFTMAX needs zero points 0 and output scale 1/32768 (TFLite "
                    "Micro's requirement), not " +
                    str(zi) + ", " + str(zo) + " and " + pyRepr(so));
  return imp.tflmSoftmaxInt16(x, si, beta);
}

FailureOr<OpResults> importSoftmax(Importer &imp, const Operator &op) {
  double beta = op.options().f32(0, 1.0f);
  return withInput(imp, op, [&](Value x, const Tensor &out) -> FailureOr<OpResults> {
    SmallVector<int64_t> shape = Importer::shapeOf(x);
    int64_t rank = shape.size();
    int64_t axis = rank - 1;
    SmallVector<int64_t> red = shape;
    red.back() = 1;
    auto oelem = imp.elemOfTensor(out);
    if (failed(oelem))
      return failure();
    Type xElem = Importer::elemOf(x);
    if (xElem == imp.i16 || (xElem == imp.i8 && *oelem == imp.i16)) {
      if (!imp.tfliteExact)
        return imp.fail("int16 SOFTMAX is imported with --rounding=double only");
      auto y = softmaxInt16Output(imp, x, op, beta);
      if (failed(y))
        return failure();
      return one(*y);
    }
    if (xElem == imp.i8 && imp.tfliteExact) {
      auto qo = imp.perTensor(out);
      if (failed(qo))
        return failure();
      auto [so, zo] = *qo;
      if (zo != -128 || so != 1.0 / 256)
        return imp.fail("int8 SOFTMAX needs output scale 1/256 and zero point -128 (TFLite's "
                        "requirement), not " +
                        pyRepr(so) + " and " + str(zo));
      auto qi = imp.perTensor(imp.tensor(op.inputs[0]));
      if (failed(qi))
        return failure();
      auto y = imp.tfliteSoftmax(x, beta, qi->first);
      if (failed(y))
        return failure();
      return one(*y);
    }
    Value xf = x;
    if (xElem == imp.i8) {
      // Dequantize exactly as a float reference would: float(q - zp) * scale.
      auto qi = imp.perTensor(imp.tensor(op.inputs[0]));
      if (failed(qi))
        return failure();
      auto [si, zi] = *qi;
      Value q = imp.f32Op("cast", {x}, shape);
      Value zc = imp.fconst(double(zi), rank);
      q = imp.f32Op("sub", {q, zc}, shape);
      Value sc = imp.fconst(si, rank);
      xf = imp.fmul(q, sc);
    }
    Value m = imp.f32Op("reduce_max", {xf}, red, {imp.i32Attr("axis", axis)});
    Value d = imp.f32Op("sub", {xf, m}, shape);
    if (beta != 1.0) {
      Value bc = imp.fconst(beta, rank);
      d = imp.fmul(d, bc);
    }
    Value e = imp.f32Op("exp", {d}, shape);
    Value s = imp.f32Op("reduce_sum", {e}, red, {imp.i32Attr("axis", axis)});
    if (xElem == imp.i8 && imp.emulate) {
      auto qo = imp.perTensor(out);
      if (failed(qo))
        return failure();
      return one(imp.emulatedSoftmaxTail(e, s, qo->first, qo->second));
    }
    Value r = imp.f32Op("reciprocal", {s}, red);
    Value p = imp.fmul(e, r);
    if (xElem != imp.i8)
      return one(p);
    auto qo = imp.perTensor(out);
    if (failed(qo))
      return failure();
    auto [so, zo] = *qo;
    // Quantize: round half away from zero (p >= 0, so floor(p/so + 0.5)), add
    // the zero point, saturate, then an exact cast to i8.
    Value inv = imp.fconst(1.0 / so, rank);
    Value y = imp.fmul(p, inv);
    Value half = imp.fconst(0.5, rank);
    y = imp.f32Op("add", {y, half}, shape);
    y = imp.f32Op("floor", {y}, shape);
    Value zc = imp.fconst(double(zo), rank);
    y = imp.f32Op("add", {y, zc}, shape);
    y = imp.f32Op("clamp", {y}, shape, imp.clampAttrs(-128.0, 127.0, imp.f32));
    return one(imp.op("cast", {y}, shape, imp.i8));
  });
}

} // namespace

void mlir::serenity::tflite::addCoreHandlers(HandlerTable &table) {
  table["CONV_2D"] = importConv2d;
  table["DEPTHWISE_CONV_2D"] = importDepthwise;
  table["FULLY_CONNECTED"] = importFullyConnected;
  table["ADD"] = importAdd;
  table["AVERAGE_POOL_2D"] = importAveragePool;
  table["RESHAPE"] = importReshape;
  table["SOFTMAX"] = importSoftmax;
}
