//===- TensorCopy.h - An explicit copy of a tensor value -------*- C++ -*-===//
//
// Shared by serenity-prepare-input (lib/Graph) and serenity-concat-copies
// (lib/Lowering): the `tensor.empty` + `linalg.copy` that gives a
// value a buffer of its own after bufferization (a repeated function result,
// a concat operand that must be copied rather than produced in place).
//
//===----------------------------------------------------------------------===//

#ifndef SERENITY_SUPPORT_TENSORCOPY_H
#define SERENITY_SUPPORT_TENSORCOPY_H

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

namespace mlir {
namespace serenity {

/// A copy of `value` into a new tensor, built at `builder`'s insertion
/// point; `value` itself when it is not a statically shaped ranked tensor.
/// The destination is a `tensor.empty`, which `eliminate-empty-tensors` may
/// replace by a slice of where the copy is inserted (a concat's output);
/// with `ownBuffer` it is a `bufferization.alloc_tensor`, which always gets a
/// buffer of its own (a repeated function result must not alias the first).
inline Value copyToNewTensor(OpBuilder &builder, Location loc, Value value,
                             bool ownBuffer = false) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.hasStaticShape())
    return value;
  Value empty =
      ownBuffer ? bufferization::AllocTensorOp::create(builder, loc, type,
                                                       ValueRange())
                      .getResult()
                : tensor::EmptyOp::create(builder, loc, type.getShape(),
                                          type.getElementType())
                      .getResult();
  return linalg::CopyOp::create(builder, loc, value, empty)->getResult(0);
}

} // namespace serenity
} // namespace mlir

#endif // SERENITY_SUPPORT_TENSORCOPY_H
