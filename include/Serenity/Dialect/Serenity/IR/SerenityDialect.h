//===- SerenityDialect.h - Serenity dialect ---------------------*- C++ -*-===//

#ifndef SERENITY_DIALECT_SERENITY_IR_SERENITYDIALECT_H
#define SERENITY_DIALECT_SERENITY_IR_SERENITYDIALECT_H

#include "mlir/IR/Dialect.h"

#include "Serenity/Dialect/Serenity/IR/SerenityDialect.h.inc"

namespace mlir {
class DialectRegistry;
namespace serenity {
/// Adds the serenity dialect to `registry`, for tools other than serenity-opt.
void registerSerenityDialect(DialectRegistry &registry);
} // namespace serenity
} // namespace mlir

#endif // SERENITY_DIALECT_SERENITY_IR_SERENITYDIALECT_H
