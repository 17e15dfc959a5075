//===- Kernels.h - The kernels of a lowered network function ----*- C++ -*-===//
//
// After static allocation a network is one function whose top-level ops are
// its kernels (a linalg op, a loop nest, a copy) on views of the arena.
// serenity-outline-kernels moves them into functions of their own,
// serenity-share-kernels shares identical ones and serenity-profile-marks
// times them; they find them with isTopLevelKernel.
//
//===----------------------------------------------------------------------===//

#ifndef SERENITY_LOWERING_KERNELS_H
#define SERENITY_LOWERING_KERNELS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Operation.h"
#include "mlir/Interfaces/CallInterfaces.h"

namespace mlir {
namespace serenity {

/// On a filter copy made by serenity-int8-conv-kernels (int16, widened at
/// compile time): the int8 global it stands for.
constexpr llvm::StringLiteral kWidenedFrom = "serenity.widened_from";

/// A top-level op of a lowered function that does the work of one layer (or
/// part of one): an op without results with a region, a linalg op or a
/// memref.copy; not a call or a terminator.
inline bool isTopLevelKernel(Operation *op) {
  if (op->getNumResults() != 0 || op->hasTrait<OpTrait::IsTerminator>() ||
      isa<CallOpInterface>(op))
    return false;
  return op->getNumRegions() != 0 || isa<linalg::LinalgOp>(op) ||
         isa<memref::CopyOp>(op);
}

/// The value standing for `value` in a new function being built from a
/// kernel: mapped already, or rebuilt by cloning its definition and those
/// of its operands (which the caller checked are side-effect free) at
/// `builder`'s point. serenity-outline-kernels and serenity-share-kernels
/// rebuild constants (and views of the arena) this way.
inline Value rebuildInto(Value value, OpBuilder &builder, IRMapping &mapping) {
  if (Value mapped = mapping.lookupOrNull(value))
    return mapped;
  Operation *def = value.getDefiningOp();
  for (Value operand : def->getOperands())
    rebuildInto(operand, builder, mapping);
  builder.clone(*def, mapping);
  return mapping.lookup(value);
}

} // namespace serenity
} // namespace mlir

#endif // SERENITY_LOWERING_KERNELS_H
