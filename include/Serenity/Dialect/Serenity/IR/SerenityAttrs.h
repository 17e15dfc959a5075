//===- SerenityAttrs.h - Serenity attributes --------------------*- C++ -*-===//

#ifndef SERENITY_DIALECT_SERENITY_IR_SERENITYATTRS_H
#define SERENITY_DIALECT_SERENITY_IR_SERENITYATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"

#define GET_ATTRDEF_CLASSES
#include "Serenity/Dialect/Serenity/IR/SerenityAttrs.h.inc"

#endif // SERENITY_DIALECT_SERENITY_IR_SERENITYATTRS_H
