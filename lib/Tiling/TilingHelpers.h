//===- TilingHelpers.h - Shared by spatial and channel tiling --*- C++ -*-===//
//
// Internal to lib/Tiling: what SpatialTiling.cpp (FFMT) and
// ChannelTiling.cpp (FDT) agree on.
//
//===----------------------------------------------------------------------===//

#ifndef SERENITY_LIB_TILING_TILINGHELPERS_H
#define SERENITY_LIB_TILING_TILINGHELPERS_H

#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir {
namespace serenity {

/// The type of a statically shaped rank-4 (NHWC) tensor value, else null.
inline RankedTensorType getStaticNHWC(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && type.getRank() == 4 && type.hasStaticShape() ? type
                                                              : nullptr;
}

/// `tosa.slice` of `value` (static shape) from `start` with `size`, its
/// bounds as `tosa.const_shape` ops.
inline Value createSlice(OpBuilder &builder, Location loc, Value value,
                         ArrayRef<int64_t> start, ArrayRef<int64_t> size) {
  auto shape = [&](ArrayRef<int64_t> values) -> Value {
    auto type = RankedTensorType::get({static_cast<int64_t>(values.size())},
                                      builder.getIndexType());
    return tosa::ConstShapeOp::create(
        builder, loc,
        tosa::shapeType::get(builder.getContext(),
                             static_cast<int>(values.size())),
        DenseIntElementsAttr::get(type, values));
  };
  auto type = RankedTensorType::get(
      size, cast<RankedTensorType>(value.getType()).getElementType());
  return tosa::SliceOp::create(builder, loc, type, value, shape(start),
                               shape(size));
}

/// A clone made for one tile or partition: other passes' annotations
/// describe the old graph and are dropped; `tileAttr` (when given) marks it.
inline void markTileClone(OpBuilder &builder, Operation *clone,
                          StringRef tileAttr) {
  clone->setDiscardableAttrs(ArrayRef<NamedAttribute>{});
  if (!tileAttr.empty())
    clone->setAttr(tileAttr, builder.getUnitAttr());
}

} // namespace serenity
} // namespace mlir

#endif // SERENITY_LIB_TILING_TILINGHELPERS_H
