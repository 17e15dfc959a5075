//===- Importer.cpp - TFLite to TOSA importer: state and run() ------------===//
//
// The importer's core (python/serenity/tflite/importer.py, mlir_text.py):
// constants and ops at the end of @main, tensor values, persistent state as
// tosa.variable, the shared helpers of the operator families, and the walk
// over subgraph 0 that calls one handler per operator.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"
#include "Format.h"
#include "Quant.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/Diagnostics.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <cmath>
#include <sstream>

using namespace mlir;
using namespace mlir::serenity::tflite;


std::string mlir::serenity::tflite::activationName(int act) {
  switch (act) {
  case kActNone: return "NONE";
  case kActRelu: return "RELU";
  case kActReluN1To1: return "RELU_N1_TO_1";
  case kActRelu6: return "RELU6";
  case kActTanh: return "TANH";
  case kActSignBit: return "SIGN_BIT";
  case kActSigmoid: return "SIGMOID";
  default: return std::to_string(act);
  }
}

const HandlerTable &mlir::serenity::tflite::handlerTable() {
  static const HandlerTable table = [] {
    HandlerTable t;
    // The order of the Python mixins: a later family's entry replaces an
    // earlier one (ElementwiseOps' broadcasting ADD wraps the core's).
    addCoreHandlers(t);
    addShapeHandlers(t);
    addElementwiseHandlers(t);
    addTableHandlers(t);
    addReduceHandlers(t);
    addSvdfHandlers(t);
    addLstmHandlers(t);
    return t;
  }();
  return table;
}

std::vector<std::string> mlir::serenity::tflite::supportedOperators() {
  std::vector<std::string> names;
  for (const auto &kv : handlerTable())
    names.push_back(kv.first);
  return names; // std::map: sorted
}

//===----------------------------------------------------------------------===//
// Construction
//===----------------------------------------------------------------------===//

Importer::Importer(const Model &model, llvm::StringRef fileName, MLIRContext *context,
                   const ImportOptions &options)
    : model(model), sg(model.subgraphs[0]), fileName(fileName.str()), ctx(context), b(context),
      canonicalize(options.canonicalize), roundingName(options.rounding),
      loc(FileLineColLoc::get(context, fileName, 0, 0)), onlyOp(options.onlyOp) {
  bool quantized = llvm::any_of(sg.tensors, [](const Tensor &t) {
    return t.type == kInt8 || t.type == kInt16 || t.type == kUInt8;
  });
  floatMode = options.floatMode || !quantized;
  rounding = options.rounding == "single" ? "SINGLE_ROUND" : "DOUBLE_ROUND";
  emulate = options.rounding == "armnn";
  tfliteExact = options.rounding == "double";
  outputs = options.outputs.empty() ? sg.outputs : options.outputs;
  i1 = b.getI1Type();
  i8 = b.getIntegerType(8);
  i16 = b.getIntegerType(16);
  i32 = b.getIntegerType(32);
  i48 = b.getIntegerType(48);
  i64 = b.getIntegerType(64);
  f32 = b.getF32Type();
  for (const Operator &o : sg.operators)
    for (int i : o.inputs)
      if (i >= 0)
        consumers[i].push_back(&o);
  std::map<int, const Operator *> producers;
  for (const Operator &o : sg.operators)
    for (int t : o.outputs)
      producers[t] = &o;
  for (int i : sg.inputs) {
    auto it = consumers.find(i);
    if (tensor(i).type == kUInt8 && it != consumers.end() && !it->second.empty() &&
        llvm::all_of(it->second, [](const Operator *o) { return o->name() == "QUANTIZE"; }))
      uint8Edges.insert(i);
  }
  for (int i : sg.outputs) {
    auto it = producers.find(i);
    if (tensor(i).type == kUInt8 && it != producers.end() && it->second->name() == "QUANTIZE" &&
        !consumers.count(i))
      uint8Edges.insert(i);
  }
}

//===----------------------------------------------------------------------===//
// Building IR
//===----------------------------------------------------------------------===//

llvm::SmallVector<int64_t> Importer::shapeOf(Value v) {
  auto t = cast<RankedTensorType>(v.getType());
  return llvm::SmallVector<int64_t>(t.getShape());
}

Type Importer::elemOf(Value v) { return cast<RankedTensorType>(v.getType()).getElementType(); }

RankedTensorType Importer::tensorType(llvm::ArrayRef<int64_t> shape, Type elem) const {
  return RankedTensorType::get(shape, elem);
}

