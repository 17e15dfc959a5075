//===- ConcatCopies.cpp - Lower concats as the model counts them -*- C++
//-*-===//
//
// After scheduling, before tosa-to-tensor: a concat the memory model counts
// as a copy becomes a tensor.concat (one copy per operand after
// bufferization); in a concat it counts in place, every operand it does not
// count in place is copied first, so that eliminate-empty-tensors moves only
// the model's in-place operands' producers into the concat's slices.
//
//===----------------------------------------------------------------------===//

#include "Serenity/Analysis/MemoryModel.h"
#include "Serenity/Lowering/Passes.h"

#include "Serenity/Support/TensorCopy.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"

namespace mlir {
namespace serenity {
#define GEN_PASS_DEF_SERENITYCONCATCOPIESPASS
#include "Serenity/Lowering/Passes.h.inc"
} // namespace serenity
} // namespace mlir

using namespace mlir;
using namespace mlir::serenity;

namespace {

struct SerenityConcatCopiesPass
    : public mlir::serenity::impl::SerenityConcatCopiesPassBase<
          SerenityConcatCopiesPass> {
  using Base::Base;

  void runOnOperation() override {
    // serenity-pipeline leaves this function to the upstream lowering.
    if (mlir::serenity::isUnoptimized(getOperation()))
      return;
    const ConcatMode mode = concat;
    OpBuilder builder(&getContext());
    SmallVector<tosa::ConcatOp> copies;
    getOperation().walk([&](tosa::ConcatOp concat) {
      if (!isInPlaceConcat(concat, mode)) {
        copies.push_back(concat);
        return;
      }
      // What the memory model counts in place stays; everything else is
      // copied (eliminate-empty-tensors would otherwise also move e.g. a
      // producer whose result has other users into the slice, making the
      // concat's buffer live from that earlier producer on).
      builder.setInsertionPoint(concat);
      for (OpOperand &operand : concat->getOpOperands())
        if (!isInPlaceConcatOperand(operand.get(), *concat->getBlock()))
          operand.set(copyToNewTensor(builder, concat.getLoc(), operand.get()));
    });
    // A concat that copies is a tensor.concat: bufferized as one copy per
    // operand into a new buffer, like the insert_slice chain tosa-to-tensor
    // would make, but without the chain's analysis cost (one-shot analysis
    // of a k-operand insert_slice chain grows like k^4: 400 operands took
    // 440 s).
    for (tosa::ConcatOp concat : copies) {
      builder.setInsertionPoint(concat);
      auto replacement = tensor::ConcatOp::create(
          builder, concat.getLoc(), concat.getType(),
          static_cast<int64_t>(concat.getAxis()), concat.getInput1());
      concat.replaceAllUsesWith(replacement.getResult());
      concat.erase();
    }
  }
};

} // namespace
