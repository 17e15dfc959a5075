//===- TilingHelpers.h - Shared by spatial and channel tiling --*- C++ -*-===//
//
// Internal to lib/Transforms: what SpatialTiling.cpp (FFMT) and
// ChannelTiling.cpp (FDT) agree on.
//
//===----------------------------------------------------------------------===//

#ifndef SERENITY_LIB_TRANSFORMS_TILINGHELPERS_H
#define SERENITY_LIB_TRANSFORMS_TILINGHELPERS_H

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

/// Ops lowered to one elementwise loop (TOSA elementwise, rescale, clamp,
/// cast): a tile or a partition of them is the op on the tile.
inline bool isTilePointwise(Operation *op) {
  return op->hasTrait<OpTrait::tosa::TosaElementwiseOperator>() ||
         isa<tosa::RescaleOp, tosa::ClampOp, tosa::CastOp>(op);
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

#endif // SERENITY_LIB_TRANSFORMS_TILINGHELPERS_H