Type Importer::type(llvm::StringRef spelling) const {
  return llvm::StringSwitch<Type>(spelling)
      .Case("i1", i1)
      .Case("i8", i8)
      .Case("i16", i16)
      .Case("i32", i32)
      .Case("i48", i48)
      .Case("i64", i64)
      .Case("f32", f32)
      .Default(Type());
}

Value Importer::constant(DenseElementsAttr attr, bool cache) {
  if (cache) {
    auto it = constCache.find(attr);
    if (it != constCache.end())
      return it->second;
  }
  Value v = op("const", {}, attr.getType().getShape(), attr.getElementType(),
               {this->attr("values", attr)});
  if (cache)
    constCache[attr] = v;
  return v;
}

namespace {
template <typename T>
DenseElementsAttr denseOf(const NdArray<T> &values, RankedTensorType type) {
  Type elem = type.getElementType();
  if (elem.isInteger(1)) {
    llvm::SmallVector<bool> bits;
    for (T v : values.data)
      bits.push_back(v != 0);
    return DenseElementsAttr::get(type, bits);
  }
  if (auto it = dyn_cast<IntegerType>(elem)) {
    llvm::SmallVector<APInt> ints;
    for (T v : values.data)
      ints.push_back(APInt(it.getWidth(), static_cast<uint64_t>(static_cast<int64_t>(v)),
                           /*isSigned=*/false, /*implicitTrunc=*/true));
    return DenseElementsAttr::get(type, ints);
  }
  llvm::SmallVector<APFloat> floats;
  for (T v : values.data)
    floats.push_back(APFloat(static_cast<float>(v)));
  return DenseElementsAttr::get(type, floats);
}
} // namespace

Value Importer::constant(const NdArray<int64_t> &values, Type elem, bool cache) {
  return constant(denseOf(values, tensorType(values.shape, elem)), cache);
}
Value Importer::constant(const NdArray<double> &values, Type elem, bool cache) {
  return constant(denseOf(values, tensorType(values.shape, elem)), cache);
}
Value Importer::constant(const NdArray<float> &values, Type elem, bool cache) {
  return constant(denseOf(values, tensorType(values.shape, elem)), cache);
}

Value Importer::scalar1(double value, Type elem) {
  if (isa<FloatType>(elem))
    return constant(NdArray<double>({1}, {value}), elem, /*cache=*/true);
  return constant(NdArray<int64_t>({1}, {static_cast<int64_t>(value)}), elem, /*cache=*/true);
}

Value Importer::shapeConst(llvm::ArrayRef<int64_t> dims) {
  std::vector<int64_t> key(dims.begin(), dims.end());
  auto it = shapeCache.find(key);
  if (it != shapeCache.end())
    return it->second;
  int64_t n = dims.size();
  auto values = DenseIntElementsAttr::get(RankedTensorType::get({n}, b.getIndexType()), dims);
  Operation *o = opN("const_shape", {}, {tosa::shapeType::get(ctx, n)}, {attr("values", values)});
  shapeCache[key] = o->getResult(0);
  return o->getResult(0);
}

Operation *Importer::opN(llvm::StringRef name, ValueRange operands, TypeRange results,
                         llvm::ArrayRef<NamedAttribute> attrs) {
  OperationState state(loc, ("tosa." + name).str());
  state.addOperands(operands);
  state.addTypes(results);
  state.addAttributes(attrs);
  return b.create(state);
}

Value Importer::op(llvm::StringRef name, ValueRange operands, llvm::ArrayRef<int64_t> shape,
                   Type elem, llvm::ArrayRef<NamedAttribute> attrs) {
  return opN(name, operands, {tensorType(shape, elem)}, attrs)->getResult(0);
}

NamedAttribute Importer::attr(llvm::StringRef name, Attribute value) {
  return NamedAttribute(StringAttr::get(ctx, name), value);
}
NamedAttribute Importer::i64Array(llvm::StringRef name, llvm::ArrayRef<int64_t> values) {
  return attr(name, DenseI64ArrayAttr::get(ctx, values));
}
NamedAttribute Importer::i32Attr(llvm::StringRef name, int64_t value) {
  return attr(name, IntegerAttr::get(i32, value));
}
NamedAttribute Importer::boolAttr(llvm::StringRef name, bool value) {
  return attr(name, BoolAttr::get(ctx, value));
}
NamedAttribute Importer::typeAttr(llvm::StringRef name, Type value) {
  return attr(name, TypeAttr::get(value));
}
NamedAttribute Importer::roundingModeAttr(llvm::StringRef mode) {
  auto m = tosa::symbolizeRoundingMode(mode);
  assert(m && "unknown rounding mode");
  return attr("rounding_mode", tosa::RoundingModeAttr::get(ctx, *m));
}
TypedAttr Importer::number(double value, Type elem) {
  if (isa<FloatType>(elem))
    return FloatAttr::get(elem, value);
  return IntegerAttr::get(elem, static_cast<int64_t>(value));
}
llvm::SmallVector<NamedAttribute, 2> Importer::clampAttrs(double lo, double hi, Type elem) {
  return {attr("max_val", number(hi, elem)), attr("min_val", number(lo, elem))};
}

