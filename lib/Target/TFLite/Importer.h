//===- Importer.h - TFLite to TOSA importer state ----------------*- C++ -*-===//
//
// The importer walks subgraph 0 once, in operator order, and builds TOSA ops at
// the end of @main. Shared building blocks are members of Importer, grouped by
// the file that defines them; each operator family's handlers and private
// helpers live in its own file and register themselves with add*Handlers.
//
//   Importer.cpp        state, constants, values, persistent state, run()
//   CoreOps.cpp         CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED, ADD,
//                       AVERAGE_POOL_2D, RESHAPE, SOFTMAX
//   IntegerOps.cpp      TFLite's integer roundings (iconst, rescaleRaw, ...)
//   Emulate.cpp         element-wise builders (ew, tosaMul) and Arm NN's
//                       float32 arithmetic (--rounding=armnn)
//   ShapeOps.cpp        TRANSPOSE, PAD, SLICE, CONCATENATION, GATHER, ...
//   ElementwiseOps.cpp  SUB, MUL, DIV, MINIMUM, QUANTIZE, ...
//   TableOps.cpp        LOGISTIC, TANH, HARD_SWISH, RELU, LOG_SOFTMAX, ...
//   ReduceOps.cpp       MAX_POOL_2D, MEAN, TRANSPOSE_CONV, BATCH_MATMUL, ...
//   SvdfOps.cpp         SVDF
//   LstmOps.cpp         UNIDIRECTIONAL_SEQUENCE_LSTM
//
// Errors: a failing helper emits one diagnostic at the current operator's
// location (Importer::fail) and returns failure(); callers propagate it.
//
//===----------------------------------------------------------------------===//

#ifndef SERENITY_LIB_TARGET_TFLITE_IMPORTER_H
#define SERENITY_LIB_TARGET_TFLITE_IMPORTER_H

#include "NdArray.h"
#include "Schema.h"
#include "Serenity/Target/TFLite/ImportTFLite.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Support/LLVM.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <array>
#include <functional>
#include <map>
#include <set>
#include <string>

namespace mlir::serenity::tflite {

using mlir::FailureOr;
using mlir::LogicalResult;
using mlir::NamedAttribute;
using mlir::Type;
using mlir::Value;

/// fused_activation_function values of the schema.
enum Activation : int {
  kActNone = 0,
  kActRelu = 1,
  kActReluN1To1 = 2,
  kActRelu6 = 3,
  kActTanh = 4,
  kActSignBit = 5,
  kActSigmoid = 6,
};
/// "RELU", "RELU6", ... for diagnostics.
std::string activationName(int act);

/// [top, bottom, left, right].
using Pads = std::array<int64_t, 4>;
using OpResults = llvm::SmallVector<Value, 1>;
class Importer;
using Handler = std::function<FailureOr<OpResults>(Importer &, const Operator &)>;
using HandlerTable = std::map<std::string, Handler>;

// Each family adds its handlers; a later family's entry replaces an earlier
// one for the same operator (the order is that of handlerTable()).
void addCoreHandlers(HandlerTable &table);
void addShapeHandlers(HandlerTable &table);
void addElementwiseHandlers(HandlerTable &table);
void addTableHandlers(HandlerTable &table);
void addReduceHandlers(HandlerTable &table);
void addSvdfHandlers(HandlerTable &table);
void addLstmHandlers(HandlerTable &table);
/// Every handler (built once).
const HandlerTable &handlerTable();

class Importer {
public:
  Importer(const Model &model, llvm::StringRef fileName, mlir::MLIRContext *context,
           const ImportOptions &options);

  /// Imports subgraph 0; null after a diagnostic.
  mlir::OwningOpRef<mlir::ModuleOp> run();

