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

} // namespace serenity
} // namespace mlir

#endif // SERENITY_TRANSFORMS_PASSES_H
