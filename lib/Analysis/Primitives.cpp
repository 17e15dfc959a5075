//===- Primitives.cpp - Convolution primitives: applicability, workspace -===//

#include "Serenity/Analysis/Primitives.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::serenity;

ArrayRef<ConvPrimitive> mlir::serenity::allConvPrimitives() {
  static const ConvPrimitive all[] = {
      ConvPrimitive::Direct,    ConvPrimitive::Dot,
      ConvPrimitive::Im2col,    ConvPrimitive::Winograd2,
      ConvPrimitive::Winograd4, ConvPrimitive::Vector};
  return all;
}

std::string mlir::serenity::convPrimitiveNames() {
  return llvm::join(llvm::map_range(allConvPrimitives(),
                                    [](ConvPrimitive p) {
                                      return stringifyConvPrimitive(p).str();
                                    }),
                    ", ");
}

namespace {
/// The shapes of a convolution the primitives depend on.
struct ConvShape {
  bool depthwise = false;
  RankedTensorType input, weight, output;
  ArrayRef<int64_t> stride, dilation;
};

std::optional<ConvShape> getConvShape(Operation *op) {
  ConvShape shape;
  Value input, weight;
  auto read = [&](auto conv) {
    input = conv.getInput();
    weight = conv.getWeight();
    shape.stride = conv.getStride();
    shape.dilation = conv.getDilation();
  };
  if (auto conv = dyn_cast<tosa::Conv2DOp>(op)) {
    read(conv);
  } else if (auto conv = dyn_cast<tosa::DepthwiseConv2DOp>(op)) {
    read(conv);
    shape.depthwise = true;
  } else {
    return std::nullopt;
  }
  shape.input = dyn_cast<RankedTensorType>(input.getType());
  shape.weight = dyn_cast<RankedTensorType>(weight.getType());
  shape.output = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!shape.input || !shape.weight || !shape.output ||
      !shape.input.hasStaticShape() || !shape.weight.hasStaticShape() ||
      !shape.output.hasStaticShape() || shape.input.getRank() != 4 ||
      shape.weight.getRank() != 4 || shape.output.getRank() != 4)
    return std::nullopt;
  return shape;
}

int64_t elementBytes(Type type) {
  return (type.getIntOrFloatBitWidth() + 7) / 8;
}

template <typename ConvOp>
bool hasDotZeroPoints(ConvOp conv, std::string &why) {
  FailureOr<int64_t> inputZp = conv.getInputZeroPoint();
  FailureOr<int64_t> weightZp = conv.getWeightZeroPoint();
  if (failed(inputZp) || failed(weightZp)) {
    why = "its zero points are not constants";
    return false;
  }
  if (*weightZp != 0) {
    why = "its filter zero point is not 0";
    return false;
  }
  if (*inputZp < -32768 || *inputZp > 32767) {
    why = "its input zero point is outside int16";
    return false;
  }
  return true;
}
} // namespace

bool mlir::serenity::isPrimitiveConv(Operation *op) {
  return static_cast<bool>(getConvShape(op));
}

bool mlir::serenity::isApplicable(Operation *conv, ConvPrimitive primitive,
                                  std::string *reason, bool vectorUnit) {
  std::string why;
  auto fail = [&](const Twine &text) {
    if (reason)
      *reason = text.str();
    return false;
  };
  std::optional<ConvShape> shape = getConvShape(conv);
  if (!shape)
    return fail("not a tosa.conv2d / tosa.depthwise_conv2d with static "
                "rank-4 shapes");
  Type inputType = shape->input.getElementType();
  Type weightType = shape->weight.getElementType();
  Type outputType = shape->output.getElementType();
  switch (primitive) {
  case ConvPrimitive::Direct:
    return true;
  case ConvPrimitive::Dot: {
    if (!inputType.isInteger(8) || !weightType.isInteger(8) ||
        !outputType.isInteger(32))
      return fail("dot needs int8 input and filter and an int32 result");
    if (shape->depthwise && shape->weight.getDimSize(3) != 1)
      return fail("dot needs a depthwise multiplier of 1");
    bool zeroPoints =
        shape->depthwise
            ? hasDotZeroPoints(cast<tosa::DepthwiseConv2DOp>(conv), why)
            : hasDotZeroPoints(cast<tosa::Conv2DOp>(conv), why);
    if (!zeroPoints)
      return fail("dot cannot compute this convolution: " + why);
    return true;
  }
  case ConvPrimitive::Im2col:
    if (shape->depthwise)
      return fail("im2col computes tosa.conv2d only (a depthwise window is "
                  "one channel: nothing to gather)");
    return true;
  case ConvPrimitive::Winograd2:
  case ConvPrimitive::Winograd4:
    if (shape->depthwise || !inputType.isF32() || !weightType.isF32() ||
        !outputType.isF32())
      return fail("winograd computes f32 tosa.conv2d only");
    if (shape->weight.getDimSize(1) != 3 || shape->weight.getDimSize(2) != 3)
      return fail("winograd needs a 3x3 filter");
    if (llvm::any_of(shape->stride, [](int64_t s) { return s != 1; }) ||
        llvm::any_of(shape->dilation, [](int64_t d) { return d != 1; }))
      return fail("winograd needs stride 1 and dilation 1");
    return true;
  case ConvPrimitive::Vector:
    if (!inputType.isF32() || !weightType.isF32() || !outputType.isF32())
      return fail("vector computes f32 convolutions only");
    if (shape->depthwise && shape->weight.getDimSize(3) != 1)
      return fail("vector needs a depthwise multiplier of 1");
    DenseElementsAttr filter;
    if (!matchPattern(conv->getOperand(1), m_Constant(&filter)))
      return fail("vector needs a constant filter (transposed at compile "
                  "time)");
    if (!vectorUnit)
      return fail("vector needs a target with a vector unit (the host)");
    return true;
  }
  return fail("unknown primitive");
}