  //===--------------------------------------------------------------------===//
  // State (Importer.cpp)
  //===--------------------------------------------------------------------===//
  const Model &model;
  const SubGraph &sg;
  std::string fileName;
  mlir::MLIRContext *ctx;
  mlir::OpBuilder b;
  mlir::ModuleOp module;
  bool floatMode;
  /// --rounding=armnn: Arm NN CpuRef's float32 arithmetic (Emulate.cpp).
  bool emulate;
  /// --rounding=double: TFLite's integer arithmetic (IntegerOps.cpp).
  bool tfliteExact;
  bool canonicalize;
  /// "DOUBLE_ROUND" or "SINGLE_ROUND" (the tosa.rescale mode of --rounding).
  std::string rounding;
  std::string roundingName; // the option's spelling
  /// Tensor index -> its value.
  llvm::DenseMap<int, Value> values;
  /// Variable tensor index -> its tosa.variable symbol.
  std::map<int, std::string> variables;
  /// The operator being imported (null outside an operator).
  const Operator *currentOp = nullptr;
  /// Its location: file, operator index, builtin and output tensor name.
  mlir::Location loc;
  std::vector<int> outputs;
  std::optional<int> onlyOp;
  /// PAD outputs folded into the padding of the convolutions that read them
  /// (tensor index -> [top, bottom, left, right]); see ShapeOps.cpp.
  std::map<int, Pads> padFolds;
  /// Each tosa.reshape result -> the value it reshapes.
  llvm::DenseMap<Value, Value> reshapeSources;
  /// Tensor index -> the operators that read it.
  std::map<int, std::vector<const Operator *>> consumers;
  /// uint8 model inputs read only by QUANTIZE and outputs written by
  /// QUANTIZE (TFLite Micro's uint8 <-> int8 QUANTIZE).
  std::set<int> uint8Edges;
  /// Element types.
  Type i1, i8, i16, i32, i48, i64, f32;

  //===--------------------------------------------------------------------===//
  // Building IR (Importer.cpp)
  //===--------------------------------------------------------------------===//
  static llvm::SmallVector<int64_t> shapeOf(Value v);
  static Type elemOf(Value v);
  static int64_t rankOf(Value v) { return shapeOf(v).size(); }
  mlir::RankedTensorType tensorType(llvm::ArrayRef<int64_t> shape, Type elem) const;
  /// The element type for a spelling ("i8", "f32", ...).
  Type type(llvm::StringRef spelling) const;

  /// A tosa.const of `attr`; with `cache`, one constant per distinct value.
  Value constant(mlir::DenseElementsAttr attr, bool cache = false);
  /// A tosa.const of `elem` holding `values` converted element by element
  /// (integers truncate to the element's width, as numpy's astype).
  Value constant(const NdArray<int64_t> &values, Type elem, bool cache = false);
  Value constant(const NdArray<double> &values, Type elem, bool cache = false);
  Value constant(const NdArray<float> &values, Type elem, bool cache = false);
  /// A tensor<1xT> constant (zero points, shifts), shared.
  Value scalar1(double value, Type elem);
  /// A !tosa.shape<n> constant, shared.
  Value shapeConst(llvm::ArrayRef<int64_t> dims);
  /// `tosa.<name>` with one result of `shape` x `elem`.
  Value op(llvm::StringRef name, mlir::ValueRange operands, llvm::ArrayRef<int64_t> shape,
           Type elem, llvm::ArrayRef<NamedAttribute> attrs = {});
  /// `tosa.<name>` with the given result types (several or none).
  mlir::Operation *opN(llvm::StringRef name, mlir::ValueRange operands,
                       mlir::TypeRange results, llvm::ArrayRef<NamedAttribute> attrs = {});

  // Attributes as the TOSA ops spell them.
  NamedAttribute attr(llvm::StringRef name, mlir::Attribute value);
  NamedAttribute i64Array(llvm::StringRef name, llvm::ArrayRef<int64_t> values);
  NamedAttribute i32Attr(llvm::StringRef name, int64_t value); // `axis = 1 : i32`
  NamedAttribute boolAttr(llvm::StringRef name, bool value);
  NamedAttribute typeAttr(llvm::StringRef name, Type value); // acc_type = i32
  /// rounding_mode = #tosa.rounding_mode<DOUBLE_ROUND | SINGLE_ROUND | INEXACT_ROUND>
  NamedAttribute roundingModeAttr(llvm::StringRef mode);
  /// A number attribute of type `elem`: `127 : i8` or `0x3F800000 : f32`.
  mlir::TypedAttr number(double value, Type elem);
  /// min_val / max_val of a tosa.clamp on `elem`.
  llvm::SmallVector<NamedAttribute, 2> clampAttrs(double lo, double hi, Type elem);

  //===--------------------------------------------------------------------===//
  // Diagnostics (Importer.cpp)
  //===--------------------------------------------------------------------===//
  /// Emits `operator N (NAME): msg` at the current location; returns failure.
  LogicalResult fail(const llvm::Twine &msg);
  /// The hybrid-operator refusal (float activations, quantized weights).
  LogicalResult hybridError(const Tensor &weights);