//===----------------------------------------------------------------------===//
// Diagnostics
//===----------------------------------------------------------------------===//

LogicalResult Importer::fail(const llvm::Twine &msg) {
  if (currentOp) {
    InFlightDiagnostic diag = emitError(loc) << "operator " << currentOp->index << " ("
                                             << currentOp->name() << "): " << msg;
    // The location's name (file, index, builtin, output tensor) as a note:
    // the file position alone cannot say which operator it is.
    if (auto name = dyn_cast<NameLoc>(loc))
      diag.attachNote() << "at " << name.getName().getValue();
  } else
    emitError(loc) << msg;
  return failure();
}

LogicalResult Importer::hybridError(const Tensor &wt) {
  return fail("hybrid operator: float32 activations with " + wt.typeName() +
              " weights (tensor " + std::to_string(wt.index) + " '" + wt.name +
              "'). TFLite Micro does not run hybrid models either; import it as a float "
              "model with dequantized weights (import-tflite --float, serenity-compile "
              "--float), or convert it with full-integer quantization");
}

//===----------------------------------------------------------------------===//
// Tensors and values
//===----------------------------------------------------------------------===//

FailureOr<std::pair<std::vector<double>, std::vector<int64_t>>>
Importer::qparams(const Tensor &t) {
  if (!t.quant)
    return fail("tensor " + std::to_string(t.index) + " '" + t.name +
                "' has no quantization parameters");
  // TFLite's kernels hold zero points in int32: a damaged file's larger ones
  // are refused before any arithmetic on them.
  for (int64_t zp : t.quant->zeroPoint)
    if (zp < INT32_MIN || zp > INT32_MAX)
      return fail("tensor " + std::to_string(t.index) + " '" + t.name + "' has zero point " +
                  std::to_string(zp) + ", outside int32");
  for (float scale : t.quant->scale)
    if (!std::isfinite(scale) || scale < 0)
      return fail("tensor " + std::to_string(t.index) + " '" + t.name + "' has scale " +
                  pyRepr(scale) + ": scales must be finite and not negative");
  std::vector<double> s(t.quant->scale.begin(), t.quant->scale.end());
  return std::make_pair(s, t.quant->zeroPoint);
}

FailureOr<std::pair<double, int64_t>> Importer::perTensor(const Tensor &t) {
  auto q = qparams(t);
  if (failed(q))
    return failure();
  if (q->first.size() != 1)
    return fail("tensor " + std::to_string(t.index) + " '" + t.name +
                "': per-axis quantization is only supported for weights");
  return std::make_pair(q->first[0], q->second[0]);
}

FailureOr<Value> Importer::value(int idx) {
  // -1 marks an absent optional input; only the required ones are checked
  // before the handlers, which read the others through here too.
  if (idx < 0)
    return fail("an input it reads is absent (tensor index " + std::to_string(idx) + ")");
  auto it = values.find(idx);
  if (it != values.end())
    return it->second;
  const Tensor &t = tensor(idx);
  if (t.isVariable)
    return stateRead(idx);
  if (!t.hasData())
    return fail("input tensor " + std::to_string(idx) + " '" + t.name +
                "' is neither computed nor constant");
  FailureOr<Type> elem = elemOfTensor(t);
  if (failed(elem))
    return failure();
  Value v;
  if (*elem == f32 && t.type != kFloat32) {
    auto d = dequantized(t);
    if (failed(d))
      return failure();
    v = constant(*d, f32, /*cache=*/true);
  } else if (*elem == f32) {
    v = constant(t.data<float>(), f32, /*cache=*/true);
  } else {
    v = constant(t.data<int64_t>(), *elem, /*cache=*/true);
  }
  values[idx] = v;
  return v;
}

