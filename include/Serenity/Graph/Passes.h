//===- Passes.h - Serenity graph-level passes -------------------*- C++ -*-===//
//
// TOSA to TOSA: the passes that count memory (the memory model) and change
// the graph or its order for the least peak. docs/Architecture.md.
//
//===----------------------------------------------------------------------===//

#ifndef SERENITY_GRAPH_PASSES_H
#define SERENITY_GRAPH_PASSES_H

#include "Serenity/Dialect/Serenity/IR/SerenityDialect.h"
#include "Serenity/Graph/PassEnums.h"
#include "Serenity/Support/Unoptimized.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace serenity {

#define GEN_PASS_DECL
#include "Serenity/Graph/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "Serenity/Graph/Passes.h.inc"

} // namespace serenity
} // namespace mlir

#endif // SERENITY_GRAPH_PASSES_H
