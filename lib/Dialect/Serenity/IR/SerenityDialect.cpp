//===- SerenityDialect.cpp - Serenity dialect and attributes ---*- C++ -*-===//

#include "Serenity/Dialect/Serenity/IR/SerenityDialect.h"
#include "Serenity/Dialect/Serenity/IR/SerenityAttrs.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::serenity;

#include "Serenity/Dialect/Serenity/IR/SerenityDialect.cpp.inc"

#include "Serenity/Dialect/Serenity/IR/SerenityEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "Serenity/Dialect/Serenity/IR/SerenityAttrs.cpp.inc"

void SerenityDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "Serenity/Dialect/Serenity/IR/SerenityAttrs.cpp.inc"
      >();
}

LogicalResult
LifetimeAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                     int64_t bytes, int64_t def, int64_t last) {
  if (bytes < 0)
    return emitError() << "lifetime bytes must be >= 0, got " << bytes;
  if (def < -1)
    return emitError() << "lifetime def step must be >= -1 (-1 is a "
                          "function argument), got "
                       << def;
  if (last < def)
    return emitError() << "lifetime last-use step (" << last
                       << ") must be >= def step (" << def << ")";
  return success();
}

LogicalResult SerenityDialect::verifyOperationAttribute(Operation *op,
                                                        NamedAttribute attr) {
  if (attr.getName() != kPrimitiveAttrName)
    return success();
  if (!isa<ConvPrimitiveAttr>(attr.getValue()))
    return op->emitError() << "'" << kPrimitiveAttrName
                           << "' must be a #serenity.primitive<...> "
                              "attribute, got "
                           << attr.getValue();
  if (op->getNumOperands() < 2)
    return op->emitError() << "'" << kPrimitiveAttrName
                           << "' belongs on a convolution";
  return success();
}

std::optional<ConvPrimitive> mlir::serenity::getConvPrimitive(Operation *op) {
  if (auto attr = op->getAttrOfType<ConvPrimitiveAttr>(kPrimitiveAttrName))
    return attr.getValue();
  return std::nullopt;
}

void mlir::serenity::registerSerenityDialect(DialectRegistry &registry) {
  registry.insert<SerenityDialect>();
}