SmallVector<ConvPrimitive>
mlir::serenity::applicablePrimitives(Operation *conv, bool vectorUnit) {
  SmallVector<ConvPrimitive> result;
  for (ConvPrimitive primitive : allConvPrimitives())
    if (isApplicable(conv, primitive, nullptr, vectorUnit))
      result.push_back(primitive);
  return result;
}

/// Winograd F(m x m, 3 x 3) as upstream linalg.winograd_* computes it, with
/// alpha = m + 2 and T = ceil(OH / m) x ceil(OW / m) tiles (per batch):
/// the transformed filter alpha^2 x F x C, the transformed input
/// alpha^2 x T x C and the products alpha^2 x T x F (f32 each).
static int64_t winogradBytes(const ConvShape &shape, int64_t m) {
  int64_t alpha = m + 2;
  int64_t n = shape.output.getDimSize(0);
  int64_t oh = shape.output.getDimSize(1), ow = shape.output.getDimSize(2);
  int64_t f = shape.output.getDimSize(3), c = shape.input.getDimSize(3);
  int64_t tiles = n * ((oh + m - 1) / m) * ((ow + m - 1) / m);
  return 4 * alpha * alpha * (f * c + tiles * c + tiles * f);
}

/// Bytes of the padded copy of the input that the vector lowering of a
/// padded convolution reads (tosa-to-linalg-named's tensor.pad, a buffer
/// live while the convolution runs); 0 without padding. (Winograd's input
/// transform reads the padded tiles without one: measured equal arenas.)
static int64_t paddedInputBytes(const ConvShape &shape, Operation *conv) {
  auto pad = conv->getAttrOfType<DenseI64ArrayAttr>("pad");
  if (!pad || pad.size() != 4 ||
      llvm::none_of(pad.asArrayRef(), [](int64_t p) { return p != 0; }))
    return 0;
  return shape.input.getDimSize(0) *
         (shape.input.getDimSize(1) + pad[0] + pad[1]) *
         (shape.input.getDimSize(2) + pad[2] + pad[3]) *
         shape.input.getDimSize(3) * elementBytes(shape.input.getElementType());
}

int64_t mlir::serenity::getWorkspaceBytes(Operation *conv,
                                          ConvPrimitive primitive) {
  std::optional<ConvShape> shape = getConvShape(conv);
  if (!shape)
    return 0;
  switch (primitive) {
  case ConvPrimitive::Direct:
  case ConvPrimitive::Dot:
    return 0;
  case ConvPrimitive::Vector:
    // A depthwise convolution's result is accumulated in a buffer of its
    // own before the bias is added (tosa-to-linalg-named).
    return paddedInputBytes(*shape, conv) +
           (shape->depthwise ? shape->output.getNumElements() *
                                   elementBytes(shape->output.getElementType())
                             : 0);
  case ConvPrimitive::Im2col: {
    // One output row: its windows, its accumulators (a fused row tile),
    // and the padded rows of input it reads when the input is padded.
    int64_t ow = shape->output.getDimSize(2), f = shape->output.getDimSize(3);
    int64_t kh = shape->weight.getDimSize(1), kw = shape->weight.getDimSize(2);
    int64_t c = shape->input.getDimSize(3);
    int64_t inBytes = elementBytes(shape->input.getElementType());
    int64_t bytes = ow * kh * kw * c * inBytes +
                    ow * f * elementBytes(shape->output.getElementType());
    auto pad = conv->getAttrOfType<DenseI64ArrayAttr>("pad");
    if (pad && llvm::any_of(pad.asArrayRef(), [](int64_t p) { return p; }))
      bytes +=
          kh * (shape->input.getDimSize(2) + pad[2] + pad[3]) * c * inBytes;
    return bytes;
  }
  case ConvPrimitive::Winograd2:
    return winogradBytes(*shape, 2);
  case ConvPrimitive::Winograd4:
    return winogradBytes(*shape, 4);
  }
  return 0;
}

std::string mlir::serenity::getConvShapeKey(Operation *conv) {
  std::optional<ConvShape> shape = getConvShape(conv);
  if (!shape)
    return "";
  std::string key;
  llvm::raw_string_ostream os(key);
  auto type = [&](RankedTensorType t) {
    for (int64_t d : t.getShape())
      os << d << "x";
    os << t.getElementType();
  };
  os << (shape->depthwise ? "depthwise" : "conv2d") << " ";
  type(shape->input);
  os << " ";
  type(shape->weight);
  os << " ";
  type(shape->output);
  os << " s";
  llvm::interleave(shape->stride, os, "x");
  os << " d";
  llvm::interleave(shape->dilation, os, "x");
  os << " p";
  if (auto pad = conv->getAttrOfType<DenseI64ArrayAttr>("pad"))
    llvm::interleave(pad.asArrayRef(), os, ",");
  return key;
}

ConvPrimitive mlir::serenity::getChosenPrimitive(Operation *conv) {
  return getConvPrimitive(conv).value_or(ConvPrimitive::Direct);
}