  //===--------------------------------------------------------------------===//
  // Tensors and values (Importer.cpp)
  //===--------------------------------------------------------------------===//
  const Tensor &tensor(int idx) const { return sg.tensors[idx]; }
  /// (scales, zero points), double / int64; fails without parameters.
  FailureOr<std::pair<std::vector<double>, std::vector<int64_t>>> qparams(const Tensor &t);
  /// The one (scale, zero point); fails for per-axis parameters.
  FailureOr<std::pair<double, int64_t>> perTensor(const Tensor &t);
  /// The value of tensor `idx`: computed, a variable's read or a constant.
  FailureOr<Value> value(int idx);
  /// The element type tensor `t` is imported as (Python's elem_of).
  FailureOr<Type> elemOfTensor(const Tensor &t);
  /// A constant tensor as float32 (per-axis aware).
  FailureOr<NdArray<float>> dequantized(const Tensor &t);
  /// Constant weights as the import needs them (dequantized in float mode).
  FailureOr<NdArray<float>> weightsFloat(const Tensor &wt);
  /// INT8 weights (or float32 weights of a float operator), as int64.
  FailureOr<NdArray<int64_t>> weightsInt(const Tensor &wt);
  /// `{serenity.quantization = {scale, zero_point[, unsigned]}}` of a model
  /// input or output, or null (float mode, no or per-axis parameters).
  mlir::DictionaryAttr quantizationAttr(const Tensor &t);

  // Persistent state (TFLite variable tensors as tosa.variable).
  FailureOr<std::string> stateSymbol(int idx);
  FailureOr<Value> stateRead(int idx);
  /// Stores `v` and returns a fresh read that later uses take instead.
  FailureOr<Value> stateWrite(int idx, Value v);

  //===--------------------------------------------------------------------===//
  // Shared import helpers (Importer.cpp)
  //===--------------------------------------------------------------------===//
  /// tosa.rescale with one multiplier/shift per scale (--rounding=single).
  FailureOr<Value> rescale(Value x, llvm::ArrayRef<double> scales, int64_t inZp, int64_t outZp,
                           Type outElem);
  /// The fused activation as a clamp (quantized-domain bounds for int8).
  FailureOr<Value> activation(Value x, int act, const Tensor &out);
  /// `x` as `shape`, looking through an earlier reshape (canonicalize).
  Value reshape(Value x, llvm::ArrayRef<int64_t> shape);
  /// The [N, 1, H, C] source of an [N, H, 1, C] reshape, or null.
  Value rowView(Value x);
  std::pair<int64_t, int64_t> samePadding(int64_t in, int64_t k, int64_t stride,
                                          int64_t dilation, int64_t out) const;
  /// The padding of `padding` (0 SAME, 1 VALID) for a window op.
  Pads pads(int padding, llvm::ArrayRef<int64_t> inShape, int64_t kh, int64_t kw, int64_t sh,
            int64_t sw, int64_t dh, int64_t dw, llvm::ArrayRef<int64_t> outShape) const;
  /// Input value and padding of a conv / depthwise (with a folded PAD).
  FailureOr<std::pair<Value, Pads>> windowInput(const Operator &o, int64_t kh, int64_t kw,
                                                int64_t sh, int64_t sw, int64_t dh, int64_t dw,
                                                int padding);
  /// Drops the rows/columns a strided window never reads (TOSA's divisibility).
  std::pair<Value, Pads> fitStride(Value x, Pads pad, std::array<int64_t, 2> keff,
                                   std::array<int64_t, 2> stride);
  /// An f32 constant of shape [1] * rank, shared.
  Value fconst(double value, int64_t rank);
  /// `tosa.<name>` with an f32 result of `shape`.
  Value f32Op(llvm::StringRef name, mlir::ValueRange operands, llvm::ArrayRef<int64_t> shape,
              llvm::ArrayRef<NamedAttribute> attrs = {});

