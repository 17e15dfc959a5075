//===- LstmOps.cpp - UNIDIRECTIONAL_SEQUENCE_LSTM -------------------------===//
//
// python/serenity/tflite/ops_lstm.py: TFLite Micro's integer LSTM (int8
// activations and weights, int16 gates and cell state, "8x8->16"), bit for
// bit, with its output (hidden) and cell state kept between invocations as
// TOSA variables (Importer::stateRead / stateWrite); and TFLite Micro's int16
// sigmoid and tanh (the interpolated sigmoid_table_uint16), shared with the
// int16 LOGISTIC / TANH of TableOps.cpp.
//
// See the Python module's docstring for the derivation: one 1x1 conv2d and a
// per-channel DOUBLE_ROUND rescale per FC, the gates' saturating sums, the
// integer sigmoid/tanh as two gathers from 256-entry tables, the cell and
// hidden state updates as tosa.mul and rescales; the time loop unrolled.
//
//===----------------------------------------------------------------------===//

#include "Format.h"
#include "Importer.h"

#include <limits>

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdlib>
#include <string>

using namespace mlir::serenity::tflite;

namespace {

// TFLite's sigmoid_table_uint16 (tensorflow/lite/kernels/internal/common.h):
// sigmoid(i / 24) in 0.16 fixed point, i = 0..255 (kept as data: its entries
// are not a rounding of the formula that could be recomputed).
constexpr int64_t kSigmoidTableUint16[256] = {
    32768, 33451, 34133, 34813, 35493, 36169, 36843, 37513, 38180, 38841, 39498, 40149,
    40794, 41432, 42064, 42688, 43304, 43912, 44511, 45102, 45683, 46255, 46817, 47369,
    47911, 48443, 48964, 49475, 49975, 50464, 50942, 51409, 51865, 52311, 52745, 53169,
    53581, 53983, 54374, 54755, 55125, 55485, 55834, 56174, 56503, 56823, 57133, 57433,
    57724, 58007, 58280, 58544, 58800, 59048, 59288, 59519, 59743, 59959, 60168, 60370,
    60565, 60753, 60935, 61110, 61279, 61441, 61599, 61750, 61896, 62036, 62172, 62302,
    62428, 62549, 62666, 62778, 62886, 62990, 63090, 63186, 63279, 63368, 63454, 63536,
    63615, 63691, 63765, 63835, 63903, 63968, 64030, 64090, 64148, 64204, 64257, 64308,
    64357, 64405, 64450, 64494, 64536, 64576, 64614, 64652, 64687, 64721, 64754, 64786,
    64816, 64845, 64873, 64900, 64926, 64950, 64974, 64997, 65019, 65039, 65060, 65079,
    65097, 65115, 65132, 65149, 65164, 65179, 65194, 65208, 65221, 65234, 65246, 65258,
    65269, 65280, 65291, 65301, 65310, 65319, 65328, 65337, 65345, 65352, 65360, 65367,
    65374, 65381, 65387, 65393, 65399, 65404, 65410, 65415, 65420, 65425, 65429, 65433,
    65438, 65442, 65445, 65449, 65453, 65456, 65459, 65462, 65465, 65468, 65471, 65474,
    65476, 65479, 65481, 65483, 65485, 65488, 65489, 65491, 65493, 65495, 65497, 65498,
    65500, 65501, 65503, 65504, 65505, 65507, 65508, 65509, 65510, 65511, 65512, 65513,
    65514, 65515, 65516, 65517, 65517, 65518, 65519, 65520, 65520, 65521, 65522, 65522,
    65523, 65523, 65524, 65524, 65525, 65525, 65526, 65526, 65526, 65527, 65527, 65528,
    65528, 65528, 65529, 65529, 65529, 65529, 65530, 65530, 65530, 65530, 65531, 65531,
    65531, 65531, 65531, 65532, 65532, 65532, 65532, 65532, 65532, 65533, 65533, 65533,
    65533, 65533, 65533, 65533, 65533, 65534, 65534, 65534, 65534, 65534, 65534, 65534,
    65534, 65534, 65534, 65535,
};

constexpr int kActTanhCell = 4;
constexpr int64_t kInt16Min = -(int64_t(1) << 15), kInt16Max = (int64_t(1) << 15) - 1;
constexpr double kGatePreScale = 1.0 / 4096.0;  // 2^-12: the gates' pre-activation, Q3.12
constexpr double kGateOutScale = 1.0 / 32768.0; // 2^-15: their activation, Q0.15
// The 24 inputs (lstm_shared.h).
constexpr int kX = 0;
constexpr int kWIn[4] = {1, 2, 3, 4};
constexpr int kWRec[4] = {5, 6, 7, 8};
constexpr int kPeephole[3] = {9, 10, 11};
constexpr int kBias[4] = {12, 13, 14, 15};
constexpr int kProjection[2] = {16, 17};
constexpr int kHState = 18;
constexpr int kCState = 19;
constexpr int kLayerNorm[4] = {20, 21, 22, 23};

/// Python's ACT_NAMES.get(act, act).
std::string actName(int act) {
  static const char *const names[] = {"NONE", "RELU", "RELU_N1_TO_1", "RELU6", "TANH",
                                      "SIGN_BIT"};
  if (act >= 0 && act <= 5)
    return names[act];
  return std::to_string(act);
}

//===----------------------------------------------------------------------===//
// TFLite Micro's int16 sigmoid and tanh (module-level helpers)
//===----------------------------------------------------------------------===//

/// The kernels' power-of-two case: multiplier 0 means `3 << leftShift`, no shift.
std::pair<int64_t, int64_t> normalized(int64_t multiplier, int64_t leftShift) {
  if (multiplier == 0)
    return {int64_t(3) << leftShift, 0};
  return {multiplier, leftShift};
}

/// (base, slope) for a = |v| < 255 << stepBits: base[k] = T[k] << stepBits,
/// slope[k] = T[k+1] - T[k]; entry 255 the saturated value with slope 0.
std::pair<std::vector<int64_t>, std::vector<int64_t>> interpolationTables(int64_t stepBits,
                                                                          int64_t saturated) {
  std::vector<int64_t> base(256), slope(256);
  for (int k = 0; k < 255; ++k) {
    base[k] = kSigmoidTableUint16[k] << stepBits;
    slope[k] = kSigmoidTableUint16[k + 1] - kSigmoidTableUint16[k];
  }
  base[255] = saturated;
  slope[255] = 0;
  return {base, slope};
}

/// TFLite's CheckedLog2 result: round(logf(x) * (1 / logf(2))) in float32.
int64_t checkedLog2(double x) {
  float v = std::log(static_cast<float>(x)) * (1.0f / std::log(2.0f));
  return static_cast<int64_t>(std::floor(std::fabs(static_cast<double>(v)) + 0.5)) *
         (v >= 0 ? 1 : -1);
}

/// (multiplier, left shift) lstm_internal::Tanh passes for the cell state.
std::pair<int64_t, int64_t> cellTanhParams(int64_t cellScalePower) {
  int64_t shift = 15 + cellScalePower - 3;
  if (shift < 0)
    return {3, -shift};
  return {0, shift};
}

/// The input multiplier the int16 kernels' integer formula cannot hold in
/// int32 (Python's _lstm_interpolate error), or 0.
int64_t overflowingMultiplier(int64_t multiplier, int64_t leftShift) {
  if (multiplier == 0 && (leftShift < 0 || leftShift > 32)) // 3 << 32 overflows anyway
    return std::numeric_limits<int64_t>::max();
  auto [m, s] = normalized(multiplier, leftShift);
  (void)s;
  if (m * (int64_t(1) << 15) + (int64_t(1) << 14) >= int64_t(1) << 31)
    return m;
  return 0;
}

//===----------------------------------------------------------------------===//
// Building blocks
//===----------------------------------------------------------------------===//

/// v >> 31: -1 where v < 0, else 0 (i32).
Value lstmSign(Importer &imp, Value v) {
  return imp.ew("arithmetic_right_shift", {v, imp.ic(31, Importer::rankOf(v))}, imp.i32,
                {imp.boolAttr("round", false)});
}

/// (v, r): the scaled input v of the int16 Logistic/Tanh kernels and their
/// interpolated table value r (i32 tensors of shape [1, n, 1]); x holds int16
/// values, as i16 or in i32. The caller has checked the multiplier
/// (overflowingMultiplier).
std::pair<Value, Value> lstmInterpolate(Importer &imp, Value x, int64_t multiplier,
                                        int64_t leftShift, int64_t stepBits, int64_t saturated) {
  int64_t total = product(Importer::shapeOf(x));
  auto [mm, ss] = normalized(multiplier, leftShift);
  const int64_t m = mm, s = ss;
  assert(!overflowingMultiplier(multiplier, leftShift) &&
         "int16 sigmoid/tanh input multiplier overflows int32");
  int64_t top = int64_t(255) << stepBits;
  bool clampTop = (((m << 15) + (s ? (int64_t(1) << (s - 1)) : 0)) >> s) >= top;

  auto scaledAbs = [&](Value xv) -> std::pair<Value, Value> {
    int64_t rank = Importer::rankOf(xv);
    if (Importer::elemOf(xv) != imp.i32)
      xv = imp.ew("cast", {xv}, imp.i32);
    Value v = imp.tosaMul(xv, imp.ic(m, rank), imp.i32, 0);
    if (s > 0) {
      Value rnd = imp.ic(int64_t(1) << (s - 1), rank);
      Value sum = imp.ew("add", {v, rnd}, imp.i32);
      Value sh = imp.ic(s, rank);
      v = imp.ew("arithmetic_right_shift", {sum, sh}, imp.i32, {imp.boolAttr("round", false)});
    }
    Value a = imp.ew("abs", {v}, imp.i32);
    if (clampTop)
      a = imp.ew("minimum", {a, imp.ic(top, rank)}, imp.i32);
    return {v, a};
  };

  Value a2 = scaledAbs(imp.reshape(x, {1, total})).second;
  Value hi = imp.ew("arithmetic_right_shift", {a2, imp.ic(stepBits, 2)}, imp.i32,
                    {imp.boolAttr("round", false)});
  auto [v, a] = scaledAbs(imp.reshape(x, {1, total, 1}));
  Value lo = imp.ew("bitwise_and", {a, imp.ic((int64_t(1) << stepBits) - 1, 3)}, imp.i32);
  auto [base, slope] = interpolationTables(stepBits, saturated);
  Value gBase = imp.gatherRows(imp.iconst(base, {1, 256, 1}), hi);
  Value gSlope = imp.gatherRows(imp.iconst(slope, {1, 256, 1}), hi);
  Value prod = imp.tosaMul(lo, gSlope, imp.i32, 0);
  Value r = imp.ew("add", {gBase, prod}, imp.i32);
  return {v, r};
}

/// (v, (r + 2^(shift - 1)) >> shift): lstmInterpolate's scaled input v and
/// its interpolated value r rounded to `shift` fewer bits (i32, [1, n, 1]); the
/// common start of tflmSigmoid16 / tflmTanh16.
std::pair<Value, Value> lstmRoundedInterpolate(Importer &imp, Value x, int64_t multiplier,
                                               int64_t leftShift, int64_t stepBits,
                                               int64_t saturated, int64_t shift) {
  const int64_t rank = 3;
  auto [v, r] = lstmInterpolate(imp, x, multiplier, leftShift, stepBits, saturated);
  Value sum = imp.ew("add", {r, imp.ic(int64_t(1) << (shift - 1), rank)}, imp.i32);
  Value p = imp.ew("arithmetic_right_shift", {sum, imp.ic(shift, rank)}, imp.i32,
                   {imp.boolAttr("round", false)});
  return {v, p};
}

/// (p ^ s) + (s & k) with the sign mask s = v >> 31, as elem in the shape of
/// x: the tail of tflmSigmoid16 / tflmTanh16.
Value lstmSignFix(Importer &imp, Value x, Value v, Value p, int64_t k, Type elem) {
  const int64_t rank = 3;
  Value sign = lstmSign(imp, v);
  Value xr = imp.ew("bitwise_xor", {p, sign}, imp.i32);
  Value an = imp.ew("bitwise_and", {sign, imp.ic(k, rank)}, imp.i32);
  Value y = imp.ew("add", {xr, an}, imp.i32);
  if (elem != imp.i32)
    y = imp.ew("cast", {y}, elem);
  return imp.reshape(y, Importer::shapeOf(x));
}

} // namespace