FailureOr<Type> Importer::elemOfTensor(const Tensor &t) {
  bool quantizedType = t.type == kInt8 || t.type == kInt16 || t.type == kUInt8;
  if (floatMode && (t.type == kFloat32 || (quantizedType && t.quant)))
    return f32;
  if (floatMode && quantizedType)
    return fail("tensor " + std::to_string(t.index) + " '" + t.name + "' has type " +
                t.typeName() + " without quantization parameters; --float cannot dequantize it");
  switch (t.type) {
  case kFloat32: return f32;
  case kInt8: return i8;
  case kInt16: return i16;
  case kInt32: return i32;
  case kBool: return i1;
  case kUInt8:
    if (uint8Edges.count(t.index))
      return i8; // its bits; QUANTIZE flips the sign bit
    return fail("tensor " + std::to_string(t.index) + " '" + t.name +
                "' has type UINT8: only a model input read by QUANTIZE (uint8 -> int8) and a "
                "model output written by QUANTIZE (int8 -> uint8) may be uint8, as TFLite "
                "Micro runs them");
  default:
    return fail("tensor " + std::to_string(t.index) + " '" + t.name + "' has unsupported type " +
                t.typeName());
  }
}

FailureOr<NdArray<float>> Importer::dequantized(const Tensor &t) {
  if (!t.hasData())
    return fail("tensor " + std::to_string(t.index) + " '" + t.name + "' must be constant");
  if (t.type == kFloat32)
    return t.data<float>();
  if (!t.quant)
    return fail("tensor " + std::to_string(t.index) + " '" + t.name +
                "' is quantized without parameters");
  NdArray<float> d = t.data<float>();
  const Quantization &q = *t.quant;
  int64_t n = q.scale.size();
  // Index of each element along the quantized axis (per-axis parameters).
  int64_t inner = 1, axisLen = 1;
  if (n > 1) {
    if (q.axis < 0 || q.axis >= static_cast<int>(t.shape.size()) || t.shape[q.axis] != n)
      return fail("tensor " + std::to_string(t.index) + " '" + t.name + "' has " +
                  std::to_string(n) + " per-axis scales on axis " + std::to_string(q.axis) +
                  ", which does not fit its shape " + listRepr(t.shape));
    for (size_t i = q.axis + 1; i < t.shape.size(); ++i)
      inner *= t.shape[i];
    axisLen = t.shape[q.axis];
  }
  for (int64_t i = 0; i < d.size(); ++i) {
    int64_t c = n > 1 ? (i / inner) % axisLen : 0;
    float s = q.scale[c], z = static_cast<float>(q.zeroPoint[c]);
    d[i] = (d[i] - z) * s;
  }
  return d;
}

namespace {
LogicalResult checkWeights(Importer &imp, const Tensor &wt) {
  if (!wt.hasData())
    return imp.fail("weight tensor " + std::to_string(wt.index) + " '" + wt.name +
                    "' must be constant");
  if (imp.floatMode)
    return success();
  if (wt.type == kFloat32 && imp.tensor(imp.currentOp->inputs[0]).type == kFloat32)
    return success(); // a float32 operator inside a quantized model
  if (wt.type != kInt8)
    return imp.fail("weight tensor " + std::to_string(wt.index) + " '" + wt.name +
                    "' has type " + wt.typeName() + "; int8 import needs INT8 weights");
  return success();
}
} // namespace

FailureOr<NdArray<float>> Importer::weightsFloat(const Tensor &wt) {
  if (failed(checkWeights(*this, wt)))
    return failure();
  if (floatMode)
    return dequantized(wt);
  return wt.data<float>();
}

FailureOr<NdArray<int64_t>> Importer::weightsInt(const Tensor &wt) {
  if (failed(checkWeights(*this, wt)))
    return failure();
  if (floatMode) {
    auto d = dequantized(wt);
    if (failed(d))
      return failure();
    return d->as<int64_t>();
  }
  return wt.data<int64_t>();
}

DictionaryAttr Importer::quantizationAttr(const Tensor &t) {
  if (floatMode || !t.quant || t.quant->scale.size() != 1)
    return {};
  llvm::SmallVector<NamedAttribute> q{
      attr("scale", FloatAttr::get(b.getF64Type(), static_cast<double>(t.quant->scale[0]))),
      attr("zero_point", IntegerAttr::get(i64, t.quant->zeroPoint[0]))};
  if (t.type == kUInt8)
    q.push_back(attr("unsigned", b.getBoolAttr(true)));
  return DictionaryAttr::get(ctx, {attr("serenity.quantization", DictionaryAttr::get(ctx, q))});
}

//===----------------------------------------------------------------------===//
// Persistent state
//===----------------------------------------------------------------------===//

