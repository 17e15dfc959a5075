//===- TensorCopy.h - An explicit copy of a tensor value -------*- C++ -*-===//
//
// Internal to lib/Transforms: the `tensor.empty` + `linalg.copy` that gives a
// value a buffer of its own after bufferization (a repeated function result,
// a concat operand that must be copied rather than produced in place).
//
//===----------------------------------------------------------------------===//

#ifndef SERENITY_LIB_TRANSFORMS_TENSORCOPY_H
#define SERENITY_LIB_TRANSFORMS_TENSORCOPY_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

namespace mlir {
namespace serenity {

/// A copy of `value` into a new tensor, built at `builder`'s insertion
/// point; `value` itself when it is not a statically shaped ranked tensor.
inline Value copyToNewTensor(OpBuilder &builder, Location loc, Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.hasStaticShape())
    return value;
  Value empty = tensor::EmptyOp::create(builder, loc, type.getShape(),
                                        type.getElementType());
  return linalg::CopyOp::create(builder, loc, value, empty)->getResult(0);
}

} // namespace serenity
} // namespace mlir

#endif // SERENITY_LIB_TRANSFORMS_TENSORCOPY_H