//===----------------------------------------------------------------------===//
// Cross-family members
//===----------------------------------------------------------------------===//

Value Importer::tflmSigmoid16(Value x, int64_t multiplier, int64_t leftShift, Type elem) {
  auto [v, p] =
      lstmRoundedInterpolate(*this, x, multiplier, leftShift, 9, int64_t(0x7FFF) << 10, 10);
  // v < 0: 32768 - p = (p ^ -1) + 32769; with the sign mask s = v >> 31 (0 or
  // -1) that is (p ^ s) + (s & 32769), which reads p once.
  return lstmSignFix(*this, x, v, p, 32769, elem ? elem : i32);
}

Value Importer::tflmTanh16(Value x, int64_t multiplier, int64_t leftShift, Type elem) {
  auto [v, shifted] =
      lstmRoundedInterpolate(*this, x, multiplier, leftShift, 8, int64_t(0xFFFF) << 8, 8);
  Value q = ew("sub", {shifted, ic(32768, 3)}, i32);
  // v < 0: -q = (q ^ s) + (s & 1) with s = v >> 31 (see tflmSigmoid16).
  return lstmSignFix(*this, x, v, q, 1, elem ? elem : i32);
}

namespace {

/// [N, K] int8 x [OC, K] int8 (+ bias) -> [N, 1, 1, OC] int16: TFLM's integer
/// FullyConnected to an int16 output of zero point 0 (a 1x1 conv2d, one
/// per-channel DOUBLE_ROUND rescale).
FailureOr<Value> lstmFc(Importer &imp, Value x, const NdArray<int64_t> &w,
                        const NdArray<int64_t> &bias, int64_t zp, double scale) {
  llvm::SmallVector<int64_t> xs = Importer::shapeOf(x);
  int64_t n = xs[0], k = xs[1];
  int64_t oc = w.shape[0];
  Value x4 = imp.reshape(x, {n, 1, 1, k});
  Value wc = imp.constant(w.reshape({oc, 1, 1, k}), imp.i8);
  Value bc = imp.constant(bias, imp.i32, /*cache=*/true);
  Value izp = imp.scalar1(zp, imp.i8);
  Value wzp = imp.scalar1(0, imp.i8);
  Value acc = imp.op("conv2d", {x4, wc, bc, izp, wzp}, {n, 1, 1, oc}, imp.i32,
                     {imp.typeAttr("acc_type", imp.i32), imp.i64Array("dilation", {1, 1}),
                      imp.i64Array("pad", {0, 0, 0, 0}), imp.i64Array("stride", {1, 1})});
  return imp.tfliteRequantize(acc, {scale}, 0, 0, imp.i16);
}

struct LstmOptions {
  float clip;
  bool timeMajor;
};

/// The variant checks of TFLM's Prepare and what this import supports.
FailureOr<LstmOptions> lstmCheck(Importer &imp, const Operator &op) {
  if (op.inputs.size() != 24 || op.outputs.size() != 1)
    return imp.fail("UNIDIRECTIONAL_SEQUENCE_LSTM needs 24 inputs and 1 output (TFLite "
                    "Micro's requirement), not " +
                    llvm::Twine(op.inputs.size()) + " and " + llvm::Twine(op.outputs.size()));
  const std::vector<int> &ins = op.inputs;
  for (int i : kPeephole)
    if (ins[i] >= 0)
      return imp.fail("LSTM with peephole connections is not supported (TFLite Micro "
                      "supports only the standard LSTM)");
  for (int i : kProjection)
    if (ins[i] >= 0)
      return imp.fail("LSTM with a projection layer is not supported (TFLite Micro "
                      "supports only the standard LSTM)");
  for (int i : kLayerNorm)
    if (ins[i] >= 0)
      return imp.fail("LSTM with layer normalization is not supported (TFLite Micro "
                      "supports only the standard LSTM)");
  if (ins[kWIn[0]] < 0 || ins[kWRec[0]] < 0 || ins[kBias[0]] < 0)
    return imp.fail("LSTM without input gate (CIFG, coupled input and forget gates) "
                    "is not supported (TFLite Micro supports only the standard LSTM)");
  {
    std::vector<int> required = {kX, kHState, kCState};
    required.insert(required.end(), std::begin(kWIn), std::end(kWIn));
    required.insert(required.end(), std::begin(kWRec), std::end(kWRec));
    required.insert(required.end(), std::begin(kBias), std::end(kBias));
    for (int i : required)
      if (ins[i] < 0)
        return imp.fail("LSTM input " + llvm::Twine(i) + " is missing");
  }
  OptionReader o = op.options();
  int act = o.i8(0);
  float clip = o.f32(1);
  bool timeMajor = o.boolean(3);
  if (act != kActTanhCell)
    return imp.fail("LSTM cell gate activation " + actName(act) +
                    " is not supported: TFLite Micro's kernel aborts for anything but TANH");
  const Tensor &xt = imp.tensor(ins[kX]);
  if (imp.floatMode || xt.type == kFloat32) {
    const Tensor &wt = imp.tensor(ins[kWIn[1]]);
    if (wt.type != kFloat32 && !imp.floatMode)
      return imp.hybridError(wt);
    return imp.fail("float32 LSTM is not supported (the importer keeps integer "
                    "persistent state only); int8 LSTM (8x8->16) is");
  }
  if (xt.type == kInt16)
    return imp.fail("LSTM with int16 activations (16x8, int64 biases) is not "
                    "supported; int8 activations (8x8->16) are");
  if (xt.type != kInt8)
    return imp.fail("LSTM input type " + xt.typeName() + " is not supported (int8 is)");
  for (const int *group : {kWIn, kWRec}) {
    for (int j = 0; j < 4; ++j) {
      const Tensor &t = imp.tensor(ins[group[j]]);
      std::string id = "LSTM weight tensor " + std::to_string(t.index) + " '" + t.name + "'";
      if (t.type != kInt8)
        return imp.fail(id + " has type " + t.typeName() +
                        "; int8 activations need INT8 weights (TFLite Micro's 8x8->16 kernel)");
      if (!t.hasData())
        return imp.fail(id + " must be constant");
      auto qp = imp.qparams(t);
      if (failed(qp))
        return mlir::failure();
      if (qp->first.size() != 1)
        return imp.fail(id + " is quantized per channel; TFLite Micro's LSTM uses one "
                             "multiplier per gate (per-tensor weight scales)");
      if (!qp->second.empty() && qp->second[0] != 0)
        return imp.fail(id + " has a non-zero zero point");
    }
  }
  for (int i : kBias) {
    const Tensor &t = imp.tensor(ins[i]);
    if (t.type != kInt32 || !t.hasData())
      return imp.fail("LSTM bias tensor " + llvm::Twine(t.index) + " '" + t.name +
                      "' must be a constant INT32 tensor");
  }
  const Tensor &ht = imp.tensor(ins[kHState]), &ct = imp.tensor(ins[kCState]);
  struct StateCheck {
    const Tensor *t;
    const char *what;
    int type;
  };
  for (StateCheck sc : {StateCheck{&ht, "output state", kInt8},
                        StateCheck{&ct, "cell state", kInt16}}) {
    const Tensor &t = *sc.t;
    std::string id = std::string("LSTM ") + sc.what + " tensor " + std::to_string(t.index) +
                     " '" + t.name + "'";
    if (!t.isVariable)
      return imp.fail(id + " is not a variable tensor (TFLite Micro requires it)");
    if (t.type != sc.type)
      return imp.fail(id + " has type " + t.typeName() +
                      "; TFLite Micro's integer LSTM needs " +
                      (sc.type == kInt8 ? "INT8" : "INT16"));
  }
  const Tensor &out = imp.tensor(op.outputs[0]);
  if (out.type != kInt8)
    return imp.fail("LSTM output type " + out.typeName() + " differs from the input's INT8");
  return LstmOptions{clip, timeMajor};
}

FailureOr<OpResults> importUnidirectionalSequenceLstm(Importer &imp, const Operator &op) {
  FailureOr<LstmOptions> checked = lstmCheck(imp, op);
  if (failed(checked))
    return mlir::failure();
  float clip = checked->clip;
  bool timeMajor = checked->timeMajor;
  const std::vector<int> &ins = op.inputs;
  const Tensor &xt = imp.tensor(ins[kX]), &ht = imp.tensor(ins[kHState]),
               &ct = imp.tensor(ins[kCState]);
  const Tensor &out = imp.tensor(op.outputs[0]);
  if (xt.shape.size() != 3 || ht.shape.size() != 2 || out.shape.size() != 3)
    return imp.fail("LSTM needs a 3-D input and output and a 2-D output state, not " +
                    listRepr(xt.shape) + ", " + listRepr(out.shape) + " and " +
                    listRepr(ht.shape));
  int64_t steps = timeMajor ? xt.shape[0] : xt.shape[1];
  int64_t batch = timeMajor ? xt.shape[1] : xt.shape[0];
  int64_t nIn = xt.shape[2], units = ht.shape[1];
  std::vector<const Tensor *> wIn, wRec, biases;
  for (int g = 0; g < 4; ++g) {
    wIn.push_back(&imp.tensor(ins[kWIn[g]]));
    wRec.push_back(&imp.tensor(ins[kWRec[g]]));
    biases.push_back(&imp.tensor(ins[kBias[g]]));
  }
  {
    std::vector<std::pair<const Tensor *, std::vector<int64_t>>> expected;
    for (const Tensor *t : wIn)
      expected.push_back({t, {units, nIn}});
    for (const Tensor *t : wRec)
      expected.push_back({t, {units, units}});
    for (const Tensor *t : biases)
      expected.push_back({t, {units}});
    for (auto &[t, shape] : expected)
      if (t->shape != shape)
        return imp.fail("LSTM tensor " + llvm::Twine(t->index) + " '" + t->name +
                        "' has shape " + listRepr(t->shape) + ", expected " + listRepr(shape));
  }
  if (product(ht.shape) != batch * units || product(ct.shape) != batch * units)
    return imp.fail("LSTM state tensors " + listRepr(ht.shape) + " and " + listRepr(ct.shape) +
                    " do not hold " + llvm::Twine(batch) + " x " + llvm::Twine(units) +
                    " values");
  if (out.shape[0] != xt.shape[0] || out.shape[1] != xt.shape[1] || out.shape[2] != units)
    return imp.fail("LSTM output shape " + listRepr(out.shape) + " does not match the input " +
                    listRepr(xt.shape) + " and " + llvm::Twine(units) + " units");
  auto px = imp.perTensor(xt);
  if (failed(px))
    return mlir::failure();
  auto ph = imp.perTensor(ht);
  if (failed(ph))
    return mlir::failure();
  auto pc = imp.perTensor(ct); // TFLM reads the cell state as symmetric
  if (failed(pc))
    return mlir::failure();
  double sX = px->first, sH = ph->first, sC = pc->first;
  int64_t zX = px->second, zH = ph->second;

  // GetQuantizedConvolutionMultipler: the scale product in float32, then double.
  auto fcScale = [](double sA, const Tensor &wt) {
    float p = static_cast<float>(sA) * wt.quant->scale[0];
    return static_cast<double>(p) / static_cast<double>(static_cast<float>(kGatePreScale));
  };
  struct Gate {
    NdArray<int64_t> wX, wH, bias;
    double scX, scH;
  };
  std::vector<Gate> gates;
  for (int g = 0; g < 4; ++g) {
    // astype(np.int8) / astype(np.int32): the tensors are INT8 / INT32 (checked).
    NdArray<int64_t> b = biases[g]->data<int64_t>();
    gates.push_back({wIn[g]->data<int64_t>(), wRec[g]->data<int64_t>(),
                     b.reshape({-1}), fcScale(sX, *wIn[g]), fcScale(sH, *wRec[g])});
  }
  if (!(sC > 0) || !(sH > 0)) // zero in a damaged file: log2 and quotients below
    return imp.fail("the cell and output state scales must be positive");
  // Inter-gate multipliers (CreateInterGateMulParams, double products).
  double sCf = static_cast<double>(static_cast<float>(sC));
  double mForget = kGateOutScale * sCf / sCf;
  double mInput = kGateOutScale * kGateOutScale / sCf;
  double mHidden = kGateOutScale * kGateOutScale / static_cast<double>(static_cast<float>(sH));
  int64_t power = checkedLog2(sC);
  auto [tanhM, tanhS] = cellTanhParams(power);
  int64_t lo = kInt16Min, hi = kInt16Max;
  if (clip > 0) {
    double qd = std::min(std::max(static_cast<double>(clip) / sCf, -32768.0), 32767.0);
    int64_t q = static_cast<int64_t>(qd); // truncation
    lo = std::max(lo, -q);
    hi = std::min(hi, q);
  }

  FailureOr<Value> xv = imp.value(ins[kX]);
  if (failed(xv))
    return mlir::failure();
  Value x = *xv;
  FailureOr<Value> hv = imp.value(ins[kHState]);
  if (failed(hv))
    return mlir::failure();
  Value h = imp.reshape(*hv, {batch, units});
  // Gate values and the cell state are int16: computed in i32, stored as i16.
  FailureOr<Value> cv = imp.value(ins[kCState]);
  if (failed(cv))
    return mlir::failure();
  Value c16 = imp.reshape(*cv, {batch, units});

  auto wide = [&](Value v) { return imp.ew("cast", {v}, imp.i32); };
  auto narrow = [&](Value v) { return imp.ew("cast", {v}, imp.i16); };
  NdArray<int64_t> zeroBias = NdArray<int64_t>::full({units}, 0);

  llvm::SmallVector<Value> outs;
  for (int64_t t = 0; t < steps; ++t) {
    Value xs = timeMajor ? imp.sliceOp(x, {t, 0, 0}, {1, batch, nIn})
                         : imp.sliceOp(x, {0, t, 0}, {batch, 1, nIn});
    xs = imp.reshape(xs, {batch, nIn});
    // One gate at a time, as TFLite Micro computes them.
    Value act[4];
    for (int g = 0; g < 4; ++g) {
      const Gate &gate = gates[g];
      FailureOr<Value> gx = lstmFc(imp, xs, gate.wX, gate.bias, zX, gate.scX);
      if (failed(gx))
        return mlir::failure();
      FailureOr<Value> gh = lstmFc(imp, h, gate.wH, zeroBias, zH, gate.scH);
      if (failed(gh))
        return mlir::failure();
      Value wx = wide(*gx);
      Value wh = wide(*gh);
      Value sum = imp.ew("add", {wx, wh}, imp.i32);
      Value pre = imp.reshape(narrow(imp.iclamp(sum, kInt16Min, kInt16Max)), {batch, units});
      act[g] = g == 2 ? imp.tflmTanh16(pre, 0, 0, imp.i16)
                      : imp.tflmSigmoid16(pre, 0, 0, imp.i16);
    }
    Value ig = wide(act[0]);
    Value fg = wide(act[1]);
    Value cg = act[2];
    Value og = wide(act[3]);
    // The cell state.
    Value wc = wide(c16);
    FailureOr<Value> fc = imp.tfliteRequantize(imp.tosaMul(fg, wc, imp.i32, 0), {mForget}, 0, 0,
                                               imp.i16);
    if (failed(fc))
      return mlir::failure();
    Value wcg = wide(cg);
    FailureOr<Value> icv = imp.tfliteRequantize(imp.tosaMul(ig, wcg, imp.i32, 0), {mInput}, 0,
                                                0, imp.i16);
    if (failed(icv))
      return mlir::failure();
    Value wfc = wide(*fc);
    Value wic = wide(*icv);
    Value c = imp.ew("add", {wfc, wic}, imp.i32);
    c16 = narrow(imp.iclamp(c, lo, hi));
    // The hidden state.
    if (int64_t m = overflowingMultiplier(tanhM, tanhS))
      return imp.fail("int16 sigmoid/tanh input multiplier " + llvm::Twine(m) +
                      " overflows int32");
    Value th = imp.tflmTanh16(c16, tanhM, tanhS, imp.i16);
    Value wth = wide(th);
    FailureOr<Value> hq =
        imp.tfliteRequantize(imp.tosaMul(wth, og, imp.i32, 0), {mHidden}, 0, zH, imp.i8);
    if (failed(hq))
      return mlir::failure();
    h = *hq;
    outs.push_back(imp.reshape(h, timeMajor ? llvm::SmallVector<int64_t>{1, batch, units}
                                            : llvm::SmallVector<int64_t>{batch, 1, units}));
  }
  Value y = imp.concatOp(outs, timeMajor ? 0 : 1);
  // The final output and cell state to the state variables.
  if (failed(imp.stateWrite(ins[kHState], imp.reshape(h, ht.shape))))
    return mlir::failure();
  if (failed(imp.stateWrite(ins[kCState], imp.reshape(c16, ct.shape))))
    return mlir::failure();
  return OpResults{y};
}

} // namespace

void mlir::serenity::tflite::addLstmHandlers(HandlerTable &table) {
  table["UNIDIRECTIONAL_SEQUENCE_LSTM"] = importUnidirectionalSequenceLstm;
}