FailureOr<std::string> Importer::stateSymbol(int idx) {
  const Tensor &t = tensor(idx);
  std::string name = "state" + std::to_string(idx);
  if (!variables.count(idx)) {
    if (floatMode && t.type != kFloat32)
      return fail("variable tensor " + std::to_string(idx) + " '" + t.name +
                  "': --float does not import stateful models");
    FailureOr<Type> elem = elemOfTensor(t);
    if (failed(elem))
      return failure();
    if (*elem != i8 && *elem != i16 && *elem != i32 && *elem != f32)
      return fail("variable tensor " + std::to_string(idx) + " '" + t.name + "' has type " +
                  t.typeName() + "; only integer or float32 state is supported");
    int64_t init = (*elem == i8 && t.quant) ? t.quant->zeroPoint[0] : 0;
    auto initial = NdArray<int64_t>::full(t.shape, init);
    variables[idx] = name;
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(func);
    auto varShape = DenseIntElementsAttr::get(
        RankedTensorType::get({static_cast<int64_t>(t.shape.size())}, b.getIndexType()),
        t.shape);
    opN("variable", {}, {},
        {attr("initial_value", denseOf(initial, tensorType(t.shape, *elem))),
         attr("sym_name", StringAttr::get(ctx, name)), typeAttr("type", *elem),
         attr("var_shape", varShape)});
  }
  return name;
}

FailureOr<Value> Importer::stateRead(int idx) {
  FailureOr<std::string> name = stateSymbol(idx);
  if (failed(name))
    return failure();
  const Tensor &t = tensor(idx);
  FailureOr<Type> elem = elemOfTensor(t);
  if (failed(elem))
    return failure();
  Value v = op("variable_read", {}, t.shape, *elem, {attr("name", StringAttr::get(ctx, *name))});
  values[idx] = v;
  return v;
}

FailureOr<Value> Importer::stateWrite(int idx, Value v) {
  FailureOr<std::string> name = stateSymbol(idx);
  if (failed(name))
    return failure();
  llvm::SmallVector<int64_t> shape = shapeOf(v);
  if (llvm::ArrayRef<int64_t>(shape) != llvm::ArrayRef<int64_t>(tensor(idx).shape))
    return fail("state " + listRepr(shape) + " does not match variable tensor " +
                std::to_string(idx) + " " + listRepr(tensor(idx).shape));
  opN("variable_write", {v}, {}, {attr("name", StringAttr::get(ctx, *name))});
  return stateRead(idx);
}

//===----------------------------------------------------------------------===//
// Shared import helpers
//===----------------------------------------------------------------------===//

FailureOr<Value> Importer::rescale(Value x, llvm::ArrayRef<double> scales, int64_t inZp,
                                   int64_t outZp, Type outElem) {
  llvm::SmallVector<int64_t> mults, shifts;
  for (double s : scales) {
    auto ms = quant::quantizeMultiplier(s);
    if (!ms)
      return fail(llvm::toString(ms.takeError()));
    mults.push_back(ms->first);
    shifts.push_back(ms->second);
  }
  return rescaleRaw(x, mults, shifts, inZp, outZp, outElem, rounding);
}

FailureOr<Value> Importer::activation(Value x, int act, const Tensor &out) {
  if (act == kActNone)
    return x;
  if (act != kActRelu && act != kActRelu6 && act != kActReluN1To1)
    return fail("fused activation " + activationName(act) + " is not supported");
  double loReal = act == kActReluN1To1 ? -1.0 : 0.0;
  std::optional<double> hiReal;
  if (act == kActRelu6)
    hiReal = 6.0;
  if (act == kActReluN1To1)
    hiReal = 1.0;
  Type elem = elemOf(x);
  if (elem == f32) {
    double hi = hiReal ? *hiReal : static_cast<double>(std::numeric_limits<float>::max());
    return op("clamp", {x}, shapeOf(x), elem, clampAttrs(loReal, hi, f32));
  }
  auto st = perTensor(out);
  if (failed(st))
    return failure();
  auto range = quant::activationRange(act, st->first, st->second);
  if (!range)
    return fail(llvm::toString(range.takeError()));
  return op("clamp", {x}, shapeOf(x), elem, clampAttrs(range->first, range->second, i8));
}

Value Importer::reshape(Value x, llvm::ArrayRef<int64_t> shape) {
  if (canonicalize) {
    auto it = reshapeSources.find(x);
    if (it != reshapeSources.end())
      x = it->second;
  }
  if (llvm::ArrayRef<int64_t>(shapeOf(x)) == shape)
    return x;
  Value sh = shapeConst(shape);
  Value res = op("reshape", {x, sh}, shape, elemOf(x));
  reshapeSources[res] = x;
  return res;
}

