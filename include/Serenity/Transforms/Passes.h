//===- Passes.h - Serenity passes -------------------------------*- C++ -*-===//

#ifndef SERENITY_TRANSFORMS_PASSES_H
#define SERENITY_TRANSFORMS_PASSES_H

#include "Serenity/Dialect/Serenity/IR/SerenityDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace serenity {

#define GEN_PASS_DECL
#include "Serenity/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "Serenity/Transforms/Passes.h.inc"

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

#endif // SERENITY_TRANSFORMS_PASSES_H
