//===- Primitives.h - Convolution primitives: applicability, workspace -*- C++
//-*-===//
//
// Which primitives (#serenity.primitive) can compute a TOSA convolution and
// the workspace bytes each one's lowering allocates: shared by the memory
// model (workspaces are buffers live during the convolution's step), the
// selection pass and the lowering's checks, so they cannot disagree.
//
//===----------------------------------------------------------------------===//

#ifndef SERENITY_ANALYSIS_PRIMITIVES_H
#define SERENITY_ANALYSIS_PRIMITIVES_H

#include "Serenity/Dialect/Serenity/IR/SerenityAttrs.h"

#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace mlir {
namespace serenity {

/// Every primitive, in enum order.
ArrayRef<ConvPrimitive> allConvPrimitives();

/// The primitives' names in enum order, ", "-separated (for diagnostics).
std::string convPrimitiveNames();

/// True for the ops a primitive can be chosen for: tosa.conv2d and
/// tosa.depthwise_conv2d with static shapes.
bool isPrimitiveConv(Operation *op);

/// Whether `primitive` can compute `conv` (see isPrimitiveConv); otherwise
/// false, with the reason in `reason` when given:
/// - direct: always;
/// - dot: int8 input and filter, int32 result, constant zero points, the
///   filter's 0 and the input's within int16 (SSUB16 lanes), depthwise with
///   one channel per group (serenity-int8-conv-kernels);
/// - im2col: tosa.conv2d;
/// - winograd2 / winograd4: f32 tosa.conv2d with a 3x3 filter, stride 1,
///   dilation 1;
/// - vector: f32 tosa.conv2d, or tosa.depthwise_conv2d with one channel
///   per group, with a constant (dense) filter, on a target with a vector
///   unit (`vectorUnit`: the host; the LLVM lowering of vector ops is host
///   only).
bool isApplicable(Operation *conv, ConvPrimitive primitive,
                  std::string *reason = nullptr, bool vectorUnit = true);

/// The primitives that can compute `conv`, in enum order.
SmallVector<ConvPrimitive> applicablePrimitives(Operation *conv,
                                                bool vectorUnit = true);

/// Bytes of workspace `primitive`'s lowering of `conv` allocates (live while
/// the convolution runs), for an applicable primitive:
/// - direct, dot: 0;
/// - vector: the padded copy of the input when the convolution pads, and
///   for a depthwise convolution its unbiased result (its blocks live in
///   registers, its transposed filter is a constant);
/// - im2col: the lowering computes one output row at a time: the row's
///   windows (OW x KH x KW x C input elements), its accumulators (OW x F)
///   and, for a padded input, its KH padded input rows; an upper bound
///   (the border rows' windows are clipped);
/// - winograd: the transformed filter, input tiles and products of
///   upstream linalg.winograd_* (see lib/Analysis/Primitives.cpp).
int64_t getWorkspaceBytes(Operation *conv, ConvPrimitive primitive);

/// The key of `conv`'s shape in a profile: the op, operand and result types,
/// stride, dilation and padding (what a primitive's time depends on), e.g.
/// "conv2d 1x32x32x16xi8 16x3x3x16xi8 1x32x32x16xi32 s1x1 d1x1 p1,1,1,1".
std::string getConvShapeKey(Operation *conv);

/// True for winograd2 and winograd4.
inline bool isWinograd(ConvPrimitive primitive) {
  return primitive == ConvPrimitive::Winograd2 ||
         primitive == ConvPrimitive::Winograd4;
}

/// True for the primitives whose lowering computes the convolution whole
/// (winograd: m x m tiles; vector: its own register blocks), so
/// serenity-fuse-requantization does not tile it into its consumer.
inline bool computesConvWhole(ConvPrimitive primitive) {
  return isWinograd(primitive) || primitive == ConvPrimitive::Vector;
}

/// The primitive tagged on `conv` (serenity.primitive), else direct.
ConvPrimitive getChosenPrimitive(Operation *conv);

} // namespace serenity
} // namespace mlir

#endif // SERENITY_ANALYSIS_PRIMITIVES_H