Value Importer::rowView(Value x) {
  if (!canonicalize)
    return {};
  auto it = reshapeSources.find(x);
  if (it == reshapeSources.end())
    return {};
  Value src = it->second;
  llvm::SmallVector<int64_t> s = shapeOf(x);
  if (s.size() == 4 && s[2] == 1 && s[1] > 1 &&
      llvm::ArrayRef<int64_t>(shapeOf(src)) == llvm::ArrayRef<int64_t>{s[0], 1, s[1], s[3]})
    return src;
  return {};
}

std::pair<int64_t, int64_t> Importer::samePadding(int64_t in, int64_t k, int64_t stride,
                                                  int64_t dilation, int64_t out) const {
  int64_t eff = (k - 1) * dilation + 1;
  int64_t total = std::max<int64_t>((out - 1) * stride + eff - in, 0);
  return {total / 2, total - total / 2};
}

Pads Importer::pads(int padding, llvm::ArrayRef<int64_t> inShape, int64_t kh, int64_t kw,
                    int64_t sh, int64_t sw, int64_t dh, int64_t dw,
                    llvm::ArrayRef<int64_t> outShape) const {
  if (padding == 1) // VALID
    return {0, 0, 0, 0};
  auto [top, bottom] = samePadding(inShape[1], kh, sh, dh, outShape[1]);
  auto [left, right] = samePadding(inShape[2], kw, sw, dw, outShape[2]);
  return {top, bottom, left, right};
}

FailureOr<std::pair<Value, Pads>> Importer::windowInput(const Operator &o, int64_t kh,
                                                        int64_t kw, int64_t sh, int64_t sw,
                                                        int64_t dh, int64_t dw, int padding) {
  int idx = o.inputs[0];
  Pads pad = pads(padding, tensor(idx).shape, kh, kw, sh, sw, dh, dw,
                  tensor(o.outputs[0]).shape);
  auto fold = padFolds.find(idx);
  if (fold != padFolds.end())
    for (int i = 0; i < 4; ++i)
      pad[i] += fold->second[i];
  FailureOr<Value> v = value(idx);
  if (failed(v))
    return failure();
  return std::make_pair(*v, pad);
}

std::pair<Value, Pads> Importer::fitStride(Value x, Pads pad, std::array<int64_t, 2> keff,
                                           std::array<int64_t, 2> stride) {
  llvm::SmallVector<int64_t> size = shapeOf(x);
  const int dims[2] = {1, 2}, los[2] = {0, 2}, his[2] = {1, 3};
  for (int k = 0; k < 2; ++k) {
    int dim = dims[k], lo = los[k], hi = his[k];
    int64_t v = size[dim] - 1 + pad[lo] + pad[hi] - (keff[k] - 1);
    int64_t extra = ((v % stride[k]) + stride[k]) % stride[k]; // Python's modulo
    int64_t cut = std::min(extra, pad[hi]);
    pad[hi] -= cut;
    size[dim] -= extra - cut;
  }
  if (size != shapeOf(x)) {
    llvm::SmallVector<int64_t> zeros(size.size(), 0);
    Value start = shapeConst(zeros), sizes = shapeConst(size);
    x = op("slice", {x, start, sizes}, size, elemOf(x));
  }
  return {x, pad};
}

Value Importer::fconst(double value, int64_t rank) {
  std::vector<int64_t> shape(rank, 1);
  return constant(NdArray<double>(shape, {value}), f32, /*cache=*/true);
}

Value Importer::f32Op(llvm::StringRef name, ValueRange operands, llvm::ArrayRef<int64_t> shape,
                      llvm::ArrayRef<NamedAttribute> attrs) {
  return op(name, operands, shape, f32, attrs);
}

//===----------------------------------------------------------------------===//
// The walk
//===----------------------------------------------------------------------===//

namespace {
/// The inputs each operator must have (TFLite Micro's kernels read them
/// unconditionally; -1 marks an absent optional input, allowed elsewhere).
unsigned requiredInputs(llvm::StringRef name) {
  return llvm::StringSwitch<unsigned>(name)
      .Cases({"STRIDED_SLICE"}, 4)
      .Cases({"PADV2", "SLICE", "SPLIT_V", "TRANSPOSE_CONV"}, 3)
      .Cases({"CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED", "ADD", "SUB", "MUL", "DIV",
              "MINIMUM", "MAXIMUM", "SQUARED_DIFFERENCE", "PRELU", "PAD", "MEAN", "SUM",
              "REDUCE_MAX", "ARG_MAX", "TRANSPOSE", "SPLIT", "EXPAND_DIMS", "GATHER",
              "RESIZE_BILINEAR", "RESIZE_NEAREST_NEIGHBOR", "BATCH_MATMUL"},
             2)
      .Case("SVDF", 3) // input, feature and time weights; bias optional, state checked
      .Case("UNIDIRECTIONAL_SEQUENCE_LSTM", 1) // its own check lists all 24
      .Default(1);
}
} // namespace

