//===- Unoptimized.h - Functions left to the upstream lowering --*- C++ -*-===//
//
// Shared by the graph-level and lowering passes: serenity-prepare-input marks
// the functions serenity-pipeline does not optimize, the others skip them.
//
//===----------------------------------------------------------------------===//

#ifndef SERENITY_SUPPORT_UNOPTIMIZED_H
#define SERENITY_SUPPORT_UNOPTIMIZED_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/StringRef.h"

namespace mlir {
namespace serenity {

/// The attribute serenity-prepare-input puts on a function serenity-pipeline
/// leaves to the upstream lowering (a driver, a function outside the memory
/// model or not selected); its value says why. The pipeline's own passes
/// leave such functions alone.
constexpr llvm::StringLiteral kUnoptimizedAttrName = "serenity.unoptimized";

/// True when `function` carries kUnoptimizedAttrName.
inline bool isUnoptimized(Operation *function) {
  return function->hasAttr(kUnoptimizedAttrName);
}

} // namespace serenity
} // namespace mlir

#endif // SERENITY_SUPPORT_UNOPTIMIZED_H
