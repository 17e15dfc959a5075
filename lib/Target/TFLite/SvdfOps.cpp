//===- SvdfOps.cpp - SVDF -------------------------------------------------===//
//
// python/serenity/tflite/ops_svdf.py: SVDF as TFLite Micro computes it
// (svdf.cc, svdf_common.cc), with its activation state kept between
// invocations as a TOSA variable (Importer::stateRead / stateWrite).
//
// One invocation: (1) the state [B, F, M] shifts left by one, (2) the feature
// matmul's new column is appended (a 1x1 conv2d, requantized to the state's
// type), (3) the time weights reduce each filter's memory (tosa.matmul per
// filter, or a product and a reduce_sum), (4) the rank's terms and the bias
// are added and the result requantized (integer) or activated (float32). See
// the Python module's docstring for TFLite Micro's arithmetic.
//
//===----------------------------------------------------------------------===//

#include "Format.h"
#include "Importer.h"

#include "mlir/IR/BuiltinAttributes.h"

#include <cmath>
#include <string>

using namespace mlir::serenity::tflite;

namespace {

constexpr int kActTanhSvdf = 4;

struct SvdfDims {
  int64_t batch, nIn, nFilter, memory, rank;
};

/// The one (scale, zero point) TFLite Micro's kernel uses for tensor t.
FailureOr<std::pair<double, int64_t>> svScale(Importer &imp, const Tensor &t,
                                              llvm::StringRef what) {
  if (!t.quant || t.quant->scale.empty())
    return imp.fail("SVDF " + what + " tensor " + llvm::Twine(t.index) + " '" + t.name +
                    "' has no quantization parameters");
  if (t.quant->scale.size() != 1)
    return imp.fail("SVDF " + what + " tensor " + llvm::Twine(t.index) + " '" + t.name +
                    "' is quantized per axis; TFLite Micro's SVDF uses one scale per tensor");
  return std::make_pair(static_cast<double>(t.quant->scale[0]),
                        t.quant->zeroPoint.empty() ? int64_t(0) : t.quant->zeroPoint[0]);
}

/// svScale of each (tensor, role) in turn; the first failure stops.
FailureOr<llvm::SmallVector<std::pair<double, int64_t>>>
svScales(Importer &imp, llvm::ArrayRef<std::pair<const Tensor *, llvm::StringRef>> tensors) {
  llvm::SmallVector<std::pair<double, int64_t>> scales;
  for (auto [t, what] : tensors) {
    auto p = svScale(imp, *t, what);
    if (failed(p))
      return mlir::failure();
    scales.push_back(*p);
  }
  return scales;
}

/// Steps (1)+(2): the state shifted by one with the new column [B, F, 1]
/// appended, written back to the variable; returns the new state [B, F, M].
FailureOr<Value> svdfShiftAppend(Importer &imp, int stateIdx, Value col, const SvdfDims &d) {
  FailureOr<Value> sv = imp.value(stateIdx);
  if (failed(sv))
    return mlir::failure();
  Type elem = Importer::elemOf(col);
  Value state = imp.reshape(*sv, {d.batch, d.nFilter, d.memory});
  Value next;
  if (d.memory > 1) {
    Value start = imp.shapeConst({0, 0, 1});
    Value size = imp.shapeConst({d.batch, d.nFilter, d.memory - 1});
    Value old = imp.op("slice", {state, start, size}, {d.batch, d.nFilter, d.memory - 1}, elem);
    next = imp.op("concat", {old, col}, {d.batch, d.nFilter, d.memory}, elem,
                  {imp.i32Attr("axis", 2)});
  } else {
    next = col;
  }
  FailureOr<Value> written =
      imp.stateWrite(stateIdx, imp.reshape(next, {d.batch, d.nFilter * d.memory}));
  if (failed(written))
    return mlir::failure();
  return imp.reshape(*written, {d.batch, d.nFilter, d.memory});
}

NamedAttribute perms(Importer &imp, llvm::ArrayRef<int32_t> p) {
  return imp.attr("perms", mlir::DenseI32ArrayAttr::get(imp.ctx, p));
}

llvm::SmallVector<NamedAttribute, 4> conv1x1Attrs(Importer &imp, Type acc) {
  return {imp.typeAttr("acc_type", acc), imp.i64Array("dilation", {1, 1}),
          imp.i64Array("pad", {0, 0, 0, 0}), imp.i64Array("stride", {1, 1})};
}

FailureOr<OpResults> svdfInt(Importer &imp, const Operator &op, const Tensor &xT,
                             const Tensor &wfT, const Tensor &wtT, const Tensor *biasT,
                             int stateIdx, const Tensor &sT, const Tensor &out,
                             const SvdfDims &d) {
  Type elem = sT.type == kInt8 ? imp.i8 : imp.i16;
  bool isI8 = sT.type == kInt8;
  int64_t units = d.nFilter / d.rank;
  auto scales = svScales(imp, {{&xT, "input"},
                               {&wfT, "feature weights"},
                               {&wtT, "time weights"},
                               {&sT, "state"},
                               {&out, "output"}});
  if (failed(scales))
    return mlir::failure();
  auto [sx, zx] = (*scales)[0];
  auto [swf, zwf] = (*scales)[1];
  auto [swt, zwt] = (*scales)[2];
  auto [ss, zs] = (*scales)[3];
  auto [sy, zy] = (*scales)[4];
  struct ZpCheck {
    const char *what;
    int64_t z;
    bool i8;
  };
  for (ZpCheck c : {ZpCheck{"input", zx, true}, ZpCheck{"state", zs, isI8},
                    ZpCheck{"output", zy, true}}) {
    int64_t lo = c.i8 ? -128 : -32768, hi = c.i8 ? 127 : 32767;
    if (!(lo <= c.z && c.z <= hi))
      return imp.fail("SVDF " + llvm::Twine(c.what) + " zero point " + llvm::Twine(c.z) +
                      " lies outside the " + (c.i8 ? "i8" : "i16") + " range");
  }
  if (zwf != 0 || zwt != 0)
    return imp.fail("SVDF weights with a non-zero zero point are not supported "
                    "(TFLite Micro's kernel ignores it)");
  float sbiasWant = static_cast<float>(ss) * static_cast<float>(swt);
  if (biasT) {
    double sb = (biasT->quant && !biasT->quant->scale.empty())
                    ? static_cast<double>(biasT->quant->scale[0])
                    : 0.0;
    if (!(std::fabs(sb - static_cast<double>(sbiasWant)) < 1e-5))
      return imp.fail("SVDF bias scale " + pyReprF32(static_cast<float>(sb)) +
                      " is not state scale x time weights scale " + pyReprF32(sbiasWant) +
                      " (TFLite Micro's Prepare requires them within 1e-5)");
  }
  double s1 = static_cast<double>(
      (static_cast<float>(sx) * static_cast<float>(swf)) / static_cast<float>(ss));
  double s2 = static_cast<double>(sbiasWant / static_cast<float>(sy));
  FailureOr<Value> xv = imp.value(op.inputs[0]);
  if (failed(xv))
    return mlir::failure();

  // (2) the new column: the feature matmul, requantized to the state's type.
  Value x4 = imp.reshape(*xv, {d.batch, 1, 1, d.nIn});
  Value w = imp.constant(wfT.data<int64_t>().reshape({d.nFilter, 1, 1, d.nIn}), imp.i8);
  Value zeroBias = imp.constant(NdArray<int64_t>::full({d.nFilter}, 0), imp.i32, true);
  Value izp = imp.scalar1(zx, imp.i8);
  Value wzp = imp.scalar1(0, imp.i8);
  Value acc = imp.op("conv2d", {x4, w, zeroBias, izp, wzp}, {d.batch, 1, 1, d.nFilter}, imp.i32,
                     conv1x1Attrs(imp, imp.i32));
  FailureOr<Value> colr = imp.tfliteRequantize(acc, {s1}, 0, 0, elem);
  if (failed(colr))
    return mlir::failure();
  Value col = *colr;
  if (zs) {
    // zs + d stored into T: the int32 sum wraps.
    Value dv = imp.ew("cast", {col}, imp.i32);
    dv = imp.ew("add", {dv, imp.iconst({zs}, {1, 1, 1, 1})}, imp.i32);
    col = imp.ew("cast", {dv}, elem);
  }
  col = imp.reshape(col, {d.batch, d.nFilter, 1});

  // (1) the shifted state with the new column, written back.
  FailureOr<Value> st = svdfShiftAppend(imp, stateIdx, col, d);
  if (failed(st))
    return mlir::failure();
  Value state = *st;

  // (3) time: per filter, sum_m Wt[f, m] * (S[b, f, m] - zs).
  Value t;
  if (isI8 || wtT.type == kInt16) {
    Value a;
    if (d.batch == 1)
      a = imp.reshape(state, {d.nFilter, 1, d.memory});
    else
      a = imp.op("transpose", {state}, {d.nFilter, d.batch, d.memory}, elem,
                 {perms(imp, {1, 0, 2})});
    Value wt = imp.constant(wtT.data<int64_t>().reshape({d.nFilter, d.memory, 1}), elem);
    Type accT = isI8 ? imp.i32 : imp.i48;
    int64_t azp = isI8 ? zs : 0;
    Value azpv = imp.scalar1(azp, elem);
    Value bzpv = imp.scalar1(0, elem);
    t = imp.op("matmul", {a, wt, azpv, bzpv}, {d.nFilter, d.batch, 1}, accT);
    if (accT != imp.i32) {
      t = imp.ew("cast", {t}, imp.i32);
      if (zs) {
        NdArray<int64_t> wts = wtT.data<int64_t>();
        std::vector<int64_t> zterm(d.nFilter);
        for (int64_t f = 0; f < d.nFilter; ++f) {
          int64_t sum = 0;
          for (int64_t m = 0; m < d.memory; ++m)
            sum += wts[f * d.memory + m];
          uint64_t low = static_cast<uint64_t>(zs * sum) & 0xFFFFFFFFu;
          zterm[f] = low >= (uint64_t(1) << 31) ? static_cast<int64_t>(low) - (int64_t(1) << 32)
                                                : static_cast<int64_t>(low);
        }
        t = imp.ew("sub", {t, imp.iconst(zterm, {d.nFilter, 1, 1})}, imp.i32);
      }
    }
    if (d.batch == 1)
      t = imp.reshape(t, {1, d.nFilter});
    else
      t = imp.op("transpose", {imp.reshape(t, {d.nFilter, d.batch})}, {d.batch, d.nFilter},
                 imp.i32, {perms(imp, {1, 0})});
  } else {
    // int16 (tosa.matmul would accumulate i16 in i48): products in i32.
    Value s32 = imp.ew("cast", {state}, imp.i32);
    if (zs)
      s32 = imp.ew("sub", {s32, imp.iconst({zs}, {1, 1, 1})}, imp.i32);
    Value wt = imp.constant(wtT.data<int64_t>().reshape({1, d.nFilter, d.memory}), imp.i32);
    t = imp.ireduce("reduce_sum", imp.tosaMul(s32, wt, imp.i32), 2);
    t = imp.reshape(t, {d.batch, d.nFilter});
  }

  // (4) the rank's sum, the bias, the output requantization.
  t = imp.reshape(t, {d.batch, units, d.rank});
  if (d.rank > 1)
    t = imp.op("reduce_sum", {t}, {d.batch, units, 1}, imp.i32, {imp.i32Attr("axis", 2)});
  t = imp.reshape(t, {d.batch, units});
  if (biasT) {
    Value bias = imp.constant(biasT->data<int64_t>().reshape({1, units}), imp.i32);
    t = imp.op("add", {t, bias}, {d.batch, units}, imp.i32);
  }
  FailureOr<Value> y = imp.tfliteRequantize(t, {s2}, 0, zy, imp.i8);
  if (failed(y))
    return mlir::failure();
  return OpResults{*y};
}

FailureOr<OpResults> svdfFloat(Importer &imp, const Operator &op, const Tensor &wfT,
                               const Tensor &wtT, const Tensor *biasT, int stateIdx,
                               const SvdfDims &d, int act) {
  int64_t units = d.nFilter / d.rank;
  const Tensor &out = imp.tensor(op.outputs[0]);
  if (!(act == 0 || act == 1 || act == 2 || act == 3 || act == kActTanhSvdf))
    return imp.fail("float32 SVDF with fused activation " + llvm::Twine(act) +
                    " (SIGN_BIT) is not supported");
  FailureOr<Value> xv = imp.value(op.inputs[0]);
  if (failed(xv))
    return mlir::failure();

  // (2) the new column: the feature matmul (a 1x1 conv2d).
  Value x4 = imp.reshape(*xv, {d.batch, 1, 1, d.nIn});
  FailureOr<NdArray<float>> wfd = imp.dequantized(wfT);
  if (failed(wfd))
    return mlir::failure();
  Value w = imp.constant(wfd->reshape({d.nFilter, 1, 1, d.nIn}), imp.f32);
  Value zeroBias = imp.constant(NdArray<float>::full({d.nFilter}, 0.0f), imp.f32, true);
  Value zp = imp.scalar1(0.0, imp.f32);
  Value col = imp.op("conv2d", {x4, w, zeroBias, zp, zp}, {d.batch, 1, 1, d.nFilter}, imp.f32,
                     conv1x1Attrs(imp, imp.f32));
  col = imp.reshape(col, {d.batch, d.nFilter, 1});

  // (1) the shifted state with the new column, written back.
  FailureOr<Value> st = svdfShiftAppend(imp, stateIdx, col, d);
  if (failed(st))
    return mlir::failure();
  Value state = *st;

  // (3) time: sum_m Wt[f, m] * S[b, f, m], summed in m's order.
  FailureOr<NdArray<float>> wtd = imp.dequantized(wtT);
  if (failed(wtd))
    return mlir::failure();
  Value t;
  if (d.batch == 1) {
    Value wt = imp.constant(wtd->reshape({d.nFilter, d.memory, 1}), imp.f32);
    Value a = imp.reshape(state, {d.nFilter, 1, d.memory});
    Value azp = imp.scalar1(0.0, imp.f32);
    Value bzp = imp.scalar1(0.0, imp.f32);
    t = imp.op("matmul", {a, wt, azp, bzp}, {d.nFilter, 1, 1}, imp.f32);
  } else {
    Value wt = imp.constant(wtd->reshape({1, d.nFilter, d.memory}), imp.f32);
    Value prod = imp.tosaMul(state, wt, imp.f32);
    t = imp.op("reduce_sum", {prod}, {d.batch, d.nFilter, 1}, imp.f32, {imp.i32Attr("axis", 2)});
  }
  t = imp.reshape(t, {d.batch, units, d.rank});

  // (4) bias + the rank's terms in order, then the fused activation.
  llvm::SmallVector<Value> terms;
  if (d.rank == 1) {
    terms.push_back(t);
  } else {
    for (int64_t r = 0; r < d.rank; ++r) {
      Value start = imp.shapeConst({0, 0, r});
      Value size = imp.shapeConst({d.batch, units, 1});
      terms.push_back(imp.op("slice", {t, start, size}, {d.batch, units, 1}, imp.f32));
    }
  }
  Value y;
  if (biasT) {
    FailureOr<NdArray<float>> bd = imp.dequantized(*biasT);
    if (failed(bd))
      return mlir::failure();
    y = imp.constant(bd->reshape({1, units, 1}), imp.f32);
  }
  for (Value term : terms)
    y = y ? imp.ew("add", {y, term}, imp.f32) : term;
  y = imp.reshape(y, {d.batch, units});
  if (act == kActTanhSvdf)
    return OpResults{imp.ew("tanh", {y}, imp.f32)};
  FailureOr<Value> a = imp.activation(y, act, out);
  if (failed(a))
    return mlir::failure();
  return OpResults{*a};
}

FailureOr<OpResults> importSvdf(Importer &imp, const Operator &op) {
  OptionReader o = op.options();
  int64_t rank = o.i32(0, 0);
  int act = o.i8(1, 0);
  if (op.inputs.size() != 5 || op.outputs.size() != 1)
    return imp.fail("SVDF has " + llvm::Twine(op.inputs.size()) + " inputs and " +
                    llvm::Twine(op.outputs.size()) +
                    " outputs; TFLite Micro's takes 5 (input, feature weights, time weights, "
                    "bias or -1, state) and 1");
  const Tensor &xT = imp.tensor(op.inputs[0]);
  const Tensor &wfT = imp.tensor(op.inputs[1]), &wtT = imp.tensor(op.inputs[2]);
  const Tensor *biasT = op.inputs[3] >= 0 ? &imp.tensor(op.inputs[3]) : nullptr;
  int stateIdx = op.inputs[4];
  const Tensor &sT = imp.tensor(stateIdx);
  const Tensor &out = imp.tensor(op.outputs[0]);

  // Shapes, as TFLite Micro's Prepare checks them.
  if (!wfT.hasData() || !wtT.hasData())
    return imp.fail("SVDF feature and time weights must be constant");
  if (xT.shape.size() != 2 || wfT.shape.size() != 2 || wtT.shape.size() != 2)
    return imp.fail("SVDF needs a 2-D input and 2-D weights, not input " + listRepr(xT.shape) +
                    ", feature weights " + listRepr(wfT.shape) + ", time weights " +
                    listRepr(wtT.shape));
  SvdfDims d;
  d.batch = xT.shape[0];
  d.nIn = xT.shape[1];
  d.nFilter = wtT.shape[0];
  d.memory = wtT.shape[1];
  d.rank = rank;
  if (rank < 1 || d.nFilter % rank || wfT.shape != std::vector<int64_t>{d.nFilter, d.nIn})
    return imp.fail("SVDF shapes do not fit: feature weights " + listRepr(wfT.shape) +
                    ", time weights " + listRepr(wtT.shape) + ", input " + listRepr(xT.shape) +
                    ", rank " + llvm::Twine(rank) + " (need [F, " + llvm::Twine(d.nIn) +
                    "], [F, M] and F a multiple of the rank)");
  int64_t units = d.nFilter / rank;
  if (sT.shape != std::vector<int64_t>{d.batch, d.nFilter * d.memory} ||
      out.shape != std::vector<int64_t>{d.batch, units})
    return imp.fail("SVDF state " + listRepr(sT.shape) + " / output " + listRepr(out.shape) +
                    " do not match [batch, filters * memory] = [" + llvm::Twine(d.batch) +
                    ", " + llvm::Twine(d.nFilter) + " * " + llvm::Twine(d.memory) +
                    "] / [batch, units] = [" + llvm::Twine(d.batch) + ", " +
                    llvm::Twine(units) + "]");
  if (!sT.isVariable)
    return imp.fail("SVDF state tensor " + llvm::Twine(stateIdx) + " '" + sT.name +
                    "' is not a variable tensor (TFLite Micro requires is_variable)");
  if (biasT && (!biasT->hasData() || biasT->numElements() != units))
    return imp.fail("SVDF bias must be a constant tensor of " + llvm::Twine(units) +
                    " values (num_units)");

  // Types.
  if (xT.type == kFloat32) {
    if (!imp.floatMode)
      for (const Tensor *t : {&wfT, &wtT})
        if (t->type != kFloat32)
          return imp.hybridError(*t);
    std::vector<const Tensor *> others = {&sT, &out};
    if (biasT && !imp.floatMode)
      others.push_back(biasT);
    for (const Tensor *t : others)
      if (t->type != kFloat32)
        return imp.fail("float32 SVDF needs a float32 state, output and bias (tensor " +
                        llvm::Twine(t->index) + " '" + t->name + "' is " + t->typeName() +
                        ")");
    return svdfFloat(imp, op, wfT, wtT, biasT, stateIdx, d, act);
  }
  if (imp.floatMode)
    return imp.fail("an integer SVDF is not imported with --float (its state is a "
                    "quantized variable tensor); import it without --float");
  if (xT.type != kInt8)
    return imp.fail("SVDF with " + xT.typeName() +
                    " input is not supported (TFLite Micro runs int8 and float32 SVDF)");
  if (wfT.type != kInt8)
    return imp.fail("int8 SVDF needs int8 feature weights, not " + wfT.typeName());
  if ((wtT.type != kInt8 && wtT.type != kInt16) || sT.type != wtT.type)
    return imp.fail("int8 SVDF needs int8 or int16 time weights and a state of the same "
                    "type (TFLite Micro reads the state as the time weights' type), not "
                    "time weights " +
                    wtT.typeName() + " and state " + sT.typeName());
  if (out.type != kInt8)
    return imp.fail("int8 SVDF needs an int8 output, not " + out.typeName());
  if (biasT && biasT->type != kInt32)
    return imp.fail("int8 SVDF needs an INT32 bias, not " + biasT->typeName());
  return svdfInt(imp, op, xT, wfT, wtT, biasT, stateIdx, sT, out, d);
}

} // namespace

void mlir::serenity::tflite::addSvdfHandlers(HandlerTable &table) { table["SVDF"] = importSvdf; }