FailureOr<OpResults> Importer::importOperator(const Operator &o) {
  const HandlerTable &table = handlerTable();
  auto it = table.find(o.name());
  assert(it != table.end() && "operators are checked before the walk");
  // Operand counts first: a damaged or unusual file must not reach a
  // handler that reads an operand it does not have.
  unsigned required = requiredInputs(o.name());
  if (o.inputs.size() < required)
    return fail("has " + std::to_string(o.inputs.size()) + " inputs, needs at least " +
                std::to_string(required));
  for (unsigned i = 0; i < required; ++i)
    if (o.inputs[i] < 0)
      return fail("input " + std::to_string(i) + " is missing");
  if (o.outputs.empty())
    return fail("has no outputs");
  // Window sizes, strides and dilations (options fields, read with the
  // handlers' defaults) must be positive: the handlers divide by them.
  struct Positive {
    std::vector<unsigned> fields;
    int32_t def;
  };
  Positive positive = llvm::StringSwitch<Positive>(o.name())
                          .Case("CONV_2D", {{1, 2, 4, 5}, 1})
                          .Case("DEPTHWISE_CONV_2D", {{1, 2, 5, 6}, 1})
                          .Cases({"AVERAGE_POOL_2D", "MAX_POOL_2D"}, {{1, 2, 3, 4}, 0})
                          .Case("TRANSPOSE_CONV", {{1, 2}, 1})
                          .Default({{}, 0});
  // Window operators read 4-D (NHWC) activations and filters.
  if (llvm::is_contained({"CONV_2D", "DEPTHWISE_CONV_2D", "AVERAGE_POOL_2D", "MAX_POOL_2D"},
                         o.name())) {
    unsigned operands = o.name() == "CONV_2D" || o.name() == "DEPTHWISE_CONV_2D" ? 2 : 1;
    for (unsigned i = 0; i < operands; ++i)
      if (tensor(o.inputs[i]).shape.size() != 4)
        return fail("input " + std::to_string(i) + " has shape " +
                    listRepr(tensor(o.inputs[i]).shape) + "; it must be 4-D");
    if (tensor(o.outputs[0]).shape.size() != 4)
      return fail("output has shape " + listRepr(tensor(o.outputs[0]).shape) +
                  "; it must be 4-D");
  }
  for (unsigned field : positive.fields) {
    int32_t v = o.options().i32(field, positive.def);
    if (v <= 0)
      return fail("options field " + std::to_string(field) +
                  " (a stride, dilation or window size) is " + std::to_string(v) +
                  "; it must be positive");
  }
  return it->second(*this, o);
}

