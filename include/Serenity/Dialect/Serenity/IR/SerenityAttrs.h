//===- SerenityAttrs.h - Serenity attributes --------------------*- C++ -*-===//

#ifndef SERENITY_DIALECT_SERENITY_IR_SERENITYATTRS_H
#define SERENITY_DIALECT_SERENITY_IR_SERENITYATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/Operation.h"

#include "Serenity/Dialect/Serenity/IR/SerenityEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "Serenity/Dialect/Serenity/IR/SerenityAttrs.h.inc"

namespace mlir {
namespace serenity {
/// The discardable attribute naming a convolution's primitive
/// (#serenity.primitive<...>).
inline constexpr llvm::StringLiteral kPrimitiveAttrName = "serenity.primitive";

/// The primitive `op` carries, if any.
std::optional<ConvPrimitive> getConvPrimitive(Operation *op);
} // namespace serenity
} // namespace mlir

#endif // SERENITY_DIALECT_SERENITY_IR_SERENITYATTRS_H