  //===--------------------------------------------------------------------===//
  // TFLite's integer roundings (IntegerOps.cpp, Python tflite_int.py)
  //===--------------------------------------------------------------------===//
  Value iconst(llvm::ArrayRef<int64_t> values, llvm::ArrayRef<int64_t> shape, Type elem = {});
  /// `name` (reduce_max / reduce_sum) over `axis`, keeping it as 1.
  Value ireduce(llvm::StringRef name, Value x, int64_t axis);
  Value imul31(Value a, Value c);
  Value rescaleRaw(Value x, llvm::ArrayRef<int64_t> mults, llvm::ArrayRef<int64_t> shifts,
                   int64_t inZp, int64_t outZp, Type outElem, llvm::StringRef roundingMode);
  FailureOr<Value> tfliteRequantize(Value x, llvm::ArrayRef<double> scales, int64_t inZp,
                                    int64_t outZp, Type outElem, int preShift = 0);
  Value saturate(Value v, int64_t zp, Type outElem);
  Value iclamp(Value v, int64_t lo, int64_t hi);
  FailureOr<Value> tfliteAdd(Value a, Value c, double sa, int64_t za, double sc, int64_t zc,
                             double so, int64_t zo);
  FailureOr<Value> tfliteAvgPool(Value x, llvm::ArrayRef<int64_t> inShape,
                                 std::array<int64_t, 2> kernel, std::array<int64_t, 2> stride,
                                 Pads pad, llvm::ArrayRef<int64_t> outShape, int64_t actLo,
                                 int64_t actHi, Pads origPad);
  FailureOr<Value> tfliteSoftmax(Value x, double beta, double inputScale, Type outElem = {});

  //===--------------------------------------------------------------------===//
  // Element-wise builders and Arm NN emulation (Emulate.cpp, emulate.py)
  //===--------------------------------------------------------------------===//
  /// An element-wise op over broadcast operands of one rank; `elem` defaults
  /// to f32.
  Value ew(llvm::StringRef name, llvm::ArrayRef<Value> operands, Type elem = {},
           llvm::ArrayRef<NamedAttribute> attrs = {});
  /// tosa.mul with its shift operand (integers only).
  Value tosaMul(Value a, Value c, Type elem = {}, int64_t shift = 0);
  Value fmul(Value a, Value c) { return tosaMul(a, c); }
  Value fadd(Value a, Value c) { return ew("add", {a, c}); }
  Value fsub(Value a, Value c) { return ew("sub", {a, c}); }
  std::pair<Value, Value> split(Value a);
  Value divExact(Value v, double s);
  Value divExact(Value v, Value s);
  Value roundHalfAway(Value y);
  Value decode(Value x, double scale, int64_t zp);
  Value encode(Value v, double scale, int64_t zp);
  FailureOr<Value> emulatedConv(llvm::StringRef kind, Value x, const NdArray<float> &w,
                                const Tensor *bias, llvm::ArrayRef<int64_t> outShape, Pads pad,
                                std::array<int64_t, 2> stride, std::array<int64_t, 2> dilation,
                                double sIn, int64_t zIn, double sOut, int64_t zOut);
  Value emulatedAdd(Value a, Value c, double sa, int64_t za, double sc, int64_t zc, double so,
                    int64_t zo);
  FailureOr<Value> emulatedAvgPool(Value x, std::array<int64_t, 2> kernel,
                                   std::array<int64_t, 2> stride, Pads pad,
                                   llvm::ArrayRef<int64_t> outShape, double s, int64_t zi,
                                   int64_t zo);
  Value emulatedSoftmaxTail(Value e, Value total, double so, int64_t zo);

  //===--------------------------------------------------------------------===//
  // Used across families
  //===--------------------------------------------------------------------===//
  // ShapeOps.cpp
  Value sliceOp(Value x, llvm::ArrayRef<int64_t> start, llvm::ArrayRef<int64_t> size);
  Value concatOp(llvm::ArrayRef<Value> parts, int64_t axis);
  Value gatherRows(Value values, Value indices);
  // TableOps.cpp
  Value ic(int64_t value, int64_t rank);
  FailureOr<Value> tflmSoftmaxInt16(Value x, double inputScale, double beta);
  // LstmOps.cpp
  /// `elem` (i32 or i16) defaults to i32.
  Value tflmSigmoid16(Value x, int64_t multiplier = 0, int64_t leftShift = 0, Type elem = {});
  Value tflmTanh16(Value x, int64_t multiplier = 0, int64_t leftShift = 0, Type elem = {});

private:
  llvm::DenseMap<mlir::Attribute, Value> constCache;
  std::map<std::vector<int64_t>, Value> shapeCache;
  mlir::func::FuncOp func;
  FailureOr<OpResults> importOperator(const Operator &o);
};

} // namespace mlir::serenity::tflite

#endif // SERENITY_LIB_TARGET_TFLITE_IMPORTER_H