OwningOpRef<ModuleOp> Importer::run() {
  Location fileLoc = FileLineColLoc::get(ctx, fileName, 0, 0);
  if (model.subgraphs.size() != 1) {
    emitError(fileLoc) << "model has " << model.subgraphs.size()
                       << " subgraphs; only one is supported";
    return {};
  }
  // Every unsupported operator at once, with its count and first index.
  const HandlerTable &table = handlerTable();
  std::vector<std::pair<std::string, std::vector<int>>> missing;
  int total = 0;
  for (const Operator &o : sg.operators) {
    std::string name = o.name();
    if (table.count(name))
      continue;
    ++total;
    auto m = llvm::find_if(missing, [&](const auto &kv) { return kv.first == name; });
    if (m == missing.end())
      missing.push_back({name, {o.index}});
    else
      m->second.push_back(o.index);
  }
  if (!missing.empty()) {
    std::string rows;
    for (const auto &[name, idx] : missing)
      rows += (rows.empty() ? "" : "; ") + name + " x" + std::to_string(idx.size()) +
              " (first: operator " + std::to_string(idx[0]) + ")";
    emitError(fileLoc) << total << " of " << sg.operators.size()
                       << " operators are not supported: " << rows
                       << ". Supported: " << llvm::join(supportedOperators(), ", ");
    return {};
  }
  std::vector<const Operator *> operators;
  for (const Operator &o : sg.operators)
    operators.push_back(&o);
  std::vector<int> inputs = sg.inputs;
  if (onlyOp) {
    if (*onlyOp < 0 || *onlyOp >= static_cast<int>(sg.operators.size())) {
      emitError(fileLoc) << "operator index " << *onlyOp << " out of range";
      return {};
    }
    operators = {&sg.operators[*onlyOp]};
    inputs.clear();
    for (int i : operators[0]->inputs)
      if (i >= 0 && !tensor(i).hasData())
        inputs.push_back(i);
    outputs = operators[0]->outputs;
  }

  OwningOpRef<ModuleOp> owned = ModuleOp::create(fileLoc);
  module = *owned;
  b.setInsertionPointToEnd(module.getBody());
  llvm::SmallVector<Type> argTypes;
  llvm::SmallVector<DictionaryAttr> argAttrs;
  for (int idx : inputs) {
    FailureOr<Type> elem = elemOfTensor(tensor(idx));
    if (failed(elem))
      return {};
    argTypes.push_back(tensorType(tensor(idx).shape, *elem));
    argAttrs.push_back(quantizationAttr(tensor(idx)));
  }
  func = func::FuncOp::create(b, fileLoc, "main", b.getFunctionType(argTypes, {}));
  Block *entry = func.addEntryBlock();
  for (auto [i, idx] : llvm::enumerate(inputs)) {
    values[idx] = entry->getArgument(i);
    if (argAttrs[i])
      func.setArgAttrs(i, argAttrs[i]);
  }
  b.setInsertionPointToEnd(entry);

  for (const Operator *o : operators) {
    if (llvm::all_of(outputs, [&](int i) { return values.count(i); }))
      break; // the requested outputs exist: later ops are not needed
    currentOp = o;
    std::string outName = o->outputs.empty() ? "" : tensor(o->outputs[0]).name;
    loc = NameLoc::get(StringAttr::get(ctx, "operator " + std::to_string(o->index) + " " +
                                                o->name() + " '" + outName + "'"),
                       fileLoc);
    FailureOr<OpResults> outs = importOperator(*o);
    if (failed(outs))
      return {};
    if (outs->size() != o->outputs.size()) {
      (void)fail("computed " + std::to_string(outs->size()) + " outputs, the file lists " +
                 std::to_string(o->outputs.size()));
      return {};
    }
    for (auto [idx, v] : llvm::zip(o->outputs, *outs)) {
      const Tensor &t = tensor(idx);
      llvm::SmallVector<int64_t> shape = shapeOf(v);
      if (llvm::ArrayRef<int64_t>(shape) != llvm::ArrayRef<int64_t>(t.shape) &&
          !padFolds.count(idx)) {
        (void)fail("computed shape " + listRepr(shape) + " differs from the file's " +
                   listRepr(t.shape) + " (tensor " + std::to_string(idx) + " '" + t.name + "')");
        return {};
      }
      values[idx] = v;
    }
  }
  currentOp = nullptr;
  loc = fileLoc;
  llvm::SmallVector<Value> rets;
  for (int i : outputs)
    if (values.count(i))
      rets.push_back(values[i]);
  if (rets.size() != outputs.size()) {
    emitError(fileLoc) << "a requested output is not computed by any operator";
    return {};
  }
  func::ReturnOp::create(b, fileLoc, rets);
  llvm::SmallVector<Type> retTypes;
  for (Value v : rets)
    retTypes.push_back(v.getType());
  func.setType(b.getFunctionType(argTypes, retTypes));
  for (auto [i, idx] : llvm::enumerate(outputs))
    if (DictionaryAttr q = quantizationAttr(tensor(idx)))
      func.setResultAttrs(i, q);
  return owned;
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

OwningOpRef<ModuleOp> mlir::serenity::tflite::importTFLite(llvm::ArrayRef<uint8_t> buffer,
                                                     llvm::StringRef fileName,
                                                     MLIRContext *context,
                                                     const ImportOptions &options) {
  context->loadDialect<func::FuncDialect, tosa::TosaDialect>();
  Location fileLoc = FileLineColLoc::get(context, fileName, 0, 0);
  if (options.rounding != "double" && options.rounding != "single" &&
      options.rounding != "armnn") {
    emitError(fileLoc) << "unknown rounding mode '" << options.rounding
                       << "' (use double, single or armnn)";
    return {};
  }
  llvm::Expected<Model> model = readModel(buffer);
  if (!model) {
    emitError(fileLoc) << llvm::toString(model.takeError());
    return {};
  }
  Importer importer(*model, fileName, context, options);
  return importer.run();
}

void mlir::serenity::tflite::registerImportDialects(DialectRegistry &registry) {
  registry.insert<func::FuncDialect, tosa::TosaDialect>();
}
