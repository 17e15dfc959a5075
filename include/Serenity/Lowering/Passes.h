//===- Passes.h - Serenity lowering passes ----------------------*- C++ -*-===//
//
// From the scheduled TOSA graph to linalg, memrefs in one static arena and
// the kernels, ahead of upstream's LLVM conversion. docs/Architecture.md.
//
//===----------------------------------------------------------------------===//

#ifndef SERENITY_LOWERING_PASSES_H
#define SERENITY_LOWERING_PASSES_H

#include "Serenity/Dialect/Serenity/IR/SerenityDialect.h"
#include "Serenity/Lowering/PassEnums.h"
#include "Serenity/Support/Unoptimized.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace serenity {

#define GEN_PASS_DECL
#include "Serenity/Lowering/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "Serenity/Lowering/Passes.h.inc"

} // namespace serenity
} // namespace mlir

#endif // SERENITY_LOWERING_PASSES_H
